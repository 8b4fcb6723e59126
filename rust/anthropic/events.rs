//! Anthropic Messages to and from the neutral vocabulary.
//! `python/agentcodec/_pure/anthropic/events.py` mirrors this module rule
//! for rule (and says what each direction does).

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

pub use super::vocabulary::STOP_REASONS;
use super::vocabulary::{ERROR_CODE_WORDS, ERROR_TYPES, STOP_REASON_WORDS};
use super::{probe, TOOL_BLOCKS};
use crate::error_codes::ErrorCodes;
use crate::events::{
    as_int, block_delta, block_fields, block_finished, block_key, block_replaced, block_started,
    frame_sse, get_str, message_finished, message_started, nonempty, passthrough, run_failed,
    run_finished, run_started, sse_field, BlockRef, Decode, Encode, Event, Loss, Quick,
};
use crate::hashing::HashSet;
use crate::json::{self, write_int, write_string, Map, Value};
use crate::json_prefix::JsonPrefix;
use crate::stop_reasons::{self, StopWords};

/// Who made the signatures it reads (`encrypted_by`): a reader that keeps
/// them per provider (the AI SDK's `providerMetadata`) files them so.
const BY: &str = "anthropic";

/// The citations a text block carries; other protocols' annotations
/// (Responses' url_citation) have no Anthropic form.
const CITATION_TYPES: [&str; 5] = [
    "char_location",
    "page_location",
    "content_block_location",
    "web_search_result_location",
    "search_result_location",
];
/// Anthropic's cache counts, as neutral usage names them.
const CACHE_KEYS: [(&str, &str); 2] = [
    ("cached_input_tokens", "cache_read_input_tokens"),
    ("cache_creation_input_tokens", "cache_creation_input_tokens"),
];
/// Usage fields only Anthropic has, carried as they are.
const OWN_USAGE_KEYS: [&str; 2] = ["server_tool_use", "service_tier"];

/// Why a message stopped, in Anthropic's words.
const STOP_WORDS: StopWords = StopWords::new(&STOP_REASONS, &STOP_REASON_WORDS);

/// A failed run's error type, in Anthropic's words.
const ERROR_CODES: ErrorCodes = ErrorCodes::new(&ERROR_TYPES, &ERROR_CODE_WORDS, "api_error");

fn tool_kind(block_type: &str) -> &'static str {
    match block_type {
        "server_tool_use" => "server",
        "mcp_tool_use" => "mcp",
        _ => "function",
    }
}

/// The block type a tool call kind is written as. (An MCP call is written
/// as `tool_use`: `mcp_tool_use` is a beta block that needs the server's
/// name, which no other protocol gives.)
fn tool_type(kind: Option<&str>) -> &'static str {
    match kind {
        Some("server") => "server_tool_use",
        _ => "tool_use",
    }
}

fn usage_from_anthropic(usage: &Map<String, Value>) -> Value {
    let mut neutral = Map::new();
    let mut total = as_int(usage.get("input_tokens"));
    for (key, anthropic_key) in CACHE_KEYS {
        if let Some(count) = as_int(usage.get(anthropic_key)) {
            neutral.insert(key.to_owned(), count.into());
            // A total past 64 bits is no count: it is left out.
            total = total.and_then(|total| total.checked_add(count));
        }
    }
    if let Some(total) = total {
        neutral.insert("input_tokens".to_owned(), total.into());
    }
    if let Some(output) = as_int(usage.get("output_tokens")) {
        neutral.insert("output_tokens".to_owned(), output.into());
        if let Some(sum) = total.and_then(|total| total.checked_add(output)) {
            neutral.insert("total_tokens".to_owned(), sum.into());
        }
    }
    for key in OWN_USAGE_KEYS {
        if let Some(value) = usage.get(key).filter(|value| !value.is_null()) {
            neutral.insert(key.to_owned(), value.clone());
        }
    }
    if neutral.is_empty() {
        Value::Null
    } else {
        Value::Object(neutral)
    }
}

