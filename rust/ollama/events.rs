//! Ollama to and from the neutral vocabulary.
//! `python/agentcodec/_pure/ollama/events.py` mirrors this module rule for
//! rule.
//!
//! Decoding: the first line starts the run (its model, and `created_at` as
//! Unix seconds) and its one assistant message. Ollama has no block
//! boundaries, so they are drawn where the content changes: `thinking`
//! (reasoning) and `content` (`/api/chat`) or `response` (`/api/generate`)
//! each run in one block until the other comes; each tool call arrives
//! whole, so it is one block started, given its arguments and finished at
//! once. The done line finishes the message (its `done_reason` the stop
//! reason) and the run (`length`: incomplete), with the token counts as
//! usage; an `error` line fails the run. Log probabilities pass through.
//!
//! Encoding: the lines Ollama's server writes and its client reads, for
//! `/api/chat` (`message`, `role: assistant`, `content` always there) or
//! `/api/generate` (`response`), as the `endpoint` option says. A tool call
//! is written whole when its block finishes (its arguments an object, as
//! Ollama's are); the done line carries the done reason and the token
//! counts; a failed run is an `{"error": ...}` line. Tool results, media,
//! data and corrections have no place in an answer.

use super::vocabulary::{DONE_REASONS, STOP_REASON_WORDS};
use crate::events::{
    as_int, block_delta, block_finished, block_started, get_str, has_annotations, message_finished,
    message_place, message_started, nonempty, passthrough, run_failed, run_finished, run_started,
    BlockRef, Decode, Encode, Event, Loss, Place,
};
use crate::framing::Kind;
use crate::hashing::IndexMap;
use crate::joined_text::JoinedText;
use crate::json::{to_text, write_object, Map, Value};
use crate::json_prefix::JsonPrefix;
use crate::stop_reasons::{self, StopWords};

/// Why an answer is done, in Ollama's words.
const STOP_WORDS: StopWords = StopWords::new(&DONE_REASONS, &STOP_REASON_WORDS);

/// The one message of an Ollama answer, as the decoder names it.
pub const MESSAGE_ID: &str = "ollama-message";

/// Neutral usage keys from Ollama's counts.
const USAGE_KEYS: [(&str, &str); 2] = [
    ("input_tokens", "prompt_eval_count"),
    ("output_tokens", "eval_count"),
];

/// Ollama's token counts as neutral usage, none when it gives none.
fn usage_from_ollama(line: &Event) -> Value {
    let mut usage = Map::new();
    for (neutral, key) in USAGE_KEYS {
        if let Some(count) = as_int(line.get(key)) {
            usage.insert(neutral.to_owned(), count.into());
        }
    }
    if let (Some(input), Some(output)) = (
        as_int(usage.get("input_tokens")),
        as_int(usage.get("output_tokens")),
    ) {
        if let Some(total) = input.checked_add(output) {
            usage.insert("total_tokens".to_owned(), total.into());
        }
    }
    if usage.is_empty() {
        Value::Null
    } else {
        Value::Object(usage)
    }
}

/// Appends a line: the event's JSON, with the characters a line reader may
/// take for a line break escaped, then LF. JSON escapes CR and LF, but not
/// U+0085, U+2028 or U+2029, at which the ollama client (Python's
/// `str.splitlines`) splits too: Ollama's server escapes the last two.
pub fn frame_line(event: &Event, out: &mut Vec<u8>) {
    let start = out.len();
    write_object(out, event);
    // Each is a multi-byte character, so found only inside a string.
    let breaks = |bytes: &[u8]| {
        memchr::memchr2_iter(0xC2, 0xE2, bytes).any(|at| {
            matches!(
                bytes[at..],
                [0xC2, 0x85, ..] | [0xE2, 0x80, 0xA8 | 0xA9, ..]
            )
        })
    };
    if breaks(&out[start..]) {
        let written = out.split_off(start);
        let mut at = 0;
        while at < written.len() {
            let escape = match written[at..] {
                [0xC2, 0x85, ..] => Some((&b"\\u0085"[..], 2)),
                [0xE2, 0x80, 0xA8, ..] => Some((&b"\\u2028"[..], 3)),
                [0xE2, 0x80, 0xA9, ..] => Some((&b"\\u2029"[..], 3)),
                _ => None,
            };
            match escape {
                Some((text, length)) => {
                    out.extend_from_slice(text);
                    at += length;
                }
                None => {
                    out.push(written[at]);
                    at += 1;
                }
            }
        }
    }
    out.push(b'\n');
}

