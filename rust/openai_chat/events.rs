//! OpenAI Chat Completions to and from the neutral vocabulary.
//! `python/agentcodec/_pure/openai_chat/events.py` mirrors this module rule
//! for rule (and says what each direction does).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::probe::{Chunk, TEXT_KEYS};

pub use super::vocabulary::FINISH_REASONS;
use super::vocabulary::STOP_REASON_WORDS;
use crate::events::{
    as_int, block_delta, block_finished, block_started, frame_sse, get, get_str, has_annotations,
    message_finished, message_place, message_started, nonempty, passthrough, run_failed,
    run_finished, run_started, BlockRef, Decode, Encode, Event, Loss, Place, Quick,
};
use crate::hashing::HashMap;
use crate::joined_text::JoinedText;
use crate::json::{write_int, write_string, write_value, Map, Value};
use crate::json_probe::{Obj, Scalar, StrField};
use crate::stop_reasons::{self, StopWords};

/// Why a choice finished, in Chat's words.
const STOP_WORDS: StopWords = StopWords::new(&FINISH_REASONS, &STOP_REASON_WORDS);

/// What the encoder writes after the run finished.
pub const DONE: &[u8] = b"data: [DONE]\n\n";
/// A chunk's own fields, which a chunk kept for its logprobs keeps.
const CHUNK_KEYS: [&str; 4] = ["id", "object", "created", "model"];
/// Delta fields holding text, and the block kind each streams into.
const TEXT_FIELDS: [(&str, &str); 4] = [
    ("reasoning_content", "reasoning"),
    ("reasoning", "reasoning"),
    ("content", "text"),
    ("refusal", "refusal"),
];
/// Neutral usage keys from Chat's: (neutral, chat key, details key).
const USAGE_KEYS: [(&str, &str, Option<&str>); 5] = [
    ("input_tokens", "prompt_tokens", None),
    ("output_tokens", "completion_tokens", None),
    ("total_tokens", "total_tokens", None),
    (
        "reasoning_tokens",
        "completion_tokens_details",
        Some("reasoning_tokens"),
    ),
    (
        "cached_input_tokens",
        "prompt_tokens_details",
        Some("cached_tokens"),
    ),
];

fn usage_from_chat(usage: Option<&Value>) -> Value {
    let Some(Value::Object(usage)) = usage else {
        return Value::Null;
    };
    let mut neutral = Map::new();
    for (key, chat_key, detail) in USAGE_KEYS {
        let mut value = usage.get(chat_key);
        if let Some(detail) = detail {
            value = value.and_then(|details| details.get(detail));
        }
        if let Some(value) = value.filter(|value| as_int(Some(value)).is_some()) {
            neutral.insert(key.to_owned(), value.clone());
        }
    }
    if neutral.is_empty() {
        Value::Null
    } else {
        Value::Object(neutral)
    }
}

fn usage_to_chat(usage: Option<&Value>) -> Option<Value> {
    let Some(Value::Object(usage)) = usage else {
        return None;
    };
    let mut chat = Map::new();
    for (key, chat_key, detail) in USAGE_KEYS {
        let Some(value) = usage.get(key).filter(|value| as_int(Some(value)).is_some()) else {
            continue;
        };
        let value = match detail {
            None => value.clone(),
            Some(detail) => {
                let mut details = Map::new();
                details.insert(detail.to_owned(), value.clone());
                Value::Object(details)
            }
        };
        chat.insert(chat_key.to_owned(), value);
    }
    if chat.is_empty() {
        return None;
    }
    if !chat.contains_key("total_tokens") {
        let prompt = as_int(chat.get("prompt_tokens"));
        let completion = as_int(chat.get("completion_tokens"));
        if let (Some(prompt), Some(completion)) = (prompt, completion) {
            if let Some(total) = prompt.checked_add(completion) {
                chat.insert("total_tokens".to_owned(), total.into());
            }
        }
    }
    Some(Value::Object(chat))
}

