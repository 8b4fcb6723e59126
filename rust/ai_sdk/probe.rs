//! A quick look at an AI SDK UI message chunk, for the common case: a
//! `text-delta`, `reasoning-delta` or `tool-input-delta` that appends to a
//! part. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
pub struct Chunk<'a> {
    pub kind: Option<StrField<'a>>,
    pub id: Option<Scalar<'a>>,
    pub delta: Option<Scalar<'a>>,
    pub tool_call_id: Option<Scalar<'a>>,
    pub input_text_delta: Option<Scalar<'a>>,
    /// A `providerMetadata` came: the full path sets it.
    pub metadata: bool,
    /// Whether `id` was the one the reader was told to expect
    /// ([`Chunk::read`]), and the only one of its key.
    pub id_expected: bool,
}

impl<'a> Fields<'a> for Chunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"id" => {
                // A repeated key: the last one wins, and it was not expected.
                self.id = Some(cursor.scalar()?);
                self.id_expected = false;
            },
            b"delta" => self.delta = Some(cursor.scalar()?),
            b"toolCallId" => {
                self.tool_call_id = Some(cursor.scalar()?);
                self.id_expected = false;
            },
            b"inputTextDelta" => self.input_text_delta = Some(cursor.scalar()?),
            b"providerMetadata" => {
                self.metadata = true;
                cursor.skip()?
            },
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

/// What an appending chunk appends to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Text,
    Reasoning,
    ToolInput,
}

