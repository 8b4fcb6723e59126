//! The LangChain Agent Streaming Protocol: assembling its messages channel.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{
    snake_case, Assembler, Error, ErrorRecord, EventError, OnError, Options, ToolArgs,
};

use crate::json::{Map, Value};

/// Whether a message is one of the protocol's: an event (`type` "event",
/// or none) with a `method`, or a command's response (`success` or
/// `error`, with its `id`). See `agentscope::recognizes`.
pub fn recognizes(message: &Map<String, Value>) -> bool {
    match message.get("type") {
        Some(Value::String(kind)) if kind == "success" || kind == "error" => {
            message.contains_key("id")
        }
        None | Some(Value::Null) => message.get("method").is_some_and(Value::is_string),
        Some(Value::String(kind)) if kind == "event" => {
            message.get("method").is_some_and(Value::is_string)
        }
        Some(_) => false,
    }
}