/// How a tool call of a choice is known: its index, its id (when the index
/// is left out), its position, or the deprecated `function_call`.
#[derive(Debug, Clone)]
struct DecodedChoice {
    message_id: String,
    /// The next block's index.
    blocks: i64,
    /// The open text-like block: its kind and index.
    open: Option<(&'static str, i64)>,
    /// Index -> the blocks given it, in order (the last that still has it
    /// is the one it names); block -> its integer index, while it has one.
    by_index: HashMap<i64, Vec<i64>>,
    indexes: HashMap<i64, i64>,
    /// The deprecated function_call's block.
    function_call: Option<i64>,
    /// Every tool call's block (the deprecated function_call's too), to
    /// finish with the choice.
    tool_blocks: Vec<i64>,
    /// The last block of `tool_calls`: where a fragment with neither an
    /// index nor an id goes.
    last_call: Option<i64>,
    /// Block -> the id it was given first (an id is set once, whatever it
    /// is, as the assembler sets it); id -> the last block with it.
    ids: HashMap<i64, Value>,
    by_id: HashMap<String, i64>,
    /// Block -> whether the first name its function was given (a name is
    /// set once, as the assembler sets it) is a name.
    named: HashMap<i64, bool>,
    finished: bool,
    reason: Value,
}

/// Chat Completions chunks to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    run_id: Option<String>,
    choices: BTreeMap<i64, DecodedChoice>,
    usage: Value,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode_text<'t>(&mut self, text: &'t str, _out: &mut Vec<Event>) -> Quick<'t> {
        if self.ended || !self.started {
            return Quick::No;
        }
        Chunk::parse(text)
            .and_then(|chunk| self.quick_delta(chunk))
            .unwrap_or(Quick::No)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.ended {
            out.push(passthrough("openai-chat", event));
            return;
        }
        if !crate::events::is_falsy(event.get("error")) {
            self.close_all(out);
            let (code, message) = super::error_fields(event.get("error"));
            out.push(run_failed(
                code.map_or(Value::Null, Value::from),
                message.map_or(Value::Null, Value::from),
                usage_from_chat(Some(&self.usage)),
            ));
            self.ended = true;
            return;
        }
        if get_str(event, "object") == Some("") {
            out.push(passthrough("openai-chat", event));
            return;
        }
        if !self.started {
            self.started = true;
            self.run_id = get_str(event, "id")
                .filter(|id| !id.is_empty())
                .map(str::to_owned);
            out.push(run_started(
                self.run_id.as_deref().map_or(Value::Null, Value::from),
                Value::Null,
                get(event, "model").cloned().unwrap_or(Value::Null),
                get(event, "created").cloned().unwrap_or(Value::Null),
            ));
        }
        if let Some(usage @ Value::Object(_)) = event.get("usage") {
            self.usage = usage.clone();
        }
        let Some(Value::Array(choices)) = event.get("choices") else {
            return;
        };
        for choice in choices {
            let Value::Object(choice) = choice else {
                continue;
            };
            let Some(index) = as_int(choice.get("index")) else {
                continue;
            };
            self.ensure_choice(index, out);
            let state = self.choices.get_mut(&index).expect("just made");
            if state.finished {
                continue;
            }
            if let Some(Value::Object(delta)) = choice.get("delta") {
                decode_delta(state, delta, out);
            }
            if let Some(Value::Object(logprobs)) = choice.get("logprobs") {
                if ["content", "refusal"]
                    .iter()
                    .any(|key| !crate::events::is_falsy(logprobs.get(*key)))
                {
                    let mut kept = Map::new();
                    for key in CHUNK_KEYS {
                        if let Some(value) = event.get(key) {
                            kept.insert(key.to_owned(), value.clone());
                        }
                    }
                    let mut only = Map::new();
                    only.insert("index".to_owned(), choice["index"].clone());
                    only.insert("delta".to_owned(), Value::Object(Map::new()));
                    only.insert("logprobs".to_owned(), Value::Object(logprobs.clone()));
                    only.insert("finish_reason".to_owned(), Value::Null);
                    kept.insert(
                        "choices".to_owned(),
                        Value::Array(vec![Value::Object(only)]),
                    );
                    out.push(passthrough("openai-chat", &kept));
                }
            }
            if let Some(Value::String(reason)) = choice.get("finish_reason") {
                if !reason.is_empty() {
                    finish_choice(state, reason.as_str().into(), out);
                }
            }
        }
    }

    fn done(&mut self, out: &mut Vec<Event>) {
        if self.started && !self.ended {
            self.end(out);
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        // The run ends at [DONE]: without it the stream was cut short, and
        // what was open stays open, as in the other protocols.
        let _ = out;
    }
}

