//! A quick look at an event, for the common case: a content delta that
//! appends to a slot that already exists.
//!
//! Parsing every event into a `Value` tree costs a dozen allocations, most
//! of them for fields a delta never uses. The probe reads the same text with
//! the same parser (serde_json, so exactly the same JSON is accepted), keeps
//! only the fields a delta needs, borrowing strings from the input where it
//! can, and validates the rest without building it. Anything it cannot
//! settle goes to the full path.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::json::Value;
use crate::json_probe::{Skip, StrField};

/// What a content delta needs, from one event.
#[derive(Debug, Default)]
pub struct Probe<'a> {
    pub object: Option<StrField<'a>>,
    pub msg_id: Option<StrField<'a>>,
    pub kind: Option<StrField<'a>>,
    pub index: Option<Value>,
    pub delta: Option<Value>,
    pub status: Option<Value>,
    /// The string fields a delta may append, by name.
    pub text: Option<StrField<'a>>,
    pub image_url: Option<StrField<'a>>,
    pub refusal: Option<StrField<'a>>,
    pub data: Option<StrField<'a>>,
    pub video_url: Option<StrField<'a>>,
    pub file_data: Option<StrField<'a>>,
}

impl<'a> Probe<'a> {
    /// The string a delta of this content type appends, if it carries one.
    pub fn appended(&self, field: &str) -> Option<&str> {
        let value = match field {
            "text" => &self.text,
            "image_url" => &self.image_url,
            "refusal" => &self.refusal,
            "data" => &self.data,
            "video_url" => &self.video_url,
            "file_data" => &self.file_data,
            _ => return None,
        };
        value.as_ref().and_then(StrField::as_str)
    }

    /// Probes an event's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        serde_json::from_str::<Probe<'a>>(text).ok()
    }
}

impl<'de> Deserialize<'de> for Probe<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ProbeVisitor;

        impl<'de> Visitor<'de> for ProbeVisitor {
            type Value = Probe<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut probe = Probe::default();
                // A repeated key: the last one wins, as in the full path.
                while let Some(key) = map.next_key::<StrField<'de>>()? {
                    match key.as_str().unwrap_or("") {
                        "object" => probe.object = Some(map.next_value()?),
                        "msg_id" => probe.msg_id = Some(map.next_value()?),
                        "type" => probe.kind = Some(map.next_value()?),
                        "index" => probe.index = Some(map.next_value()?),
                        "delta" => probe.delta = Some(map.next_value()?),
                        "status" => probe.status = Some(map.next_value()?),
                        "text" => probe.text = Some(map.next_value()?),
                        "image_url" => probe.image_url = Some(map.next_value()?),
                        "refusal" => probe.refusal = Some(map.next_value()?),
                        "data" => probe.data = Some(map.next_value()?),
                        "video_url" => probe.video_url = Some(map.next_value()?),
                        "file_data" => probe.file_data = Some(map.next_value()?),
                        _ => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(probe)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
                Err(de::Error::custom("not an object"))
            }
        }

        deserializer.deserialize_map(ProbeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[test]
    fn borrows_plain_strings_and_owns_escaped_ones() {
        let probe =
            Probe::parse(r#"{"object":"content","text":"a\"b","msg_id":"m","x":[1,{"y":2}]}"#)
                .unwrap();
        assert_eq!(
            probe.object.as_ref().and_then(StrField::as_str),
            Some("content")
        );
        assert!(matches!(
            probe.msg_id,
            Some(StrField::Str(Cow::Borrowed("m")))
        ));
        assert_eq!(probe.appended("text"), Some("a\"b"));
    }

    #[test]
    fn non_strings_and_last_key_wins() {
        let probe = Probe::parse(r#"{"text":1,"data":{"a":[1]},"index":2,"index":3,"delta":true}"#)
            .unwrap();
        assert_eq!(probe.text, Some(StrField::NotStr));
        assert_eq!(probe.data, Some(StrField::NotStr));
        assert_eq!(probe.index, Some(Value::from(3)));
        assert_eq!(probe.delta, Some(Value::Bool(true)));
    }

    #[test]
    fn rejects_what_the_full_parser_rejects() {
        let lone = r#"{"a":"\ud800"}"#;
        let nested_lone = r#"{"a":[{"b":"\udc00"}]}"#;
        for text in [
            "[1]",
            "{",
            r#"{"a":NaN}"#,
            lone,
            nested_lone,
            r#"{"a":1} x"#,
            r#"{"text":[1,]}"#,
        ] {
            assert!(Probe::parse(text).is_none(), "{text}");
            assert!(
                crate::json::parse(text)
                    .map(|v| !v.is_object())
                    .unwrap_or(true),
                "{text}"
            );
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(Probe::parse(&format!(r#"{{"a":{deep}}}"#)).is_none());
    }
}
