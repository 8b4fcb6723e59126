//! The most recent event ids of a stream, for dropping replayed duplicates
//! in bounded memory.

use std::collections::VecDeque;
use std::hash::BuildHasher;

use hashbrown::HashTable;

/// Remembers the last `capacity` ids. Each id is hashed once on the way in
/// and once on lookup, never on the way out (its hash is kept), and is
/// stored once, in one buffer of the ids' bytes that is appended to and
/// consumed from the front as the ring turns: no allocation an id (which
/// cost a quarter of reading a LangChain event while the ring filled). The
/// table holds positions in the ring.
#[derive(Debug, Clone)]
pub struct RecentIds {
    /// A hash keyed per instance with a random seed (foldhash), so that a
    /// server cannot choose colliding ids; several times cheaper than
    /// SipHash on ids this short.
    hasher: foldhash::fast::RandomState,
    /// Sequence numbers of the ids in `ring`.
    table: HashTable<u64>,
    /// The ids, oldest first: each one's hash and where its bytes end in
    /// the stream of all ids' bytes (it starts where the one before ends).
    ring: VecDeque<(u64, u64)>,
    /// The bytes of the ids in `ring` (and of some forgotten before them,
    /// dropped in bulk), starting at `text_base` in the stream of all ids.
    text: Vec<u8>,
    text_base: u64,
    /// Where the oldest id in `ring` starts in the stream of all ids.
    text_first: u64,
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
            text: Vec::new(),
            text_base: 0,
            text_first: 0,
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

    /// The bytes of the id at `seq`, one of those in the ring.
    fn id_at(&self, seq: u64) -> &[u8] {
        let at = (seq - self.first) as usize;
        let start = match at {
            0 => self.text_first,
            _ => self.ring[at - 1].1,
        };
        let end = self.ring[at].1;
        &self.text[(start - self.text_base) as usize..(end - self.text_base) as usize]
    }

    pub fn contains_hashed(&self, hash: u64, id: &str) -> bool {
        self.table
            .find(hash, |&seq| self.id_at(seq) == id.as_bytes())
            .is_some()
    }

    pub fn insert_hashed(&mut self, hash: u64, id: &str) {
        if self.ring.len() == self.capacity {
            let Some((old_hash, old_end)) = self.ring.pop_front() else {
                return; // a capacity of 0 remembers nothing
            };
            let first = self.first;
            if let Ok(entry) = self.table.find_entry(old_hash, |&seq| seq == first) {
                entry.remove();
            }
            self.first += 1;
            self.text_first = old_end;
            // The forgotten bytes go once they are half the buffer: each
            // byte is moved at most once on average, and the buffer holds
            // at most twice the ids remembered.
            let forgotten = (self.text_first - self.text_base) as usize;
            if forgotten > self.text.len() / 2 {
                self.text.drain(..forgotten);
                self.text_base = self.text_first;
            }
        }
        self.text.extend_from_slice(id.as_bytes());
        let end = self.text_base + self.text.len() as u64;
        let seq = self.first + self.ring.len() as u64;
        self.ring.push_back((hash, end));
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
    fn remembers_exactly_the_last_ids_of_every_length_as_the_ring_turns() {
        // Ids of varied lengths (the empty one too), so that their bytes'
        // buffer is consumed and compacted at many places.
        let id = |i: usize| "x".repeat(i % 7) + &i.to_string();
        for capacity in [1, 2, 5, 64] {
            let mut ids = RecentIds::new(capacity);
            for i in 0..500 {
                assert!(!ids.contains(&id(i)), "{capacity} {i}");
                ids.insert(&id(i));
                for back in 0..capacity.min(i + 1) {
                    assert!(ids.contains(&id(i - back)), "{capacity} {i} {back}");
                }
                if i >= capacity {
                    assert!(!ids.contains(&id(i - capacity)), "{capacity} {i}");
                }
                assert!(ids.text.len() <= 2 * 7 * capacity + 16);
            }
            assert_eq!(ids.table.len(), capacity);
        }
        let mut ids = RecentIds::new(2);
        ids.insert("");
        assert!(ids.contains("") && !ids.contains("a"));
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut ids = RecentIds::new(0);
        ids.insert("a");
        assert!(!ids.contains("a"));
    }
}
