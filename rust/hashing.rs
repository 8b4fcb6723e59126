//! The hash tables the assemblers and decoders keep their ids in.
//!
//! Every delta looks up the message, block or call it appends to by an id
//! the stream gives, so the hash of a short string is on the path of every
//! event. The standard library's SipHash-1-3 costs several times what
//! foldhash does on ids this short; foldhash is keyed per table with a
//! random seed, so that a server still cannot choose ids that collide.
//! (foldhash is already built: hashbrown and the recent-id set use it.)
//!
//! Build the tables with `default()`: `new()` belongs to SipHash's tables.

/// The hasher of every table below.
pub type RandomState = foldhash::fast::RandomState;

/// `std::collections::HashMap` with foldhash.
pub type HashMap<K, V> = std::collections::HashMap<K, V, RandomState>;

/// `std::collections::HashSet` with foldhash.
pub type HashSet<T> = std::collections::HashSet<T, RandomState>;

/// `indexmap::IndexMap` with foldhash: insertion order kept.
pub type IndexMap<K, V> = indexmap::IndexMap<K, V, RandomState>;

/// `indexmap::IndexSet` with foldhash: found by borrowed parts too
/// (`events::BlockRef`).
pub type IndexSet<T> = indexmap::IndexSet<T, RandomState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_seeded_per_instance() {
        // Two tables hash the same id differently: the seed is not fixed.
        use std::hash::BuildHasher;
        let seeds: std::collections::BTreeSet<u64> = (0..8)
            .map(|_| RandomState::default().hash_one("msg_1"))
            .collect();
        assert!(seeds.len() > 1);
    }

    #[test]
    fn maps_keep_what_they_are_given() {
        let mut ids: HashMap<String, usize> = HashMap::default();
        ids.insert("a".to_owned(), 1);
        assert_eq!(ids.get("a"), Some(&1));
        let mut ordered: IndexMap<String, usize> = IndexMap::default();
        ordered.insert("z".to_owned(), 0);
        ordered.insert("a".to_owned(), 1);
        assert_eq!(ordered.keys().collect::<Vec<_>>(), ["z", "a"]);
    }
}
