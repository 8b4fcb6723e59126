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
//!
//! The fields are held in insertion-ordered maps whose entries are never
//! removed, so that the fields most lines touch are found by their place,
//! kept once, instead of being hashed again on every line.

use super::probe::Line;
use crate::framing::Kind;
use crate::hashing::IndexMap;
use crate::json::{kind, Map, Value};
use crate::json_probe::{Obj, Scalar};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

/// Fields in the order they first came.
type Fields = IndexMap<String, Value>;

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
    /// The answer so far, its fields in the order the lines first gave
    /// them; `message`'s place holds null, its fields are `message`.
    answer: Fields,
    message: Fields,
    /// Where the fields the quick path touches are, once they are there.
    at: Places,
    /// The `done: true` line came: the answer is whole.
    done: bool,
    /// The tool calls (and images) the answer holds, for `max_blocks`.
    blocks: usize,
}

/// The places of fields in [`Ollama::answer`] and [`Ollama::message`].
#[derive(Debug, Clone, Copy, Default)]
struct Places {
    model: Option<usize>,
    created_at: Option<usize>,
    done: Option<usize>,
    message: Option<usize>,
    response: Option<usize>,
    thinking: Option<usize>,
    role: Option<usize>,
    content: Option<usize>,
    message_thinking: Option<usize>,
}

impl Places {
    fn of(answer: &Fields, message: &Fields) -> Places {
        Places {
            model: answer.get_index_of("model"),
            created_at: answer.get_index_of("created_at"),
            done: answer.get_index_of("done"),
            message: answer.get_index_of("message"),
            response: answer.get_index_of("response"),
            thinking: answer.get_index_of("thinking"),
            role: message.get_index_of("role"),
            content: message.get_index_of("content"),
            message_thinking: message.get_index_of("thinking"),
        }
    }
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
        let state = &self.driver.protocol;
        let mut answer = Map::new();
        for (key, value) in &state.answer {
            let value = if key == "message" {
                Value::Object(
                    state
                        .message
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            } else {
                value.clone()
            };
            answer.insert(key.clone(), value);
        }
        Value::Object(answer)
    }

    /// Whether the done line came.
    pub fn done(&self) -> bool {
        self.driver.protocol.done
    }
}

impl Protocol for Ollama {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Lines)
    }

    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some(line) = Line::read(text) else {
            return false;
        };
        self.apply_piece(&line)
    }

    fn apply_object(&mut self, log: &mut Log, line: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, line);
        self.at = Places::of(&self.answer, &self.message);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        usize::from(self.at.message.is_some() || self.at.response.is_some())
    }

    fn block_count(&self) -> usize {
        self.blocks
    }

    fn finish(&mut self) {}
}

/// Whether the quick path can take a field: absent, or a string given
/// where one is held (`nullable`: or null, which the full path leaves alone).
fn takes(held: &Fields, at: Option<usize>, given: &Option<Scalar<'_>>, nullable: bool) -> bool {
    match given {
        None => true,
        Some(Scalar::Null) => nullable,
        Some(Scalar::Str(_)) => matches!(
            at.and_then(|at| held.get_index(at)),
            Some((_, Value::String(_)))
        ),
        Some(_) => false,
    }
}

/// The string held at a place (checked by [`takes`]).
fn held_str(held: &mut Fields, at: Option<usize>) -> Option<&mut String> {
    match at.and_then(|at| held.get_index_mut(at)) {
        Some((_, Value::String(text))) => Some(text),
        _ => None,
    }
}

/// A field the quick path sets to a string, in place.
fn set_str(held: &mut Fields, at: Option<usize>, given: &Option<Scalar<'_>>) {
    if let (Some(Scalar::Str(text)), Some(value)) = (given, held_str(held, at)) {
        if value != text {
            value.clear();
            value.push_str(text);
        }
    }
}

/// A field the quick path appends to.
fn append_str(held: &mut Fields, at: Option<usize>, given: &Option<Scalar<'_>>) {
    if let (Some(Scalar::Str(piece)), Some(text)) = (given, held_str(held, at)) {
        text.push_str(piece);
    }
}

impl Ollama {
    /// A line that adds a piece of text, applied from a probe: what the full
    /// path does for it, without a `Value` tree. False, having changed
    /// nothing, for any other line: one that is not `done: false`, has other
    /// fields, or would add a field the answer does not hold yet (the full
    /// path keeps the order the lines first gave them in).
    fn apply_piece(&mut self, line: &Line<'_>) -> bool {
        let (answer, at) = (&self.answer, self.at);
        let done_held = at.done.and_then(|at| answer.get_index(at));
        if self.done
            || line.other
            || line.done != Some(Scalar::Bool(false))
            || !matches!(done_held, Some((_, Value::Bool(false))))
            || !takes(answer, at.model, &line.model, false)
            || !takes(answer, at.created_at, &line.created_at, false)
            || !takes(answer, at.response, &line.response, true)
            || !takes(answer, at.thinking, &line.thinking, true)
        {
            return false;
        }
        let message = match &line.message {
            None => None,
            Some(Obj(Some(message))) => {
                let held = &self.message;
                if at.message.is_none()
                    || message.other
                    || !takes(held, at.role, &message.role, false)
                    || !takes(held, at.content, &message.content, true)
                    || !takes(held, at.message_thinking, &message.thinking, true)
                {
                    return false;
                }
                Some(message)
            }
            Some(Obj(None)) => return false,
        };
        let answer = &mut self.answer;
        set_str(answer, at.model, &line.model);
        set_str(answer, at.created_at, &line.created_at);
        append_str(answer, at.response, &line.response);
        append_str(answer, at.thinking, &line.thinking);
        if let Some(message) = message {
            let held = &mut self.message;
            set_str(held, at.role, &message.role);
            append_str(held, at.content, &message.content);
            append_str(held, at.message_thinking, &message.thinking);
        }
        true
    }

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
                    // Its place in the answer, where its fields go at the end.
                    self.answer.entry(key).or_insert(Value::Null);
                    for (key, value) in message {
                        self.blocks += MESSAGE.field(&mut self.message, key, value);
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
    fn field(&self, held: &mut Fields, key: String, value: Value) -> usize {
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
