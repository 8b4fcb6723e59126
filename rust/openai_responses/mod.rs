//! The OpenAI Responses API: assembling its streams into the Response.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};

/// Whether an event is one of the protocol's: its `type` begins with
/// `response.`, or is `error`. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.starts_with("response.") || kind == "error")
}
