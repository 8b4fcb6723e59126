//! Reading a document into a [`Value`], with every object kept an object.
//!
//! With `arbitrary_precision`, serde_json hands a number to a visitor as a
//! map of one key, `$serde_json::private::Number`, whose value is the
//! number's text; its own `Value` visitor reads any map whose first key is
//! that one as a number. A document's object with that key would then
//! become a number (`{"$serde_json::private::Number":"12"}` reads as `12`),
//! or fail to read, where every other JSON reader keeps an object.
//!
//! The two differ in where the key's text lives: a key of the document is
//! either borrowed from the document or, when it holds escapes, decoded into
//! a buffer of its own (`visit_str`), while the number's key is serde_json's
//! own constant. This visitor reads a number only from the constant.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The key serde_json gives a number's text under.
const NUMBER_KEY: &str = "$serde_json::private::Number";

/// Reads one JSON document as `serde_json::from_str` does, objects kept.
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Document { text }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// A value of the document `text`: it tells a key of the document from the
/// one serde_json makes up for a number.
#[derive(Clone, Copy)]
struct Document<'t> {
    text: &'t str,
}

impl Document<'_> {
    #[inline]
    fn holds(&self, key: &str) -> bool {
        let start = self.text.as_ptr() as usize;
        let at = key.as_ptr() as usize;
        at >= start && at < start + self.text.len()
    }
}

impl<'de> DeserializeSeed<'de> for Document<'_> {
    type Value = Value;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Document<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    #[inline]
    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    #[inline]
    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    #[inline]
    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    #[inline]
    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    #[inline]
    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    #[inline]
    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    #[inline]
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut values = Vec::new();
        while let Some(item) = items.next_element_seed(self)? {
            values.push(item);
        }
        Ok(Value::Array(values))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        let first = match entries.next_key_seed(KeySeed(self))? {
            None => return Ok(Value::Object(Map::new())),
            Some(Key::Number) => {
                let text: String = entries.next_value()?;
                return text.parse().map(Value::Number).map_err(de::Error::custom);
            }
            Some(Key::Named(name)) => name,
        };
        let mut map = Map::new();
        map.insert(first, entries.next_value_seed(self)?);
        // Only a first key can be the mark: a number's map has no other.
        while let Some(name) = entries.next_key::<String>()? {
            // `insert`, as serde_json's own: a repeated key keeps its first
            // place and takes its last value.
            map.insert(name, entries.next_value_seed(self)?);
        }
        Ok(Value::Object(map))
    }
}

/// An object's key: a name of the document, or serde_json's mark of a number.
enum Key {
    Named(String),
    Number,
}

/// Reads a key of the document as a [`Key`].
struct KeySeed<'t>(Document<'t>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a string key")
    }

    #[inline]
    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key, E> {
        if key == NUMBER_KEY && !self.0.holds(key) {
            return Ok(Key::Number);
        }
        Ok(Key::Named(key.to_owned()))
    }

    #[inline]
    fn visit_str<E>(self, key: &str) -> Result<Key, E> {
        Ok(Key::Named(key.to_owned()))
    }

    #[inline]
    fn visit_string<E>(self, key: String) -> Result<Key, E> {
        Ok(Key::Named(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_with_the_number_key_stays_an_object() {
        for text in [
            r#"{"$serde_json::private::Number":"12"}"#,
            r#"{"$serde_json::private::Number":12}"#,
            r#"{"$serde_json::private::Number":"not a number"}"#,
            r#"{"$serde_json::private::Number":{"a":[1,null]}}"#,
            r#"{"$serde_json::private::Number":"1","b":2}"#,
            r#"{"a":1,"$serde_json::private::Number":"12"}"#,
            r#"{"\u0024serde_json::private::Number":"12"}"#,
            r#"[{"$serde_json::private::Number":"1.5"},{"m":{"$serde_json::private::Number":"7"}}]"#,
        ] {
            let value = from_str(text).unwrap();
            // Written and read again, it is the same: an object is written as one.
            assert_eq!(crate::json::to_text(&value), text.replace(r"\u0024", "$"));
            assert!(
                matches!(value, Value::Object(_) | Value::Array(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn every_other_document_reads_as_serde_json_reads_it() {
        for text in [
            "12",
            "-0.0",
            "1e400",
            "123456789012345678901234567890",
            r#"{"a":1.50,"b":[true,false,null,"x\u00e9\n"],"c":{},"d":[]}"#,
            r#"{"a":1,"a":2,"b":3}"#,
            r#"{"\u0061":"\ud83d\ude00"}"#,
            r#"[[[{"k":-1}]]]"#,
        ] {
            let ours = from_str(text).unwrap();
            let theirs: Value = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(crate::json::to_text(&ours), crate::json::to_text(&theirs));
        }
        for text in [
            "",
            "{",
            "[1,]",
            r#"{"a" 1}"#,
            "01",
            "NaN",
            r#""\ud800""#,
            "1 2",
        ] {
            let ours = from_str(text).unwrap_err().to_string();
            let theirs = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text}");
        }
    }
}
