//! A quick look at an AG-UI event, for the common case: a
//! `TEXT_MESSAGE_CONTENT`, `REASONING_MESSAGE_CONTENT` or `TOOL_CALL_ARGS`
//! appending to a message or tool call that exists. What it cannot settle
//! goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default)]
pub struct Probe<'a> {
    pub kind: Option<StrField<'a>>,
    pub message_id: Option<Scalar<'a>>,
    pub message_id_snake: Option<Scalar<'a>>,
    pub tool_call_id: Option<Scalar<'a>>,
    pub tool_call_id_snake: Option<Scalar<'a>>,
    pub delta: Option<StrField<'a>>,
    /// Whether a `metadata` that is not null came: the full path merges it.
    pub metadata: bool,
}

impl<'a> Fields<'a> for Probe<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"messageId" => self.message_id = Some(cursor.scalar()?),
            b"message_id" => self.message_id_snake = Some(cursor.scalar()?),
            b"toolCallId" => self.tool_call_id = Some(cursor.scalar()?),
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
    /// Probes an event's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        Cursor::parse_object(text)
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