/// Cumulative usage for `message_delta`: `output_tokens` always.
fn usage_to_anthropic(usage: Option<&Value>) -> Value {
    let empty = Map::new();
    let usage = match usage {
        Some(Value::Object(usage)) => usage,
        _ => &empty,
    };
    let mut anthropic = Map::new();
    anthropic.insert(
        "output_tokens".to_owned(),
        as_int(usage.get("output_tokens")).unwrap_or(0).into(),
    );
    let mut total = as_int(usage.get("input_tokens"));
    let details = usage.get("input_tokens_details");
    for (key, anthropic_key) in CACHE_KEYS {
        let mut count = as_int(usage.get(key));
        if count.is_none() && key == "cached_input_tokens" {
            // Responses' usage.
            count = as_int(details.and_then(|details| details.get("cached_tokens")));
        }
        if let Some(count) = count {
            anthropic.insert(anthropic_key.to_owned(), count.into());
            total = total.and_then(|total| total.checked_sub(count));
        }
    }
    if let Some(total) = total.filter(|total| *total >= 0) {
        anthropic.insert("input_tokens".to_owned(), total.into());
    }
    for key in OWN_USAGE_KEYS {
        if let Some(value) = usage.get(key).filter(|value| !value.is_null()) {
            anthropic.insert(key.to_owned(), value.clone());
        }
    }
    Value::Object(anthropic)
}

// --- decoding ------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Decoded {
    kind: &'static str,
    redacted: bool,
    citations: Vec<Value>,
}

/// Anthropic Messages events to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    /// The message's id, once `message_start` came.
    message_id: Option<String>,
    /// The message finished (`message_delta`).
    finished: bool,
    ended: bool,
    open: BTreeMap<i64, Decoded>,
    /// Every block index started.
    seen: HashSet<i64>,
    usage: Map<String, Value>,
    reason: Value,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode_text<'t>(&mut self, text: &'t str, _out: &mut Vec<Event>) -> Quick<'t> {
        if self.ended || self.finished {
            return Quick::No;
        }
        let Some(message_id) = &self.message_id else {
            return Quick::No;
        };
        let append = probe::Event::parse(text).and_then(probe::Event::into_append);
        let Some((index, kind, piece)) = append else {
            return Quick::No;
        };
        let wanted = match kind {
            "text_delta" => "text",
            "thinking_delta" => "reasoning",
            _ => "tool_call",
        };
        match self.open.get(&index) {
            Some(block) if block.kind == wanted && !block.redacted => {}
            _ => return Quick::No,
        }
        if piece.is_empty() {
            return Quick::Events;
        }
        Quick::Delta {
            message_id: Cow::Owned(message_id.clone()),
            index,
            delta: piece,
        }
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        let kind = match get_str(event, "type") {
            Some(kind) if !self.ended => kind,
            _ => {
                out.push(passthrough("anthropic", event));
                return;
            }
        };
        match kind {
            "ping" => {}
            "error" => {
                if self.message_id.is_some() {
                    self.finish_message(out, None);
                }
                let (code, message) = super::error_fields(event);
                out.push(run_failed(
                    code.into(),
                    message.map_or(Value::Null, Value::from),
                    usage_from_anthropic(&self.usage),
                ));
                self.ended = true;
            }
            _ if self.message_id.is_none() => {
                if kind == "message_start" {
                    self.start(event, out);
                } else {
                    out.push(passthrough("anthropic", event));
                }
            }
            "content_block_start" if !self.finished => self.block_start(event, out),
            "content_block_delta" if !self.finished => self.block_delta(event, out),
            "content_block_stop"
                if as_int(event.get("index"))
                    .is_some_and(|index| self.open.contains_key(&index)) =>
            {
                let index = as_int(event.get("index")).unwrap_or_default();
                self.open.remove(&index);
                out.push(block_finished(self.id(), index));
            }
            "message_delta" if !self.finished => {
                let delta = match event.get("delta") {
                    Some(Value::Object(delta)) => Some(delta),
                    _ => None,
                };
                self.reason = delta
                    .and_then(|delta| delta.get("stop_reason"))
                    .cloned()
                    .unwrap_or(Value::Null);
                self.merge_usage(event.get("usage"));
                let sequence = delta.and_then(|delta| delta.get("stop_sequence"));
                self.finish_message(out, sequence.and_then(Value::as_str));
            }
            "message_stop" => {
                self.finish_message(out, None);
                let status = if self.reason.as_str().is_some_and(stop_reasons::cuts_short) {
                    "incomplete"
                } else {
                    "completed"
                };
                out.push(run_finished(
                    status,
                    usage_from_anthropic(&self.usage),
                    Value::Null,
                ));
                self.ended = true;
            }
            _ => out.push(passthrough("anthropic", event)),
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        // The run ends at message_stop: without it the stream was cut short,
        // and what was open stays open, as in the other protocols.
        let _ = out;
    }
}

impl Decoder {
    fn id(&self) -> &str {
        self.message_id.as_deref().unwrap_or("msg")
    }

