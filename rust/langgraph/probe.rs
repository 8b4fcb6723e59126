//! A quick look at a LangGraph event, for the common case: a `messages`
//! event whose chunk adds a piece of text to a message already held, with
//! nothing else to add (no tool-call chunks, usage or metadata beyond the
//! provider's name it already holds). The run's metadata beside the chunk
//! (some 800 bytes of node, step and checkpoint fields) is checked, not
//! built. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Result, Scalar};

/// The event as the framing hands it: `{"event": <name>, "data": [...]}`.
#[derive(Debug, Default)]
pub struct Event<'a> {
    pub event: Option<Scalar<'a>>,
    /// The items of `data`, each read as a chunk (the metadata's fields
    /// all `other`); `None` unless `data` was an array of objects.
    pub data: Option<Vec<Chunk<'a>>>,
    pub other: bool,
}

/// A message chunk; `other` when it has a field the quick path does not
/// settle, or one of those it reads holds more than nothing.
#[derive(Debug, Default)]
pub struct Chunk<'a> {
    pub kind: Option<Scalar<'a>>,
    pub id: Option<Scalar<'a>>,
    pub content: Option<Scalar<'a>>,
    /// `response_metadata`'s provider name, when it holds that alone.
    pub provider: Option<Scalar<'a>>,
    pub other: bool,
}

/// `response_metadata`: empty, or the provider's name alone.
#[derive(Debug, Default)]
struct Metadata<'a> {
    provider: Option<Scalar<'a>>,
    other: bool,
}

impl<'a> Fields<'a> for Event<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"event" => self.event = Some(cursor.scalar()?),
            b"data" => {
                let mut items = Vec::with_capacity(2);
                self.data = cursor.objects_into(&mut items)?.then_some(items);
            },
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Chunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"content" => self.content = Some(cursor.scalar()?),
            b"type" => self.kind = Some(cursor.scalar()?),
            b"id" => self.id = Some(cursor.scalar()?),
            b"response_metadata" => {
                let mut metadata = Metadata::default();
                match cursor.raw()? {
                    "{}" => {}
                    raw if Cursor::read_object(raw, &mut metadata) && !metadata.other => {
                        self.provider = metadata.provider;
                    }
                    _ => self.other = true,
                }
            },
            b"additional_kwargs" => self.other |= cursor.raw()? != "{}",
            b"tool_calls" => self.other |= cursor.raw()? != "[]",
            b"invalid_tool_calls" => self.other |= cursor.raw()? != "[]",
            b"tool_call_chunks" => self.other |= cursor.raw()? != "[]",
            b"name" => self.other |= cursor.scalar()? != Scalar::Null,
            b"usage_metadata" => self.other |= cursor.scalar()? != Scalar::Null,
            b"chunk_position" => self.other |= cursor.scalar()? != Scalar::Null,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Metadata<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"model_provider" => self.provider = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

/// What a quick event adds: text to the message `id` of the namespace.
#[derive(Debug)]
pub struct TextPiece<'a> {
    pub namespace: &'a str,
    pub id: std::borrow::Cow<'a, str>,
    pub text: std::borrow::Cow<'a, str>,
    /// The provider's name its metadata gives, which the message must hold.
    pub provider: Option<std::borrow::Cow<'a, str>>,
}

impl<'a> TextPiece<'a> {
    /// Probes an event's text: `None` for anything but a `messages` event
    /// of one AI message chunk bringing text and nothing else.
    pub fn parse(text: &'a str) -> Option<TextPiece<'a>> {
        let event: Event<'a> = Cursor::parse_object(text)?;
        if event.other {
            return None;
        }
        let Some(Scalar::Str(name)) = event.event else {
            return None;
        };
        let namespace = match name {
            std::borrow::Cow::Borrowed(name) => name.strip_prefix("messages")?,
            std::borrow::Cow::Owned(_) => return None, // (an escaped name: the full path reads it)
        };
        let namespace = match namespace.strip_prefix('|') {
            Some(namespace) => namespace,
            None if namespace.is_empty() => "",
            None => return None,
        };
        let mut items = event.data?;
        if items.len() != 2 {
            return None;
        }
        let chunk = items.swap_remove(0);
        if chunk.other || chunk.kind.as_ref().and_then(Scalar::as_str) != Some("AIMessageChunk") {
            return None;
        }
        let (Some(Scalar::Str(id)), Some(Scalar::Str(text))) = (chunk.id, chunk.content) else {
            return None;
        };
        if id.is_empty() || text.is_empty() {
            return None;
        }
        let provider = match chunk.provider {
            None => None,
            Some(Scalar::Str(provider)) => Some(provider),
            Some(_) => return None,
        };
        Some(TextPiece {
            namespace,
            id,
            text,
            provider,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_text_chunk_and_skips_the_metadata() {
        let text = r#"{"event":"messages|inner:1","data":[{"content":"Hé","additional_kwargs":{},"response_metadata":{"model_provider":"openai"},"type":"AIMessageChunk","name":null,"id":"m","tool_calls":[],"invalid_tool_calls":[],"usage_metadata":null,"tool_call_chunks":[],"chunk_position":null},{"run_id":"r","langgraph_step":1,"tags":["a"]}]}"#;
        let piece = TextPiece::parse(text).unwrap();
        assert_eq!((piece.namespace, &*piece.id, &*piece.text), ("inner:1", "m", "Hé"));
        assert_eq!(piece.provider.as_deref(), Some("openai"));
    }

    #[test]
    fn anything_more_goes_to_the_full_path() {
        let base = r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"FIELD},{}]}"#;
        assert!(TextPiece::parse(&base.replace("FIELD", "")).is_some());
        for more in [
            r#","usage_metadata":{"input_tokens":1}"#,
            r#","tool_call_chunks":[{"index":0}]"#,
            r#","response_metadata":{"finish_reason":"stop"}"#,
            r#","chunk_position":"last""#,
            r#","name":"bob""#,
            r#","other":1"#,
        ] {
            assert!(TextPiece::parse(&base.replace("FIELD", more)).is_none(), "{more}");
        }
        assert!(TextPiece::parse(r#"{"event":"values","data":[{},{}]}"#).is_none());
        assert!(TextPiece::parse(r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"}]}"#).is_none());
        assert!(TextPiece::parse(r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},{}"#).is_none());
    }
}
