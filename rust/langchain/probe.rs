//! A quick look at a protocol message, for the common case: a
//! `content-block-delta` that appends to a block that already exists. What
//! it cannot settle goes to the full path (see `crate::json_probe`).

use serde::de::{Deserialize, MapAccess};

use crate::json::Value;
use crate::json_probe::{FromMap, Obj, Skip, StrField, Strings};

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
    pub index: Option<Value>,
    pub delta: Option<Obj<Delta<'a>>>,
}

#[derive(Debug, Default)]
pub struct Delta<'a> {
    pub kind: Option<StrField<'a>>,
    pub text: Option<StrField<'a>>,
    pub reasoning: Option<StrField<'a>>,
    pub args: Option<Value>,
}

impl<'de> FromMap<'de> for Envelope<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "type" => self.kind = Some(map.next_value()?),
            "event_id" => self.event_id = Some(map.next_value()?),
            "eventId" => self.event_id_camel = Some(map.next_value()?),
            "method" => self.method = Some(map.next_value()?),
            "params" => self.params = Some(map.next_value()?),
            _ => {
                map.next_value::<Skip>()?;
            }
        }
        Ok(())
    }
}

impl<'de> FromMap<'de> for Params<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "namespace" => self.namespace = Some(map.next_value()?),
            "node" => self.node = Some(map.next_value()?),
            "data" => self.data = Some(map.next_value()?),
            _ => {
                map.next_value::<Skip>()?;
            }
        }
        Ok(())
    }
}

impl<'de> FromMap<'de> for Data<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "event" => self.event = Some(map.next_value()?),
            "index" => self.index = Some(map.next_value()?),
            "delta" => self.delta = Some(map.next_value()?),
            _ => {
                map.next_value::<Skip>()?;
            }
        }
        Ok(())
    }
}

impl<'de> FromMap<'de> for Delta<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "type" => self.kind = Some(map.next_value()?),
            "text" => self.text = Some(map.next_value()?),
            "reasoning" => self.reasoning = Some(map.next_value()?),
            "args" => self.args = Some(map.next_value()?),
            _ => {
                map.next_value::<Skip>()?;
            }
        }
        Ok(())
    }
}

impl<'a> Envelope<'a> {
    /// Probes a message's text: `None` when it is not a JSON object (the
    /// full path then reports it).
    pub fn parse(text: &'a str) -> Option<Envelope<'a>> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let Obj(envelope) = Obj::<Envelope<'a>>::deserialize(&mut deserializer).ok()?;
        // Nothing but white space may follow, as in a full parse.
        deserializer.end().ok()?;
        envelope
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
