//! Anthropic Messages: assembling its streams into the Message.

mod assembler;
pub mod events;
pub(crate) mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::Value;

/// The block types whose input streams as `input_json_delta`.
pub const TOOL_BLOCKS: [&str; 3] = ["tool_use", "server_tool_use", "mcp_tool_use"];

/// What an `error` event says: its type (`"error"` when it has none) and
/// its message.
pub(crate) fn error_fields(event: &crate::json::Map<String, Value>) -> (&str, Option<&str>) {
    let error = event.get("error");
    let text = |key: &str| {
        error
            .and_then(|error| error.get(key))
            .and_then(Value::as_str)
    };
    (text("type").unwrap_or("error"), text("message"))
}
