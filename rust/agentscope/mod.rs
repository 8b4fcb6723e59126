//! The AgentScope Runtime Agent API (`POST /process`): assembling its
//! streams.

mod assembler;
pub mod events;
mod probe;

vocabulary!("agentscope");

pub use assembler::{Assembler, DataMerge, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether an event is one of the protocol's: a response, message or
/// content object, or an error frame (no object, an `error`). A reader
/// that saw none says so at its close: it was fed another protocol's
/// stream, or a body that is no stream.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    match event.get("object") {
        Some(Value::String(object)) => {
            matches!(object.as_str(), "response" | "message" | "content")
        }
        // An error frame; a JSON-RPC error response is another protocol's.
        None | Some(Value::Null) => event.contains_key("error") && !event.contains_key("jsonrpc"),
        Some(_) => false,
    }
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "agentscope",
    subject: "AgentScope event",
    assembler: |on_error, limits| {
        Box::new(Assembler::new(Options {
            on_error,
            limits,
            ..Default::default()
        }))
    },
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("session_id"),
        EncoderOption::str("response_id"),
        EncoderOption::int("created_at"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("session_id").flatten(),
            options.str("response_id").flatten(),
            options.int("created_at").flatten(),
        ))
    },
    vocabulary: vocabulary::table,
};