    fn start(&mut self, event: &Event, out: &mut Vec<Event>) {
        let empty = Map::new();
        let message = match event.get("message") {
            Some(Value::Object(message)) => message,
            _ => &empty,
        };
        let message_id = nonempty(get_str(message, "id")).unwrap_or("msg").to_owned();
        self.merge_usage(message.get("usage"));
        out.push(run_started(
            message_id.as_str().into(),
            Value::Null,
            message.get("model").cloned().unwrap_or(Value::Null),
            Value::Null,
        ));
        let role = nonempty(get_str(message, "role")).unwrap_or("assistant");
        out.push(message_started(&message_id, role, Some("message")));
        self.message_id = Some(message_id);
        if let Some(Value::Array(content)) = message.get("content") {
            for (index, block) in content.iter().enumerate() {
                let index = index as i64;
                let mut start = Map::new();
                start.insert("index".to_owned(), index.into());
                start.insert("content_block".to_owned(), block.clone());
                self.block_start(&start, out);
                if self.open.remove(&index).is_some() {
                    out.push(block_finished(self.id(), index));
                }
            }
        }
    }

    fn merge_usage(&mut self, usage: Option<&Value>) {
        if let Some(Value::Object(usage)) = usage {
            for (key, value) in usage {
                if !value.is_null() {
                    self.usage.insert(key.clone(), value.clone());
                }
            }
        }
    }

    fn block_start(&mut self, event: &Event, out: &mut Vec<Event>) {
        let index = as_int(event.get("index"));
        let (Some(index), Some(Value::Object(block))) = (index, event.get("content_block")) else {
            out.push(passthrough("anthropic", event));
            return;
        };
        if self.seen.contains(&index) {
            out.push(passthrough("anthropic", event));
            return;
        }
        self.seen.insert(index);
        let message_id = self.id().to_owned();
        let text = |key: &str| nonempty(get_str(block, key));
        let decoded = |kind: &'static str, redacted: bool| Decoded {
            kind,
            redacted,
            citations: Vec::new(),
        };
        match get_str(block, "type") {
            Some("text") => {
                out.push(block_started(&message_id, index, "text", &[]));
                if let Some(piece) = text("text") {
                    out.push(block_delta(&message_id, index, piece));
                }
                let mut state = decoded("text", false);
                if let Some(Value::Array(citations)) = block.get("citations") {
                    if !citations.is_empty() {
                        state.citations = citations.clone();
                        out.push(block_replaced(
                            &message_id,
                            index,
                            vec![("annotations", Value::Array(citations.clone()))],
                        ));
                    }
                }
                self.open.insert(index, state);
            }
            Some("thinking") => {
                out.push(block_started(&message_id, index, "reasoning", &[]));
                if let Some(piece) = text("thinking") {
                    out.push(block_delta(&message_id, index, piece));
                }
                if let Some(signature) = text("signature") {
                    out.push(block_replaced(
                        &message_id,
                        index,
                        vec![("encrypted", signature.into()), ("encrypted_by", BY.into())],
                    ));
                }
                self.open.insert(index, decoded("reasoning", false));
            }
            Some("redacted_thinking") => {
                out.push(block_started(&message_id, index, "reasoning", &[]));
                let data = get_str(block, "data").unwrap_or("");
                out.push(block_replaced(
                    &message_id,
                    index,
                    vec![
                        ("encrypted", data.into()),
                        ("redacted", true.into()),
                        ("encrypted_by", BY.into()),
                    ],
                ));
                self.open.insert(index, decoded("reasoning", true));
            }
            Some(block_type) if TOOL_BLOCKS.contains(&block_type) => {
                let field = |key: &str| get_str(block, key).map_or(Value::Null, Value::from);
                out.push(block_started(
                    &message_id,
                    index,
                    "tool_call",
                    &[
                        ("call_id", field("id")),
                        ("name", field("name")),
                        ("tool", tool_kind(block_type).into()),
                        ("server", field("server_name")),
                    ],
                ));
                if let Some(given @ Value::Object(input)) = block.get("input") {
                    if !input.is_empty() {
                        out.push(block_delta(&message_id, index, &json::to_text(given)));
                    }
                }
                self.open.insert(index, decoded("tool_call", false));
            }
            _ => {
                out.push(block_started(
                    &message_id,
                    index,
                    "data",
                    &[("value", Value::Object(block.clone()))],
                ));
                self.open.insert(index, decoded("data", false));
            }
        }
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let index = as_int(event.get("index"));
        let message_id = self.id().to_owned();
        let (Some(index), Some(Value::Object(delta))) = (index, event.get("delta")) else {
            out.push(passthrough("anthropic", event));
            return;
        };
        let Some(block) = self.open.get_mut(&index) else {
            out.push(passthrough("anthropic", event));
            return;
        };
        let kind = get_str(delta, "type");
        let appended = match kind {
            Some("text_delta") => Some(("text", "text")),
            Some("thinking_delta") => Some(("thinking", "reasoning")),
            Some("input_json_delta") => Some(("partial_json", "tool_call")),
            _ => None,
        };
        if let Some((field, wanted)) = appended {
            if block.kind == wanted && !block.redacted {
                if let Some(piece) = get_str(delta, field) {
                    if !piece.is_empty() {
                        out.push(block_delta(&message_id, index, piece));
                    }
                    return;
                }
            }
        } else if kind == Some("signature_delta") && block.kind == "reasoning" && !block.redacted {
            if let Some(signature) = get_str(delta, "signature") {
                out.push(block_replaced(
                    &message_id,
                    index,
                    vec![("encrypted", signature.into()), ("encrypted_by", BY.into())],
                ));
                return;
            }
        } else if kind == Some("citations_delta") && block.kind == "text" {
            block
                .citations
                .push(delta.get("citation").cloned().unwrap_or(Value::Null));
            out.push(block_replaced(
                &message_id,
                index,
                vec![("annotations", Value::Array(block.citations.clone()))],
            ));
            return;
        }
        out.push(passthrough("anthropic", event));
    }

    fn finish_message(&mut self, out: &mut Vec<Event>, stop_sequence: Option<&str>) {
        if self.finished {
            return;
        }
        let message_id = self.id().to_owned();
        for index in std::mem::take(&mut self.open).into_keys() {
            out.push(block_finished(&message_id, index));
        }
        self.finished = true;
        let mut finished = message_finished(
            &message_id,
            usage_from_anthropic(&self.usage),
            self.reason.clone(),
        );
        if let Some(sequence) = stop_sequence {
            finished.insert("stop_sequence".to_owned(), sequence.into());
        }
        out.push(finished);
    }
}