/// Decodes Ollama lines into neutral events.
#[derive(Debug, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    /// The next block's index.
    blocks: i64,
    /// The open text-like block: its kind and index.
    open: Option<(&'static str, i64)>,
    /// The tool calls so far (for the ids of calls that have none).
    calls: usize,
}

impl Decode for Decoder {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Lines)
    }

    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, line: &Event, out: &mut Vec<Event>) {
        if self.ended {
            out.push(passthrough("ollama", line));
            return;
        }
        if let Some(error) = line.get("error").filter(|error| !error.is_null()) {
            if self.started {
                self.close_text(out);
                out.push(message_finished(MESSAGE_ID, Value::Null, Value::Null));
            }
            let message = super::error_message(error);
            out.push(run_failed(Value::Null, message.into(), Value::Null));
            self.ended = true;
            return;
        }
        if !self.started {
            self.started = true;
            let created = get_str(line, "created_at")
                .and_then(crate::rfc3339::unix_seconds)
                .map_or(Value::Null, Value::from);
            let model = line.get("model").cloned().unwrap_or(Value::Null);
            out.push(run_started(Value::Null, Value::Null, model, created));
            out.push(message_started(MESSAGE_ID, "assistant", Some("message")));
        }
        let (fields, text_key) = match line.get("message") {
            Some(Value::Object(message)) => (message, "content"),
            _ => (line, "response"),
        };
        for (key, kind) in [("thinking", "reasoning"), (text_key, "text")] {
            if let Some(piece) = get_str(fields, key).filter(|piece| !piece.is_empty()) {
                self.text(kind, piece, out);
            }
        }
        if let Some(Value::Array(calls)) = fields.get("tool_calls") {
            for call in calls {
                if let Value::Object(call) = call {
                    self.tool_call(call, out);
                }
            }
        }
        if let Some(Value::Array(logprobs)) = line.get("logprobs") {
            if !logprobs.is_empty() {
                let mut kept = Map::new();
                kept.insert("logprobs".to_owned(), Value::Array(logprobs.clone()));
                out.push(passthrough("ollama", &kept));
            }
        }
        if line.get("done") == Some(&Value::Bool(true)) {
            self.close_text(out);
            let reason = line.get("done_reason").cloned().unwrap_or(Value::Null);
            let status = if get_str(line, "done_reason").is_some_and(stop_reasons::cuts_short) {
                "incomplete"
            } else {
                "completed"
            };
            out.push(message_finished(MESSAGE_ID, Value::Null, reason));
            out.push(run_finished(status, usage_from_ollama(line), Value::Null));
            self.ended = true;
        }
    }
}

impl Decoder {
    fn close_text(&mut self, out: &mut Vec<Event>) {
        if let Some((_, index)) = self.open.take() {
            out.push(block_finished(MESSAGE_ID, index));
        }
    }

    fn open_block(&mut self, kind: &str, fields: &[(&str, Value)], out: &mut Vec<Event>) -> i64 {
        let index = self.blocks;
        self.blocks += 1;
        out.push(block_started(MESSAGE_ID, index, kind, fields));
        index
    }

    fn text(&mut self, kind: &'static str, piece: &str, out: &mut Vec<Event>) {
        let index = match self.open {
            Some((open, index)) if open == kind => index,
            _ => {
                self.close_text(out);
                let index = self.open_block(kind, &[], out);
                self.open = Some((kind, index));
                index
            }
        };
        out.push(block_delta(MESSAGE_ID, index, piece));
    }

