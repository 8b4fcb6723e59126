//! The most recent event ids of a stream, for dropping replayed duplicates
//! in bounded memory.

use std::collections::VecDeque;
use std::hash::BuildHasher;

use hashbrown::HashTable;

/// Remembers the last `capacity` ids. Each id is hashed once on the way in
/// and once on lookup, never on the way out (its hash is kept), and is
/// stored once: the table holds positions in the ring of ids.
#[derive(Debug, Clone)]
pub struct RecentIds {
    /// A keyed hash (SipHash), so that a server cannot choose colliding ids.
    hasher: std::collections::hash_map::RandomState,
    /// Sequence numbers of the ids in `ring`.
    table: HashTable<u64>,
    /// The ids, oldest first, with their hashes.
    ring: VecDeque<(u64, String)>,
    /// The sequence number of `ring[0]`.
    first: u64,
    capacity: usize,
}

impl RecentIds {
    pub fn new(capacity: usize) -> Self {
        RecentIds {
            hasher: Default::default(),
            table: HashTable::new(),
            ring: VecDeque::new(),
            first: 0,
            capacity,
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.contains_hashed(self.hash(id), id)
    }

    /// Remembers an id (one not [`contains`](Self::contains)ed), forgetting
    /// the oldest beyond the capacity.
    pub fn insert(&mut self, id: &str) {
        self.insert_hashed(self.hash(id), id);
    }

    /// The id's hash, for a `contains` and an `insert` of one id that hash
    /// it once.
    pub fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    pub fn contains_hashed(&self, hash: u64, id: &str) -> bool {
        let (ring, first) = (&self.ring, self.first);
        self.table
            .find(hash, |&seq| ring[(seq - first) as usize].1 == id)
            .is_some()
    }

    pub fn insert_hashed(&mut self, hash: u64, id: &str) {
        let mut text = String::new();
        if self.ring.len() == self.capacity {
            let Some((old_hash, old_text)) = self.ring.pop_front() else {
                return; // a capacity of 0 remembers nothing
            };
            let first = self.first;
            if let Ok(entry) = self.table.find_entry(old_hash, |&seq| seq == first) {
                entry.remove();
            }
            self.first += 1;
            text = old_text; // its buffer, reused
            text.clear();
        }
        text.push_str(id);
        let seq = self.first + self.ring.len() as u64;
        self.ring.push_back((hash, text));
        let (ring, first) = (&self.ring, self.first);
        self.table
            .insert_unique(hash, seq, |&seq| ring[(seq - first) as usize].0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_the_oldest_beyond_capacity() {
        let mut ids = RecentIds::new(3);
        for id in ["a", "b", "c"] {
            assert!(!ids.contains(id));
            ids.insert(id);
        }
        assert!(ids.contains("a") && ids.contains("c"));
        ids.insert("d");
        assert!(!ids.contains("a"));
        assert!(ids.contains("b") && ids.contains("d"));
        for i in 0..1000 {
            ids.insert(&i.to_string());
        }
        assert!(ids.contains("999") && ids.contains("997") && !ids.contains("996"));
        assert_eq!(ids.table.len(), 3);
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut ids = RecentIds::new(0);
        ids.insert("a");
        assert!(!ids.contains("a"));
    }
}
