//! A JSON value kept as its text.
//!
//! An assembler holds every message until the stream ends, and a small
//! message as a `Value` tree costs several times its text: each map is an
//! `IndexMap` of 112-byte buckets (a hash, a heap `String` key, an 80-byte
//! `Value`) with a hash table beside it, its capacity rounded up. A message
//! that is done changing is kept as its compact JSON text instead, and
//! parsed again when it is read or, rarely, changed. Only small values are
//! worth it: the maps of a large one are a small part of it, and its text
//! would cost a copy and a parse on every read.

use crate::json::{Map, Value, MAX_DEPTH};

/// The largest message an assembler keeps frozen, as JSON text: the maps
/// of a larger one are a small part of it, and its text would cost a parse
/// on every read.
pub const FREEZE_MAX_BYTES: usize = 16 * 1024;

/// A value read from an assembler: built as a value, or kept as the JSON
/// text of one (a reader may make its own objects from the text straight
/// away, as the Python binding does, without a `Value` tree between).
#[derive(Debug)]
pub enum Rendered<'a> {
    Value(Value),
    Json(&'a str),
}

impl Rendered<'_> {
    /// The value, parsed if it is text. The text is serde_json's own writing
    /// of a value within its depth limit: it reads back (null is a fallback
    /// that cannot be taken).
    pub fn into_value(self) -> Value {
        match self {
            Rendered::Value(value) => value,
            Rendered::Json(text) => crate::json::parse(text).unwrap_or(Value::Null),
        }
    }
}

/// A value stored as compact JSON text.
#[derive(Debug, Clone)]
pub struct FrozenValue(Box<str>);

impl FrozenValue {
    /// The value as text, or `None` when its text would be longer than
    /// `max_bytes` (known before writing it) or it is nested deeper than
    /// [`MAX_DEPTH`] (read back, serde_json would refuse it; such a value
    /// can only come from `feed_event`).
    pub fn freeze(value: &Value, max_bytes: usize) -> Option<Self> {
        let mut budget = Budget::new(max_bytes);
        if !budget.admits(value, MAX_DEPTH) {
            return None;
        }
        FrozenValue::write(value, budget.used())
    }

    /// A map's fields as text (see [`FrozenValue::freeze`]).
    pub fn freeze_map(map: &Map<String, Value>, max_bytes: usize) -> Option<Self> {
        let mut budget = Budget::new(max_bytes);
        if !budget.admits_map(map, MAX_DEPTH) {
            return None;
        }
        FrozenValue::write(map, budget.used())
    }

    /// The text of anything serde writes as JSON, written into a buffer of
    /// `size` bytes (the least the text can be, from a [`Budget`]; escapes
    /// alone make it grow): for a value written on the fly, which the
    /// caller has checked against a budget and the depth limit.
    pub fn write<T: serde::Serialize + ?Sized>(value: &T, size: usize) -> Option<Self> {
        let mut text = Vec::with_capacity(size);
        serde_json::to_writer(&mut text, value).ok()?;
        let text = String::from_utf8(text).ok()?;
        Some(FrozenValue(text.into_boxed_str()))
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The length of the text.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value again, equal to the one frozen.
    pub fn thaw(&self) -> Value {
        Rendered::Json(&self.0).into_value()
    }

    /// A frozen map's fields again.
    pub fn thaw_map(&self) -> Map<String, Value> {
        match self.thaw() {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }
}

/// What a value's text may still take: counted before it is written, from
/// the lengths of its strings and numbers (escapes aside, which only add),
/// so that a value too long to freeze costs no writing.
pub struct Budget {
    bytes: usize,
    max_bytes: usize,
}

impl Budget {
    pub fn new(max_bytes: usize) -> Self {
        Budget {
            bytes: max_bytes,
            max_bytes,
        }
    }

    /// How much was taken: the least the text can be.
    pub fn used(&self) -> usize {
        self.max_bytes - self.bytes
    }

    /// Takes `bytes` from the budget, if it has them.
    pub fn take(&mut self, bytes: usize) -> bool {
        match self.bytes.checked_sub(bytes) {
            Some(left) => {
                self.bytes = left;
                true
            }
            None => false,
        }
    }

    /// Whether `value` fits, nested at most `depth` arrays and objects deep.
    pub fn admits(&mut self, value: &Value, depth: usize) -> bool {
        match value {
            Value::Null | Value::Bool(true) => self.take(4),
            Value::Bool(false) => self.take(5),
            Value::Number(number) => self.take(number.as_str().len()),
            Value::String(text) => self.take(text.len() + 2),
            Value::Array(items) => {
                depth > 0
                    && self.take(items.len() + 1)
                    && items.iter().all(|item| self.admits(item, depth - 1))
            }
            Value::Object(map) => self.admits_map(map, depth),
        }
    }

    pub fn admits_map(&mut self, map: &Map<String, Value>, depth: usize) -> bool {
        depth > 0
            && self.take(map.len() * 2 + 1)
            && map
                .iter()
                .all(|(key, value)| self.take(key.len() + 2) && self.admits(value, depth - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_thaws_to_what_was_frozen() {
        let value = crate::json::parse(
            r#"{"b":1,"a":[1.50,"\u00e9\n",null,true,{"z":{}}],"n":123456789012345678901234567890}"#,
        )
        .unwrap();
        let frozen = FrozenValue::freeze(&value, 1000).unwrap();
        assert_eq!(frozen.thaw(), value);
        // Key order and number text are kept.
        assert_eq!(
            frozen.thaw().to_string(),
            r#"{"b":1,"a":[1.50,"é\n",null,true,{"z":{}}],"n":123456789012345678901234567890}"#
        );
        let Value::Object(map) = value else {
            unreachable!()
        };
        assert_eq!(FrozenValue::freeze_map(&map, 1000).unwrap().thaw_map(), map);
        // Writing stops at the cap.
        assert!(FrozenValue::freeze_map(&map, 20).is_none());
        assert_eq!(
            FrozenValue::freeze_map(&map, frozen.len()).unwrap().len(),
            frozen.len()
        );
    }

    #[test]
    fn a_value_too_deep_to_read_back_is_not_frozen() {
        let mut deep = Value::Null;
        for _ in 0..MAX_DEPTH {
            deep = Value::Array(vec![deep]);
        }
        let frozen = FrozenValue::freeze(&deep, 1000).unwrap();
        assert_eq!(frozen.thaw(), deep);
        let deeper = Value::Array(vec![deep.clone()]);
        assert!(FrozenValue::freeze(&deeper, 1000).is_none());
        let mut map = Map::new();
        map.insert("k".to_owned(), deep);
        assert!(FrozenValue::freeze_map(&map, 1000).is_none());
    }
}