// --- encoding ------------------------------------------------------------------------------

/// What came for a block while it waited.
#[derive(Debug, Clone)]
enum Op {
    Delta(String),
    Replaced(Event),
}

/// A neutral block on its way out: queued until the blocks before it stop,
/// with what came for it meanwhile.
#[derive(Debug, Clone)]
struct Encoded {
    kind: String,
    fields: Map<String, Value>,
    /// Its Anthropic index, once its `content_block_start` was written.
    index: Option<i64>,
    anthropic_type: String,
    finished: bool,
    /// Citations written.
    citations: usize,
    ops: Vec<Op>,
    /// A tool's input as it streams: passed on only as far as it is the
    /// clean prefix of an object, so that what the SDK parses after every
    /// fragment, and the input at `content_block_stop`, is JSON whatever
    /// the source sent (a source's broken arguments end at their last
    /// clean point).
    input: JsonPrefix,
}

/// Neutral events to Anthropic Messages events.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    id: Option<String>,
    model: Option<String>,
    started: bool,
    finished: bool,
    /// The next Anthropic block index.
    next: i64,
    /// Blocks started and not finished: the one being written first, then
    /// those waiting, in order.
    blocks: BTreeMap<u64, Encoded>,
    keys: indexmap::IndexMap<(String, i64), u64>,
    order: VecDeque<u64>,
    serial: u64,
    /// Messages with no place here (user, tool results).
    skipped: HashSet<String>,
    /// Messages started and not finished.
    open: HashSet<String>,
    last_kind: Option<String>,
    reason: Option<String>,
    stop_sequence: Option<String>,
}

