//! The Vercel AI SDK UI message stream: assembling it into the UIMessage.

mod assembler;
pub mod events;
pub(crate) mod probe;

pub use assembler::{merge_metadata, Assembler, Error, ErrorRecord, EventError, OnError, Options};

/// Tool states whose provider metadata is the result's, not the call's.
pub const OUTPUT_STATES: [&str; 2] = ["output-available", "output-error"];