impl Decoder {
    /// A chunk that only appends text, or one tool call's arguments, to the
    /// block of its choice that is open, from a probe: what
    /// [`Decoder::decode`] gives for it. `None` for any other chunk.
    fn quick_delta<'t>(&self, chunk: Chunk<'t>) -> Option<Quick<'t>> {
        let absent = |field: &Option<Scalar<'_>>| matches!(field, None | Some(Scalar::Null));
        if !absent(&chunk.error) || !absent(&chunk.usage) {
            return None;
        }
        if matches!(&chunk.object, Some(StrField::Str(object)) if object.is_empty()) {
            return None;
        }
        let Obj(Some(choice)) = chunk.choices? else {
            return None;
        };
        if !absent(&choice.finish_reason) || !absent(&choice.logprobs) {
            return None;
        }
        let state = self.choices.get(&choice.index.as_ref()?.as_i64()?)?;
        let Obj(Some(delta)) = choice.delta? else {
            return None;
        };
        if state.finished || delta.other {
            return None;
        }
        let mut texts = TEXT_KEYS
            .iter()
            .zip(delta.texts)
            .filter(|(_, text)| !absent(text));
        let (index, piece) = match (texts.next(), texts.next(), delta.tool_calls) {
            (Some((key, Some(Scalar::Str(piece)))), None, None) => {
                let kind = match *key {
                    "content" => "text",
                    "refusal" => "refusal",
                    _ => "reasoning",
                };
                match state.open {
                    Some((open, index)) if open == kind => (index, piece),
                    _ => return None,
                }
            }
            (None, None, Some(Obj(Some(call)))) => {
                let Obj(Some(function)) = call.function? else {
                    return None;
                };
                let (false, false, Some(Scalar::Str(piece))) =
                    (call.other, function.other, function.arguments)
                else {
                    return None;
                };
                (index_block(state, call.index.as_ref()?.as_i64()?)?, piece)
            }
            _ => return None,
        };
        if piece.is_empty() {
            return None;
        }
        Some(Quick::Delta {
            message_id: Cow::Owned(state.message_id.clone()),
            index,
            delta: piece,
        })
    }

    fn ensure_choice(&mut self, index: i64, out: &mut Vec<Event>) {
        if self.choices.contains_key(&index) {
            return;
        }
        let base = self.run_id.as_deref().unwrap_or("chatcmpl");
        let message_id = if index == 0 {
            base.to_owned()
        } else {
            format!("{base}-{index}")
        };
        let mut started = message_started(&message_id, "assistant", Some("message"));
        if index != 0 {
            started.insert("choice".to_owned(), index.into());
        }
        out.push(started);
        self.choices.insert(
            index,
            DecodedChoice {
                message_id,
                blocks: 0,
                open: None,
                by_index: HashMap::default(),
                indexes: HashMap::default(),
                function_call: None,
                tool_blocks: Vec::new(),
                last_call: None,
                ids: HashMap::default(),
                by_id: HashMap::default(),
                named: HashMap::default(),
                finished: false,
                reason: Value::Null,
            },
        );
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        for state in self.choices.values_mut() {
            if !state.finished {
                finish_choice(state, Value::Null, out);
            }
        }
    }

    fn end(&mut self, out: &mut Vec<Event>) {
        self.close_all(out);
        let incomplete = self
            .choices
            .values()
            .any(|state| state.reason.as_str().is_some_and(stop_reasons::cuts_short));
        let status = if incomplete {
            "incomplete"
        } else {
            "completed"
        };
        out.push(run_finished(
            status,
            usage_from_chat(Some(&self.usage)),
            Value::Null,
        ));
        self.ended = true;
    }
}

fn open_block(
    state: &mut DecodedChoice,
    kind: &str,
    fields: &[(&str, Value)],
    out: &mut Vec<Event>,
) -> i64 {
    let index = state.blocks;
    state.blocks += 1;
    out.push(block_started(&state.message_id, index, kind, fields));
    index
}

fn close_text(state: &mut DecodedChoice, out: &mut Vec<Event>) {
    if let Some((_, index)) = state.open.take() {
        out.push(block_finished(&state.message_id, index));
    }
}

fn append_text(state: &mut DecodedChoice, kind: &'static str, piece: &str, out: &mut Vec<Event>) {
    let index = match state.open {
        Some((open, index)) if open == kind => index,
        _ => {
            close_text(state, out);
            let index = open_block(state, kind, &[], out);
            state.open = Some((kind, index));
            index
        }
    };
    out.push(block_delta(&state.message_id, index, piece));
}

/// The block a tool call's delta goes to, by the assembler's rules
/// (`merge_indexed`): by its index, unless it brings an id other than the
/// call there has (then it is a call of its own, which the index names from
/// then on); without an index, by its id; with neither, the call before it,
/// unless both name their function. `None`: a new call.
fn tool_block(state: &DecodedChoice, call: &Map<String, Value>) -> Option<i64> {
    let id = call.get("id").and_then(Value::as_str);
    let found = match (as_int(call.get("index")), id) {
        (Some(index), _) => index_block(state, index),
        (None, Some(id)) => state.by_id.get(id).copied(),
        (None, None) if call.get("index").is_some_and(|index| !index.is_null()) => None,
        (None, None) => state
            .last_call
            .filter(|last| !(state.named.get(last) == Some(&true) && names_function(call))),
    };
    found.filter(|block| match (state.ids.get(block), id) {
        (Some(Value::String(held)), Some(id)) => held == id,
        _ => true,
    })
}

