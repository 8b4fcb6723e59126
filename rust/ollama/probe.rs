//! A quick look at an Ollama line, for the common case: a piece of text
//! (`/api/chat`'s `message.content` or `message.thinking`, `/api/generate`'s
//! `response` or `thinking`) in a line of no other fields than the model,
//! the time and `done: false`. What it cannot settle goes to the full path
//! (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

#[derive(Debug, Default, PartialEq)]
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
#[derive(Debug, Default, PartialEq)]
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

    /// Probes a line's text: `None` when it is not a JSON object. A piece
    /// in the layout Ollama writes is read literal by literal; anything else
    /// in general.
    pub fn read(text: &'a str) -> Option<Line<'a>> {
        Line::read_layout(text).or_else(|| Line::parse(text))
    }

    /// A line as Ollama writes a piece (`model`, `created_at`, then
    /// `/api/chat`'s `message` of `role`, `content` and maybe `thinking`, or
    /// `/api/generate`'s `response` and maybe `thinking`, then `done`; no
    /// white space), read literal by literal; the rest through the general
    /// loop. `None` for any other text.
    fn read_layout(text: &'a str) -> Option<Line<'a>> {
        let mut cursor = Cursor::new(text);
        let mut line = Line::default();
        cursor.open_object().then_some(())?;
        cursor.expect(br#""model":"#)?;
        line.model = Some(cursor.scalar().ok()?);
        cursor.expect(br#","created_at":"#)?;
        line.created_at = Some(cursor.scalar().ok()?);
        if cursor.expect(br#","message":"#).is_some() {
            cursor.open_nested(b'{')?;
            let mut message = Message::default();
            cursor.expect(br#""role":"#)?;
            message.role = Some(cursor.scalar().ok()?);
            if cursor.expect(br#","content":"#).is_some() {
                message.content = Some(cursor.scalar().ok()?);
            }
            if cursor.expect(br#","thinking":"#).is_some() {
                message.thinking = Some(cursor.scalar().ok()?);
            }
            cursor.finish_nested(&mut message)?;
            line.message = Some(Obj(Some(message)));
        } else {
            cursor.expect(br#","response":"#)?;
            line.response = Some(cursor.scalar().ok()?);
            if cursor.expect(br#","thinking":"#).is_some() {
                line.thinking = Some(cursor.scalar().ok()?);
            }
        }
        if cursor.expect(br#","done":false"#).is_some() {
            line.done = Some(Scalar::Bool(false));
        }
        cursor.finish_object(&mut line).then_some(line)
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

    const CHAT: &str = r#"{"model":"qwen3:0.6b","created_at":"2026-11-20T10:00:00Z","message":{"role":"assistant","content":" the \"agent\""},"done":false}"#;
    const THINKING: &str = r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"","thinking":"h\u00e9"},"done":false}"#;
    const GENERATE: &str =
        r#"{"model":"m","created_at":"t","response":"","thinking":" na\u00efve","done":false}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [CHAT, THINKING, GENERATE] {
            assert!(Line::read_layout(text).is_some(), "{text}");
            assert_eq!(Line::read(text), Line::parse(text), "{text}");
        }
        // Off the layout: white space, another order, repeated keys, more
        // fields, values of other kinds, the last line, trailing text.
        for text in [
            r#"{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "a"}, "done": false}"#,
            r#"{"created_at":"t","model":"m","message":{"role":"assistant","content":"a"},"done":false}"#,
            r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"a","content":"b"},"done":false}"#,
            r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"a","tool_calls":[]},"done":false}"#,
            r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"a"},"done":false,"done":true}"#,
            r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"a"},"done":true,"done_reason":"stop","total_duration":1}"#,
            r#"{"model":1,"created_at":null,"message":{"role":[],"content":{"a":1}},"done":"no"}"#,
            r#"{"model":"m","created_at":"t","response":"a","done":false} x"#,
        ] {
            assert_eq!(Line::read(text), Line::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical line: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[CHAT, THINKING, GENERATE], |text| {
            assert_eq!(Line::read(text), Line::parse(text), "{text}")
        });
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
