//! A2A (Agent2Agent): assembling its streams into the Task, both spec
//! versions (0.3 and 1.0).

mod assembler;
pub mod events;
mod probe;
pub(crate) mod wire;

vocabulary!("a2a");
pub use vocabulary::{TASK_STATES, VERSIONS};

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options, TaskView};
pub use probe::{PartRef, TextParts};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether an event is one of the protocol's: a JSON-RPC response of A2A,
/// or one of its results alone. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    wire::read(event).is_ok()
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "a2a",
    subject: "A2A event",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::choice("version", &VERSIONS),
        EncoderOption::str("task_id"),
        EncoderOption::str("context_id"),
        EncoderOption::str("request_id"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str("version").flatten(),
            options.str("task_id").flatten(),
            options.str("context_id").flatten(),
            options.str("request_id").flatten(),
        ))
    },
    vocabulary: vocabulary::table,
};
