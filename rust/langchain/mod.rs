//! The LangChain Agent Streaming Protocol: assembling its messages channel.

mod assembler;
pub mod events;
mod probe;

vocabulary!("langchain");

pub use assembler::{
    snake_case, Assembler, Error, ErrorRecord, EventError, OnError, Options, ToolArgs,
};

use crate::json::{Map, Value};
use crate::registry::{Descriptor, EncoderOption};

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

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "langchain",
    subject: "LangChain protocol message",
    assembler: |on_error, limits| {
        Box::new(Assembler::new(Options {
            on_error,
            limits,
            ..Default::default()
        }))
    },
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str_list("namespace"),
        EncoderOption::str("node"),
        EncoderOption::int("timestamp"),
    ],
    encoder: |options| {
        Box::new(events::Encoder::new(
            options.str_list("namespace"),
            // The node that streams the model's tokens, unless told otherwise.
            options
                .str("node")
                .unwrap_or_else(|| Some("model".to_owned())),
            options.int("timestamp").flatten().map(Value::from),
        ))
    },
    vocabulary: vocabulary::table,
};
