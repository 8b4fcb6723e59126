//! The LangGraph Agent Server's streams (langgraph-api; langgraph-sdk and
//! the `useStream` hook read them): SSE events named by stream mode,
//! assembled into what the run leaves.

mod assembler;
pub mod events;
mod merge;
mod probe;
mod wire;

vocabulary!("langgraph");
pub use vocabulary::MODES;

pub use assembler::{Assembler, ChunkedMessage, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether an event is one of the protocol's: of a stream mode (an SSE
/// event as `{"event", "data"}`, or a v2 part), holding what the mode
/// holds. The LangChain Agent Streaming Protocol names its events by the
/// same modes, its data an envelope (`type: "event"`, `method`, `params`):
/// that is not the server's. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    let Ok(part) = wire::read(event) else {
        return false;
    };
    match part.data {
        Some(Value::Object(data))
            if data.get("type").and_then(Value::as_str) == Some("event")
                && data.contains_key("method")
                && data.contains_key("params") =>
        {
            false
        }
        Some(Value::Array(pair)) if part.mode == "messages" => {
            pair.len() == 2 && pair[0].is_object()
        }
        _ => part.mode != "messages",
    }
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "langgraph",
    subject: "LangGraph event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[EncoderOption::str("run_id"), EncoderOption::str("node")],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("run_id").flatten(),
            options.str("node").flatten(),
        ))
    },
    vocabulary: vocabulary::table,
};
