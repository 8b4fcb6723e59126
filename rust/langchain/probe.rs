//! A quick look at a protocol message, for the common case: a
//! `content-block-delta` that appends to a block that already exists. What
//! it cannot settle goes to the full path (see `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
pub struct Envelope<'a> {
    pub kind: Option<StrField<'a>>,
    pub event_id: Option<StrField<'a>>,
    /// `eventId`: consulted only when `event_id` is absent, as in the full path.
    pub event_id_camel: Option<StrField<'a>>,
    pub method: Option<StrField<'a>>,
    pub params: Option<Obj<Params<'a>>>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Params<'a> {
    /// The namespace's JSON text as written: compared as text with the last
    /// delta's, and read into a list only when it differs.
    pub namespace: Option<&'a str>,
    pub node: Option<StrField<'a>>,
    pub data: Option<Obj<Data<'a>>>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Data<'a> {
    pub event: Option<StrField<'a>>,
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Delta<'a> {
    pub kind: Option<StrField<'a>>,
    pub text: Option<StrField<'a>>,
    pub reasoning: Option<StrField<'a>>,
    pub args: Option<Scalar<'a>>,
}

impl<'a> Fields<'a> for Envelope<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"type" => self.kind = Some(cursor.str_field()?),
            b"event_id" => self.event_id = Some(cursor.str_field()?),
            b"eventId" => self.event_id_camel = Some(cursor.str_field()?),
            b"method" => self.method = Some(cursor.str_field()?),
            b"params" => cursor.object_into(&mut self.params)?,
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Params<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"namespace" => self.namespace = Some(cursor.raw()?),
            b"node" => self.node = Some(cursor.str_field()?),
            b"data" => cursor.object_into(&mut self.data)?,
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Data<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"event" => self.event = Some(cursor.str_field()?),
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
            b"text" => self.text = Some(cursor.str_field()?),
            b"reasoning" => self.reasoning = Some(cursor.str_field()?),
            b"args" => self.args = Some(cursor.scalar()?),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

/// Wire indexes are JSON-safe unsigned integers: one past this is not
/// taken (the full path reports it).
pub const MAX_INDEX: u64 = 1 << 53;

/// A content-block delta as the quick path applies it, however it was read.
#[derive(Debug, PartialEq)]
pub struct QuickDelta<'e> {
    pub event_id: Option<&'e str>,
    /// The namespace's JSON text as written (`[]` when there is none).
    pub namespace: &'e str,
    pub node: Option<&'e str>,
    pub index: u64,
    pub change: Change<'e>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change<'e> {
    Text(&'e str),
    Reasoning(&'e str),
    /// A tool call's argument text: `""` for `null` or none.
    Args(&'e str),
}

/// A message's text as probed: in the servers' layout, read literal by
/// literal, or any other object, read in general.
pub enum Probe<'a> {
    Layout(Layout<'a>),
    General(Envelope<'a>),
}

impl<'a> Probe<'a> {
    /// `None` when the text is not a JSON object (the full path then
    /// reports it).
    pub fn read(text: &'a str) -> Option<Probe<'a>> {
        match Layout::read(text) {
            Some(layout) => Some(Probe::Layout(layout)),
            None => Cursor::parse_object(text).map(Probe::General),
        }
    }

    /// The delta the quick path may apply, or `None` when the message is
    /// anything else (the full path then takes it).
    pub fn quick(&self) -> Option<QuickDelta<'_>> {
        match self {
            Probe::Layout(layout) => layout.quick(),
            Probe::General(envelope) => envelope.quick(),
        }
    }
}

impl<'a> Envelope<'a> {
    /// The delta in an envelope read in general, checked as the full path
    /// checks it: an `event` of method `messages` whose data is a
    /// `content-block-delta` with an index and a text, reasoning or
    /// tool-call delta of the right type.
    pub fn quick(&self) -> Option<QuickDelta<'_>> {
        match &self.kind {
            None => {}
            Some(kind) if kind.as_str() == Some("event") => {}
            Some(_) => return None,
        }
        let event_id = match (&self.event_id, &self.event_id_camel) {
            (Some(id), _) | (None, Some(id)) => id.as_str(),
            (None, None) => None,
        };
        if self.method.as_ref().and_then(StrField::as_str) != Some("messages") {
            return None;
        }
        let params = self.params.as_ref()?.0.as_ref()?;
        let data = params.data.as_ref()?.0.as_ref()?;
        if data.event.as_ref().and_then(StrField::as_str) != Some("content-block-delta") {
            return None;
        }
        let index = data.index.as_ref().and_then(Scalar::as_i64)?;
        let index = u64::try_from(index)
            .ok()
            .filter(|index| *index < MAX_INDEX)?;
        let delta = data.delta.as_ref()?.0.as_ref()?;
        let change = match delta.kind.as_ref().and_then(StrField::as_str)? {
            "text-delta" => Change::Text(delta.text.as_ref()?.as_str()?),
            "reasoning-delta" => Change::Reasoning(delta.reasoning.as_ref()?.as_str()?),
            "tool-call-delta" => match &delta.args {
                None | Some(Scalar::Null) => Change::Args(""),
                Some(Scalar::Str(args)) => Change::Args(args),
                Some(_) => return None,
            },
            _ => return None,
        };
        Some(QuickDelta {
            event_id,
            // No namespace is the root's, as `[]` is.
            namespace: params.namespace.unwrap_or("[]"),
            node: params.node.as_ref().and_then(StrField::as_str),
            index,
            change,
        })
    }
}

/// A content-block delta as LangChain's servers (and agentcodec's encoder)
/// write it, read by [`Layout::read`].
#[derive(Debug, PartialEq)]
pub struct Layout<'a> {
    event_id: Cow<'a, str>,
    namespace: &'a str,
    node: Cow<'a, str>,
    index: Scalar<'a>,
    kind: LayoutKind,
    piece: Cow<'a, str>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum LayoutKind {
    Text,
    Reasoning,
    Args,
}

impl<'a> Layout<'a> {
    /// A content-block delta in the servers' field order, no white space,
    /// read literal by literal, so that no key is scanned and compared, and
    /// nothing is built but the delta. `None` for any other text, which is
    /// then read in general. Values are taken only of the type the quick
    /// path uses (the literals open objects the cursor does not count, so
    /// a nested value is left to the general read, which counts depth as
    /// the full parse does).
    pub fn read(text: &'a str) -> Option<Layout<'a>> {
        let mut cursor = Cursor::new(text);
        cursor.open_object().then_some(())?;
        cursor.expect(br#""type":"event","event_id":"#)?;
        let event_id = string(&mut cursor)?;
        cursor.expect(br#","seq":"#)?;
        cursor.plain_integer()?;
        cursor.expect(br#","method":"messages","params":{"namespace":"#)?;
        let namespace = cursor.raw_strings()?;
        cursor.expect(br#","timestamp":"#)?;
        cursor.plain_integer()?;
        cursor.expect(br#","node":"#)?;
        let node = string(&mut cursor)?;
        cursor.expect(br#","data":{"event":"content-block-delta","index":"#)?;
        let index = match cursor.digit() {
            Some(index) => index,
            None => number(&mut cursor)?,
        };
        cursor.expect(br#","delta":{"type":"#)?;
        let (kind, piece) = if cursor.expect(br#""text-delta","text":"#).is_some() {
            (LayoutKind::Text, string(&mut cursor)?)
        } else if cursor
            .expect(br#""reasoning-delta","reasoning":"#)
            .is_some()
        {
            (LayoutKind::Reasoning, string(&mut cursor)?)
        } else if cursor.expect(br#""tool-call-delta","args":"#).is_some() {
            match cursor.scalar().ok()? {
                Scalar::Str(args) => (LayoutKind::Args, args),
                Scalar::Null => (LayoutKind::Args, Cow::Borrowed("")),
                _ => return None,
            }
        } else {
            return None;
        };
        cursor.expect(b"}}}}")?;
        cursor.end().ok()?;
        Some(Layout {
            event_id,
            namespace,
            node,
            index,
            kind,
            piece,
        })
    }

    fn quick(&self) -> Option<QuickDelta<'_>> {
        let index = u64::try_from(self.index.as_i64()?)
            .ok()
            .filter(|index| *index < MAX_INDEX)?;
        Some(QuickDelta {
            event_id: Some(&self.event_id),
            namespace: self.namespace,
            node: Some(&self.node),
            index,
            change: match self.kind {
                LayoutKind::Text => Change::Text(&self.piece),
                LayoutKind::Reasoning => Change::Reasoning(&self.piece),
                LayoutKind::Args => Change::Args(&self.piece),
            },
        })
    }
}

/// A string value, or `None` (the layout read gives up) for anything else.
fn string<'a>(cursor: &mut Cursor<'a>) -> Option<Cow<'a, str>> {
    match cursor.str_field().ok()? {
        StrField::Str(text) => Some(text),
        StrField::NotStr => None,
    }
}

/// A number value, or `None` for anything else.
fn number<'a>(cursor: &mut Cursor<'a>) -> Option<Scalar<'a>> {
    match cursor.scalar().ok()? {
        number @ Scalar::Number(_) => Some(number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_delta_envelope() {
        let text = r#"{"type":"event","event_id":"7","seq":7,"method":"messages","params":{"namespace":["a"],"timestamp":1,"node":"model","data":{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"hi"}}}}"#;
        let expected = QuickDelta {
            event_id: Some("7"),
            namespace: r#"["a"]"#,
            node: Some("model"),
            index: 0,
            change: Change::Text("hi"),
        };
        let probe = Probe::read(text).unwrap();
        assert!(matches!(probe, Probe::Layout(_)));
        assert_eq!(probe.quick(), Some(expected));
        let general = Cursor::parse_object::<Envelope>(text).unwrap();
        assert_eq!(
            general.quick(),
            Probe::read(text).as_ref().and_then(Probe::quick)
        );
    }

    const CANONICAL: &str = r#"{"type":"event","event_id":"7","seq":7,"method":"messages","params":{"namespace":["a","b:1"],"timestamp":1,"node":"model","data":{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"hi \"x\""}}}}"#;

    #[test]
    fn the_layout_read_and_the_general_read_agree() {
        let deltas = [
            CANONICAL.to_owned(),
            CANONICAL.replace(
                r#""type":"text-delta","text""#,
                r#""type":"reasoning-delta","reasoning""#,
            ),
            CANONICAL.replace(
                r#""type":"text-delta","text":"hi \"x\"""#,
                r#""type":"tool-call-delta","args":"{\"q\":""#,
            ),
            CANONICAL.replace(
                r#""type":"text-delta","text":"hi \"x\"""#,
                r#""type":"tool-call-delta","args":null"#,
            ),
            CANONICAL.replace(r#""index":0"#, r#""index":12"#),
        ];
        for delta in &deltas {
            assert!(Layout::read(delta).is_some(), "{delta}");
        }
        // Every one-byte change of each (and the unchanged) reads as the
        // general loop reads it, or is left to it.
        let specials = [
            "", "\"", "{", "}", "[", "]", ",", ":", " ", "0", "1", "-", ".", "e", "n", "\\", "x",
        ];
        for delta in &deltas {
            for at in 0..=delta.len() {
                let (head, tail) = delta.split_at(at);
                for special in specials {
                    for text in [
                        format!("{head}{special}{tail}"),
                        format!("{head}{special}{}", tail.get(1..).unwrap_or("")),
                    ] {
                        if let Some(layout) = Layout::read(&text) {
                            let general = Cursor::parse_object::<Envelope>(&text);
                            assert!(general.is_some(), "{text}");
                            assert_eq!(
                                layout.quick(),
                                general.as_ref().and_then(Envelope::quick),
                                "{text}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn nested_values_are_left_to_the_general_read() {
        for (from, to) in [
            (r#""seq":7"#, r#""seq":[7]"#),
            (r#""node":"model""#, r#""node":["model"]"#),
            (r#""timestamp":1"#, r#""timestamp":{}"#),
        ] {
            assert!(Layout::read(&CANONICAL.replace(from, to)).is_none(), "{to}");
        }
    }

    #[test]
    fn trailing_text_and_bad_json_are_not_probed() {
        assert!(Probe::read(r#"{"a":1} x"#).is_none());
        assert!(Probe::read(r#"{"a":"\ud800"}"#).is_none());
        assert!(Probe::read("[1]").is_none());
    }
}
