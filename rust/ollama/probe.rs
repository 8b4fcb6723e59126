//! A quick look at an Ollama line, for the common case: a piece of text
//! (`/api/chat`'s `message.content` or `message.thinking`, `/api/generate`'s
//! `response` or `thinking`) in a line of no other fields than the model,
//! the time and `done: false`. What it cannot settle goes to the full path
//! (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

#[derive(Debug, Default)]
pub struct Line<'a> {
    pub model: Option<Scalar<'a>>,
    pub created_at: Option<Scalar<'a>>,
    pub message: Option<Obj<Message<'a>>>,
    pub response: Option<Scalar<'a>>,
    pub thinking: Option<Scalar<'a>>,
    pub done: Option<Scalar<'a>>,
    /// A field of any other name.
    pub other: bool,
}

/// `/api/chat`'s message; `other` when it has any more fields.
#[derive(Debug, Default)]
pub struct Message<'a> {
    pub role: Option<Scalar<'a>>,
    pub content: Option<Scalar<'a>>,
    pub thinking: Option<Scalar<'a>>,
    pub other: bool,
}

impl<'a> Fields<'a> for Line<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"model" => self.model = Some(cursor.scalar()?),
            b"created_at" => self.created_at = Some(cursor.scalar()?),
            b"message" => cursor.object_into(&mut self.message)?,
            b"response" => self.response = Some(cursor.scalar()?),
            b"thinking" => self.thinking = Some(cursor.scalar()?),
            b"done" => self.done = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Message<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"content" => self.content = Some(cursor.scalar()?),
            b"role" => self.role = Some(cursor.scalar()?),
            b"thinking" => self.thinking = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Line<'a> {
    /// Probes a line's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Line<'a>> {
        Cursor::parse_object(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_content_line() {
        let text = r#"{"model":"m","created_at":"2026-11-20T10:00:00Z","message":{"role":"assistant","content":"Hi \u00e9"},"done":false}"#;
        let line = Line::parse(text).unwrap();
        assert_eq!(line.model.unwrap().as_str(), Some("m"));
        assert_eq!(line.done, Some(Scalar::Bool(false)));
        let message = line.message.unwrap().0.unwrap();
        assert_eq!(message.content.unwrap().as_str(), Some("Hi é"));
        assert!(!message.other && !line.other);
    }

    #[test]
    fn other_fields_are_noticed() {
        let line =
            Line::parse(r#"{"message":{"content":"","tool_calls":[]},"done":false}"#).unwrap();
        assert!(line.message.unwrap().0.unwrap().other);
        assert!(
            Line::parse(r#"{"response":"x","context":[1]}"#)
                .unwrap()
                .other
        );
        assert!(Line::parse(r#"{"response":"x""#).is_none());
    }
}
