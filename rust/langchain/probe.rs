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

impl<'a> Envelope<'a> {
    /// Probes a message's text: `None` when it is not a JSON object (the
    /// full path then reports it).
    pub fn parse(text: &'a str) -> Option<Envelope<'a>> {
        Envelope::read_layout(text).or_else(|| Cursor::parse_object(text))
    }

    /// A content-block delta as LangChain's servers (and agentcodec's
    /// encoder) write it: their field order, no white space, read literal by
    /// literal, so that no key is scanned and compared. `None` for any other
    /// text, which is then read in general. Values are taken only of the
    /// type the quick path uses (the literals open objects the cursor does
    /// not count, so a nested value is left to the general read, which
    /// counts depth as the full parse does).
    fn read_layout(text: &'a str) -> Option<Envelope<'a>> {
        let mut cursor = Cursor::new(text);
        cursor.open_object().then_some(())?;
        cursor.expect(br#""type":"event","event_id":"#)?;
        let event_id = string(&mut cursor)?;
        cursor.expect(br#","seq":"#)?;
        number(&mut cursor)?;
        cursor.expect(br#","method":"messages","params":{"namespace":"#)?;
        let namespace = cursor.raw_strings()?;
        cursor.expect(br#","timestamp":"#)?;
        number(&mut cursor)?;
        cursor.expect(br#","node":"#)?;
        let node = string(&mut cursor)?;
        cursor.expect(br#","data":{"event":"content-block-delta","index":"#)?;
        let index = match cursor.digit() {
            Some(index) => index,
            None => number(&mut cursor)?,
        };
        cursor.expect(br#","delta":{"type":"#)?;
        let mut delta = Delta::default();
        if cursor.expect(br#""text-delta","text":"#).is_some() {
            delta.kind = Some(StrField::Str(Cow::Borrowed("text-delta")));
            delta.text = Some(string(&mut cursor)?);
        } else if cursor
            .expect(br#""reasoning-delta","reasoning":"#)
            .is_some()
        {
            delta.kind = Some(StrField::Str(Cow::Borrowed("reasoning-delta")));
            delta.reasoning = Some(string(&mut cursor)?);
        } else if cursor.expect(br#""tool-call-delta","args":"#).is_some() {
            delta.kind = Some(StrField::Str(Cow::Borrowed("tool-call-delta")));
            delta.args = match cursor.scalar().ok()? {
                args @ (Scalar::Str(_) | Scalar::Null) => Some(args),
                _ => return None,
            };
        } else {
            return None;
        }
        cursor.expect(b"}}}}")?;
        cursor.end().ok()?;
        Some(Envelope {
            kind: Some(StrField::Str(Cow::Borrowed("event"))),
            event_id: Some(event_id),
            event_id_camel: None,
            method: Some(StrField::Str(Cow::Borrowed("messages"))),
            params: Some(Obj(Some(Params {
                namespace: Some(namespace),
                node: Some(node),
                data: Some(Obj(Some(Data {
                    event: Some(StrField::Str(Cow::Borrowed("content-block-delta"))),
                    index: Some(index),
                    delta: Some(Obj(Some(delta))),
                }))),
            }))),
        })
    }
}

/// A string value, or `None` (the layout read gives up) for anything else.
fn string<'a>(cursor: &mut Cursor<'a>) -> Option<StrField<'a>> {
    match cursor.str_field().ok()? {
        StrField::Str(text) => Some(StrField::Str(text)),
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
        let envelope = Envelope::parse(text).unwrap();
        let params = envelope.params.unwrap().0.unwrap();
        assert_eq!(params.namespace, Some(r#"["a"]"#));
        let data = params.data.unwrap().0.unwrap();
        let delta = data.delta.unwrap().0.unwrap();
        assert_eq!(delta.text.unwrap().as_str(), Some("hi"));
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
            assert!(Envelope::read_layout(delta).is_some(), "{delta}");
        }
        // Every one-byte change of each (and the unchanged) reads as the
        // general loop reads it, or is left to it.
        let specials = [
            "", "\"", "{", "}", "[", "]", ",", ":", " ", "1", "-", "n", "\\", "x",
        ];
        for delta in &deltas {
            for at in 0..=delta.len() {
                let (head, tail) = delta.split_at(at);
                for special in specials {
                    for text in [
                        format!("{head}{special}{tail}"),
                        format!("{head}{special}{}", tail.get(1..).unwrap_or("")),
                    ] {
                        if let Some(layout) = Envelope::read_layout(&text) {
                            assert_eq!(
                                Some(layout),
                                Cursor::parse_object::<Envelope>(&text),
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
            assert!(
                Envelope::read_layout(&CANONICAL.replace(from, to)).is_none(),
                "{to}"
            );
        }
    }

    #[test]
    fn trailing_text_and_bad_json_are_not_probed() {
        assert!(Envelope::parse(r#"{"a":1} x"#).is_none());
        assert!(Envelope::parse(r#"{"a":"\ud800"}"#).is_none());
        assert!(Envelope::parse("[1]").is_none());
    }
}
