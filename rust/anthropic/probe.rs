//! A quick look at an Anthropic Messages event, for the common case: a
//! `content_block_delta` that appends text, thinking or a tool's input
//! fragment. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
pub struct Event<'a> {
    pub kind: Option<StrField<'a>>,
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
}

/// A delta's type and the field a text-like delta appends: `text`,
/// `thinking` or `partial_json`, whichever came last.
#[derive(Debug, Default, PartialEq)]
pub struct Delta<'a> {
    pub kind: Option<StrField<'a>>,
    pub text: Option<Scalar<'a>>,
    pub thinking: Option<Scalar<'a>>,
    pub partial_json: Option<Scalar<'a>>,
}

impl<'a> Fields<'a> for Event<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"index" => self.index = Some(cursor.scalar()?),
            b"delta" => cursor.object_into(&mut self.delta)?,
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Delta<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"text" => self.text = Some(cursor.scalar()?),
            b"thinking" => self.thinking = Some(cursor.scalar()?),
            b"partial_json" => self.partial_json = Some(cursor.scalar()?),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Event<'a> {
    /// Probes an event's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Event<'a>> {
        Cursor::parse_object(text)
    }

    /// Probes an event's text: `None` when it is not a JSON object. A delta
    /// in the layout the API writes is read literal by literal; anything
    /// else in general.
    pub fn read(text: &'a str) -> Option<Event<'a>> {
        Event::read_layout(text).or_else(|| Event::parse(text))
    }

    /// A `content_block_delta` as the API writes it (`type`, `index`, then
    /// its `delta` of a `type` and the one string it appends; no white
    /// space), read literal by literal up to that string; the rest through
    /// the general loop. `None` for any other text.
    fn read_layout(text: &'a str) -> Option<Event<'a>> {
        let mut cursor = Cursor::new(text);
        let mut event = Event::default();
        cursor.open_object().then_some(())?;
        cursor.expect(br#""type":"content_block_delta","index":"#)?;
        event.kind = Some(StrField::Str(Cow::Borrowed("content_block_delta")));
        event.index = Some(match cursor.digit() {
            Some(index) => index,
            None => cursor.scalar().ok()?,
        });
        cursor.expect(br#","delta":{"type":""#)?;
        let mut delta = Delta::default();
        if cursor.expect(br#"text_delta","text":"#).is_some() {
            delta.kind = Some(StrField::Str(Cow::Borrowed("text_delta")));
            delta.text = Some(cursor.scalar().ok()?);
        } else if cursor.expect(br#"thinking_delta","thinking":"#).is_some() {
            delta.kind = Some(StrField::Str(Cow::Borrowed("thinking_delta")));
            delta.thinking = Some(cursor.scalar().ok()?);
        } else if cursor
            .expect(br#"input_json_delta","partial_json":"#)
            .is_some()
        {
            delta.kind = Some(StrField::Str(Cow::Borrowed("input_json_delta")));
            delta.partial_json = Some(cursor.scalar().ok()?);
        } else {
            return None;
        }
        // The delta holds nothing else; the event may.
        cursor.expect(b"}")?;
        event.delta = Some(Obj(Some(delta)));
        cursor.finish_object(&mut event).then_some(event)
    }

    /// A `content_block_delta`'s block index, delta type and the string its
    /// type appends; `None` for any other event, or one not plainly so.
    pub fn into_append(self) -> Option<(i64, &'static str, Cow<'a, str>)> {
        if self.kind.as_ref()?.as_str()? != "content_block_delta" {
            return None;
        }
        let index = self.index.as_ref()?.as_i64()?;
        let Obj(Some(delta)) = self.delta? else {
            return None;
        };
        let (kind, piece) = match delta.kind.as_ref()?.as_str()? {
            "text_delta" => ("text_delta", delta.text),
            "thinking_delta" => ("thinking_delta", delta.thinking),
            "input_json_delta" => ("input_json_delta", delta.partial_json),
            _ => return None,
        };
        match piece? {
            Scalar::Str(piece) => Some((index, kind, piece)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the \"agent\""}}"#;
    const THINKING: &str = r#"{"type":"content_block_delta","index":12,"delta":{"type":"thinking_delta","thinking":"h\u00e9"}}"#;
    const INPUT: &str = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [TEXT, THINKING, INPUT] {
            assert!(Event::read_layout(text).is_some(), "{text}");
            assert_eq!(Event::read(text), Event::parse(text), "{text}");
        }
        // Off the layout: white space, another order, extra fields in the
        // delta or the event, values of other kinds, trailing text.
        for text in [
            r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "a"}}"#,
            r#"{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"index":1}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":{}}"#,
            r#"{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":5}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} x"#,
        ] {
            assert_eq!(Event::read(text), Event::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical delta: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[TEXT, THINKING, INPUT], |text| {
            assert_eq!(Event::read(text), Event::parse(text), "{text}")
        });
    }

    #[test]
    fn reads_a_text_delta() {
        let text = r#"{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"Hi \"you\""}}"#;
        let event = Event::parse(text).unwrap();
        let (index, kind, piece) = event.into_append().unwrap();
        assert_eq!((index, kind, &*piece), (4, "text_delta", "Hi \"you\""));
    }

    #[test]
    fn reads_only_what_appends() {
        for text in [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"x"}}"#,
            r#"{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_delta","index":0,"delta":[]}"#,
        ] {
            assert!(
                Event::parse(text).unwrap().into_append().is_none(),
                "{text}"
            );
        }
        assert!(Event::parse(r#"{"type":"content_block_delta","#).is_none());
    }
}