impl Encoder {
    pub fn new(response_id: Option<String>, model: Option<String>) -> Self {
        Encoder {
            id: response_id,
            model,
            ..Encoder::default()
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
        if self.finished {
            return;
        }
        match get_str(event, "type").unwrap_or("") {
            "run_started" => {
                if self.id.as_deref().is_none_or(str::is_empty) {
                    self.id = get_str(event, "run_id").map(str::to_owned);
                }
                if self.model.as_deref().is_none_or(str::is_empty) {
                    self.model = get_str(event, "model").map(str::to_owned);
                }
                self.ensure_started(out);
            }
            "run_failed" => {
                // An error event has no usage.
                self.lost.extend(Loss::usage("anthropic", event));
                // An error's type is one of the API's own (the SDK's models
                // reject any other): another protocol's code is its type of
                // that kind (a throttle is `rate_limit_error`), or else an
                // API error.
                let (code, lost) = ERROR_CODES.write("anthropic", get_str(event, "code"));
                self.lost.extend(lost);
                let mut error = Map::new();
                error.insert("type".to_owned(), code.into());
                let message = nonempty(get_str(event, "message")).unwrap_or("");
                error.insert("message".to_owned(), message.into());
                let mut failed = Map::new();
                failed.insert("type".to_owned(), "error".into());
                failed.insert("error".to_owned(), Value::Object(error));
                out.push(failed);
                self.finished = true;
            }
            "passthrough" => {
                if let (Some("anthropic"), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    out.push(inner.clone());
                }
            }
            "message_started" => self.message_started(event, out),
            "message_finished" => self.message_finished(event),
            "block_started" => self.block_started(event, out),
            "block_delta" => {
                let Some(serial) = self.serial_of(event) else {
                    return;
                };
                let Some(delta) = nonempty(get_str(event, "delta")) else {
                    return;
                };
                if self.order.front() == Some(&serial) {
                    self.write_delta(serial, delta, out);
                } else if let Some(block) = self.blocks.get_mut(&serial) {
                    block.ops.push(Op::Delta(delta.to_owned()));
                }
            }
            "block_replaced" => {
                let Some(serial) = self.serial_of(event) else {
                    return;
                };
                // A text delta only appends: a correction of streamed text
                // has no place.
                if let Some(block) = self.blocks.get(&serial) {
                    let kind = block.kind.as_str();
                    if matches!(kind, "text" | "refusal" | "reasoning")
                        && get_str(event, "text").is_some()
                    {
                        self.lost.push(Loss::correction("anthropic", kind));
                    }
                    // Only a thinking block is signed: a text's or a tool
                    // call's signature has no place.
                    if kind != "reasoning" && get_str(event, "encrypted").is_some() {
                        self.lost.push(Loss::block_signature("anthropic", kind));
                    }
                }
                if self.order.front() == Some(&serial) {
                    self.write_replaced(serial, event, out);
                } else if let Some(block) = self.blocks.get_mut(&serial) {
                    block.ops.push(Op::Replaced(event.clone()));
                }
            }
            "block_finished" => {
                let Some((message_id, index)) = block_key(event) else {
                    return;
                };
                let Some(serial) = self.keys.shift_remove(&(message_id, index)) else {
                    return;
                };
                if let Some(block) = self.blocks.get_mut(&serial) {
                    block.finished = true;
                }
                if self.order.front() == Some(&serial) {
                    self.stop_current(out);
                }
            }
            "run_finished" => {
                // The run's reason stands for a message that gave none (one
                // with no word is reported, as it is not written).
                let (word, lost) = STOP_WORDS.translate("anthropic", get_str(event, "stop_reason"));
                self.lost.extend(lost);
                if self.reason.is_none() {
                    self.reason = word.map(str::to_owned);
                }
                let status = get_str(event, "status").map(str::to_owned);
                self.end(status.as_deref(), event.get("usage"), true, out);
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        if let Some(&serial) = self.order.front() {
            self.write_start(serial, None, out); // what started shows
        }
        if self.started && self.open.is_empty() {
            // The message ends; the run never said it was over: no
            // message_stop.
            self.end(None, None, false, out);
        }
    }

    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_sse(out, sse_field(event.get("type")), None, event);
    }

    fn write_delta(
        &mut self,
        message_id: &str,
        index: i64,
        delta: &str,
        out: &mut Vec<u8>,
    ) -> bool {
        if self.finished || delta.is_empty() {
            return true; // nothing follows the end; an empty delta says nothing
        }
        let Some(&serial) = self.keys.get(&BlockRef(message_id, index)) else {
            return true;
        };
        if self.order.front() != Some(&serial) {
            if let Some(block) = self.blocks.get_mut(&serial) {
                block.ops.push(Op::Delta(delta.to_owned()));
            }
            return true;
        }
        let Some(block) = self.blocks.get_mut(&serial) else {
            return true;
        };
        let Some(at) = block.index else {
            return false; // its content_block_start comes first
        };
        let mut passed = String::new();
        let (kind, field, delta): (&[u8], &[u8], &str) = match block.anthropic_type.as_str() {
            "text" => (b"text_delta", b"text", delta),
            "thinking" => (b"thinking_delta", b"thinking", delta),
            other if TOOL_BLOCKS.contains(&other) => {
                block.input.feed(delta, &mut passed);
                if passed.is_empty() {
                    return true;
                }
                (b"input_json_delta", b"partial_json", passed.as_str())
            }
            _ => return true,
        };
        // What frame() writes for the content_block_delta write_delta() builds.
        out.extend_from_slice(
            b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":",
        );
        write_int(out, at);
        out.extend_from_slice(b",\"delta\":{\"type\":\"");
        out.extend_from_slice(kind);
        out.extend_from_slice(b"\",\"");
        out.extend_from_slice(field);
        out.extend_from_slice(b"\":");
        write_string(out, delta);
        out.extend_from_slice(b"}}\n\n");
        true
    }
}

impl Encoder {
    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        let mut usage = Map::new();
        usage.insert("input_tokens".to_owned(), 0.into());
        usage.insert("output_tokens".to_owned(), 0.into());
        let mut message = Map::new();
        let id = nonempty(self.id.as_deref()).unwrap_or("msg");
        message.insert("id".to_owned(), id.into());
        message.insert("type".to_owned(), "message".into());
        message.insert("role".to_owned(), "assistant".into());
        let model = nonempty(self.model.as_deref()).unwrap_or("");
        message.insert("model".to_owned(), model.into());
        message.insert("content".to_owned(), Value::Array(Vec::new()));
        message.insert("stop_reason".to_owned(), Value::Null);
        message.insert("stop_sequence".to_owned(), Value::Null);
        message.insert("usage".to_owned(), Value::Object(usage));
        out.push(anthropic_event(
            "message_start",
            vec![("message", Value::Object(message))],
        ));
    }

    fn serial_of(&self, event: &Event) -> Option<u64> {
        let (message_id, index) = block_key(event)?;
        self.keys.get(&(message_id, index)).copied()
    }

    fn message_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        let role = get_str(event, "role");
        if matches!(role, Some("user" | "system" | "developer" | "tool"))
            || get_str(event, "kind") == Some("tool_result")
        {
            self.skipped.insert(message_id.to_owned());
            return;
        }
        self.skipped.remove(message_id);
        self.open.insert(message_id.to_owned());
        self.ensure_started(out);
    }

