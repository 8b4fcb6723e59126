//! Ollama's `/api/chat` and `/api/generate`: assembling their NDJSON
//! streams into the answer the server gives without streaming.

mod assembler;
pub mod events;
mod probe;

vocabulary!("ollama");
pub use vocabulary::{DONE_REASONS, ENDPOINTS};

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{to_text, Map, Value};
use crate::registry::{Descriptor, EncoderOption};

/// Whether a line is one of the protocol's: it says whether it is `done`,
/// or holds a `message` or a `response` beside its `model`, or is an
/// error line (`{"error": "..."}`). See `agentscope::recognizes`.
pub fn recognizes(line: &Map<String, Value>) -> bool {
    line.get("done").is_some_and(Value::is_boolean)
        || (line.contains_key("model")
            && (line.get("message").is_some_and(Value::is_object)
                || line.get("response").is_some_and(Value::is_string)))
        || (line.get("error").is_some_and(Value::is_string) && !line.contains_key("jsonrpc"))
}

/// What an error line says: its text, or the JSON of anything else.
pub(crate) fn error_message(error: &Value) -> String {
    match error {
        Value::String(text) => text.clone(),
        other => to_text(other),
    }
}

/// The protocol, as the registry ([`crate::PROTOCOLS`]) lists it.
pub const PROTOCOL: Descriptor = Descriptor {
    name: "ollama",
    subject: "Ollama line",
    assembler: |on_error, limits| Box::new(Assembler::new(Options { on_error, limits })),
    decoder: || Box::new(events::Decoder::default()),
    options: &[
        EncoderOption::str("model"),
        EncoderOption::str("created_at"),
        EncoderOption::choice("endpoint", &ENDPOINTS),
        EncoderOption::int("max_held_bytes"),
        EncoderOption::str("message_separator"),
    ],
    encoder: |options| {
        let mut encoder = events::Encoder::new(
            options.str("model").flatten().as_deref(),
            options.str("created_at").flatten().as_deref(),
            options.str("endpoint").flatten().as_deref(),
        )
        .with_message_separator(options.str("message_separator").flatten());
        if let Some(Some(limit)) = options.int("max_held_bytes") {
            encoder.max_held_bytes = usize::try_from(limit).unwrap_or(0);
        }
        Box::new(encoder)
    },
    vocabulary: vocabulary::table,
};
