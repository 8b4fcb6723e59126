//! The LangChain Agent Streaming Protocol: assembling its messages channel.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{
    snake_case, Assembler, Error, ErrorRecord, EventError, OnError, Options, ToolArgs,
};
