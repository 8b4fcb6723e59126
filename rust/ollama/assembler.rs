//! Assembling an Ollama stream (`/api/chat` or `/api/generate`) into the
//! answer the server gives the same request without streaming.
//! `python/agentcodec/_pure/ollama/assembler.py` mirrors this module rule
//! for rule.
//!
//! Ollama's server builds that answer from the streamed lines itself: the
//! last line's fields, with the text (`content`, `thinking`, `response`)
//! joined and the tool calls and log probabilities gathered from every
//! line. Each line here does the same as it comes: text fields append,
//! lists extend, every other field takes the latest line's value. An
//! `{"error": ...}` line is the run's error: it is kept in the answer as
//! `error` and recorded, and what was assembled before it stands.

use crate::json::{kind, Map, Value};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

/// Where each line's text and lists go: a field that appends to the text
/// held, and one that extends the list held.
struct Merge {
    appended: [&'static str; 2],
    extended: [&'static str; 2],
}

/// The answer's own fields (`/api/generate`'s text and tool calls, the log
/// probabilities of both).
const ANSWER: Merge = Merge {
    appended: ["response", "thinking"],
    extended: ["tool_calls", "logprobs"],
};
/// The fields of `/api/chat`'s message.
const MESSAGE: Merge = Merge {
    appended: ["content", "thinking"],
    extended: ["tool_calls", "images"],
};

/// Assembles an Ollama stream into its final answer.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Ollama>,
}

#[derive(Debug, Clone, Default)]
pub struct Ollama {
    /// The answer so far, its fields in the order the lines first gave them.
    answer: Map<String, Value>,
    /// The `done: true` line came: the answer is whole.
    done: bool,
    /// The tool calls (and images) the answer holds, for `max_blocks`.
    blocks: usize,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.answer()
    }
}

crate::stream::assemble_with_driver!(Assembler, Ollama);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                Ollama::default(),
                options.limits,
                options.on_error,
                super::PROTOCOL.subject,
            ),
        }
    }

    /// The answer so far: a ChatResponse from `/api/chat` (its `message`
    /// whole), a GenerateResponse from `/api/generate`.
    pub fn answer(&self) -> Value {
        Value::Object(self.driver.protocol.answer.clone())
    }

    /// Whether the done line came.
    pub fn done(&self) -> bool {
        self.driver.protocol.done
    }
}

impl Protocol for Ollama {
    fn ndjson(&self) -> bool {
        true
    }

    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_object(&mut self, log: &mut Log, line: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, line);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        usize::from(self.answer.contains_key("message") || self.answer.contains_key("response"))
    }

    fn block_count(&self) -> usize {
        self.blocks
    }

    fn finish(&mut self) {}
}

impl Ollama {
    fn apply(&mut self, log: &mut Log, line: Map<String, Value>) -> Result<(), Bad> {
        if self.done {
            return bad("comes after the done line");
        }
        if let Some(error) = line.get("error").filter(|error| !error.is_null()) {
            log.record(ErrorRecord {
                event: log.events,
                code: "error".to_owned(),
                message: Some(super::error_message(error)),
            });
        }
        check(&line, &ANSWER, "")?;
        match line.get("message") {
            None | Some(Value::Null) => {}
            Some(Value::Object(message)) => check(message, &MESSAGE, "message.")?,
            Some(other) => return bad(format!("its message is {}, not an object", kind(other))),
        }
        for (key, value) in line {
            match (key.as_str(), value) {
                ("message", Value::Object(message)) => {
                    let held = self
                        .answer
                        .entry(key)
                        .or_insert_with(|| Value::Object(Map::new()));
                    let Value::Object(held) = held else {
                        unreachable!("a message is only ever held as an object")
                    };
                    for (key, value) in message {
                        self.blocks += MESSAGE.field(held, key, value);
                    }
                }
                ("message", _) => {}
                (_, value) => {
                    if key == "done" && value == Value::Bool(true) {
                        self.done = true;
                    }
                    self.blocks += ANSWER.field(&mut self.answer, key, value);
                }
            }
        }
        Ok(())
    }
}

/// Refuses a line whose text fields are not text, or whose lists are not lists.
fn check(fields: &Map<String, Value>, merge: &Merge, at: &str) -> Result<(), Bad> {
    for key in merge.appended {
        match fields.get(key) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => return bad(format!("its {at}{key} is {}, not a string", kind(other))),
        }
    }
    for key in merge.extended {
        match fields.get(key) {
            None | Some(Value::Null | Value::Array(_)) => {}
            Some(other) => return bad(format!("its {at}{key} is {}, not a list", kind(other))),
        }
    }
    Ok(())
}

impl Merge {
    /// Merges one field: text appends, lists extend, anything else
    /// replaces. Gives the blocks (tool calls, images) a list added.
    fn field(&self, held: &mut Map<String, Value>, key: String, value: Value) -> usize {
        if self.appended.contains(&key.as_str()) {
            if let Value::String(piece) = value {
                match held.get_mut(&key) {
                    Some(Value::String(text)) => text.push_str(&piece),
                    _ => {
                        held.insert(key, Value::String(piece));
                    }
                }
            }
            return 0;
        }
        if self.extended.contains(&key.as_str()) {
            let Value::Array(items) = value else {
                return 0;
            };
            let counted = if key == "logprobs" { 0 } else { items.len() };
            match held.get_mut(&key) {
                Some(Value::Array(list)) => list.extend(items),
                _ => {
                    held.insert(key, Value::Array(items));
                }
            }
            return counted;
        }
        held.insert(key, value);
        0
    }
}
