//! A quick look at an Anthropic Messages event, for the common case: a
//! `content_block_delta` that appends text, thinking or a tool's input
//! fragment. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

#[derive(Debug, Default)]
pub struct Event<'a> {
    pub kind: Option<StrField<'a>>,
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
}

/// A delta's type and the field a text-like delta appends: `text`,
/// `thinking` or `partial_json`, whichever came last.
#[derive(Debug, Default)]
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
