//! A quick look at an A2A event, for the common case: a JSON-RPC response
//! whose result is an artifact update that appends text parts to an
//! artifact (1.0's `{"artifactUpdate": {...}}`, 0.3's `kind:
//! "artifact-update"`). Anything else, or anything it does not know in
//! one, goes to the full path (see `crate::json_probe`).

use std::borrow::Cow;

use crate::json::{Map, Value};
use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

/// The JSON-RPC response.
#[derive(Debug, Default, PartialEq)]
pub struct Response<'a> {
    jsonrpc: bool,
    result: Option<Obj<Outcome<'a>>>,
    other: bool,
}

impl<'a> Fields<'a> for Response<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"jsonrpc" => {
                self.jsonrpc = true;
                cursor.skip()?
            },
            b"id" => cursor.skip()?,
            b"result" => cursor.object_into(&mut self.result)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

/// A result: 1.0's holds the update under `artifactUpdate`, 0.3's is the
/// update itself, tagged by `kind`.
#[derive(Debug, Default, PartialEq)]
struct Outcome<'a> {
    kind: Option<StrField<'a>>,
    artifact_update: Option<Obj<Update<'a>>>,
    update: Update<'a>,
}

impl<'a> Fields<'a> for Outcome<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"kind" => self.kind = Some(cursor.str_field()?),
            b"artifactUpdate" => cursor.object_into(&mut self.artifact_update)?,
            _ => self.update.field(key, cursor)?,
        });
        Ok(())
    }
}

#[derive(Debug, Default, PartialEq)]
struct Update<'a> {
    task_id: Option<StrField<'a>>,
    append: Option<Scalar<'a>>,
    artifact: Option<Obj<Artifact<'a>>>,
    /// Any field: a 1.0 result that holds more than its update, or what
    /// the full path merges (`metadata`).
    any: bool,
    other: bool,
}

impl<'a> Fields<'a> for Update<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        self.any = true;
        crate::match_key!(key, {
            b"taskId" => self.task_id = Some(cursor.str_field()?),
            // Neither is read once the task is held.
            b"contextId" => cursor.skip()?,
            b"lastChunk" => cursor.skip()?,
            b"append" => self.append = Some(cursor.scalar()?),
            b"artifact" => cursor.object_into(&mut self.artifact)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

#[derive(Debug, Default, PartialEq)]
struct Artifact<'a> {
    artifact_id: Option<StrField<'a>>,
    parts: Option<Vec<Part<'a>>>,
    other: bool,
}

impl<'a> Fields<'a> for Artifact<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"artifactId" => self.artifact_id = Some(cursor.str_field()?),
            b"parts" => {
                let mut parts = Vec::new();
                self.parts = cursor.objects_into(&mut parts)?.then_some(parts);
            },
            // What the full path merges into the artifact appended to.
            b"metadata" => {
                self.other = true;
                cursor.skip()?
            },
            // The rest (its name, description, extensions) is the first
            // chunk's: an append adds parts alone, as a2a-sdk's does.
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

/// A text part: `{"text"}` (1.0) or `{"kind": "text", "text"}` (0.3), its
/// keys in the order they came.
#[derive(Debug, Default, PartialEq)]
struct Part<'a> {
    text: Option<StrField<'a>>,
    kind: Option<StrField<'a>>,
    kind_first: bool,
    other: bool,
}

impl<'a> Fields<'a> for Part<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"text" => {
                self.other |= self.text.is_some();
                self.text = Some(cursor.str_field()?)
            },
            b"kind" => {
                self.other |= self.kind.is_some();
                self.kind_first = self.text.is_none();
                self.kind = Some(cursor.str_field()?)
            },
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Part<'a> {
    /// The part, when it is a plain text part.
    fn into_text_part(self) -> Option<TextPart<'a>> {
        if self.other {
            return None;
        }
        let StrField::Str(text) = self.text? else {
            return None;
        };
        let kind = match self.kind {
            None => PartKind::Absent,
            Some(StrField::Str(kind)) if kind == "text" => PartKind::Text,
            Some(StrField::Str(kind)) => PartKind::Other(kind.into_owned()),
            Some(StrField::NotStr) => return None,
        };
        Some(TextPart {
            text,
            kind,
            kind_first: self.kind_first,
        })
    }
}

