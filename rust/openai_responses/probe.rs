//! A quick look at an OpenAI Responses event, for the common case: a delta
//! (`response.output_text.delta`, `response.function_call_arguments.delta`
//! and the like) appending to an item or part that exists. What it cannot
//! settle goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default)]
pub struct Probe<'a> {
    pub kind: Option<StrField<'a>>,
    pub output_index: Option<Scalar<'a>>,
    pub item_id: Option<Scalar<'a>>,
    pub content_index: Option<Scalar<'a>>,
    pub summary_index: Option<Scalar<'a>>,
    pub delta: Option<StrField<'a>>,
    /// Whether `logprobs` is a non-empty array: the full path appends it.
    pub logprobs: bool,
}

impl<'a> Fields<'a> for Probe<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"output_index" => self.output_index = Some(cursor.scalar()?),
            b"item_id" => self.item_id = Some(cursor.scalar()?),
            b"content_index" => self.content_index = Some(cursor.scalar()?),
            b"summary_index" => self.summary_index = Some(cursor.scalar()?),
            b"delta" => self.delta = Some(cursor.str_field()?),
            b"logprobs" => self.logprobs = cursor.empty_array()? == Some(false),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Probe<'a> {
    /// Probes an event's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Probe<'a>> {
        Cursor::parse_object(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_text_delta() {
        let text = r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"x"}"#;
        let probe = Probe::parse(text).unwrap();
        assert_eq!(probe.output_index.unwrap().as_i64(), Some(0));
        assert_eq!(probe.item_id.unwrap().as_str(), Some("msg_1"));
        assert_eq!(probe.delta.unwrap().as_str(), Some("Hi"));
        assert!(!probe.logprobs);
        let probe = Probe::parse(r#"{"logprobs":[{"token":"a"}]}"#).unwrap();
        assert!(probe.logprobs);
        let probe = Probe::parse(r#"{"logprobs":{"a":1}}"#).unwrap();
        assert!(!probe.logprobs);
    }
}
