//! The OpenAI Responses API: assembling its streams into the Response.

mod assembler;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};
