//! The Vercel AI SDK UI message stream: assembling it into the UIMessage.

mod assembler;
pub mod events;
pub(crate) mod probe;

pub use assembler::{merge_metadata, Assembler, Error, ErrorRecord, EventError, OnError, Options};

/// Tool states whose provider metadata is the result's, not the call's.
pub const OUTPUT_STATES: [&str; 2] = ["output-available", "output-error"];

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// The chunk types of a UI message stream (and `data-*`).
pub const CHUNK_TYPES: [&str; 28] = [
    "start",
    "finish",
    "abort",
    "error",
    "message-metadata",
    "start-step",
    "finish-step",
    "reset-step",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "custom",
    "file",
    "reasoning-file",
    "source-url",
    "source-document",
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-approval-request",
    "tool-approval-response",
    "tool-output-denied",
    "tool-output-available",
    "tool-output-error",
];

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
    options: &[
        EncoderOption::str("message_id"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(options.str("message_id").flatten()))
    },
};
