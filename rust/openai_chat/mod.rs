//! OpenAI Chat Completions: assembling its streams into the ChatCompletion.

mod assembler;
pub mod events;
mod probe;

vocabulary!("openai_chat");

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::Value;
use crate::registry::{Descriptor, EncoderOption};

/// What a chunk's truthy `error` says: its code (`code`, else `type`) and
/// its message (the error itself when it is a string). Compatible servers
/// send either form.
pub(crate) fn error_fields(error: Option<&Value>) -> (Option<&str>, Option<&str>) {
    let text = |key: &str| {
        error
            .and_then(|error| error.get(key))
            .and_then(Value::as_str)
    };
    let message = match error {
        Some(Value::String(message)) => Some(message.as_str()),
        _ => text("message"),
    };
    (text("code").or_else(|| text("type")), message)
}

/// Whether a chunk is one of the protocol's: it has `choices`, or says it
/// is a `chat.completion.chunk`, or is an error frame (an `error` object).
/// See `agentscope::recognizes`.
pub fn recognizes(chunk: &crate::json::Map<String, Value>) -> bool {
    chunk.get("choices").is_some_and(Value::is_array)
        || chunk.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        // An error frame; a JSON-RPC error response is another protocol's.
        || (chunk.get("error").is_some_and(Value::is_object) && !chunk.contains_key("jsonrpc"))
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "openai-chat",
    subject: "OpenAI Chat Completions chunk",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("response_id"),
        EncoderOption::str("model"),
        EncoderOption::int("created_at"),
        EncoderOption::str("message_separator"),
        EncoderOption::bool("include_usage"),
    ],
    encoder: |options| {
        Box::new(
            events::Encoder::new(
                options.str("response_id").flatten(),
                options.str("model").flatten(),
                options.int("created_at").flatten().map(Value::from),
            )
            .with_message_separator(options.str("message_separator").flatten())
            .with_include_usage(options.bool("include_usage").flatten().unwrap_or(true)),
        )
    },
    vocabulary: vocabulary::table,
};
