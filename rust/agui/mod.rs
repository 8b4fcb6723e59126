//! The AG-UI protocol: assembling its event streams into the run the AG-UI
//! client holds.

mod assembler;
pub mod events;
mod probe;

vocabulary!("agui");

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether an event is one of the protocol's: its `type` is an AG-UI
/// event type. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| events::KNOWN.contains(&kind))
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "agui",
    subject: "AG-UI event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("thread_id"),
        EncoderOption::str("run_id"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("thread_id").flatten(),
            options.str("run_id").flatten(),
        ))
    },
    vocabulary: vocabulary::table,
};