impl<'a> Chunk<'a> {
    /// Probes a chunk's text in general: `None` when it is not a JSON
    /// object (the full path then reports it).
    pub fn parse(text: &'a str) -> Option<Chunk<'a>> {
        Cursor::parse_object(text)
    }

    /// Probes a chunk's text into this (default) probe: `false` when it is
    /// not a JSON object. `id` is the text or reasoning part id the chunk
    /// likely has (the last delta's, known plain: see
    /// [`Cursor::plain_str`]), read with a compare.
    pub fn read(&mut self, text: &'a str, id: Option<&str>) -> bool {
        self.read_layout(text, id) || {
            *self = Chunk::default();
            Cursor::read_object(text, self)
        }
    }

    /// A text, reasoning or tool-input delta as the AI SDK writes it
    /// (`type`, `id` or `toolCallId`, `delta` or `inputTextDelta`; no white
    /// space), read literal by literal up to its delta; the rest through the
    /// general loop. `false` for any other text, which is then read in
    /// general.
    fn read_layout(&mut self, text: &'a str, id: Option<&str>) -> bool {
        let mut cursor = Cursor::new(text);
        let mut read = || -> Option<()> {
            cursor.open_object().then_some(())?;
            let kind = if cursor.expect(br#""type":"text-delta","id":"#).is_some() {
                "text-delta"
            } else if cursor
                .expect(br#""type":"reasoning-delta","id":"#)
                .is_some()
            {
                "reasoning-delta"
            } else if cursor
                .expect(br#""type":"tool-input-delta","toolCallId":"#)
                .is_some()
            {
                "tool-input-delta"
            } else {
                return None;
            };
            self.kind = Some(StrField::Str(Cow::Borrowed(kind)));
            let read_id = match id.and_then(|id| cursor.plain_str(id)) {
                Some(told) => {
                    self.id_expected = true;
                    Scalar::Str(Cow::Borrowed(told))
                }
                None => cursor.scalar().ok()?,
            };
            if kind == "tool-input-delta" {
                self.tool_call_id = Some(read_id);
                cursor.expect(br#","inputTextDelta":"#)?;
                self.input_text_delta = Some(cursor.scalar().ok()?);
            } else {
                self.id = Some(read_id);
                cursor.expect(br#","delta":"#)?;
                self.delta = Some(cursor.scalar().ok()?);
            }
            Some(())
        };
        read().is_some() && cursor.finish_object(self)
    }

    /// An appending chunk's target, the part id or tool call id it names and
    /// the string it appends; `None` for any other chunk, or one not plainly
    /// so.
    pub fn into_append(self) -> Option<(Target, Cow<'a, str>, Cow<'a, str>)> {
        if self.metadata {
            return None;
        }
        let (target, id, piece) = match self.kind.as_ref()?.as_str()? {
            "text-delta" => (Target::Text, self.id?, self.delta?),
            "reasoning-delta" => (Target::Reasoning, self.id?, self.delta?),
            "tool-input-delta" => (
                Target::ToolInput,
                self.tool_call_id?,
                self.input_text_delta?,
            ),
            _ => return None,
        };
        match (id, piece) {
            (Scalar::Str(id), Scalar::Str(piece)) => Some((target, id, piece)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout reading, with no id told.
    fn read(text: &str) -> Option<Chunk<'_>> {
        let mut chunk = Chunk::default();
        chunk.read(text, None).then_some(chunk)
    }

    /// The layout reading told `id`: (with the id's being told set aside)
    /// what the general reading gives, and told only when it is that id.
    fn read_told<'a>(text: &'a str, id: &str) -> Option<Chunk<'a>> {
        let mut chunk = Chunk::default();
        if !chunk.read(text, Some(id)) {
            return None;
        }
        if chunk.id_expected {
            let read = chunk.id.as_ref().or(chunk.tool_call_id.as_ref());
            assert_eq!(read.and_then(Scalar::as_str), Some(id), "{text}");
        }
        chunk.id_expected = false;
        Some(chunk)
    }

    const TEXT: &str = r#"{"type":"text-delta","id":"t1","delta":" the \"agent\""}"#;
    const REASONING: &str = r#"{"type":"reasoning-delta","id":"r1","delta":"h\u00e9"}"#;
    const INPUT: &str =
        r#"{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"city\": \"Pa"}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [TEXT, REASONING, INPUT] {
            assert_eq!(read(text), Chunk::parse(text), "{text}");
        }
        let mut chunk = Chunk::default();
        assert!(chunk.read(INPUT, Some("c1")));
        assert!(chunk.id_expected);
        let (target, id, _) = chunk.into_append().unwrap();
        assert_eq!((target, &*id), (Target::ToolInput, "c1"));
        // A repeated call id is the one that counts, and was not told.
        let repeated = r#"{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"a","toolCallId":"c2"}"#;
        let mut chunk = Chunk::default();
        assert!(chunk.read(repeated, Some("c1")));
        assert!(!chunk.id_expected);
        let mut chunk = Chunk::default();
        assert!(chunk.read(TEXT, Some("t1")));
        assert!(chunk.id_expected);
        let (target, id, piece) = chunk.into_append().unwrap();
        assert_eq!(
            (target, &*id, &*piece),
            (Target::Text, "t1", r#" the "agent""#)
        );
        // Off the layout: white space, another order, extra fields, values
        // of other kinds, trailing text, a repeated id.
        for text in [
            r#"{"type": "text-delta", "id": "t1", "delta": "a"}"#,
            r#"{"id":"t1","type":"text-delta","delta":"a"}"#,
            r#"{"type":"text-delta","id":"t1","delta":"a","providerMetadata":{}}"#,
            r#"{"type":"text-delta","id":7,"delta":["a"]}"#,
            r#"{"type":"text-delta","id":"t1","delta":"a"} x"#,
            r#"{"type":"text-delta","id":"t1","delta":"a",}"#,
            r#"{"type":"text-delta","id":"t1","delta":"a","id":"t2"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"t1","inputTextDelta":"a","toolCallId":"c2"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"t1","delta":"a"}"#,
            r#"{"type":"text-delta","toolCallId":"t1","delta":"a"}"#,
        ] {
            assert_eq!(read(text), Chunk::parse(text), "{text}");
            assert_eq!(read_told(text, "t1"), Chunk::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical delta: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        for canonical in [TEXT, REASONING, INPUT] {
            for text in crate::json_probe::one_byte_mutations(canonical) {
                let general = Chunk::parse(&text);
                assert_eq!(read(&text), general, "{text}");
                for id in ["t1", "r1", "c1", "t", "t10", ""] {
                    assert_eq!(read_told(&text, id), general, "{text} told {id}");
                }
            }
        }
    }

    #[test]
    fn reads_appending_chunks() {
        let text = r#"{"type":"text-delta","id":"t\"1","delta":"Hi \"you\""}"#;
        let (target, id, piece) = Chunk::parse(text).unwrap().into_append().unwrap();
        assert_eq!(
            (target, &*id, &*piece),
            (Target::Text, "t\"1", "Hi \"you\"")
        );
        let text = r#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{\"a\":"}"#;
        let (target, id, piece) = Chunk::parse(text).unwrap().into_append().unwrap();
        assert_eq!((target, &*id, &*piece), (Target::ToolInput, "c", "{\"a\":"));
    }

    #[test]
    fn reads_only_what_appends_plainly() {
        for text in [
            r#"{"type":"text-delta","id":"t","delta":"x","providerMetadata":{}}"#,
            r#"{"type":"text-delta","id":"t","delta":5}"#,
            r#"{"type":"text-delta","id":1,"delta":"x"}"#,
            r#"{"type":"text-delta","delta":"x"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"c","delta":"x"}"#,
            r#"{"type":"text-end","id":"t"}"#,
        ] {
            assert!(
                Chunk::parse(text).unwrap().into_append().is_none(),
                "{text}"
            );
        }
        assert!(Chunk::parse(r#"{"type":"text-delta","#).is_none());
    }
}
