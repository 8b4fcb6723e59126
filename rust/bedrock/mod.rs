//! Bedrock's ConverseStream: assembling the members of its event stream
//! into the response Converse gives.

mod assembler;
pub mod events;
mod probe;

vocabulary!("bedrock");
pub use vocabulary::{EVENTS, EXCEPTIONS, STOP_REASONS};

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options, PADDING};

use crate::json::{to_text, Map, Value};
use crate::registry::Descriptor;

/// Whether an event is one of the protocol's: one member of the stream's
/// union (an event or an exception) holding an object, or an error
/// message. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    event.len() == 1
        && event.iter().all(|(key, value)| {
            value.is_object()
                && (EVENTS.contains(&key.as_str())
                    || EXCEPTIONS.contains(&key.as_str())
                    || key == "error")
        })
}

/// An exception's or an error message's code and message; `None` for an event.
pub(crate) fn error_of(key: &str, value: &Value) -> Option<(String, String)> {
    if EXCEPTIONS.contains(&key) {
        let message = match value.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => to_text(value),
        };
        return Some((key.to_owned(), message));
    }
    if key == "error" {
        if let Value::Object(fields) = value {
            let code = match fields.get("code") {
                Some(Value::String(code)) if !code.is_empty() => code.clone(),
                _ => "error".to_owned(),
            };
            let message = match fields.get("message") {
                Some(Value::String(message)) => message.clone(),
                _ => to_text(value),
            };
            return Some((code, message));
        }
    }
    None
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "bedrock",
    subject: "Bedrock event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[],
    encoder: |_| Box::new(events::Encoder::default()),
    vocabulary: vocabulary::table,
};