/// A text part's `kind` (0.3 names it on every part; 1.0 never).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartKind {
    Absent,
    Text,
    Other(String),
}

/// A text part as the quick path reads it: its text (and 0.3's `kind`),
/// borrowed from the event where it needs no unescaping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPart<'a> {
    pub text: Cow<'a, str>,
    pub kind: PartKind,
    /// Whether `kind` came before `text` (a part keeps its keys' order).
    pub kind_first: bool,
}

impl TextPart<'_> {
    /// The part as the full parse makes it.
    pub fn to_value(&self) -> Value {
        PartRef {
            text: &self.text,
            kind: match &self.kind {
                PartKind::Absent => None,
                PartKind::Text => Some("text"),
                PartKind::Other(kind) => Some(kind),
            },
            kind_first: self.kind_first,
        }
        .to_value()
    }
}

/// One part of [`TextParts`], borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartRef<'a> {
    pub text: &'a str,
    pub kind: Option<&'a str>,
    pub kind_first: bool,
}

impl PartRef<'_> {
    /// The part as the full parse makes it.
    pub fn to_value(self) -> Value {
        let text = Value::String(self.text.to_owned());
        let mut part = Map::new();
        match self.kind {
            None => {
                part.insert("text".to_owned(), text);
            }
            Some(kind) => {
                let kind = Value::String(kind.to_owned());
                if self.kind_first {
                    part.insert("kind".to_owned(), kind);
                    part.insert("text".to_owned(), text);
                } else {
                    part.insert("text".to_owned(), text);
                    part.insert("kind".to_owned(), kind);
                }
            }
        }
        Value::Object(part)
    }
}

/// The text parts the quick path appended to one artifact: a token's part
/// each, a hundred thousand in a long answer, so their texts share one
/// buffer (an allocation a part, and its freeing, cost more than reading
/// the part did, and spread a long answer over fresh memory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextParts {
    text: String,
    parts: Vec<Span>,
    /// The kinds other than "text", which a part names by position.
    kinds: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    /// Where its text ends in the buffer (it starts where the one before ends).
    end: usize,
    /// 0: no kind; 1: "text"; n: `kinds[n - 2]`.
    kind: usize,
    kind_first: bool,
}

impl TextParts {
    pub fn push(&mut self, part: TextPart<'_>) {
        self.text.push_str(&part.text);
        let kind = match part.kind {
            PartKind::Absent => 0,
            PartKind::Text => 1,
            PartKind::Other(kind) => {
                self.kinds.push(kind);
                self.kinds.len() + 1
            }
        };
        self.parts.push(Span {
            end: self.text.len(),
            kind,
            kind_first: part.kind_first,
        });
    }

    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = PartRef<'_>> {
        let mut start = 0;
        self.parts.iter().map(move |span| {
            let text = &self.text[start..span.end];
            start = span.end;
            PartRef {
                text,
                kind: match span.kind {
                    0 => None,
                    1 => Some("text"),
                    n => Some(self.kinds[n - 2].as_str()),
                },
                kind_first: span.kind_first,
            }
        })
    }
}

/// An append of text parts to an artifact: its first part apart, since
/// nearly every append has one part alone and a list of one would be an
/// allocation an event (the last chunk may have none).
#[derive(Debug, PartialEq)]
pub struct Append<'a> {
    pub task_id: Cow<'a, str>,
    pub artifact_id: Cow<'a, str>,
    pub first: Option<TextPart<'a>>,
    pub rest: Vec<TextPart<'a>>,
}