    fn tool_call(&mut self, call: &Map<String, Value>, out: &mut Vec<Event>) {
        self.close_text(out);
        let function = match call.get("function") {
            Some(Value::Object(function)) => Some(function),
            _ => None,
        };
        let call_id = match get_str(call, "id").filter(|id| !id.is_empty()) {
            Some(id) => id.to_owned(),
            None => format!("call_{}", self.calls),
        };
        self.calls += 1;
        let name = function
            .and_then(|function| function.get("name"))
            .cloned()
            .unwrap_or(Value::Null);
        let fields = [
            ("call_id", Value::from(call_id)),
            ("name", name),
            ("tool", "function".into()),
        ];
        let index = self.open_block("tool_call", &fields, out);
        let arguments = match function.and_then(|function| function.get("arguments")) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(value) => to_text(value),
        };
        if !arguments.is_empty() {
            out.push(block_delta(MESSAGE_ID, index, &arguments));
        }
        out.push(block_finished(MESSAGE_ID, index));
    }
}

/// What a block being encoded is.
#[derive(Debug)]
enum Streamed {
    Text,
    Reasoning,
    /// A tool call, written whole when it finishes.
    Tool(Box<ToolCall>),
}

#[derive(Debug)]
struct ToolCall {
    id: String,
    name: String,
    arguments: JsonPrefix,
    /// The arguments' text up to its last clean point.
    clean: String,
}

/// Encodes neutral events into Ollama lines.
#[derive(Debug)]
pub struct Encoder {
    model: Option<String>,
    created_at: Option<String>,
    generate: bool,
    started: bool,
    finished: bool,
    /// Messages of another role than the assistant's: no place here.
    others: std::collections::HashSet<String>,
    blocks: IndexMap<(String, i64), Streamed>,
    /// Tool calls written so far (`function.index`).
    calls: i64,
    reason: Option<String>,
    lost: Vec<Loss>,
    /// The messages being written (id -> place: namespace and node), and
    /// the events of those held back until they finish.
    writing: IndexMap<String, Place>,
    /// Each event held back, with its size ([`held_size`]).
    held: Vec<(Event, usize)>,
    held_ids: std::collections::HashSet<String>,
    held_bytes: usize,
    /// How much may be held back: a message that would take more is left
    /// out, its loss reported, so that memory stays bounded whatever the
    /// source sends beside a message that never ends.
    pub max_held_bytes: usize,
    /// The messages left out for that.
    left_out: std::collections::HashSet<String>,
    /// Where the message's text runs on from another message's.
    joined: JoinedText,
}

/// What the `max_held_bytes` option defaults to: 64 MiB.
pub const DEFAULT_MAX_HELD_BYTES: usize = 64 << 20;

/// An event's size as held back: each value 1, and each string (key or
/// value) its UTF-8 bytes besides (the pure backend counts alike).
fn held_size(event: &Event) -> usize {
    fn size(value: &Value) -> usize {
        1 + match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(size).sum(),
            Value::Object(fields) => fields
                .iter()
                .map(|(key, value)| key.len() + size(value))
                .sum(),
            _ => 0,
        }
    }
    1 + event
        .iter()
        .map(|(key, value)| key.len() + size(value))
        .sum::<usize>()
}

impl Encoder {
    pub fn new(model: Option<&str>, created_at: Option<&str>, endpoint: Option<&str>) -> Self {
        Encoder {
            model: model.map(str::to_owned),
            created_at: created_at.map(str::to_owned),
            generate: endpoint == Some("generate"),
            started: false,
            finished: false,
            others: std::collections::HashSet::default(),
            blocks: IndexMap::default(),
            calls: 0,
            reason: None,
            lost: Vec::new(),
            writing: IndexMap::default(),
            held: Vec::new(),
            held_ids: std::collections::HashSet::default(),
            held_bytes: 0,
            max_held_bytes: DEFAULT_MAX_HELD_BYTES,
            left_out: std::collections::HashSet::default(),
            joined: JoinedText::default(),
        }
    }

