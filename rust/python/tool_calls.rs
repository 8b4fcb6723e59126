//! Every assembler's `tool_calls`: each call's arguments parsed as they
//! stream, by one incremental parser per call kept between reads, so that
//! reading them after every delta costs the delta, not the arguments so far.
//! `_pure/tool_calls.py` mirrors it.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::json::to_python;
use super::partial_json::LiveJson;
use crate::partial_json::DEFAULT_MAX_DEPTH;
use crate::tool_calls::{Arguments, Fingerprint, ToolCalls};

/// What a reader parsed of one call's argument text.
struct Parsed {
    live: LiveJson,
    /// Bytes of the text parsed so far, and their fingerprint.
    fed: usize,
    fingerprint: Fingerprint,
}

impl Parsed {
    fn new() -> Self {
        Parsed {
            live: LiveJson::new(DEFAULT_MAX_DEPTH),
            fed: 0,
            fingerprint: Fingerprint::default(),
        }
    }

    /// Reads what the text gained since the last read; the text is known to
    /// begin with what was read.
    fn catch_up(&mut self, py: Python<'_>, text: &str) {
        if self.live.parser().error().is_some() || text.len() <= self.fed {
            return;
        }
        let new = &text.as_bytes()[self.fed..];
        self.fed = text.len();
        self.fingerprint.update(new);
        // An error stays in the parser, which reads nothing more.
        let _ = self.live.feed(py, new);
    }
}

/// The parsers of one assembler's calls, by each call's key.
#[derive(Default)]
pub struct ToolCallReader {
    parsed: HashMap<String, Parsed>,
    rewrites: u64,
}

/// How an entry names its arguments' failure.
fn subject(field: &str) -> &'static str {
    match field {
        "input" => "input is",
        "args" => "args are",
        _ => "arguments are",
    }
}

impl ToolCallReader {
    /// `tool_calls`: every call's fields, its arguments under the
    /// protocol's field (the value so far while they stream), `done` (the
    /// argument text is complete JSON, or the call ended), and an `error`
    /// for arguments that are not valid JSON, which then stay as they came.
    pub fn read<'py>(
        &mut self,
        py: Python<'py>,
        view: ToolCalls<'_>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rewritten = view.rewrites != self.rewrites;
        self.rewrites = view.rewrites;
        // Calls no longer listed are forgotten.
        let mut previous = std::mem::take(&mut self.parsed);
        let list = PyList::empty(py);
        for call in view.calls {
            let entry = to_python(py, &crate::json::Value::Object(call.fields))?;
            let entry = entry.cast_into::<PyDict>()?;
            let text = match call.arguments {
                None => {
                    entry.set_item(call.field, py.None())?;
                    entry.set_item("done", call.finished)?;
                    if call.finished {
                        entry.set_item(
                            "error",
                            format!(
                                "{} missing: the call ended without any",
                                subject(call.field)
                            ),
                        )?;
                    }
                    list.append(entry)?;
                    continue;
                }
                Some(Arguments::Value(value)) => {
                    entry.set_item(call.field, to_python(py, value)?)?;
                    entry.set_item("done", call.finished)?;
                    list.append(entry)?;
                    continue;
                }
                Some(Arguments::Text(text)) => text,
            };
            let key = call.key.into_owned();
            let parsed = match previous.remove(&key) {
                Some(parsed)
                    if text.len() >= parsed.fed
                        && !(rewritten
                            && Fingerprint::of(&text.as_bytes()[..parsed.fed])
                                != parsed.fingerprint) =>
                {
                    parsed
                }
                _ => Parsed::new(),
            };
            let parsed = self.parsed.entry(key).or_insert(parsed);
            parsed.catch_up(py, text);
            let parser = parsed.live.parser();
            let failure = match parser.error() {
                Some(error) => Some(format!("{} at byte {}", error.reason, error.offset)),
                None if call.finished && !parser.complete_at_end() => {
                    Some(format!("incomplete at byte {}", parser.offset()))
                }
                None => None,
            };
            match failure {
                Some(failure) => {
                    entry.set_item(call.field, PyString::new(py, text))?;
                    entry.set_item("done", call.finished)?;
                    entry.set_item(
                        "error",
                        format!("{} not valid JSON: {failure}", subject(call.field)),
                    )?;
                }
                None => {
                    let done = parser.done() || call.finished;
                    entry.set_item(call.field, parsed.live.value(py)?)?;
                    entry.set_item("done", done)?;
                }
            }
            list.append(entry)?;
        }
        Ok(list)
    }
}