impl<'a> Append<'a> {
    /// The append an event's text is, in a stream of `version`; `None` for
    /// any other event, or one not plainly so. An append of one text part in
    /// the layout agentcodec writes (1.0) is read literal by literal, straight
    /// into the append; anything else through the general reading.
    pub fn read(text: &'a str, version: &str) -> Option<Append<'a>> {
        if version != "0.3" {
            if let Some(append) = Append::read_layout(text) {
                return Some(append);
            }
        }
        Response::parse(text)?.into_append(version)
    }

    /// A 1.0 append of one text part, compact, keys in the order of the
    /// spec's messages (`jsonrpc`, `id`, `result.artifactUpdate`: `taskId`,
    /// `contextId`, `artifact` of `artifactId`, maybe `name`, and `parts`,
    /// then `append`), read literal by literal; the rest of each object
    /// through the general loop, which may hold nothing that changes the
    /// append (a repeated key, what the full path merges). `None` for any
    /// other text, which the general reading then reads.
    fn read_layout(text: &str) -> Option<Append<'_>> {
        let mut cursor = Cursor::new(text);
        cursor.open_object().then_some(())?;
        cursor.expect(br#""jsonrpc":"2.0","id":"#)?;
        cursor.skip().ok()?;
        cursor.expect(br#","result":"#)?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""artifactUpdate":"#)?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""taskId":"#)?;
        let StrField::Str(task_id) = cursor.str_field().ok()? else {
            return None;
        };
        cursor.expect(br#","contextId":"#)?;
        cursor.skip().ok()?;
        cursor.expect(br#","artifact":"#)?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""artifactId":"#)?;
        let StrField::Str(artifact_id) = cursor.str_field().ok()? else {
            return None;
        };
        if cursor.expect(br#","name":"#).is_some() {
            cursor.skip().ok()?;
        }
        cursor.expect(br#","parts":"#)?;
        cursor.open_nested(b'[')?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""text":"#)?;
        let mut part = Part {
            text: Some(cursor.str_field().ok()?),
            ..Part::default()
        };
        cursor.finish_nested(&mut part)?;
        let first = part.into_text_part()?;
        cursor.close_nested(b']')?;
        let mut artifact = Artifact::default();
        cursor.finish_nested(&mut artifact)?;
        cursor.expect(br#","append":true"#)?;
        let mut update = Update::default();
        cursor.finish_nested(&mut update)?;
        let mut outcome = Outcome::default();
        cursor.finish_nested(&mut outcome)?;
        let mut response = Response::default();
        let plain = cursor.finish_object(&mut response)
            && artifact == Artifact::default()
            && !update.other
            && (update.task_id, update.append, update.artifact) == (None, None, None)
            && outcome == Outcome::default()
            && !response.other
            && response.result.is_none();
        plain.then_some(Append {
            task_id,
            artifact_id,
            first: Some(first),
            rest: Vec::new(),
        })
    }

    /// How many parts it appends.
    pub fn count(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// Its parts, in order.
    pub fn into_parts(self) -> impl Iterator<Item = TextPart<'a>> {
        self.first.into_iter().chain(self.rest)
    }
}

impl<'a> Response<'a> {
    /// Probes an event's text: `None` when it is not a JSON object (the
    /// full path then reports it).
    pub fn parse(text: &'a str) -> Option<Response<'a>> {
        Cursor::parse_object(text)
    }

    /// The append this event is, in a stream of `version`; `None` for any
    /// other event, or one not plainly so.
    pub fn into_append(self, version: &str) -> Option<Append<'a>> {
        if !self.jsonrpc || self.other {
            return None;
        }
        let Obj(Some(outcome)) = self.result? else {
            return None;
        };
        let update = if version == "0.3" {
            if outcome.kind?.as_str()? != "artifact-update" || outcome.artifact_update.is_some() {
                return None;
            }
            outcome.update
        } else {
            if outcome.kind.is_some() || outcome.update.any {
                return None;
            }
            let Obj(Some(update)) = outcome.artifact_update? else {
                return None;
            };
            update
        };
        if update.other || !matches!(update.append, Some(Scalar::Bool(true))) {
            return None;
        }
        let Obj(Some(artifact)) = update.artifact? else {
            return None;
        };
        if artifact.other {
            return None;
        }
        let mut parts = artifact.parts?.into_iter();
        let first = match parts.next() {
            Some(part) => Some(part.into_text_part()?),
            None => None,
        };
        let rest = parts
            .map(Part::into_text_part)
            .collect::<Option<Vec<_>>>()?;
        let (StrField::Str(task_id), StrField::Str(artifact_id)) =
            (update.task_id?, artifact.artifact_id?)
        else {
            return None;
        };
        Some(Append {
            task_id,
            artifact_id,
            first,
            rest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(text: &str, version: &str) -> Option<(String, String, String)> {
        let append = Append::read(text, version)?;
        Some((
            append.task_id.to_string(),
            append.artifact_id.to_string(),
            Value::Array(append.into_parts().map(|part| part.to_value()).collect()).to_string(),
        ))
    }

    /// What the general reading makes of a text: the append it is, if any.
    fn general(text: &str) -> Option<Append<'_>> {
        Response::parse(text)?.into_append("1.0")
    }

    const APPEND: &str = r#"{"jsonrpc":"2.0","id":"1","result":{"artifactUpdate":{"taskId":"task-1","contextId":"context-1","artifact":{"artifactId":"a1","parts":[{"text":" the \"agent\""}]},"append":true}}}"#;
    const NAMED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"h\u00e9"}]},"append":true,"lastChunk":false}}}"#;
    const FIRST: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [APPEND, NAMED] {
            assert!(Append::read_layout(text).is_some(), "{text}");
            assert_eq!(Append::read(text, "1.0"), general(text), "{text}");
        }
        // The first chunk is no append: read in general, and not one.
        assert_eq!(Append::read_layout(FIRST), None);
        assert_eq!(general(FIRST), None);
        // Off the layout: white space (a2a-sdk's own server), another
        // order, two parts, more fields, repeated keys, values of other
        // kinds, trailing text.
        for text in [
            r#"{"result": {"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "name": "a", "parts": [{"text": "x"}]}, "append": true}}, "id": 1, "jsonrpc": "2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"},{"text":"y"}]},"append":true}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x","metadata":{}}],"metadata":{"k":1}},"append":true,"metadata":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"append":false}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true},"task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true}},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":5,"contextId":[],"artifact":{"artifactId":null,"parts":[{"text":1}]},"append":"yes"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true}}} x"#,
            // Tails the layout reads in general: repeated keys, what the
            // full path merges, more of the update or the response.
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}],"artifactId":"b"},"append":true}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}],"parts":[]},"append":true}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"taskId":"u"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"artifact":{"artifactId":"a","parts":[{"text":"y"}]}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true},"kind":"artifact-update"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true}},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x","kind":"text"}]},"append":true}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x\u00e9"}]},"append":true,"lastChunk":true}},"id":2}"#,
        ] {
            assert_eq!(Append::read(text, "1.0"), general(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical update: the layout reading
    /// and the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[APPEND, NAMED], |text| {
            assert_eq!(Append::read(text, "1.0"), general(text), "{text}")
        });
    }

    #[test]
    fn text_parts_give_back_each_part_as_it_came() {
        let parts = [
            TextPart {
                text: "h\u{e9}".into(),
                kind: PartKind::Absent,
                kind_first: false,
            },
            TextPart {
                text: "".into(),
                kind: PartKind::Text,
                kind_first: true,
            },
            TextPart {
                text: " \u{6570}\u{636e}".into(),
                kind: PartKind::Other("markdown".into()),
                kind_first: false,
            },
            TextPart {
                text: "!".into(),
                kind: PartKind::Text,
                kind_first: false,
            },
        ];
        let mut held = TextParts::default();
        assert!(held.is_empty());
        for part in parts.iter().cloned() {
            held.push(part);
        }
        assert_eq!(held.len(), 4);
        let given: Vec<Value> = held.iter().map(PartRef::to_value).collect();
        let expected: Vec<Value> = parts.iter().map(TextPart::to_value).collect();
        assert_eq!(given, expected);
        assert_eq!(
            Value::Array(given).to_string(),
            r#"[{"text":"hé"},{"kind":"text","text":""},{"text":" 数据","kind":"markdown"},{"text":"!","kind":"text"}]"#
        );
    }

    #[test]
    fn the_last_chunk_without_parts_is_an_append_of_none() {
        // Settling the artifact on the full path would turn every part
        // appended so far into a value.
        let last = r#"{"jsonrpc":"2.0","id":"1","result":{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]},"append":true,"lastChunk":true}}}"#;
        assert_eq!(
            append(last, "1.0"),
            Some(("t".into(), "a".into(), "[]".into()))
        );
    }

    #[test]
    fn an_append_keeps_the_first_chunks_name() {
        // The full path adds an append's parts alone; a name (as a2a-sdk's
        // server repeats it on every chunk) leaves the quick path open.
        assert!(append(NAMED, "1.0").is_some());
        let v03 = r#"{"id":1,"jsonrpc":"2.0","result":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"kind":"text","text":"x"}]},"contextId":"c","kind":"artifact-update","lastChunk":false,"taskId":"t"}}"#;
        assert!(append(v03, "0.3").is_some());
    }

    #[test]
    fn reads_appends_of_text_parts_in_either_version() {
        let v1 = r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a\"1","parts":[{"text":"Hi \"you\""}]}}}}"#;
        assert_eq!(
            append(v1, "1.0"),
            Some((
                "t".into(),
                "a\"1".into(),
                r#"[{"text":"Hi \"you\""}]"#.into()
            ))
        );
        let v03 = r#"{"id":1,"jsonrpc":"2.0","result":{"append":true,"artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"},{"text":"y","kind":"text"}]},"contextId":"c","kind":"artifact-update","lastChunk":false,"taskId":"t"}}"#;
        assert_eq!(
            append(v03, "0.3"),
            Some((
                "t".into(),
                "a".into(),
                r#"[{"kind":"text","text":"x"},{"text":"y","kind":"text"}]"#.into()
            ))
        );
        // Each version's shape only in its own stream.
        assert_eq!(append(v1, "0.3"), None);
        assert_eq!(append(v03, "1.0"), None);
    }

    #[test]
    fn leaves_to_the_full_path_what_is_not_plainly_an_append_of_text() {
        let update = |body: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"artifactUpdate":{{"taskId":"t",{body}}}}}}}"#
            )
        };
        for text in [
            update(r#""append":false,"artifact":{"artifactId":"a","parts":[{"text":"x"}]}"#),
            update(r#""artifact":{"artifactId":"a","parts":[{"text":"x"}]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[{"data":{}}]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[{"text":"x","metadata":{}}]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[{"text":"x","text":"y"}]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[{"text":5}]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[5]}"#),
            update(r#""append":true,"artifact":{"artifactId":"a","parts":[{"text":"x"}],"metadata":{}}"#),
            update(r#""append":true,"artifact":{"artifactId":5,"parts":[{"text":"x"}]}"#),
            update(r#""append":true,"metadata":{"k":1},"artifact":{"artifactId":"a","parts":[{"text":"x"}]}"#),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1},"result":{"artifactUpdate":{"taskId":"t","append":true,"artifact":{"artifactId":"a","parts":[]}}}}"#.to_owned(),
            r#"{"result":{"artifactUpdate":{"taskId":"t","append":true,"artifact":{"artifactId":"a","parts":[]}}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","result":{"task":{},"artifactUpdate":{"taskId":"t","append":true,"artifact":{"artifactId":"a","parts":[]}}}}"#.to_owned(),
        ] {
            assert_eq!(append(&text, "1.0"), None, "{text}");
        }
        assert!(Response::parse(r#"{"jsonrpc":"2.0","#).is_none());
    }
}
