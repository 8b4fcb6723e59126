//! A quick look at an event, for the common case: a content delta that
//! appends to a slot that already exists.
//!
//! Parsing every event into a `Value` tree costs a dozen allocations, most
//! of them for fields a delta never uses. The probe reads the text once with
//! [`Cursor`] (which accepts exactly the JSON the full parse does), keeps
//! only the fields a delta needs, borrowing strings from the input where it
//! can, and checks the rest without building it. Anything it cannot settle
//! goes to the full path.

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

/// What a content delta needs, from one event.
#[derive(Debug, Default, PartialEq)]
pub struct Probe<'a> {
    pub object: Option<StrField<'a>>,
    pub msg_id: Option<StrField<'a>>,
    pub kind: Option<StrField<'a>>,
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Scalar<'a>>,
    pub status: Option<Scalar<'a>>,
    /// The string fields a delta may append, by name.
    pub text: Option<StrField<'a>>,
    pub image_url: Option<StrField<'a>>,
    pub refusal: Option<StrField<'a>>,
    pub data: Option<StrField<'a>>,
    /// `data` when it is an object: a tool call's or result's delta.
    pub data_object: Option<Obj<DataProbe<'a>>>,
    pub video_url: Option<StrField<'a>>,
    pub file_data: Option<StrField<'a>>,
    /// `msg_id` was read as the id [`Probe::read`] was told the event
    /// likely has: the caller knows its message without looking it up.
    pub msg_id_expected: bool,
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

    /// The general reading alone, for the tests to compare with.
    #[cfg(test)]
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        Cursor::parse_object(text)
    }

    /// Probes an event's text into this (default) probe: `false` when it is
    /// not a JSON object (the full path then reports it). `msg_id` is the
    /// id the event likely has (the last delta's, known plain: see
    /// [`Cursor::plain_str`]), read with a compare.
    pub fn read(&mut self, text: &'a str, msg_id: Option<&str>) -> bool {
        self.read_layout(text, msg_id) || {
            *self = Probe::default();
            Cursor::read_object(text, self)
        }
    }

    /// A content delta as agentscope-runtime writes it (its pydantic models'
    /// field order, no white space), read literal by literal up to its
    /// appended field; the rest through the general loop. `false` for any
    /// other text, which is then read in general.
    fn read_layout(&mut self, text: &'a str, msg_id: Option<&str>) -> bool {
        let mut cursor = Cursor::new(text);
        let mut read = || -> Option<()> {
            cursor.open_object().then_some(())?;
            cursor.expect(br#""sequence_number":"#)?;
            cursor.skip().ok()?;
            // The usual values come with their keys as one literal each;
            // any other value is read as such.
            if cursor.expect(br#","object":"content","status":"#).is_some() {
                self.object = Some(StrField::Str(Cow::Borrowed("content")));
            } else {
                cursor.expect(br#","object":"#)?;
                self.object = Some(cursor.str_field().ok()?);
                cursor.expect(br#","status":"#)?;
            }
            self.status = Some(match cursor.expect(br#""in_progress""#) {
                Some(()) => Scalar::Str(Cow::Borrowed("in_progress")),
                None => cursor.scalar().ok()?,
            });
            if cursor
                .expect(br#","error":null,"type":"text","index":"#)
                .is_some()
            {
                self.kind = Some(StrField::Str(Cow::Borrowed("text")));
            } else {
                cursor.expect(br#","error":"#)?;
                cursor.skip().ok()?;
                cursor.expect(br#","type":"#)?;
                self.kind = Some(cursor.str_field().ok()?);
                cursor.expect(br#","index":"#)?;
            }
            self.index = Some(match cursor.digit() {
                Some(index) => index,
                None => cursor.scalar().ok()?,
            });
            if cursor.expect(br#","delta":true,"msg_id":"#).is_some() {
                self.delta = Some(Scalar::Bool(true));
            } else {
                cursor.expect(br#","delta":"#)?;
                self.delta = Some(cursor.scalar().ok()?);
                cursor.expect(br#","msg_id":"#)?;
            }
            self.msg_id = Some(match msg_id.and_then(|id| cursor.plain_str(id)) {
                Some(id) => {
                    self.msg_id_expected = true;
                    StrField::Str(Cow::Borrowed(id))
                }
                None => cursor.str_field().ok()?,
            });
            if cursor.expect(br#","text":"#).is_some() {
                self.text = Some(cursor.str_field().ok()?);
            } else if cursor.expect(br#","data":{"arguments":"#).is_some() {
                // A tool call's arguments streaming: the object holds them alone.
                let arguments = cursor.str_field().ok()?;
                cursor.expect(b"}")?;
                self.data = Some(StrField::NotStr);
                self.data_object = Some(Obj(Some(DataProbe {
                    arguments: Some(arguments),
                    ..DataProbe::default()
                })));
            }
            Some(())
        };
        read().is_some() && cursor.finish_object(self)
    }
}

impl<'a> Fields<'a> for Probe<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        // A repeated key: the last one wins, as in the full path.
        crate::match_key!(key, {
            b"object" => self.object = Some(cursor.str_field()?),
            b"msg_id" => {
                // A repeated key: the last one wins, and it was not expected.
                self.msg_id = Some(cursor.str_field()?);
                self.msg_id_expected = false;
            },
            b"type" => self.kind = Some(cursor.str_field()?),
            b"index" => self.index = Some(cursor.scalar()?),
            b"delta" => self.delta = Some(cursor.scalar()?),
            b"status" => self.status = Some(cursor.scalar()?),
            b"text" => self.text = Some(cursor.str_field()?),
            b"image_url" => self.image_url = Some(cursor.str_field()?),
            b"refusal" => self.refusal = Some(cursor.str_field()?),
            b"data" => {
                if cursor.at_object()? {
                    self.data = Some(StrField::NotStr);
                    cursor.object_into(&mut self.data_object)?;
                } else {
                    self.data = Some(cursor.str_field()?);
                    self.data_object = None;
                }
            },
            b"video_url" => self.video_url = Some(cursor.str_field()?),
            b"file_data" => self.file_data = Some(cursor.str_field()?),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

/// What a tool call's or tool result's `data` delta appends.
#[derive(Debug, Default, PartialEq)]
pub struct DataProbe<'a> {
    pub arguments: Option<StrField<'a>>,
    pub output: Option<StrField<'a>>,
    /// Whether it has any other key.
    pub others: bool,
}

impl<'a> Probe<'a> {
    /// The string a tool call's (`arguments`) or tool result's (`output`)
    /// data delta carries, when `data` is an object with it as a string.
    pub fn data_string(&self, key: &str) -> Option<&str> {
        let Some(Obj(Some(data))) = &self.data_object else {
            return None;
        };
        let value = if key == "arguments" {
            &data.arguments
        } else {
            &data.output
        };
        value.as_ref().and_then(StrField::as_str)
    }

    /// The arguments a data delta appends when they are all it carries
    /// (`data` is `{"arguments": "..."}`): the one data merge that is an
    /// append whatever the merge rules.
    pub fn arguments_alone(&self) -> Option<&str> {
        match &self.data_object {
            Some(Obj(Some(data))) if !data.others && data.output.is_none() => {
                data.arguments.as_ref().and_then(StrField::as_str)
            }
            _ => None,
        }
    }

    /// [`Probe::data_string`], taken out of the probe.
    pub fn take_data_string(&mut self, key: &str) -> Option<Cow<'a, str>> {
        let Some(Obj(Some(data))) = &mut self.data_object else {
            return None;
        };
        let value = if key == "arguments" {
            data.arguments.take()
        } else {
            data.output.take()
        };
        match value {
            Some(StrField::Str(text)) => Some(text),
            _ => None,
        }
    }
}

impl<'a> Fields<'a> for DataProbe<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"arguments" => self.arguments = Some(cursor.str_field()?),
            b"output" => self.output = Some(cursor.str_field()?),
            _ => {
                self.others = true;
                cursor.skip()?
            },
        });
        Ok(())
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
        assert_eq!(probe.index, Some(Scalar::Number("3")));
        assert_eq!(probe.delta, Some(Scalar::Bool(true)));
    }

    fn read(text: &str) -> Option<Probe<'_>> {
        let mut probe = Probe::default();
        probe.read(text, None).then_some(probe)
    }

    /// Read told the id the canonical deltas have, or another one: what the
    /// general reading gives, and whether the id was the one told (only
    /// then may it say so).
    fn read_told<'a>(text: &'a str, msg_id: &str) -> Option<Probe<'a>> {
        let mut probe = Probe::default();
        if !probe.read(text, Some(msg_id)) {
            return None;
        }
        if probe.msg_id_expected {
            assert_eq!(
                probe.msg_id.as_ref().and_then(StrField::as_str),
                Some(msg_id)
            );
        }
        probe.msg_id_expected = false;
        Some(probe)
    }

    const CANONICAL: &str = r#"{"sequence_number":7,"object":"content","status":"in_progress","error":null,"type":"text","index":0,"delta":true,"msg_id":"msg_1","text":" the \"agent\""}"#;

    const CANONICAL_DATA: &str = r#"{"sequence_number":8,"object":"content","status":"in_progress","error":null,"type":"data","index":0,"delta":true,"msg_id":"msg_2","data":{"arguments":"{\"city\": \"Pa"}}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        let probe = read(CANONICAL_DATA).unwrap();
        assert_eq!(probe.arguments_alone(), Some(r#"{"city": "Pa"#));
        assert_eq!(Some(probe), Probe::parse(CANONICAL_DATA));
        let probe = read(CANONICAL).unwrap();
        assert_eq!(probe.appended("text"), Some(r#" the "agent""#));
        assert_eq!(probe.index, Some(Scalar::Number("0")));
        assert_eq!(Some(probe), Probe::parse(CANONICAL));
        // Off the layout: white space, another order, a repeated key, extra
        // fields, values of other kinds, trailing text.
        for text in [
            r#"{ "sequence_number":7,"object":"content","status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m","text":"a"}"#,
            r#"{"object":"content","sequence_number":7,"status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m","text":"a"}"#,
            r#"{"sequence_number":7,"object":"content","status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m","text":"a","msg_id":"n"}"#,
            r#"{"sequence_number":[1,{"a":2}],"object":5,"status":{"s":1},"error":"e","type":null,"index":1.5,"delta":"yes","msg_id":"m"}"#,
            r#"{"sequence_number":7,"object":"content","status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m"}"#,
            r#"{"sequence_number":7,"object":"content","status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m","text":"a"} x"#,
            r#"{"sequence_number":7,"object":"content","status":"x","error":null,"type":"text","index":0,"delta":true,"msg_id":"m","text":"a",}"#,
        ] {
            assert_eq!(read(text), Probe::parse(text), "{text}");
        }
    }

    #[test]
    fn an_expected_id_repeated_by_another_is_not_expected() {
        let text = r#"{"sequence_number":7,"object":"content","status":"in_progress","error":null,"type":"text","index":0,"delta":true,"msg_id":"msg_1","text":"a","msg_id":"msg_9"}"#;
        let mut probe = Probe::default();
        assert!(probe.read(text, Some("msg_1")));
        assert_eq!(
            probe.msg_id.as_ref().and_then(StrField::as_str),
            Some("msg_9")
        );
        assert!(!probe.msg_id_expected);
        let mut probe = Probe::default();
        assert!(probe.read(CANONICAL, Some("msg_1")));
        assert!(probe.msg_id_expected);
    }

    /// Every one-byte mutation of a canonical delta: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        for canonical in [CANONICAL, CANONICAL_DATA] {
            for text in crate::json_probe::one_byte_mutations(canonical) {
                let general = Probe::parse(&text);
                assert_eq!(read(&text), general, "{text}");
                for msg_id in ["msg_1", "msg_2", "msg_", "msg_10", ""] {
                    assert_eq!(read_told(&text, msg_id), general, "{text} told {msg_id}");
                }
            }
        }
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
