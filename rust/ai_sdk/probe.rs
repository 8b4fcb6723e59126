//! A quick look at an AI SDK UI message chunk, for the common case: a
//! `text-delta`, `reasoning-delta` or `tool-input-delta` that appends to a
//! part. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Result, Scalar, StrField};

#[derive(Debug, Default)]
pub struct Chunk<'a> {
    pub kind: Option<StrField<'a>>,
    pub id: Option<Scalar<'a>>,
    pub delta: Option<Scalar<'a>>,
    pub tool_call_id: Option<Scalar<'a>>,
    pub input_text_delta: Option<Scalar<'a>>,
    /// A `providerMetadata` came: the full path sets it.
    pub metadata: bool,
}

impl<'a> Fields<'a> for Chunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"id" => self.id = Some(cursor.scalar()?),
            b"delta" => self.delta = Some(cursor.scalar()?),
            b"toolCallId" => self.tool_call_id = Some(cursor.scalar()?),
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
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    Text,
    Reasoning,
    ToolInput,
}

impl<'a> Chunk<'a> {
    /// Probes a chunk's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Chunk<'a>> {
        Cursor::parse_object(text)
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
