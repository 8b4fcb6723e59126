//! A quick look at an OpenAI Responses event, for the common case: a delta
//! (`response.output_text.delta`, `response.function_call_arguments.delta`
//! and the like) appending to an item or part that exists. What it cannot
//! settle goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
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

    /// Probes an event's text: `None` when it is not a JSON object. A delta
    /// in the layout the API writes is read literal by literal; anything
    /// else in general.
    pub fn read(text: &'a str) -> Option<Probe<'a>> {
        Probe::read_layout(text).or_else(|| Probe::parse(text))
    }

    /// A delta as the API writes it (`type`, `sequence_number`, `item_id`,
    /// `output_index`, maybe `content_index` or `summary_index`, `delta`,
    /// maybe an empty `logprobs`; no white space), read literal by literal
    /// up to there; the rest through the general loop. `None` for any other
    /// text.
    fn read_layout(text: &'a str) -> Option<Probe<'a>> {
        let mut cursor = Cursor::new(text);
        let mut probe = Probe::default();
        cursor.open_object().then_some(())?;
        cursor.expect(br#""type":"#)?;
        probe.kind = Some(cursor.str_field().ok()?);
        cursor.expect(br#","sequence_number":"#)?;
        cursor.skip().ok()?;
        cursor.expect(br#","item_id":"#)?;
        probe.item_id = Some(cursor.scalar().ok()?);
        cursor.expect(br#","output_index":"#)?;
        probe.output_index = Some(index(&mut cursor)?);
        if cursor.expect(br#","content_index":"#).is_some() {
            probe.content_index = Some(index(&mut cursor)?);
        } else if cursor.expect(br#","summary_index":"#).is_some() {
            probe.summary_index = Some(index(&mut cursor)?);
        }
        cursor.expect(br#","delta":"#)?;
        probe.delta = Some(cursor.str_field().ok()?);
        // An empty list, as a text delta has: nothing to append.
        let _ = cursor.expect(br#","logprobs":[]"#);
        cursor.finish_object(&mut probe).then_some(probe)
    }
}

/// An index: one digit read at once, else any value.
fn index<'a>(cursor: &mut Cursor<'a>) -> Option<Scalar<'a>> {
    match cursor.digit() {
        Some(index) => Some(index),
        None => cursor.scalar().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" the \"agent\"","logprobs":[],"obfuscation":"x"}"#;
    const SUMMARY: &str = r#"{"type":"response.reasoning_summary_text.delta","sequence_number":12,"item_id":"rs_1","output_index":1,"summary_index":0,"delta":"h\u00e9"}"#;
    const ARGUMENTS: &str = r#"{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"fc_1","output_index":2,"delta":"{\"city\": \"Pa","obfuscation":"x"}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [TEXT, SUMMARY, ARGUMENTS] {
            assert!(Probe::read_layout(text).is_some(), "{text}");
            assert_eq!(Probe::read(text), Probe::parse(text), "{text}");
        }
        // Off the layout: white space, another order, repeated keys, values
        // of other kinds, logprobs that append, trailing text.
        for text in [
            r#"{"type": "response.output_text.delta", "sequence_number": 4, "item_id": "m", "output_index": 0, "content_index": 0, "delta": "a"}"#,
            r#"{"sequence_number":4,"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"a"}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"a","delta":"b"}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"a","output_index":3}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"a","logprobs":[{"token":"a"}]}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"a","logprobs":[],"logprobs":[1]}"#,
            r#"{"type":7,"sequence_number":"4","item_id":null,"output_index":"0","content_index":1.5,"delta":["a"]}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"a"} x"#,
        ] {
            assert_eq!(Probe::read(text), Probe::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical delta: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[TEXT, SUMMARY, ARGUMENTS], |text| {
            assert_eq!(Probe::read(text), Probe::parse(text), "{text}")
        });
    }

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