    /// Writes `separator` before a message's text that runs on from another
    /// message's in the one text they share (the `message_separator`
    /// option), where the loss is reported otherwise.
    pub fn with_message_separator(mut self, separator: Option<String>) -> Self {
        self.joined = JoinedText::new(separator);
        self
    }

    fn ensure_started(&mut self) {
        if !self.started {
            self.started = true;
            if self.created_at.is_none() {
                self.created_at = Some(crate::rfc3339::rfc3339(crate::events::now()));
            }
        }
    }

    /// A line: the model and time, then what `body` holds, in the answer's
    /// place (`message`, or the answer itself for `/api/generate`).
    fn line(&self, body: Vec<(&str, Value)>, done: bool) -> Event {
        let mut line = Map::new();
        line.insert(
            "model".to_owned(),
            self.model.as_deref().unwrap_or("").into(),
        );
        line.insert(
            "created_at".to_owned(),
            self.created_at.as_deref().unwrap_or("").into(),
        );
        let text_key = if self.generate { "response" } else { "content" };
        let mut fields = Map::new();
        if !self.generate {
            fields.insert("role".to_owned(), "assistant".into());
        }
        fields.insert(text_key.to_owned(), "".into());
        for (key, value) in body {
            let key = if key == "text" { text_key } else { key };
            fields.insert(key.to_owned(), value);
        }
        if self.generate {
            line.extend(fields);
        } else {
            line.insert("message".to_owned(), Value::Object(fields));
        }
        line.insert("done".to_owned(), done.into());
        line
    }

    /// A line the decoder passed through: log probabilities go on a line
    /// of their own (after `done`, where the server puts them); any other
    /// line as it came.
    fn passed_through(&self, inner: &Event) -> Event {
        match inner.get("logprobs") {
            Some(logprobs) if inner.len() == 1 => {
                let mut line = self.line(Vec::new(), false);
                line.insert("logprobs".to_owned(), logprobs.clone());
                line
            }
            _ => inner.clone(),
        }
    }

