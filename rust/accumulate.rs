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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_starts_and_leaves_other_values() {
        let mut map = Map::new();
        append(&mut map, "a", "x");
        append(&mut map, "a", "y");
        map.insert("n".into(), Value::from(1));
        append(&mut map, "n", "z");
        assert_eq!(Value::Object(map).to_string(), r#"{"a":"xy","n":1}"#);
    }
}
