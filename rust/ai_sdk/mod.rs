//! The Vercel AI SDK UI message stream: assembling it into the UIMessage.

mod assembler;
pub mod events;
pub(crate) mod probe;
pub(crate) mod providers;

vocabulary!("ai_sdk");
pub use vocabulary::{CHUNK_TYPES, OUTPUT_STATES};

pub use assembler::{merge_metadata, Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether a chunk is one of the protocol's: its `type` is a UI message
/// stream chunk's, or `data-*`. See `agentscope::recognizes`.
pub fn recognizes(chunk: &Map<String, Value>) -> bool {
    chunk
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| CHUNK_TYPES.contains(&kind) || kind.starts_with("data-"))
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "ai-sdk",
    subject: "AI SDK UI message chunk",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[EncoderOption::str("message_id")],
    encoder: |options| Box::new(events::Encoder::new(options.str("message_id").flatten())),
    vocabulary: vocabulary::table,
};