    fn block_started(&mut self, event: &Event) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        if self.others.contains(message_id) {
            self.lost.push(Loss::other_role("ollama", kind));
            return;
        }
        self.lost.extend(Loss::server("ollama", event));
        self.lost.extend(Loss::tool_kind("ollama", event, &[]));
        let streamed = match kind {
            "text" => Streamed::Text,
            "refusal" => {
                self.lost.push(Loss::refusal("ollama"));
                Streamed::Text
            }
            "reasoning" => Streamed::Reasoning,
            "tool_call" => Streamed::Tool(Box::new(ToolCall {
                id: get_str(event, "call_id").unwrap_or("").to_owned(),
                name: get_str(event, "name").unwrap_or("").to_owned(),
                arguments: JsonPrefix::new(true),
                clean: String::new(),
            })),
            other => {
                self.lost.push(Loss::block("ollama", other));
                return;
            }
        };
        if !matches!(streamed, Streamed::Tool(_)) {
            self.joined.started(message_id, index);
        }
        self.blocks.insert((message_id.to_owned(), index), streamed);
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index), Some(delta)) = (
            get_str(event, "message_id"),
            as_int(event.get("index")),
            get_str(event, "delta"),
        ) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let (key, kind) = match self.blocks.get_mut(&BlockRef(message_id, index)) {
            Some(Streamed::Text) => ("text", "text"),
            Some(Streamed::Reasoning) => ("thinking", "reasoning"),
            Some(Streamed::Tool(call)) => {
                call.arguments.feed(delta, &mut call.clean);
                return;
            }
            None => return,
        };
        // (one message is written at a time: its place is the run's)
        let (text, lost) = self
            .joined
            .writes("ollama", 0, kind, message_id, index, delta);
        self.lost.extend(lost);
        out.push(self.line(vec![(key, text.as_ref().into())], false));
    }

    fn block_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        self.joined.finished(message_id, index);
        if let Some(Streamed::Tool(call)) = self.blocks.shift_remove(&BlockRef(message_id, index)) {
            self.write_call(*call, out);
        }
    }

    /// Writes a tool call whole, its arguments an object.
    fn write_call(&mut self, call: ToolCall, out: &mut Vec<Event>) {
        let ToolCall {
            id,
            name,
            arguments,
            mut clean,
        } = call;
        if !arguments.is_whole() {
            self.lost.push(Loss::broken_arguments("ollama"));
        }
        clean.push_str(&arguments.finish());
        let arguments = match crate::json::parse(&clean) {
            Ok(value @ Value::Object(_)) => value,
            _ => Value::Object(Map::new()),
        };
        let mut function = Map::new();
        function.insert("index".to_owned(), self.calls.into());
        function.insert("name".to_owned(), name.into());
        function.insert("arguments".to_owned(), arguments);
        self.calls += 1;
        let mut entry = Map::new();
        if !id.is_empty() {
            entry.insert("id".to_owned(), id.into());
        }
        entry.insert("function".to_owned(), Value::Object(function));
        let calls = Value::Array(vec![Value::Object(entry)]);
        out.push(self.line(vec![("tool_calls", calls)], false));
    }

    /// Writes the tool calls whose blocks never finished, as far as they came.
    fn flush_calls(&mut self, out: &mut Vec<Event>) {
        let blocks = std::mem::take(&mut self.blocks);
        for (_, streamed) in blocks {
            if let Streamed::Tool(call) = streamed {
                self.write_call(*call, out);
            }
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.flush_calls(out);
        let status = get_str(event, "status");
        // The run's reason stands for a message that gave none.
        let (said, lost) = STOP_WORDS.translate("ollama", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        if self.reason.is_none() {
            self.reason = said.map(str::to_owned);
        }
        let reason = match (status, self.reason.take()) {
            (Some("incomplete"), _) => "length".to_owned(),
            (_, Some(reason)) => reason,
            _ => "stop".to_owned(),
        };
        let carried = if stop_reasons::cuts_short(&reason) {
            "incomplete"
        } else {
            "completed"
        };
        self.lost.extend(Loss::status("ollama", status, carried));
        let mut line = self.line(Vec::new(), true);
        line.insert("done_reason".to_owned(), reason.into());
        if let Some(Value::Object(usage)) = event.get("usage") {
            for (neutral, key) in USAGE_KEYS {
                if let Some(count) = as_int(usage.get(neutral)) {
                    line.insert(key.to_owned(), count.into());
                }
            }
        }
        out.push(line);
        self.finished = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // An error line has no counts.
        self.lost.extend(Loss::usage("ollama", event));
        // An error line has only its text.
        self.lost
            .extend(Loss::error_code("ollama", get_str(event, "code"), None));
        let mut line = Map::new();
        line.insert(
            "error".to_owned(),
            get_str(event, "message").unwrap_or("").into(),
        );
        out.push(line);
        self.finished = true;
    }
}

impl Encoder {
    /// Writes an event, or holds it back (`hold`): an answer is one
    /// message, so a message of another namespace than those being written
    /// (a subgraph's beside another's) waits, with its events, until they
    /// finish; the run's end writes what waits first.
    fn take(&mut self, event: &Event, out: &mut Vec<Event>, hold: bool) {
        if self.finished {
            return;
        }
        let kind = get_str(event, "type").unwrap_or("");
        if matches!(kind, "run_finished" | "run_failed") {
            self.release(out, false); // what was held is written before the end
        } else if hold && self.held_back(kind, event) {
            return;
        }
        self.write(kind, event, out);
        if let ("message_finished", Some(message_id)) = (kind, get_str(event, "message_id")) {
            if self.writing.shift_remove(message_id).is_some() && self.writing.is_empty() {
                self.release(out, true);
            }
        }
    }

    /// Whether the event waits: one of a message held back, or the start of
    /// one of another place (namespace and node) than those being written.
    fn held_back(&mut self, kind: &str, event: &Event) -> bool {
        let Some(message_id) = get_str(event, "message_id") else {
            return false;
        };
        if !self.held_ids.contains(message_id) && kind == "message_started" {
            let place = message_place(event);
            if self.writing.values().all(|writing| *writing == place) {
                self.writing.insert(message_id.to_owned(), place);
                return false;
            }
            self.held_ids.insert(message_id.to_owned());
        }
        if self.left_out.contains(message_id) {
            return true;
        }
        if !self.held_ids.contains(message_id) {
            return false;
        }
        let size = held_size(event);
        if self.held_bytes + size > self.max_held_bytes {
            self.leave_out(message_id);
            return true;
        }
        self.held_bytes += size;
        self.held.push((event.clone(), size));
        true
    }

    /// Leaves out a message held back that would take more than
    /// `max_held_bytes`: what is held of it, and what comes of it after.
    fn leave_out(&mut self, message_id: &str) {
        self.held
            .retain(|(event, _)| get_str(event, "message_id") != Some(message_id));
        self.held_bytes = self.held.iter().map(|(_, size)| size).sum();
        self.held_ids.remove(message_id);
        self.left_out.insert(message_id.to_owned());
        self.lost.push(Loss {
            what: "message".to_owned(),
            why: format!(
                "ollama writes one message at a time: a message streaming beside another \
                 would be held back past max_held_bytes ({}), and is left out",
                self.max_held_bytes
            ),
        });
    }

    fn release(&mut self, out: &mut Vec<Event>, hold: bool) {
        let held = std::mem::take(&mut self.held);
        self.held_ids.clear();
        self.held_bytes = 0;
        for (event, _) in &held {
            self.take(event, out, hold);
        }
    }

    fn write(&mut self, kind: &str, event: &Event, out: &mut Vec<Event>) {
        if kind == "run_started" && !self.started {
            if self.model.is_none() {
                self.model = get_str(event, "model").map(str::to_owned);
            }
            if self.created_at.is_none() {
                self.created_at = match event.get("created_at") {
                    Some(Value::String(text)) => Some(text.clone()),
                    other => as_int(other).map(crate::rfc3339::rfc3339),
                };
            }
        }
        self.ensure_started();
        match kind {
            "message_started" => {
                let role = get_str(event, "role").unwrap_or("assistant");
                if let Some(message_id) = get_str(event, "message_id") {
                    if matches!(role, "user" | "system" | "developer" | "tool") {
                        self.others.insert(message_id.to_owned());
                    }
                }
            }
            "message_finished" => {
                // A message has no counts of its own: only the answer.
                self.lost.extend(Loss::usage("ollama", event));
                let reason = get_str(event, "stop_reason");
                if nonempty(reason).is_some() {
                    let (word, lost) = STOP_WORDS.translate("ollama", reason);
                    self.lost.extend(lost);
                    self.reason = word.map(str::to_owned);
                }
            }
            "block_started" => self.block_started(event),
            "block_delta" => self.block_delta(event, out),
            "block_finished" => self.block_finished(event, out),
            "block_replaced" => {
                let (Some(message_id), Some(index)) =
                    (get_str(event, "message_id"), as_int(event.get("index")))
                else {
                    return;
                };
                let kind = match self.blocks.get(&BlockRef(message_id, index)) {
                    Some(Streamed::Text) => Some("text"),
                    Some(Streamed::Reasoning) => Some("reasoning"),
                    Some(Streamed::Tool(_)) => None,
                    None => return,
                };
                if let (Some(kind), Some(_)) = (kind, get_str(event, "text")) {
                    self.lost.push(Loss::correction("ollama", kind));
                }
                if get_str(event, "encrypted").is_some_and(|text| !text.is_empty()) {
                    self.lost.push(Loss::signature("ollama"));
                }
                if has_annotations(event) {
                    self.lost.push(Loss::annotations("ollama"));
                }
            }
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "passthrough" => {
                if let (Some("ollama"), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    out.push(self.passed_through(inner));
                }
            }
            _ => {}
        }
    }
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.finished
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.take(event, out, true);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if !self.finished {
            self.release(out, false);
            self.flush_calls(out);
        }
    }

    /// A line of JSON.
    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_line(event, out);
    }
}
