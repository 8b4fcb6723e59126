//! The OpenAI Responses API: assembling its streams into the Response.

mod assembler;
pub mod events;
mod probe;

vocabulary!("openai_responses");

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether an event is one of the protocol's: its `type` begins with
/// `response.`, or is `error`. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.starts_with("response.") || kind == "error")
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "openai-responses",
    subject: "OpenAI Responses event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("response_id"),
        EncoderOption::str("model"),
        EncoderOption::int("created_at"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("response_id").flatten(),
            options.str("model").flatten(),
            options.int("created_at").flatten().map(Value::from),
        ))
    },
    vocabulary: vocabulary::table,
};