/// The block an index names: the last given it that still has it.
fn index_block(state: &DecodedChoice, index: i64) -> Option<i64> {
    let blocks = state.by_index.get(&index)?;
    blocks
        .iter()
        .rev()
        .find(|block| state.indexes.get(block) == Some(&index))
        .copied()
}

/// Whether a tool call's delta names its function.
fn names_function(call: &Map<String, Value>) -> bool {
    call.get("function")
        .and_then(|function| function.get("name"))
        .and_then(Value::as_str)
        .is_some_and(|name| !name.is_empty())
}

fn append_tool(
    state: &mut DecodedChoice,
    found: Option<i64>,
    call: &Map<String, Value>,
    tool: &str,
    out: &mut Vec<Event>,
) {
    let function = if tool == "function" {
        match call.get("function") {
            Some(Value::Object(function)) => Some(function),
            _ => None,
        }
    } else {
        Some(call)
    };
    let text = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .map_or(Value::Null, Value::from)
    };
    let index = match found {
        Some(index) => index,
        None => {
            close_text(state, out);
            let call_id = if tool == "function_call" {
                // The deprecated function_call has no id; other protocols need one.
                Value::from(format!("{}-{}", state.message_id, state.blocks))
            } else {
                text(call.get("id"))
            };
            let fields = [
                ("call_id", call_id),
                (
                    "name",
                    text(function.and_then(|function| function.get("name"))),
                ),
                ("tool", tool.into()),
            ];
            let index = open_block(state, "tool_call", &fields, out);
            state.tool_blocks.push(index);
            if tool == "function" {
                state.last_call = Some(index);
            }
            index
        }
    };
    if tool == "function_call" {
        state.function_call = Some(index);
    } else {
        // An index is given once; a value that is none takes it away (as
        // the assembler's merge writes it over the held one).
        match (call.get("index"), found) {
            (None | Some(Value::Null), _) => {}
            (Some(given), None) => {
                if let Some(given) = given.as_i64() {
                    state.indexes.insert(index, given);
                    state.by_index.entry(given).or_default().push(index);
                }
            }
            (Some(given), Some(_)) => {
                if given.as_i64().is_none() {
                    state.indexes.remove(&index);
                }
            }
        }
    }
    if tool == "function" {
        if let Some(id) = call.get("id").filter(|id| !id.is_null()) {
            // The last call with an id is the one it names (as the
            // assembler's note_id keeps the greatest position).
            let held = state.ids.entry(index).or_insert_with(|| id.clone());
            if let Value::String(held) = held {
                let last = state.by_id.entry(held.clone()).or_insert(index);
                *last = (*last).max(index);
            }
        }
        let name = function.and_then(|function| function.get("name"));
        if let Some(name) = name.filter(|name| !name.is_null()) {
            let named = name.as_str().is_some_and(|name| !name.is_empty());
            state.named.entry(index).or_insert(named);
        }
    }
    if let Some(Value::String(arguments)) = function.and_then(|function| function.get("arguments"))
    {
        if !arguments.is_empty() {
            out.push(block_delta(&state.message_id, index, arguments));
        }
    }
}

fn decode_delta(state: &mut DecodedChoice, delta: &Map<String, Value>, out: &mut Vec<Event>) {
    for (field, kind) in TEXT_FIELDS {
        if let Some(Value::String(piece)) = delta.get(field) {
            if !piece.is_empty() {
                append_text(state, kind, piece, out);
            }
        }
    }
    if let Some(Value::Object(audio)) = delta.get("audio") {
        if let Some(Value::String(data)) = audio.get("data") {
            if !data.is_empty() {
                let index = match state.open {
                    Some(("media", index)) => index,
                    _ => {
                        close_text(state, out);
                        let fields = [
                            ("media_type", Value::from("audio")),
                            ("mime_type", Value::Null),
                            ("url", Value::Null),
                        ];
                        let index = open_block(state, "media", &fields, out);
                        state.open = Some(("media", index));
                        index
                    }
                };
                out.push(block_delta(&state.message_id, index, data));
            }
        }
    }
    if let Some(Value::Object(function_call)) = delta.get("function_call") {
        let found = state.function_call;
        append_tool(state, found, function_call, "function_call", out);
    }
    if let Some(Value::Array(calls)) = delta.get("tool_calls") {
        for call in calls {
            let Value::Object(call) = call else {
                continue;
            };
            let found = tool_block(state, call);
            append_tool(state, found, call, "function", out);
        }
    }
}

