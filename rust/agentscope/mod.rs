//! The AgentScope Runtime Agent API (`POST /process`): assembling its
//! streams.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, DataMerge, Error, ErrorRecord, EventError, OnError, Options};