    fn message_finished(&mut self, event: &Event) {
        // The stream's one message carries the run's usage, not a message's.
        self.lost.extend(Loss::usage("anthropic", event));
        let message_id = get_str(event, "message_id");
        if let Some(message_id) = message_id {
            self.open.remove(message_id);
            if self.skipped.contains(message_id) {
                return;
            }
        }
        self.take_reason(get_str(event, "stop_reason"));
        if let Some(sequence) = get_str(event, "stop_sequence") {
            self.stop_sequence = Some(sequence.to_owned());
        }
    }

    /// The stop reason the source gave, in Anthropic's words; one it has no
    /// word for leaves the reason to what the stream says (and an earlier
    /// message's no longer stands).
    fn take_reason(&mut self, reason: Option<&str>) {
        if nonempty(reason).is_none() {
            return;
        }
        let (word, lost) = STOP_WORDS.translate("anthropic", reason);
        self.lost.extend(lost);
        self.reason = word.map(str::to_owned);
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some((message_id, index)) = block_key(event) else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        if self.skipped.contains(&message_id) {
            self.lost.push(Loss::other_role("anthropic", kind));
            return;
        }
        if self.keys.contains_key(&(message_id.clone(), index)) {
            return;
        }
        if !matches!(
            kind,
            "text" | "refusal" | "reasoning" | "tool_call" | "data"
        ) {
            // Tool results and media have no place in an assistant message.
            self.lost.push(Loss::block("anthropic", kind));
            return;
        }
        if kind == "refusal" {
            self.lost.push(Loss::refusal("anthropic"));
        }
        // An MCP call is written as tool_use: mcp_tool_use is a beta block.
        self.lost.extend(Loss::server("anthropic", event));
        self.lost
            .extend(Loss::tool_kind("anthropic", event, &["server"]));
        let mut fields = Map::new();
        for name in block_fields(kind) {
            fields.insert(
                (*name).to_owned(),
                event.get(*name).cloned().unwrap_or(Value::Null),
            );
        }
        if kind == "data" {
            let Some(value) = anthropic_block(event.get("value")) else {
                // Only a data block holding one of Anthropic's own blocks
                // (a server tool's result) has a place.
                self.lost.push(Loss::block("anthropic", kind));
                return;
            };
            fields.insert("value".to_owned(), Value::Object(value.clone()));
        }
        self.ensure_started(out);
        let serial = self.serial;
        self.serial += 1;
        self.keys.insert((message_id, index), serial);
        self.blocks.insert(
            serial,
            Encoded {
                kind: kind.to_owned(),
                fields,
                index: None,
                anthropic_type: String::new(),
                finished: false,
                citations: 0,
                ops: Vec::new(),
                input: JsonPrefix::new(true),
            },
        );
        self.order.push_back(serial);
        if self.order.len() == 1 {
            self.begin(serial, out);
        }
    }

