//! The AG-UI protocol: assembling its event streams into the run the AG-UI
//! client holds.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};

use crate::json::{Map, Value};

/// Whether an event is one of the protocol's: its `type` is an AG-UI
/// event type. See `agentscope::recognizes`.
pub fn recognizes(event: &Map<String, Value>) -> bool {
    event
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| events::KNOWN.contains(&kind))
}