fn finish_choice(state: &mut DecodedChoice, reason: Value, out: &mut Vec<Event>) {
    close_text(state, out);
    state.by_index.clear();
    state.indexes.clear();
    state.function_call = None;
    let mut tools = std::mem::take(&mut state.tool_blocks);
    tools.sort_unstable();
    for index in tools {
        out.push(block_finished(&state.message_id, index));
    }
    state.finished = true;
    state.reason = reason.clone();
    out.push(message_finished(&state.message_id, Value::Null, reason));
}

// --- encoding ------------------------------------------------------------------------------

#[derive(Debug, Clone, Default)]
struct EncodedChoice {
    /// The next tool call's index.
    tools: i64,
    /// The kind of the last block started.
    last: Option<String>,
    reason: Option<String>,
    /// Its finish_reason was written.
    ended: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Streamed {
    Text,
    Reasoning,
    Refusal,
    FunctionCall,
    Tool(i64),
}

/// The text a block streams into (`content`, `reasoning_content`,
/// `refusal`: one of each a choice), by the kind of its block.
fn text_kind(streamed: Streamed) -> Option<&'static str> {
    match streamed {
        Streamed::Text => Some("text"),
        Streamed::Reasoning => Some("reasoning"),
        Streamed::Refusal => Some("refusal"),
        Streamed::FunctionCall | Streamed::Tool(_) => None,
    }
}

/// Neutral events to Chat Completions chunks.
#[derive(Debug, Clone)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    id: Option<String>,
    model: Option<String>,
    created: Value,
    started: bool,
    finished: bool,
    /// Finished, not failed: `[DONE]` follows.
    completed: bool,
    choices: BTreeMap<i64, EncodedChoice>,
    /// Neutral message -> its choice; `None` for one that has no place.
    messages: HashMap<String, Option<i64>>,
    /// Messages started and not finished -> their choice.
    open: HashMap<String, i64>,
    /// Messages started and not finished -> their place (namespace and node).
    open_in: HashMap<String, Place>,
    blocks: indexmap::IndexMap<(String, i64), (i64, Streamed)>,
    /// Where a choice's text runs on from another message's (and what
    /// goes between them, if anything).
    joined: JoinedText,
    /// Whether the run's usage is written (a last chunk without choices).
    include_usage: bool,
}

impl Encoder {
    pub fn new(id: Option<String>, model: Option<String>, created: Option<Value>) -> Self {
        Encoder {
            id,
            model,
            created: created.unwrap_or(Value::Null),
            lost: Vec::new(),
            started: false,
            finished: false,
            completed: false,
            choices: BTreeMap::new(),
            messages: HashMap::default(),
            open: HashMap::default(),
            open_in: HashMap::default(),
            blocks: indexmap::IndexMap::default(),
            joined: JoinedText::default(),
            include_usage: true,
        }
    }

