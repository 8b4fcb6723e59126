//! Gemini's `streamGenerateContent`: assembling its records (SSE with
//! `alt=sse`, a streamed JSON array without) into the response
//! `generateContent` gives.

pub mod args;
mod assembler;
pub mod events;
mod probe;

vocabulary!("gemini");
pub use vocabulary::FINISH_REASONS;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{to_text, Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether a record is one of the protocol's: it holds `candidates`,
/// `usageMetadata` or `promptFeedback`, or is an error record whose error
/// is an object (`{"error": {"code": ..., "message": ...}}`). See
/// `agentscope::recognizes`.
pub fn recognizes(record: &Map<String, Value>) -> bool {
    record.get("candidates").is_some_and(Value::is_array)
        || record.get("usageMetadata").is_some_and(Value::is_object)
        || record.get("promptFeedback").is_some_and(Value::is_object)
        || (record.get("error").is_some_and(Value::is_object) && !record.contains_key("jsonrpc"))
}

/// An error record's code (its `status`, else its `code`) and message.
pub(crate) fn error_message(error: &Value) -> (String, String) {
    let Value::Object(fields) = error else {
        let message = match error {
            Value::String(text) => text.clone(),
            other => to_text(other),
        };
        return ("error".to_owned(), message);
    };
    let code = match (fields.get("status"), fields.get("code")) {
        (Some(Value::String(status)), _) => status.clone(),
        (_, Some(Value::String(code))) => code.clone(),
        (_, None | Some(Value::Null)) => "error".to_owned(),
        (_, Some(code)) => to_text(code),
    };
    let message = match fields.get("message") {
        Some(Value::String(message)) => message.clone(),
        _ => to_text(error),
    };
    (code, message)
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "gemini",
    subject: "Gemini record",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("model"),
        EncoderOption::str("response_id"),
        EncoderOption::str("message_separator"),
    ],
    encoder: |options| {
        Box::new(
            events::Encoder::new(
                options.str("model").flatten().as_deref(),
                options.str("response_id").flatten().as_deref(),
            )
            .with_message_separator(options.str("message_separator").flatten()),
        )
    },
    vocabulary: vocabulary::table,
};
