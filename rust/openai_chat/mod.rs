//! OpenAI Chat Completions: assembling its streams into the ChatCompletion.

mod assembler;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};
