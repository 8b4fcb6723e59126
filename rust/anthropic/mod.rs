//! Anthropic Messages: assembling its streams into the Message.

mod assembler;
pub mod events;

vocabulary!("anthropic");
pub use vocabulary::{EVENT_TYPES, TOOL_BLOCKS};
pub(crate) mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::Value;
use crate::registry::{Descriptor, EncoderOption};

/// What an `error` event says: its type (`"error"` when it has none) and
/// its message.
pub(crate) fn error_fields(event: &crate::json::Map<String, Value>) -> (&str, Option<&str>) {
    let error = event.get("error");
    let text = |key: &str| {
        error
            .and_then(|error| error.get(key))
            .and_then(Value::as_str)
    };
    (text("type").unwrap_or("error"), text("message"))
}

/// Whether an event is one of the protocol's: its `type` is a Messages
/// stream event's. See `agentscope::recognizes`.
pub fn recognizes(event: &crate::json::Map<String, Value>) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| EVENT_TYPES.contains(&kind))
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "anthropic",
    subject: "Anthropic Messages event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("response_id"),
        EncoderOption::str("model"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("response_id").flatten(),
            options.str("model").flatten(),
        ))
    },
    vocabulary: vocabulary::table,
};
