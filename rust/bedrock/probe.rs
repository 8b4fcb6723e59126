//! A quick look at a Bedrock event, for the common case: a piece of text
//! (`{"contentBlockDelta": {"delta": {"text": ...}, "contentBlockIndex": n}}`,
//! with the service's padding beside). What it cannot settle goes to the
//! full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

#[derive(Debug, Default)]
pub struct Event<'a> {
    pub delta: Option<Obj<Delta<'a>>>,
    /// A field of any other name.
    pub other: bool,
}

#[derive(Debug, Default)]
pub struct Delta<'a> {
    pub delta: Option<Obj<Piece<'a>>>,
    pub index: Option<Scalar<'a>>,
    pub other: bool,
}

/// A delta of text, of reasoning text, or of a tool use's input.
#[derive(Debug, Default)]
pub struct Piece<'a> {
    pub text: Option<Scalar<'a>>,
    pub reasoning: Option<Obj<Inner<'a>>>,
    pub tool: Option<Obj<Inner<'a>>>,
    pub other: bool,
}

/// `reasoningContent` (its `text`) or `toolUse` (its `input`).
#[derive(Debug, Default)]
pub struct Inner<'a> {
    pub text: Option<Scalar<'a>>,
    pub input: Option<Scalar<'a>>,
    pub other: bool,
}

impl<'a> Fields<'a> for Event<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"contentBlockDelta" => cursor.object_into(&mut self.delta)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Delta<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"delta" => cursor.object_into(&mut self.delta)?,
            b"contentBlockIndex" => self.index = Some(cursor.scalar()?),
            // The padding the service adds: no part of the event.
            b"p" => cursor.skip()?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Piece<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"text" => self.text = Some(cursor.scalar()?),
            b"reasoningContent" => cursor.object_into(&mut self.reasoning)?,
            b"toolUse" => cursor.object_into(&mut self.tool)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Inner<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"text" => self.text = Some(cursor.scalar()?),
            b"input" => self.input = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Event<'a> {
    /// Probes an event's text: `None` when it is not a JSON object (the
    /// full path then reports it).
    pub fn parse(text: &'a str) -> Option<Event<'a>> {
        Cursor::parse_object(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_text_delta() {
        let text = r#"{"contentBlockDelta":{"contentBlockIndex":2,"delta":{"text":"Hi \u00e9"},"p":"abcdef"}}"#;
        let event = Event::parse(text).unwrap();
        let delta = event.delta.unwrap().0.unwrap();
        assert_eq!(delta.index.unwrap().as_i64(), Some(2));
        let piece = delta.delta.unwrap().0.unwrap();
        assert_eq!(piece.text.unwrap().as_str(), Some("Hi é"));
        assert!(!piece.other && !delta.other && !event.other);
    }

    #[test]
    fn other_fields_are_noticed() {
        let tool = r#"{"contentBlockDelta":{"delta":{"toolUse":{"input":"{","name":"f"}},"contentBlockIndex":0}}"#;
        let delta = Event::parse(tool).unwrap().delta.unwrap().0.unwrap();
        let piece = delta.delta.unwrap().0.unwrap();
        assert!(!piece.other);
        let inner = piece.tool.unwrap().0.unwrap();
        assert_eq!(inner.input.unwrap().as_str(), Some("{"));
        assert!(inner.other);
        let citation = r#"{"contentBlockDelta":{"delta":{"citation":{}},"contentBlockIndex":0}}"#;
        let delta = Event::parse(citation).unwrap().delta.unwrap().0.unwrap();
        assert!(delta.delta.unwrap().0.unwrap().other);
        assert!(
            Event::parse(r#"{"messageStart":{"role":"assistant"}}"#)
                .unwrap()
                .other
        );
    }
}