    /// A block now being written starts at once, so that a client sees it;
    /// a reasoning block waits for its first content, which says whether
    /// it is thinking or redacted.
    fn begin(&mut self, serial: u64, out: &mut Vec<Event>) {
        if self
            .blocks
            .get(&serial)
            .is_some_and(|block| block.kind != "reasoning")
        {
            self.write_start(serial, None, out);
        }
    }

    fn end(
        &mut self,
        status: Option<&str>,
        usage: Option<&Value>,
        stop: bool,
        out: &mut Vec<Event>,
    ) {
        self.ensure_started(out);
        // Whatever is open stops, in order.
        for block in self.blocks.values_mut() {
            block.finished = true;
        }
        self.stop_current(out);
        self.keys.clear();
        let reason = match &self.reason {
            Some(reason) => reason.as_str(),
            None if status == Some("incomplete") => "max_tokens",
            None if self.last_kind.as_deref() == Some("tool_call") => "tool_use",
            None => "end_turn",
        };
        // The stop reason reads back as incomplete (cut short) or
        // completed: a stopped run has no word.
        let carried = if stop_reasons::cuts_short(reason) {
            "incomplete"
        } else {
            "completed"
        };
        self.lost.extend(Loss::status("anthropic", status, carried));
        let mut delta = Map::new();
        delta.insert("stop_reason".to_owned(), reason.into());
        delta.insert(
            "stop_sequence".to_owned(),
            self.stop_sequence
                .as_deref()
                .map_or(Value::Null, Value::from),
        );
        out.push(anthropic_event(
            "message_delta",
            vec![
                ("delta", Value::Object(delta)),
                ("usage", usage_to_anthropic(usage)),
            ],
        ));
        if stop {
            out.push(anthropic_event("message_stop", Vec::new()));
        }
        self.finished = true;
    }

    /// Stops the block being written, and writes the blocks that waited for
    /// it, as far as they have come.
    fn stop_current(&mut self, out: &mut Vec<Event>) {
        while let Some(&serial) = self.order.front() {
            if !self.blocks.get(&serial).is_some_and(|block| block.finished) {
                return;
            }
            self.write_start(serial, None, out);
            if let Some(block) = self.blocks.remove(&serial) {
                if let Some(index) = block.index {
                    let tool = TOOL_BLOCKS.contains(&block.anthropic_type.as_str());
                    if tool && !block.input.is_whole() {
                        self.lost.push(Loss::broken_arguments("anthropic"));
                    }
                    let end = block.input.finish();
                    if TOOL_BLOCKS.contains(&block.anthropic_type.as_str()) && !end.is_empty() {
                        let body =
                            anthropic_event("input_json_delta", vec![("partial_json", end.into())]);
                        out.push(block_event(index, body));
                    }
                    out.push(anthropic_event(
                        "content_block_stop",
                        vec![("index", index.into())],
                    ));
                }
            }
            self.order.pop_front();
            let Some(&next) = self.order.front() else {
                return;
            };
            let ops = self
                .blocks
                .get_mut(&next)
                .map(|block| std::mem::take(&mut block.ops))
                .unwrap_or_default();
            for op in ops {
                match op {
                    Op::Delta(delta) => self.write_delta(next, &delta, out),
                    Op::Replaced(event) => self.write_replaced(next, &event, out),
                }
            }
            self.begin(next, out);
        }
    }

    fn write_start(&mut self, serial: u64, replaced: Option<&Event>, out: &mut Vec<Event>) {
        let next = self.next;
        let Some(block) = self.blocks.get_mut(&serial) else {
            return;
        };
        if block.index.is_some() {
            return;
        }
        let mut content = Map::new();
        match block.kind.as_str() {
            "text" | "refusal" => {
                content.insert("type".to_owned(), "text".into());
                content.insert("text".to_owned(), "".into());
            }
            "reasoning" => {
                if let Some(replaced) =
                    replaced.filter(|event| event.get("redacted") == Some(&Value::Bool(true)))
                {
                    content.insert("type".to_owned(), "redacted_thinking".into());
                    let data = nonempty(get_str(replaced, "encrypted")).unwrap_or("");
                    content.insert("data".to_owned(), data.into());
                } else {
                    content.insert("type".to_owned(), "thinking".into());
                    content.insert("thinking".to_owned(), "".into());
                    content.insert("signature".to_owned(), "".into());
                }
            }
            "tool_call" => {
                let block_type = tool_type(get_str(&block.fields, "tool"));
                content.insert("type".to_owned(), block_type.into());
                let id = match nonempty(get_str(&block.fields, "call_id")) {
                    Some(id) => id.to_owned(),
                    None => format!("toolu_{next}"),
                };
                content.insert("id".to_owned(), id.into());
                let name = nonempty(get_str(&block.fields, "name")).unwrap_or("");
                content.insert("name".to_owned(), name.into());
                content.insert("input".to_owned(), Value::Object(Map::new()));
            }
            _ => {
                if let Some(Value::Object(value)) = block.fields.get("value") {
                    content = value.clone();
                }
            }
        }
        block.anthropic_type = get_str(&content, "type").unwrap_or("").to_owned();
        block.index = Some(next);
        self.next += 1;
        self.last_kind = Some(block.kind.clone());
        out.push(anthropic_event(
            "content_block_start",
            vec![
                ("index", next.into()),
                ("content_block", Value::Object(content)),
            ],
        ));
    }

