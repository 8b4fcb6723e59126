//! OpenAI Chat Completions: assembling its streams into the ChatCompletion.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};
