//! Appending to strings inside JSON state: what every delta comes down to.
//! Strings grow in place, amortised O(1) per byte appended.

use crate::json::{Map, Value};

/// Appends `piece` to the string at `key`: a missing or null value starts
/// as "", any other value that is not a string is left alone.
pub fn append(container: &mut Map<String, Value>, key: &str, piece: &str) {
    match container.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        None | Some(Value::Null) => {
            container.insert(key.to_owned(), Value::String(piece.to_owned()));
        }
        Some(_) => {}
    }
}

/// [`append`], looking first at position `*hint`, where the key was last
/// time: deltas append to the same field over and over, and a look by
/// position costs a key compare where a lookup by key hashes it. `*hint`
/// is updated when the key has moved.
pub fn append_at(container: &mut Map<String, Value>, key: &str, piece: &str, hint: &mut usize) {
    if let Some((found, value)) = container.iter_mut().nth(*hint) {
        if found == key {
            match value {
                Value::String(text) => text.push_str(piece),
                Value::Null => *value = Value::String(piece.to_owned()),
                _ => {}
            }
            return;
        }
    }
    append(container, key, piece);
    *hint = container
        .keys()
        .position(|found| found == key)
        .unwrap_or(usize::MAX);
}

/// The value at `key`, looking first at position `*hint`, as [`append_at`]
/// does; `*hint` is updated when the key has moved.
pub fn get_mut_at<'m>(
    container: &'m mut Map<String, Value>,
    key: &str,
    hint: &mut usize,
) -> Option<&'m mut Value> {
    if container.keys().nth(*hint).is_none_or(|found| found != key) {
        *hint = container.keys().position(|found| found == key)?;
    }
    container.values_mut().nth(*hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_hint_and_follows_a_moved_key() {
        let mut map = Map::new();
        map.insert("a".into(), Value::from(1));
        map.insert("b".into(), Value::from(2));
        let mut hint = usize::MAX;
        assert_eq!(
            get_mut_at(&mut map, "b", &mut hint),
            Some(&mut Value::from(2))
        );
        assert_eq!(hint, 1);
        map.shift_remove("a");
        assert_eq!(
            get_mut_at(&mut map, "b", &mut hint),
            Some(&mut Value::from(2))
        );
        assert_eq!(hint, 0);
        assert_eq!(get_mut_at(&mut map, "c", &mut hint), None);
        assert_eq!(hint, 0);
    }

    #[test]
    fn appends_starts_and_leaves_other_values() {
        let mut map = Map::new();
        append(&mut map, "a", "x");
        append(&mut map, "a", "y");
        map.insert("n".into(), Value::from(1));
        append(&mut map, "n", "z");
        assert_eq!(Value::Object(map).to_string(), r#"{"a":"xy","n":1}"#);
    }

    #[test]
    fn append_at_is_append() {
        let mut map = Map::new();
        let mut hint = usize::MAX;
        append_at(&mut map, "a", "x", &mut hint);
        assert_eq!(hint, 0);
        map.insert("n".into(), Value::from(1));
        map.insert("z".into(), Value::Null);
        append_at(&mut map, "a", "y", &mut hint);
        append_at(&mut map, "n", "q", &mut hint);
        assert_eq!(hint, 1);
        append_at(&mut map, "z", "1", &mut hint);
        append_at(&mut map, "z", "2", &mut hint);
        assert_eq!(hint, 2);
        // A stale hint (the key moved) finds it by name.
        map.shift_remove("a");
        append_at(&mut map, "z", "3", &mut hint);
        assert_eq!(hint, 1);
        assert_eq!(Value::Object(map).to_string(), r#"{"n":1,"z":"123"}"#);
    }
}
