//! The LangGraph Agent Server's events as they come.
//! `python/agentcodec/_pure/langgraph/wire.py` mirrors this module.
//!
//! An SSE event's name is its kind, the stream mode (`values`, `messages`,
//! ...), then its namespace when a subgraph sent it (`values|inner:<task>`,
//! parts joined by `|`). The assemblers are handed an SSE event as
//! `{"event": <name>, "data": <data>}` (the form of langgraph-sdk's
//! `StreamPart`, [`crate::framing::named_text`]), and an event with no name
//! whose data is such a part is read as that part; langgraph-sdk's v2 parts
//! and LangGraph's own (`graph.stream(version="v2")`) are `{"type": <mode>,
//! "ns": [...], "data": <data>, "interrupts": [...]}`, read alike.

use super::vocabulary::MODES;
use crate::article::article;
use crate::json::{kind, Map, Value};

/// One event: its mode, its namespace (`""` for the root graph), its data.
#[derive(Debug)]
pub struct Part<'a> {
    pub mode: &'a str,
    pub namespace: String,
    pub data: Option<&'a Value>,
    /// A v2 part's interrupts, taken out of its values' data.
    pub interrupts: Option<&'a Value>,
}

/// The event's part, or why it is none (a problem, said as the end of
/// "LangGraph event N ...").
pub fn read(event: &Map<String, Value>) -> Result<Part<'_>, String> {
    if let Some(Value::String(name)) = event.get("event") {
        let Some(data) = event.get("data") else {
            return Err("has no data".to_owned());
        };
        if let (true, Value::Object(inner)) = (name == "message", data) {
            if inner.contains_key("event") || inner.contains_key("type") {
                // An SSE event with no name whose data is a part (a relay
                // that writes langgraph-sdk's parts as bare data lines).
                return read(inner);
            }
        }
        let (mode, namespace) = name.split_once('|').unwrap_or((name.as_str(), ""));
        if name == "message" {
            return Err(
                "has no stream mode (its SSE event name: values, messages, ...)".to_owned(),
            );
        }
        if !MODES.contains(&mode) {
            return Err(format!(
                "is {} {} event, which no stream mode sends",
                article(name),
                quoted(name)
            ));
        }
        return Ok(Part {
            mode,
            namespace: namespace.to_owned(),
            data: Some(data),
            interrupts: None,
        });
    }
    if let (Some(Value::String(mode)), Some(namespace)) = (event.get("type"), event.get("ns")) {
        let parts = match namespace {
            Value::Array(parts) if parts.iter().all(Value::is_string) => parts,
            other => {
                return Err(format!(
                    "has an ns that is {}, not a list of strings",
                    kind(other)
                ))
            }
        };
        if !MODES.contains(&mode.as_str()) {
            return Err(format!(
                "is {} {} part, which no stream mode sends",
                article(mode),
                quoted(mode)
            ));
        }
        let interrupts = match event.get("interrupts") {
            None | Some(Value::Null) => None,
            Some(list @ Value::Array(_)) => Some(list),
            Some(other) => {
                return Err(format!(
                    "has interrupts that are {}, not a list",
                    kind(other)
                ))
            }
        };
        let namespace = parts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|");
        return Ok(Part {
            mode,
            namespace,
            data: event.get("data"),
            interrupts,
        });
    }
    Err(
        "is neither an SSE event ({\"event\", \"data\"}) nor a v2 part ({\"type\", \"ns\", \"data\"})"
            .to_owned(),
    )
}

/// A name as the messages both backends share write it: its JSON text.
fn quoted(text: &str) -> String {
    crate::json::to_text(&Value::String(text.to_owned()))
}
