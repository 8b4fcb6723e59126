//! Reading A2A's wire shapes, for the assembler and the decoder alike.
//! `python/agentcodec/_pure/a2a/wire.py` mirrors this module.
//!
//! Each SSE event of an A2A stream is a JSON-RPC response. Its `result` is
//! one of four things, spelled per spec version: in 0.3 the result itself,
//! tagged by `kind` (`task`, `message`, `status-update`,
//! `artifact-update`); in 1.0 a `StreamResponse` holding exactly one of
//! `task`, `message`, `statusUpdate` and `artifactUpdate`. An `error`
//! instead of a `result` is the run's error. An event given without its
//! envelope (a result alone) is read too, as long as its shape leaves no
//! doubt: a 0.3 result has its `kind` and no `type`, a 1.0 one is an object
//! of exactly one of the four fields.

use super::vocabulary::{RESULT_FIELDS, RESULT_KINDS};
use crate::json::{Map, Value};

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Task,
    Message,
    Status,
    Artifact,
    Error,
}

const WHATS: [What; 4] = [What::Task, What::Message, What::Status, What::Artifact];

/// Where an event's body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// The event itself: a bare 0.3 result.
    Itself,
    /// A bare 1.0 result's one field.
    Field(&'static str),
    /// The response's `result` (0.3).
    Result,
    /// A field of the response's `result` (1.0).
    ResultField(&'static str),
    /// The response's `error`.
    Error,
}

/// What one event is, its spec version (`None` for an error, which both
/// spell alike), and where its body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub what: What,
    pub version: Option<&'static str>,
    pub at: At,
}

fn shape(
    result: &Map<String, Value>,
    bare: bool,
) -> Option<(What, &'static str, Option<&'static str>)> {
    if let Some(kind) = result.get("kind").and_then(Value::as_str) {
        if let Some(position) = RESULT_KINDS.iter().position(|known| *known == kind) {
            if !(bare && result.contains_key("type")) {
                return Some((WHATS[position], "0.3", None));
            }
        }
    }
    if bare && result.len() != 1 {
        return None;
    }
    let mut found = RESULT_FIELDS
        .iter()
        .enumerate()
        .filter(|(_, field)| result.contains_key(**field));
    let (position, field) = found.next()?;
    if found.next().is_some() || !result.get(*field).is_some_and(Value::is_object) {
        return None;
    }
    Some((WHATS[position], "1.0", Some(field)))
}

/// What an event is, or why it is none of A2A's.
pub fn read(event: &Map<String, Value>) -> Result<Read, &'static str> {
    if event.contains_key("jsonrpc") {
        match event.get("error") {
            None | Some(Value::Null) => {}
            Some(Value::Object(_)) => {
                return Ok(Read {
                    what: What::Error,
                    version: None,
                    at: At::Error,
                })
            }
            Some(_) => return Err("has an error that is not an object"),
        }
        let result = match event.get("result") {
            Some(Value::Object(result)) => result,
            None | Some(Value::Null) => {
                return Err("is a JSON-RPC response with neither a result nor an error")
            }
            Some(_) => return Err("has a result that is not an object"),
        };
        let Some((what, version, field)) = shape(result, false) else {
            return Err("has a result with no type: no kind (0.3) and not one of task, message, statusUpdate, artifactUpdate (1.0)");
        };
        let at = field.map_or(At::Result, At::ResultField);
        return Ok(Read {
            what,
            version: Some(version),
            at,
        });
    }
    let Some((what, version, field)) = shape(event, true) else {
        return Err("has no type: neither a JSON-RPC response nor a result (a 0.3 kind, or one of task, message, statusUpdate, artifactUpdate)");
    };
    Ok(Read {
        what,
        version: Some(version),
        at: field.map_or(At::Itself, At::Field),
    })
}

/// An event's body, where `at` says it is (as [`read`] found it).
pub fn body(event: &Map<String, Value>, at: At) -> &Map<String, Value> {
    let inner = match at {
        At::Itself => return event,
        At::Field(field) => event.get(field),
        At::Result => event.get("result"),
        At::ResultField(field) => event.get("result").and_then(|result| result.get(field)),
        At::Error => event.get("error"),
    };
    match inner {
        Some(Value::Object(body)) => body,
        _ => unreachable!("read checked the body is an object"),
    }
}

/// An event's body, taken out of it.
pub fn take_body(mut event: Map<String, Value>, at: At) -> Map<String, Value> {
    let inner = match at {
        At::Itself => return event,
        At::Field(field) => event.shift_remove(field),
        At::Result => event.shift_remove("result"),
        At::ResultField(field) => match event.get_mut("result") {
            Some(Value::Object(result)) => result.shift_remove(field),
            _ => None,
        },
        At::Error => event.shift_remove("error"),
    };
    match inner {
        Some(Value::Object(body)) => body,
        _ => unreachable!("read checked the body is an object"),
    }
}

/// A task state as 0.3 spells it, from either spelling
/// (`TASK_STATE_INPUT_REQUIRED` is `input-required`).
pub fn state_name(state: &str) -> String {
    match state.strip_prefix("TASK_STATE_") {
        Some(rest) => rest.to_lowercase().replace('_', "-"),
        None => state.to_owned(),
    }
}

/// A task state (0.3's spelling) as `version` spells it.
pub fn spell_state(state: &str, version: &str) -> String {
    if version == "0.3" {
        state.to_owned()
    } else {
        format!("TASK_STATE_{}", state.to_uppercase().replace('-', "_"))
    }
}

/// A message's role as 0.3 spells it (`ROLE_AGENT` is `agent`).
pub fn role_name(role: Option<&Value>) -> Option<String> {
    let role = role?.as_str()?;
    Some(match role.strip_prefix("ROLE_") {
        Some(rest) => rest.to_lowercase(),
        None => role.to_owned(),
    })
}

/// A role (0.3's spelling) as `version` spells it.
pub fn spell_role(role: &str, version: &str) -> String {
    if version == "0.3" {
        role.to_owned()
    } else {
        format!("ROLE_{}", role.to_uppercase())
    }
}

/// A JSON-RPC error's code as the error records give it: the integer as
/// Python writes it, or `"error"` for a code that is none.
pub fn error_code(code: Option<&Value>) -> String {
    match code {
        Some(Value::Number(number)) if !number.as_str().contains(['.', 'e', 'E']) => {
            match number.as_str() {
                "-0" => "0".to_owned(),
                text => text.to_owned(),
            }
        }
        _ => "error".to_owned(),
    }
}
