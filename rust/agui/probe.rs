//! A quick look at an AG-UI event, for the common case: a
//! `TEXT_MESSAGE_CONTENT`, `REASONING_MESSAGE_CONTENT` or `TOOL_CALL_ARGS`
//! appending to a message or tool call that exists. What it cannot settle
//! goes to the full path (see `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
pub struct Probe<'a> {
    pub kind: Option<StrField<'a>>,
    pub message_id: Option<Scalar<'a>>,
    pub message_id_snake: Option<Scalar<'a>>,
    pub tool_call_id: Option<Scalar<'a>>,
    pub tool_call_id_snake: Option<Scalar<'a>>,
    pub delta: Option<StrField<'a>>,
    /// Whether a `metadata` that is not null came: the full path merges it.
    pub metadata: bool,
    /// Whether the camelCase id was the one the reader was told to expect
    /// ([`Probe::read`]), and the only one of its key.
    pub id_expected: bool,
}

impl<'a> Fields<'a> for Probe<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"messageId" => {
                // A repeated key: the last one wins, and it was not expected.
                self.message_id = Some(cursor.scalar()?);
                self.id_expected = false;
            },
            b"message_id" => self.message_id_snake = Some(cursor.scalar()?),
            b"toolCallId" => {
                self.tool_call_id = Some(cursor.scalar()?);
                self.id_expected = false;
            },
            b"tool_call_id" => self.tool_call_id_snake = Some(cursor.scalar()?),
            b"delta" => self.delta = Some(cursor.str_field()?),
            b"metadata" => self.metadata = cursor.scalar()? != Scalar::Null,
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

/// The id in its camelCase spelling or, when that is absent or null, in
/// snake_case, as the full path reads it: `None` unless it is a string.
fn either<'s>(camel: &'s Option<Scalar<'_>>, snake: &'s Option<Scalar<'_>>) -> Option<&'s str> {
    match camel {
        None | Some(Scalar::Null) => snake.as_ref().and_then(Scalar::as_str),
        Some(value) => value.as_str(),
    }
}

