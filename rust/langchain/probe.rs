//! A quick look at a protocol message, for the common case: a
//! `content-block-delta` that appends to a block that already exists. What
//! it cannot settle goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField, Strings};

#[derive(Debug, Default)]
pub struct Envelope<'a> {
    pub kind: Option<StrField<'a>>,
    pub event_id: Option<StrField<'a>>,
    /// `eventId`: consulted only when `event_id` is absent, as in the full path.
    pub event_id_camel: Option<StrField<'a>>,
    pub method: Option<StrField<'a>>,
    pub params: Option<Obj<Params<'a>>>,
}

#[derive(Debug, Default)]
pub struct Params<'a> {
    pub namespace: Option<Strings<'a>>,
    pub node: Option<StrField<'a>>,
    pub data: Option<Obj<Data<'a>>>,
}

#[derive(Debug, Default)]
pub struct Data<'a> {
    pub event: Option<StrField<'a>>,
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
}

#[derive(Debug, Default)]
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
            b"namespace" => self.namespace = Some(cursor.strings()?),
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
        Cursor::parse_object(text)
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
        assert_eq!(params.namespace.unwrap().0.unwrap(), ["a"]);
        let data = params.data.unwrap().0.unwrap();
        let delta = data.delta.unwrap().0.unwrap();
        assert_eq!(delta.text.unwrap().as_str(), Some("hi"));
    }

    #[test]
    fn trailing_text_and_bad_json_are_not_probed() {
        assert!(Envelope::parse(r#"{"a":1} x"#).is_none());
        assert!(Envelope::parse(r#"{"a":"\ud800"}"#).is_none());
        assert!(Envelope::parse("[1]").is_none());
    }
}