    /// Whether the run's usage is written, as a last chunk without choices
    /// (the `include_usage` option; true by default). The Chat API writes it
    /// only when a request's `stream_options` ask, and a client that reads
    /// `choices[0]` of every chunk fails on it; left out, it is reported.
    pub fn with_include_usage(mut self, include_usage: bool) -> Self {
        self.include_usage = include_usage;
        self
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
            if self.id.as_deref().is_none_or(str::is_empty) {
                self.id = Some("chatcmpl".to_owned());
            }
            if self.created.is_null() {
                self.created = crate::events::now().into();
            }
        }
    }

    fn chunk(&self, choices: Vec<Value>) -> Event {
        let mut chunk = Map::new();
        chunk.insert(
            "id".to_owned(),
            self.id.as_deref().map_or(Value::Null, Value::from),
        );
        chunk.insert("object".to_owned(), "chat.completion.chunk".into());
        chunk.insert("created".to_owned(), self.created.clone());
        chunk.insert(
            "model".to_owned(),
            self.model.as_deref().unwrap_or("").into(),
        );
        chunk.insert("choices".to_owned(), Value::Array(choices));
        chunk
    }

    fn delta(&self, choice: i64, delta: Map<String, Value>, reason: Option<&str>) -> Event {
        let mut entry = Map::new();
        entry.insert("index".to_owned(), choice.into());
        entry.insert("delta".to_owned(), Value::Object(delta));
        entry.insert("logprobs".to_owned(), Value::Null);
        entry.insert(
            "finish_reason".to_owned(),
            reason.map_or(Value::Null, Value::from),
        );
        self.chunk(vec![Value::Object(entry)])
    }

    fn announce(&mut self, choice: i64, out: &mut Vec<Event>) {
        if let std::collections::btree_map::Entry::Vacant(entry) = self.choices.entry(choice) {
            entry.insert(EncodedChoice::default());
            let mut delta = Map::new();
            delta.insert("role".to_owned(), "assistant".into());
            out.push(self.delta(choice, delta, None));
        }
    }

    fn message_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        if self.messages.contains_key(message_id) {
            return;
        }
        if matches!(
            get_str(event, "role"),
            Some("user" | "system" | "developer" | "tool")
        ) {
            self.messages.insert(message_id.to_owned(), None);
            return;
        }
        let place = message_place(event);
        let choice = as_int(event.get("choice"))
            .filter(|&choice| choice >= 0)
            .unwrap_or_else(|| self.free_choice(&place));
        self.messages.insert(message_id.to_owned(), Some(choice));
        self.open.insert(message_id.to_owned(), choice);
        self.open_in.insert(message_id.to_owned(), place);
        self.announce(choice, out);
    }

    /// The first choice that no open message of another place (namespace
    /// and node) holds: a subgraph's or a node's message that streams beside
    /// another's is a choice of its own, where the two would interleave in one.
    fn free_choice(&self, place: &Place) -> i64 {
        let taken: std::collections::BTreeSet<i64> = self
            .open
            .iter()
            .filter(|(message, _)| self.open_in.get(*message) != Some(place))
            .map(|(_, &choice)| choice)
            .collect();
        let mut choice = 0;
        while taken.contains(&choice) {
            choice += 1;
        }
        choice
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        let Some(choice) = self.messages.get(message_id).copied().unwrap_or(Some(0)) else {
            self.lost.push(Loss::other_role("openai-chat", kind));
            return;
        };
        let streamed = match kind {
            "text" => Streamed::Text,
            "reasoning" => Streamed::Reasoning,
            "refusal" => Streamed::Refusal,
            "tool_call" if get_str(event, "tool") == Some("function_call") => {
                self.lost.extend(Loss::server("openai-chat", event));
                self.lost.extend(Loss::tool_kind("openai-chat", event, &[]));
                Streamed::FunctionCall
            }
            "tool_call" => {
                self.lost.extend(Loss::server("openai-chat", event));
                self.lost.extend(Loss::tool_kind("openai-chat", event, &[]));
                Streamed::Tool(0)
            }
            // Tool results, media and data have no place in a chunk.
            other => {
                self.lost.push(Loss::block("openai-chat", other));
                return;
            }
        };
        self.announce(choice, out);
        let state = self.choices.get_mut(&choice).expect("announced");
        state.last = Some(kind.to_owned());
        let name = get_str(event, "name").unwrap_or("");
        let streamed = match streamed {
            Streamed::FunctionCall => {
                let mut function = Map::new();
                function.insert("name".to_owned(), name.into());
                function.insert("arguments".to_owned(), "".into());
                let mut delta = Map::new();
                delta.insert("function_call".to_owned(), Value::Object(function));
                let chunk = self.delta(choice, delta, None);
                out.push(chunk);
                Streamed::FunctionCall
            }
            Streamed::Tool(_) => {
                let tool = state.tools;
                state.tools += 1;
                let mut function = Map::new();
                function.insert("name".to_owned(), name.into());
                function.insert("arguments".to_owned(), "".into());
                let mut call = Map::new();
                call.insert("index".to_owned(), tool.into());
                let call_id = get_str(event, "call_id")
                    .filter(|id| !id.is_empty())
                    .map_or_else(|| format!("call_{tool}"), str::to_owned);
                call.insert("id".to_owned(), call_id.into());
                call.insert("type".to_owned(), "function".into());
                call.insert("function".to_owned(), Value::Object(function));
                let mut delta = Map::new();
                delta.insert(
                    "tool_calls".to_owned(),
                    Value::Array(vec![Value::Object(call)]),
                );
                let chunk = self.delta(choice, delta, None);
                out.push(chunk);
                Streamed::Tool(tool)
            }
            other => other,
        };
        if text_kind(streamed).is_some() {
            self.joined.started(message_id, index);
        }
        self.blocks
            .insert((message_id.to_owned(), index), (choice, streamed));
    }

    fn block_delta(&mut self, message_id: &str, index: i64, delta: &str, out: &mut Vec<Event>) {
        let Some(&(choice, streamed)) = self.blocks.get(&BlockRef(message_id, index)) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let delta = match text_kind(streamed) {
            Some(kind) => {
                let (text, lost) =
                    self.joined
                        .writes("openai-chat", choice, kind, message_id, index, delta);
                self.lost.extend(lost);
                text
            }
            None => Cow::Borrowed(delta),
        };
        let delta = delta.as_ref();
        let mut body = Map::new();
        match streamed {
            Streamed::Text => {
                body.insert("content".to_owned(), delta.into());
            }
            Streamed::Reasoning => {
                body.insert("reasoning_content".to_owned(), delta.into());
            }
            Streamed::Refusal => {
                body.insert("refusal".to_owned(), delta.into());
            }
            Streamed::FunctionCall => {
                let mut function = Map::new();
                function.insert("arguments".to_owned(), delta.into());
                body.insert("function_call".to_owned(), Value::Object(function));
            }
            Streamed::Tool(tool) => {
                let mut function = Map::new();
                function.insert("arguments".to_owned(), delta.into());
                let mut call = Map::new();
                call.insert("index".to_owned(), tool.into());
                call.insert("function".to_owned(), Value::Object(function));
                body.insert(
                    "tool_calls".to_owned(),
                    Value::Array(vec![Value::Object(call)]),
                );
            }
        }
        out.push(self.delta(choice, body, None));
    }

    fn message_finished(&mut self, event: &Event) {
        // A choice has no usage: only the completion.
        self.lost.extend(Loss::usage("openai-chat", event));
        if let Some(message_id) = get_str(event, "message_id") {
            self.open.remove(message_id);
            self.open_in.remove(message_id);
        }
        let Some(Some(choice)) = get_str(event, "message_id")
            .and_then(|message_id| self.messages.get(message_id))
            .copied()
        else {
            return;
        };
        let reason = get_str(event, "stop_reason");
        if nonempty(reason).is_some() {
            let (word, lost) = STOP_WORDS.translate("openai-chat", reason);
            self.lost.extend(lost);
            if let Some(state) = self.choices.get_mut(&choice) {
                state.reason = word.map(str::to_owned);
            }
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let status = get_str(event, "status");
        if self.choices.is_empty() {
            self.announce(0, out);
        }
        // The run's reason stands for a choice that gave none.
        let (said, lost) = STOP_WORDS.translate("openai-chat", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        if let Some(said) = said {
            for state in self.choices.values_mut() {
                state.reason.get_or_insert_with(|| said.to_owned());
            }
        }
        let choices: Vec<i64> = self.choices.keys().copied().collect();
        // The finish reasons read back as incomplete (cut short: length,
        // content_filter) or completed: a stopped run has no word.
        let mut carried = "completed";
        for choice in choices {
            let reason = self.end_choice(choice, status, out);
            if reason.as_deref().is_some_and(stop_reasons::cuts_short) {
                carried = "incomplete";
            }
        }
        self.lost
            .extend(Loss::status("openai-chat", status, carried));
        if let Some(usage) = usage_to_chat(event.get("usage")) {
            if self.include_usage {
                let mut chunk = self.chunk(Vec::new());
                chunk.insert("usage".to_owned(), usage);
                out.push(chunk);
            } else {
                self.lost.push(Loss::usage_not_asked("openai-chat"));
            }
        }
        self.finished = true;
        self.completed = true;
    }

    /// Ends a choice that is still open, giving the finish reason it wrote.
    fn end_choice(
        &mut self,
        choice: i64,
        status: Option<&str>,
        out: &mut Vec<Event>,
    ) -> Option<String> {
        let state = self.choices.get_mut(&choice)?;
        if state.ended {
            return None;
        }
        state.ended = true;
        let reason = match &state.reason {
            Some(reason) => reason.clone(),
            None if status == Some("incomplete") => "length".to_owned(),
            None if state.last.as_deref() == Some("tool_call") => "tool_calls".to_owned(),
            None => "stop".to_owned(),
        };
        out.push(self.delta(choice, Map::new(), Some(&reason)));
        Some(reason)
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // An error chunk has no usage.
        self.lost.extend(Loss::usage("openai-chat", event));
        let mut error = Map::new();
        error.insert(
            "message".to_owned(),
            get_str(event, "message").unwrap_or("").into(),
        );
        error.insert("type".to_owned(), "server_error".into());
        error.insert("param".to_owned(), Value::Null);
        error.insert(
            "code".to_owned(),
            get_str(event, "code").map_or(Value::Null, Value::from),
        );
        let mut chunk = Map::new();
        chunk.insert("error".to_owned(), Value::Object(error));
        out.push(chunk);
        self.finished = true;
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
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" && !self.started {
            if self.id.as_deref().is_none_or(str::is_empty) {
                self.id = get_str(event, "run_id").map(str::to_owned);
            }
            if self.model.as_deref().is_none_or(str::is_empty) {
                self.model = get_str(event, "model").map(str::to_owned);
            }
            if self.created.is_null() {
                self.created = event.get("created_at").cloned().unwrap_or(Value::Null);
            }
        }
        self.ensure_started();
        match kind {
            "message_started" => self.message_started(event, out),
            "message_finished" => self.message_finished(event),
            "block_started" => self.block_started(event, out),
            "block_delta" => {
                if let (Some(message_id), Some(index), Some(delta)) = (
                    get_str(event, "message_id"),
                    as_int(event.get("index")),
                    get_str(event, "delta"),
                ) {
                    self.block_delta(message_id, index, delta, out);
                }
            }
            "block_finished" => {
                if let (Some(message_id), Some(index)) =
                    (get_str(event, "message_id"), as_int(event.get("index")))
                {
                    self.blocks.shift_remove(&BlockRef(message_id, index));
                    self.joined.finished(message_id, index);
                }
            }
            "block_replaced" => {
                let streamed = (get_str(event, "message_id"), as_int(event.get("index")));
                if let (Some(message_id), Some(index)) = streamed {
                    let kind = match self.blocks.get(&BlockRef(message_id, index)) {
                        Some((_, Streamed::Text)) => Some("text"),
                        Some((_, Streamed::Reasoning)) => Some("reasoning"),
                        Some((_, Streamed::Refusal)) => Some("refusal"),
                        _ => None,
                    };
                    if let (Some(kind), Some(_)) = (kind, get_str(event, "text")) {
                        self.lost.push(Loss::correction("openai-chat", kind));
                    }
                    let known = self.blocks.contains_key(&BlockRef(message_id, index));
                    if known && get_str(event, "encrypted").is_some_and(|text| !text.is_empty()) {
                        self.lost.push(Loss::signature("openai-chat"));
                    }
                    if known && has_annotations(event) {
                        self.lost.push(Loss::annotations("openai-chat"));
                    }
                }
            }
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "passthrough" => {
                if let (Some("openai-chat"), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    out.push(inner.clone());
                }
            }
            _ => {}
        }
    }

    /// A stream that ends without finishing its run (LangChain's has no
    /// run events): each choice whose messages all finished gets its
    /// `finish_reason`, so that a client closes what it holds; no `[DONE]`,
    /// since the run never said it was over.
    fn finish(&mut self, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        let busy: std::collections::HashSet<i64> = self.open.values().copied().collect();
        let choices: Vec<i64> = self.choices.keys().copied().collect();
        for choice in choices {
            if !busy.contains(&choice) {
                self.end_choice(choice, None, out);
            }
        }
    }

    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_sse(out, None, None, event);
    }

    fn write_delta(
        &mut self,
        message_id: &str,
        index: i64,
        delta: &str,
        out: &mut Vec<u8>,
    ) -> bool {
        if self.finished {
            return true; // nothing follows the end
        }
        if !self.started {
            return false; // the id and the time are settled first
        }
        let Some(&(choice, streamed)) = self.blocks.get(&BlockRef(message_id, index)) else {
            return true;
        };
        if delta.is_empty() {
            return true; // an empty delta says nothing
        }
        if self.joined.is_fresh(message_id, index) {
            return false; // its first text: block_delta sees whether it runs on
        }
        // What frame() writes for the chunk block_delta() builds.
        out.extend_from_slice(b"data: {\"id\":");
        match &self.id {
            Some(id) => write_string(out, id),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"object\":\"chat.completion.chunk\",\"created\":");
        write_value(out, &self.created);
        out.extend_from_slice(b",\"model\":");
        write_string(out, self.model.as_deref().unwrap_or(""));
        out.extend_from_slice(b",\"choices\":[{\"index\":");
        write_int(out, choice);
        out.extend_from_slice(b",\"delta\":{");
        match streamed {
            Streamed::Text => out.extend_from_slice(b"\"content\":"),
            Streamed::Reasoning => out.extend_from_slice(b"\"reasoning_content\":"),
            Streamed::Refusal => out.extend_from_slice(b"\"refusal\":"),
            Streamed::FunctionCall => out.extend_from_slice(b"\"function_call\":{\"arguments\":"),
            Streamed::Tool(tool) => {
                out.extend_from_slice(b"\"tool_calls\":[{\"index\":");
                write_int(out, tool);
                out.extend_from_slice(b",\"function\":{\"arguments\":");
            }
        }
        write_string(out, delta);
        match streamed {
            Streamed::FunctionCall => out.push(b'}'),
            Streamed::Tool(_) => out.extend_from_slice(b"}}]"),
            _ => {}
        }
        out.extend_from_slice(b"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
        true
    }

    fn trailer(&mut self, out: &mut Vec<u8>) {
        if self.completed {
            self.completed = false;
            out.extend_from_slice(DONE);
        }
    }
}