impl<'a> Probe<'a> {
    /// Probes an event's text in general: `None` when it is not a JSON
    /// object (the full path then reports it).
    #[cfg(test)]
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        Cursor::parse_object(text)
    }

    /// Probes an event's text into this (default) probe: `false` when it is
    /// not a JSON object. `id` is the message or call id the event likely
    /// has (the last delta's, known plain: see [`Cursor::plain_str`]), read
    /// with a compare.
    pub fn read(&mut self, text: &'a str, id: Option<&str>) -> bool {
        self.read_layout(text, id) || {
            *self = Probe::default();
            Cursor::read_object(text, self)
        }
    }

    /// A delta as the protocol's SDKs write it (`type`, maybe `timestamp`,
    /// the id, `delta`; no white space), read literal by literal up to its
    /// delta; the rest through the general loop. `false` for any other
    /// text, which is then read in general.
    fn read_layout(&mut self, text: &'a str, id: Option<&str>) -> bool {
        let mut cursor = Cursor::new(text);
        let mut read = || -> Option<()> {
            cursor.open_object().then_some(())?;
            let kind = if cursor.expect(br#""type":"TEXT_MESSAGE_CONTENT""#).is_some() {
                "TEXT_MESSAGE_CONTENT"
            } else if cursor.expect(br#""type":"TOOL_CALL_ARGS""#).is_some() {
                "TOOL_CALL_ARGS"
            } else if cursor
                .expect(br#""type":"REASONING_MESSAGE_CONTENT""#)
                .is_some()
            {
                "REASONING_MESSAGE_CONTENT"
            } else {
                return None;
            };
            self.kind = Some(StrField::Str(Cow::Borrowed(kind)));
            if cursor.expect(br#","timestamp":"#).is_some() {
                cursor.plain_integer()?;
            }
            if kind == "TOOL_CALL_ARGS" {
                cursor.expect(br#","toolCallId":"#)?;
            } else {
                cursor.expect(br#","messageId":"#)?;
            }
            let read_id = match id.and_then(|id| cursor.plain_str(id)) {
                Some(told) => {
                    self.id_expected = true;
                    Scalar::Str(Cow::Borrowed(told))
                }
                None => cursor.scalar().ok()?,
            };
            if kind == "TOOL_CALL_ARGS" {
                self.tool_call_id = Some(read_id);
            } else {
                self.message_id = Some(read_id);
            }
            cursor.expect(br#","delta":"#)?;
            self.delta = Some(cursor.str_field().ok()?);
            Some(())
        };
        read().is_some() && cursor.finish_object(self)
    }

    pub fn message_id(&self) -> Option<&str> {
        either(&self.message_id, &self.message_id_snake)
    }

    pub fn tool_call_id(&self) -> Option<&str> {
        either(&self.tool_call_id, &self.tool_call_id_snake)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_content_event_with_spaces() {
        let text = r#"{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "h\u00e9"}"#;
        let probe = Probe::parse(text).unwrap();
        assert_eq!(probe.message_id(), Some("m1"));
        assert_eq!(probe.kind.unwrap().as_str(), Some("TEXT_MESSAGE_CONTENT"));
        assert_eq!(probe.delta.unwrap().as_str(), Some("hé"));
        assert!(!probe.metadata);
    }

    /// The layout reading, with no id told: the probe the general reading
    /// gives.
    fn read(text: &str) -> Option<Probe<'_>> {
        let mut probe = Probe::default();
        probe.read(text, None).then_some(probe)
    }

    /// The layout reading told `id`: (with the id's being told set aside)
    /// what the general reading gives, and told only when it is that id.
    fn read_told<'a>(text: &'a str, id: &str) -> Option<Probe<'a>> {
        let mut probe = Probe::default();
        if !probe.read(text, Some(id)) {
            return None;
        }
        if probe.id_expected {
            let read = probe.message_id.as_ref().or(probe.tool_call_id.as_ref());
            assert_eq!(read.and_then(Scalar::as_str), Some(id), "{text}");
        }
        probe.id_expected = false;
        Some(probe)
    }

    const TEXT: &str =
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" the \"agent\""}"#;
    const REASONING: &str = r#"{"type":"REASONING_MESSAGE_CONTENT","timestamp":1764000000000,"messageId":"m1","delta":"h\u00e9"}"#;
    const ARGS: &str = r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\": \"Pa"}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [TEXT, REASONING, ARGS] {
            assert_eq!(read(text), Probe::parse(text), "{text}");
            assert!(read_told(text, "m1").is_some() && read_told(text, "c1").is_some());
        }
        let mut probe = Probe::default();
        assert!(probe.read(TEXT, Some("m1")));
        assert!(probe.id_expected);
        assert_eq!(probe.delta.unwrap().as_str(), Some(r#" the "agent""#));
        let mut probe = Probe::default();
        assert!(probe.read(ARGS, Some("c1")));
        assert!(probe.id_expected);
        assert_eq!(probe.tool_call_id(), Some("c1"));
        // Off the layout: white space, another order, snake_case, extra
        // fields, values of other kinds, trailing text.
        for text in [
            r#"{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "a"}"#,
            r#"{"messageId":"m1","type":"TEXT_MESSAGE_CONTENT","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","message_id":"m1","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","metadata":{"k":1}}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","timestamp":1.5,"messageId":"m1","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":7,"delta":["a"]}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"} x"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a",}"#,
            r#"{"type":"TOOL_CALL_ARGS","messageId":"m1","delta":"a"}"#,
        ] {
            assert_eq!(read(text), Probe::parse(text), "{text}");
            assert_eq!(read_told(text, "m1"), Probe::parse(text), "{text}");
        }
    }

    #[test]
    fn an_expected_id_repeated_by_another_is_not_expected() {
        let text =
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","messageId":"m9"}"#;
        let mut probe = Probe::default();
        assert!(probe.read(text, Some("m1")));
        assert_eq!(probe.message_id(), Some("m9"));
        assert!(!probe.id_expected);
        let text = r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"a","toolCallId":"c2"}"#;
        let mut probe = Probe::default();
        assert!(probe.read(text, Some("c1")));
        assert_eq!(probe.tool_call_id(), Some("c2"));
        assert!(!probe.id_expected);
    }

    /// Every one-byte mutation of a canonical delta: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        for canonical in [TEXT, REASONING, ARGS] {
            for text in crate::json_probe::one_byte_mutations(canonical) {
                let general = Probe::parse(&text);
                assert_eq!(read(&text), general, "{text}");
                for id in ["m1", "c1", "m", "m10", ""] {
                    assert_eq!(read_told(&text, id), general, "{text} told {id}");
                }
            }
        }
    }

    #[test]
    fn snake_case_only_when_camel_case_is_absent_or_null() {
        let probe = Probe::parse(r#"{"message_id":"s","messageId":null}"#).unwrap();
        assert_eq!(probe.message_id(), Some("s"));
        let probe = Probe::parse(r#"{"message_id":"s","messageId":1}"#).unwrap();
        assert_eq!(probe.message_id(), None);
        let probe = Probe::parse(r#"{"tool_call_id":"c","metadata":null}"#).unwrap();
        assert_eq!(probe.tool_call_id(), Some("c"));
        assert!(!probe.metadata);
        assert!(Probe::parse(r#"{"metadata":{}}"#).unwrap().metadata);
    }
}