    fn write_delta(&mut self, serial: u64, delta: &str, out: &mut Vec<Event>) {
        self.write_start(serial, None, out);
        let Some(block) = self.blocks.get_mut(&serial) else {
            return;
        };
        let mut passed = String::new();
        let (kind, field, delta) = match block.anthropic_type.as_str() {
            "text" => ("text_delta", "text", delta),
            "thinking" => ("thinking_delta", "thinking", delta),
            other if TOOL_BLOCKS.contains(&other) => {
                block.input.feed(delta, &mut passed);
                if passed.is_empty() {
                    return;
                }
                ("input_json_delta", "partial_json", passed.as_str())
            }
            _ => return,
        };
        let body = anthropic_event(kind, vec![(field, delta.into())]);
        out.push(block_event(block.index.unwrap_or_default(), body));
    }

    fn write_replaced(&mut self, serial: u64, event: &Event, out: &mut Vec<Event>) {
        if let Some(block) = self.blocks.get_mut(&serial) {
            if block.index.is_none() && block.kind == "tool_call" {
                if let Some(name) = get_str(event, "name") {
                    block.fields.insert("name".to_owned(), name.into());
                }
            }
        }
        self.write_start(serial, Some(event), out);
        let Some(block) = self.blocks.get_mut(&serial) else {
            return;
        };
        let index = block.index.unwrap_or_default();
        if block.anthropic_type == "thinking" {
            if let Some(signature) = nonempty(get_str(event, "encrypted")) {
                let body =
                    anthropic_event("signature_delta", vec![("signature", signature.into())]);
                out.push(block_event(index, body));
            }
        }
        if block.anthropic_type == "text" {
            if let Some(Value::Array(annotations)) = event.get("annotations") {
                let mut foreign = false;
                for citation in annotations.iter().skip(block.citations) {
                    let kind = citation.get("type").and_then(Value::as_str);
                    if kind.is_some_and(|kind| CITATION_TYPES.contains(&kind)) {
                        let body = anthropic_event(
                            "citations_delta",
                            vec![("citation", citation.clone())],
                        );
                        out.push(block_event(index, body));
                    } else {
                        foreign = true;
                    }
                }
                if foreign {
                    self.lost.push(Loss::annotations("anthropic"));
                }
                block.citations = block.citations.max(annotations.len());
            }
        }
    }
}

/// A data block's value as an Anthropic content block: an object with a
/// `type`, or LangChain's `non_standard` wrapper of one.
fn anthropic_block(value: Option<&Value>) -> Option<&Map<String, Value>> {
    let mut value = value?;
    if get_str(value.as_object()?, "type") == Some("non_standard") {
        value = value.get("value")?;
    }
    let block = value.as_object()?;
    // Anthropic's block types are snake_case words; another protocol's parts
    // are not (an AI SDK `source-url` or `data-weather`), or are the AI
    // SDK's `custom`, which Anthropic has no block for.
    let kind = get_str(block, "type")?;
    let snake = !kind.is_empty()
        && kind
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte == b'_');
    (snake && kind != "custom").then_some(block)
}

fn anthropic_event(kind: &str, fields: Vec<(&str, Value)>) -> Event {
    let mut event = Map::with_capacity(fields.len() + 1);
    event.insert("type".to_owned(), kind.into());
    for (key, value) in fields {
        event.insert(key.to_owned(), value);
    }
    event
}

fn block_event(index: i64, delta: Event) -> Event {
    anthropic_event(
        "content_block_delta",
        vec![("index", index.into()), ("delta", Value::Object(delta))],
    )
}
