//! A quick look at a LangGraph event, for the common case: a `messages`
//! event whose chunk adds a piece of text to a message already held, with
//! nothing else to add (no tool-call chunks, usage or metadata beyond the
//! provider's name it already holds). The run's metadata beside the chunk
//! (some 800 bytes of node, step and checkpoint fields) is checked, not
//! built. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

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
    /// List content: its blocks, when it is a list of objects.
    pub blocks: Option<Vec<Block<'a>>>,
    /// Tool-call chunks: when a list of objects.
    pub calls: Option<Vec<CallChunk<'a>>>,
    /// `tool_calls` or `invalid_tool_calls` held something (a list of
    /// objects: what they hold matters only where there are no chunks).
    pub whole_calls: bool,
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

impl<'a> Event<'a> {
    /// A `messages` event as langgraph-api writes it (`event`, then `data`
    /// of the chunk and the run's metadata; no white space), its metadata
    /// compared with `known`, the last event's, and checked only when it
    /// differs; then the metadata's text, when it was read. `None` for any
    /// other text, which is then read in general.
    fn read_layout(text: &'a str, known: &str) -> Option<(Event<'a>, Option<&'a str>)> {
        let mut cursor = Cursor::new(text);
        cursor.open_object().then_some(())?;
        cursor.expect(br#""event":"#)?;
        let mut event = Event {
            event: Some(cursor.scalar().ok()?),
            ..Event::default()
        };
        cursor.expect(br#","data":"#)?;
        cursor.open_nested(b'[')?;
        let mut chunk = None;
        cursor.object_into(&mut chunk).ok()?;
        let Some(Obj(Some(chunk))) = chunk else {
            return None;
        };
        cursor.expect(b",")?;
        // (only an object told is the metadata as read before)
        let fresh = if known.starts_with('{') && cursor.known(known) {
            None
        } else {
            let raw = cursor.raw().ok()?;
            raw.starts_with('{').then_some(())?;
            Some(raw)
        };
        cursor.close_nested(b']')?;
        // (what the metadata holds is not read: `other`, as in general)
        let metadata = Chunk {
            other: true,
            ..Chunk::default()
        };
        event.data = Some(vec![chunk, metadata]);
        cursor.finish_object(&mut event).then_some((event, fresh))
    }
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

/// An object whose fields are checked and skipped.
#[derive(Debug, Default)]
struct Skipped;

impl<'a> Fields<'a> for Skipped {
    fn field(&mut self, _key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        cursor.skip()
    }
}

impl<'a> Chunk<'a> {
    /// A list of objects that is not empty (`true`); an empty one or null
    /// (`false`); anything else makes the chunk `other`.
    fn listed(&mut self, cursor: &mut Cursor<'a>) -> Result<bool> {
        if !cursor.peek_array()? {
            self.other |= cursor.scalar()? != Scalar::Null;
            return Ok(false);
        }
        let mut items: Vec<Skipped> = Vec::new();
        self.other |= !cursor.objects_into(&mut items)?;
        Ok(!items.is_empty())
    }
}

impl<'a> Fields<'a> for Chunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"content" => {
                let mut blocks = Vec::new();
                if cursor.peek_array()? {
                    self.blocks = cursor.objects_into(&mut blocks)?.then_some(blocks);
                    self.other |= self.blocks.is_none();
                } else {
                    self.content = Some(cursor.scalar()?);
                }
            },
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
            b"tool_calls" => self.whole_calls |= self.listed(cursor)?,
            b"invalid_tool_calls" => self.whole_calls |= self.listed(cursor)?,
            b"tool_call_chunks" => {
                let mut calls = Vec::new();
                self.calls = cursor.objects_into(&mut calls)?.then_some(calls);
                self.other |= self.calls.is_none();
            },
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

/// A block of list content: its `index` and one string field beside its
/// `type` (`text`, `reasoning`, `thinking`); `other` for anything more.
#[derive(Debug, Default)]
pub struct Block<'a> {
    /// Its `type`, which decides the field the decoder reads.
    pub kind: Option<Scalar<'a>>,
    pub index: Option<Scalar<'a>>,
    pub field: Option<(std::borrow::Cow<'a, str>, Scalar<'a>)>,
    pub other: bool,
}

impl<'a> Block<'a> {
    fn other_field(&mut self, cursor: &mut Cursor<'a>) -> Result<()> {
        self.other = true;
        cursor.skip()
    }
}

impl<'a> Fields<'a> for Block<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.scalar()?),
            b"index" => self.index = Some(cursor.scalar()?),
            // (an id decides whether it merges; the others are kept when equal)
            b"id" => self.other_field(cursor)?,
            b"output_version" => self.other_field(cursor)?,
            b"model_provider" => self.other_field(cursor)?,
            _ => {
                let value = cursor.scalar()?;
                if self.field.is_some() {
                    self.other = true;
                } else {
                    self.field = Some((std::borrow::Cow::Owned(key.to_owned()), value));
                }
            },
        });
        Ok(())
    }
}

