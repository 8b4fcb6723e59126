//! OpenAI Chat Completions: assembling its streams into the ChatCompletion.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::Value;

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
