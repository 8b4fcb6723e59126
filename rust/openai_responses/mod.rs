//! The OpenAI Responses API: assembling its streams into the Response.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};