/// A tool-call chunk that only continues a call's arguments: `name` and
/// `id` null, `args` a string; `other` for anything more.
#[derive(Debug, Default)]
pub struct CallChunk<'a> {
    pub index: Option<Scalar<'a>>,
    pub args: Option<Scalar<'a>>,
    pub other: bool,
}

impl<'a> Fields<'a> for CallChunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => cursor.skip()?,
            b"index" => self.index = Some(cursor.scalar()?),
            b"args" => self.args = Some(cursor.scalar()?),
            b"name" => self.other |= cursor.scalar()? != Scalar::Null,
            b"id" => self.other |= cursor.scalar()? != Scalar::Null,
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

/// What a quick event adds to the message `id` of the namespace.
#[derive(Debug, PartialEq)]
pub struct TextPiece<'a> {
    pub namespace: &'a str,
    pub id: std::borrow::Cow<'a, str>,
    pub adds: Adds<'a>,
    /// A block's `type`, for [`Adds::Block`]: the assembler merges by index
    /// alone, the decoder reads the field of the type.
    pub block_kind: Option<Scalar<'a>>,
    /// The provider's name its metadata gives, which the message must hold.
    pub provider: Option<std::borrow::Cow<'a, str>>,
}

/// The piece of text, and where it goes.
#[derive(Debug, PartialEq)]
pub enum Adds<'a> {
    /// To string content.
    Text(std::borrow::Cow<'a, str>),
    /// To a string field of the block of this index of list content.
    Block(i64, std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>),
    /// To the arguments of the tool-call chunk of this index.
    Args(i64, std::borrow::Cow<'a, str>),
}

impl<'a> TextPiece<'a> {
    /// Probes an event's text: `None` for anything but a `messages` event
    /// of one AI message chunk bringing text and nothing else.
    pub fn parse(text: &'a str) -> Option<TextPiece<'a>> {
        TextPiece::from_event(Cursor::parse_object(text)?)
    }

    /// [`TextPiece::parse`], reading the event in langgraph-api's layout
    /// when it has it, its run's metadata compared with `known` (the last
    /// event's, or empty): with the metadata's text when it was read, for
    /// the caller to know next time.
    pub fn read(text: &'a str, known: &str) -> Option<(TextPiece<'a>, Option<&'a str>)> {
        match Event::read_layout(text, known) {
            Some((event, fresh)) => Some((TextPiece::from_event(event)?, fresh)),
            None => Some((TextPiece::parse(text)?, None)),
        }
    }

    /// [`TextPiece::read`] in langgraph-api's layout alone (`None` off it),
    /// so that the metadata's text is known: compared with `known`, and
    /// given when it differs.
    pub fn read_in_layout(text: &'a str, known: &str) -> Option<(TextPiece<'a>, Option<&'a str>)> {
        let (event, fresh) = Event::read_layout(text, known)?;
        Some((TextPiece::from_event(event)?, fresh))
    }

    fn from_event(event: Event<'a>) -> Option<TextPiece<'a>> {
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
        let Some(Scalar::Str(id)) = chunk.id else {
            return None;
        };
        if id.is_empty() {
            return None;
        }
        let calls = chunk.calls.unwrap_or_default();
        if chunk.whole_calls && calls.is_empty() {
            return None; // (whole calls, and no chunks: they are made chunks)
        }
        let mut block_kind = None;
        let adds = match (chunk.content, chunk.blocks, calls.len()) {
            (Some(Scalar::Str(text)), None, 0) if !text.is_empty() => Adds::Text(text),
            (Some(Scalar::Str(text)), None, 1) if text.is_empty() => {
                let call = calls.into_iter().next()?;
                match (
                    call.other,
                    call.index.as_ref().and_then(Scalar::as_i64),
                    call.args,
                ) {
                    (false, Some(index), Some(Scalar::Str(args))) if !args.is_empty() => {
                        Adds::Args(index, args)
                    }
                    _ => return None,
                }
            }
            (None, Some(blocks), 0) if blocks.len() == 1 => {
                let block = blocks.into_iter().next()?;
                match (
                    block.other,
                    block.index.as_ref().and_then(Scalar::as_i64),
                    block.field,
                ) {
                    (false, Some(index), Some((key, Scalar::Str(text)))) if !text.is_empty() => {
                        block_kind = block.kind;
                        Adds::Block(index, key, text)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let provider = match chunk.provider {
            None => None,
            Some(Scalar::Str(provider)) => Some(provider),
            Some(_) => return None,
        };
        Some(TextPiece {
            namespace,
            id,
            adds,
            block_kind,
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
        assert_eq!((piece.namespace, &*piece.id), ("inner:1", "m"));
        assert!(matches!(piece.adds, Adds::Text(text) if text == "Hé"));
        assert_eq!(piece.provider.as_deref(), Some("openai"));
    }

    const METADATA: &str = r#"{"created_by":"system","graph_id":"agent","run_attempt":1,"langgraph_step":1,"langgraph_node":"agent","langgraph_triggers":["branch:to:agent"],"checkpoint_ns":"agent:dd5d","ls_temperature":0.5}"#;

    fn event(chunk: &str) -> String {
        format!(r#"{{"event":"messages","data":[{chunk},{METADATA}]}}"#)
    }

    /// The layout reading, told `known`: what the general reading gives,
    /// and, when the metadata was read, its text, an object.
    fn read_told<'a>(text: &'a str, known: &str) -> Option<TextPiece<'a>> {
        let (piece, fresh) = TextPiece::read(text, known)?;
        if let Some(fresh) = fresh {
            assert!(crate::json::parse(fresh).unwrap().is_object(), "{text}");
        }
        Some(piece)
    }

    #[test]
    fn the_layout_reading_is_the_general_one() {
        let texts = [
            event(
                r#"{"content":" the \"agent\"","additional_kwargs":{},"response_metadata":{},"type":"AIMessageChunk","name":null,"id":"m1","tool_calls":[],"invalid_tool_calls":[],"usage_metadata":null,"tool_call_chunks":[],"chunk_position":null}"#,
            ),
            event(
                r#"{"content":[{"type":"reasoning","reasoning":"h\u00e9","index":0}],"type":"AIMessageChunk","id":"m1"}"#,
            ),
        ];
        for text in &texts {
            // Told the metadata it holds, another, or none.
            for known in [METADATA, "{}", r#"{"created_by":"system"}"#, ""] {
                let (piece, fresh) = TextPiece::read(text, known).unwrap();
                assert_eq!(Some(&piece), TextPiece::parse(text).as_ref(), "{text}");
                assert_eq!(fresh, (known != METADATA).then_some(METADATA));
            }
        }
        // Off the layout, or not a piece: white space, another order, a
        // third item, metadata that is not an object, trailing text.
        for text in [
            r#"{"event": "messages", "data": [{"content":"x","type":"AIMessageChunk","id":"m"}, {}]}"#.to_owned(),
            r#"{"data":[{"content":"x","type":"AIMessageChunk","id":"m"},{}],"event":"messages"}"#.to_owned(),
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},{},{}]}"#.to_owned(),
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},[]]}"#.to_owned(),
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},{}],"event":"values"}"#.to_owned(),
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},{}]} x"#.to_owned(),
        ] {
            for known in ["{}", "[]", METADATA, ""] {
                assert_eq!(read_told(&text, known), TextPiece::parse(&text), "{text}");
            }
        }
    }

    /// Every one-byte mutation of a canonical event, told the metadata it
    /// had: the layout reading and the general one agree. A mutation in
    /// the metadata makes it differ from the one told, and it is read.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        let canonical = event(
            r#"{"content":" the \"agent\"","type":"AIMessageChunk","id":"m1","tool_call_chunks":[]}"#,
        );
        crate::json_probe::each_mutation(&[&canonical], |text| {
            for known in [METADATA, ""] {
                assert_eq!(read_told(text, known), TextPiece::parse(text), "{text}");
            }
        });
    }

    #[test]
    fn anything_more_goes_to_the_full_path() {
        let base = r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"FIELD},{}]}"#;
        assert!(TextPiece::parse(&base.replace("FIELD", "")).is_some());
        for more in [
            r#","usage_metadata":{"input_tokens":1}"#,
            r#","tool_call_chunks":[{"index":0,"args":"{","name":"f"}]"#,
            r#","response_metadata":{"finish_reason":"stop"}"#,
            r#","chunk_position":"last""#,
            r#","name":"bob""#,
            r#","other":1"#,
        ] {
            assert!(
                TextPiece::parse(&base.replace("FIELD", more)).is_none(),
                "{more}"
            );
        }
        assert!(TextPiece::parse(r#"{"event":"values","data":[{},{}]}"#).is_none());
        let call = r#"{"event":"messages","data":[{"content":"","type":"AIMessageChunk","id":"m","tool_calls":[{"name":"f","args":{}}],"tool_call_chunks":[{"name":null,"args":"ab","id":null,"index":1,"type":"tool_call_chunk"}]},{}]}"#;
        assert!(
            matches!(TextPiece::parse(call).unwrap().adds, Adds::Args(1, args) if args == "ab")
        );
        let block = r#"{"event":"messages","data":[{"content":[{"type":"thinking","thinking":"x","index":0}],"type":"AIMessageChunk","id":"m"},{}]}"#;
        assert!(
            matches!(TextPiece::parse(block).unwrap().adds, Adds::Block(0, key, text) if key == "thinking" && text == "x")
        );
        let with_id = block.replace(r#""index":0"#, r#""index":0,"id":"b""#);
        assert!(TextPiece::parse(&with_id).is_none());
        let whole = r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m","tool_calls":[{"name":"f"}]},{}]}"#;
        assert!(TextPiece::parse(whole).is_none());
        assert!(TextPiece::parse(
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"}]}"#
        )
        .is_none());
        assert!(TextPiece::parse(
            r#"{"event":"messages","data":[{"content":"x","type":"AIMessageChunk","id":"m"},{}"#
        )
        .is_none());
    }
}
