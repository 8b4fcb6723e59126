//! Assembling a Vercel AI SDK UI message stream into its UIMessage.
//! `python/agentcodec/_pure/ai_sdk/assembler.py` mirrors this module rule for rule.
//!
//! The rules are those of the SDK's `processUIMessageStream` (behind
//! `readUIMessageStream` and `useChat`), chunk by chunk: text and reasoning
//! parts by their `id` while they stream, tool parts by `toolCallId` with
//! their state machine, data parts reconciled by `type` and `id`, step
//! boundaries, `reset-step` retracting the step's parts, and message
//! metadata deep-merged. Where the SDK differs: a tool's input text is
//! parsed once, when the part leaves the input-streaming state without a
//! `tool-input-available` snapshot or when the stream ends (the SDK
//! re-parses the whole prefix on every delta); parts are found through
//! indexes, with the SDK's answers; a chunk the SDK throws on, or one that
//! lacks a field its chunk schema requires, is an event error; an optional
//! field written as `null` counts as absent.

use super::probe::{self, Target};
use super::OUTPUT_STATES;
use crate::events::or_null;
use crate::hashing::HashMap;
use crate::json::{self, Map, Value};
use crate::json_probe::Hot;
use crate::stream::{bad, Assemble, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};
use crate::tool_calls::{Arguments, ToolCall, ToolCalls};

/// Keys a metadata merge skips, as the SDK's `mergeObjects` does.
const UNSAFE_KEYS: [&str; 3] = ["__proto__", "constructor", "prototype"];

/// Assembles a Vercel AI SDK UI message stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<UiMessage>,
}

/// A tool call whose input is streaming: its text so far, and what its
/// `tool-input-start` said.
#[derive(Debug, Clone)]
struct Partial {
    name: String,
    dynamic: bool,
    title: Option<String>,
    tool_metadata: Option<Value>,
    text: String,
}

#[derive(Debug, Clone, Default)]
pub struct UiMessage {
    id: String,
    metadata: Option<Value>,
    parts: Vec<Map<String, Value>>,
    /// Where the current step's parts begin.
    step: usize,
    /// Streaming text (reasoning) part id -> position.
    texts: HashMap<String, usize>,
    reasonings: HashMap<String, usize>,
    partials: HashMap<String, Partial>,
    /// (dynamic, toolCallId) -> the positions of its tool parts, ascending.
    tools: HashMap<(bool, String), Vec<usize>>,
    /// (type, id) -> the first data part's position.
    data: HashMap<(String, String), usize>,
    /// Approval id -> positions, ascending.
    approvals: HashMap<String, Vec<usize>>,
    /// Tool part position -> the call whose streamed text is its input.
    pending: HashMap<usize, String>,
    finish_reason: Option<String>,
    kept: Vec<Value>,
    /// `[DONE]` came.
    done: bool,
    /// Times a part's streamed input text was replaced: see `tool_calls`.
    rewrites: u64,
    /// The part the last quick text or reasoning delta appended to (its
    /// position), or the call the last input delta did (no position: a
    /// call's next input delta appends its text alone).
    hot: Hot<(Target, usize)>,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.message()
    }
}

crate::stream::assemble_with_driver!(Assembler, UiMessage);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                UiMessage::default(),
                options.limits,
                options.on_error,
                "AI SDK UI message chunk",
            ),
        }
    }

    /// The UIMessage so far.
    pub fn message(&self) -> Value {
        let state = &self.driver.protocol;
        let mut message = Map::new();
        message.insert("id".to_owned(), state.id.as_str().into());
        if let Some(metadata) = &state.metadata {
            message.insert("metadata".to_owned(), metadata.clone());
        }
        message.insert("role".to_owned(), "assistant".into());
        let parts = state.parts.iter().cloned().map(Value::Object).collect();
        message.insert("parts".to_owned(), Value::Array(parts));
        Value::Object(message)
    }

    /// Every tool part: `toolCallId`, `type`, `toolName` and `state`, and
    /// its `input`: the text streamed so far while it streams (or when it
    /// did not parse), else the part's input, else its `rawInput`. A part is finished once it
    /// left the input-streaming state or the stream ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let state = &self.driver.protocol;
        let ended = state.done || self.is_closed();
        let mut calls = Vec::new();
        for (position, part) in state.parts.iter().enumerate() {
            if tool_key(part).is_none() {
                continue;
            }
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
            let call_id = part.get("toolCallId").and_then(Value::as_str);
            let mut fields = Map::new();
            fields.insert("toolCallId".to_owned(), or_null(part.get("toolCallId")));
            fields.insert("type".to_owned(), kind.into());
            let name = match kind.strip_prefix("tool-") {
                Some(name) => name.into(),
                None => or_null(part.get("toolName")),
            };
            fields.insert("toolName".to_owned(), name);
            fields.insert("state".to_owned(), or_null(part.get("state")));
            let streamed = || {
                call_id
                    .and_then(|call_id| state.partials.get(call_id))
                    .map(|partial| Arguments::Text(&partial.text))
            };
            let arguments = if state.pending.contains_key(&position) {
                streamed()
            } else {
                match part.get("input") {
                    Some(input) => Some(Arguments::Value(input)),
                    // A `tool-input-error` keeps the text that did not
                    // parse as `rawInput`: read, it says why.
                    None => Arguments::of(part.get("rawInput")).or_else(streamed),
                }
            };
            let streaming = part.get("state").and_then(Value::as_str) == Some("input-streaming");
            calls.push(ToolCall {
                key: position.to_string().into(),
                fields,
                field: "input",
                arguments,
                finished: ended || !streaming,
            });
        }
        ToolCalls {
            calls,
            rewrites: state.rewrites,
        }
    }

    /// What the `finish` chunk said.
    pub fn finish_reason(&self) -> Option<&str> {
        self.driver.protocol.finish_reason.as_deref()
    }

    /// Chunks kept without being assembled: `error` and `abort` chunks and
    /// chunks of types this version does not know.
    pub fn events(&self) -> &[Value] {
        &self.driver.protocol.kept
    }
}

impl Protocol for UiMessage {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let mut chunk = probe::Chunk::default();
        if !chunk.read(text, self.hot.id()) {
            return false;
        }
        let expected = chunk.id_expected;
        let Some((target, id, piece)) = chunk.into_append() else {
            return false;
        };
        self.append_quickly(target, &id, &piece, expected)
    }

    /// The end of the stream, as the AI SDK's routes write it.
    fn done_marker(&mut self, _log: &mut Log) -> Result<(), Error> {
        self.done = true;
        Ok(())
    }

    fn apply_object(&mut self, log: &mut Log, chunk: Map<String, Value>) -> Result<(), Error> {
        self.hot.forget();
        let applied = self.apply(log, chunk);
        log.report(applied)
    }

    /// One message a stream.
    fn message_count(&self) -> usize {
        1
    }

    fn block_count(&self) -> usize {
        self.parts.len()
    }

    fn finish(&mut self) {
        self.hot.forget();
        let mut positions: Vec<usize> = self.pending.keys().copied().collect();
        positions.sort_unstable();
        for position in positions {
            self.settle(position);
        }
    }
}

/// The SDK's `mergeObjects`: objects merge key by key, recursively; arrays
/// and everything else replace.
pub fn merge_metadata(base: &mut Value, overrides: Value) {
    match (base, overrides) {
        (Value::Object(base), Value::Object(overrides)) => {
            for (key, value) in overrides {
                if UNSAFE_KEYS.contains(&key.as_str()) {
                    continue;
                }
                match base.get_mut(&key) {
                    Some(held @ Value::Object(_)) if value.is_object() => {
                        merge_metadata(held, value)
                    }
                    _ => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, overrides) => *base = overrides,
    }
}

/// The word with its indefinite article.
fn article(word: &str) -> String {
    let an = word.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {word}", if an { "an" } else { "a" })
}

/// What a JSON value must be, for the error that says it is not.
#[derive(Clone, Copy)]
enum Kind {
    Str,
    Bool,
    Object,
}

impl Kind {
    fn fits(self, value: &Value) -> bool {
        match self {
            Kind::Str => value.is_string(),
            Kind::Bool => value.is_boolean(),
            Kind::Object => value.is_object(),
        }
    }

    fn what(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::Bool => "a boolean",
            Kind::Object => "an object",
        }
    }
}

/// A chunk being applied: its type, and its fields checked as they are read.
struct Chunk<'a> {
    kind: &'a str,
    fields: &'a Map<String, Value>,
}

impl<'a> Chunk<'a> {
    fn optional(&self, key: &str, kind: Kind) -> Result<Option<&'a Value>, Bad> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) if kind.fits(value) => Ok(Some(value)),
            Some(_) => bad(format!(
                "({}) has {} that is not {}",
                self.kind,
                article(key),
                kind.what()
            )),
        }
    }

    fn required(&self, key: &str, kind: Kind) -> Result<&'a Value, Bad> {
        match self.optional(key, kind)? {
            Some(value) => Ok(value),
            None => bad(format!("({}) has no {key}", self.kind)),
        }
    }

    fn string(&self, key: &str) -> Result<&'a str, Bad> {
        Ok(self.required(key, Kind::Str)?.as_str().unwrap_or(""))
    }

    fn optional_string(&self, key: &str) -> Result<Option<&'a str>, Bad> {
        Ok(self.optional(key, Kind::Str)?.and_then(Value::as_str))
    }

    fn optional_bool(&self, key: &str) -> Result<Option<bool>, Bad> {
        Ok(self.optional(key, Kind::Bool)?.and_then(Value::as_bool))
    }

    fn optional_object(&self, key: &str) -> Result<Option<Value>, Bad> {
        Ok(self.optional(key, Kind::Object)?.cloned())
    }

    /// The fields every tool chunk may carry.
    fn tool_fields(&self) -> Result<ToolFields, Bad> {
        Ok(ToolFields {
            tool_metadata: self.optional_object("toolMetadata")?,
            provider_executed: self.optional_bool("providerExecuted")?,
            provider_metadata: self.optional_object("providerMetadata")?,
        })
    }
}

#[derive(Default)]
struct ToolFields {
    tool_metadata: Option<Value>,
    provider_executed: Option<bool>,
    provider_metadata: Option<Value>,
}

/// The fields a tool part update sets: `None` clears one.
#[derive(Default)]
struct ToolValues {
    input: Option<Value>,
    output: Option<Value>,
    raw_input: Option<Value>,
    error_text: Option<Value>,
    preliminary: Option<Value>,
    /// A dynamic part keeps its raw input unless one is given.
    gives_raw_input: bool,
}

fn metadata_key(state: &str) -> &'static str {
    if OUTPUT_STATES.contains(&state) {
        "resultProviderMetadata"
    } else {
        "callProviderMetadata"
    }
}

fn tool_key(part: &Map<String, Value>) -> Option<(bool, String)> {
    let kind = part.get("type").and_then(Value::as_str)?;
    let call_id = || {
        part.get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    if kind == "dynamic-tool" {
        Some((true, call_id()))
    } else if kind.starts_with("tool-") {
        Some((false, call_id()))
    } else {
        None
    }
}

fn put(part: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(value) => {
            part.insert(key.to_owned(), value);
        }
        None => {
            part.shift_remove(key);
        }
    }
}

/// The first position at or after `from`, in ascending positions.
fn first_from(positions: &[usize], from: usize) -> Option<usize> {
    let at = positions.partition_point(|&position| position < from);
    positions.get(at).copied()
}

impl UiMessage {
    fn apply(&mut self, log: &mut Log, mut event: Map<String, Value>) -> Result<(), Bad> {
        let kind = match event.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            None | Some(Value::Null) => return bad("has no type"),
            Some(_) => return bad("has a type that is not a string"),
        };
        if self.done {
            return bad("comes after [DONE]");
        }
        let chunk = Chunk {
            kind: &kind,
            fields: &event,
        };
        match kind.as_str() {
            "text-start" => self.stream_start(&chunk, "text"),
            "text-delta" => self.stream_delta(&chunk, "text"),
            "text-end" => self.stream_end(&chunk, "text"),
            "reasoning-start" => self.stream_start(&chunk, "reasoning"),
            "reasoning-delta" => self.stream_delta(&chunk, "reasoning"),
            "reasoning-end" => self.stream_end(&chunk, "reasoning"),
            "custom" => {
                let mut part = Map::new();
                part.insert("type".to_owned(), "custom".into());
                part.insert("kind".to_owned(), chunk.string("kind")?.into());
                self.push_with_metadata(part, &chunk)
            }
            "file" | "reasoning-file" => {
                let media_type = chunk.string("mediaType")?;
                let url = chunk.string("url")?;
                let mut part = Map::new();
                part.insert("type".to_owned(), kind.as_str().into());
                part.insert("mediaType".to_owned(), media_type.into());
                part.insert("url".to_owned(), url.into());
                self.push_with_metadata(part, &chunk)
            }
            "source-url" => {
                let mut part = Map::new();
                part.insert("type".to_owned(), "source-url".into());
                part.insert("sourceId".to_owned(), chunk.string("sourceId")?.into());
                part.insert("url".to_owned(), chunk.string("url")?.into());
                if let Some(title) = chunk.optional_string("title")? {
                    part.insert("title".to_owned(), title.into());
                }
                self.push_with_metadata(part, &chunk)
            }
            "source-document" => {
                let mut part = Map::new();
                part.insert("type".to_owned(), "source-document".into());
                part.insert("sourceId".to_owned(), chunk.string("sourceId")?.into());
                part.insert("mediaType".to_owned(), chunk.string("mediaType")?.into());
                part.insert("title".to_owned(), chunk.string("title")?.into());
                if let Some(filename) = chunk.optional_string("filename")? {
                    part.insert("filename".to_owned(), filename.into());
                }
                self.push_with_metadata(part, &chunk)
            }
            "tool-input-start" => self.tool_input_start(&chunk),
            "tool-input-delta" => self.tool_input_delta(&chunk),
            "tool-input-available" => self.tool_input_available(&chunk),
            "tool-input-error" => self.tool_input_error(&chunk),
            "tool-approval-request" => self.tool_approval_request(&chunk),
            "tool-approval-response" => self.tool_approval_response(&chunk),
            "tool-output-denied" => {
                let position = self.tool_invocation(chunk.string("toolCallId")?, &kind)?;
                self.settle(position);
                self.parts[position].insert("state".to_owned(), "output-denied".into());
                Ok(())
            }
            "tool-output-available" => self.tool_output(&chunk, "output-available"),
            "tool-output-error" => self.tool_output(&chunk, "output-error"),
            "start-step" => {
                let mut part = Map::new();
                part.insert("type".to_owned(), "step-start".into());
                self.parts.push(part);
                self.step = self.parts.len();
                Ok(())
            }
            "finish-step" => {
                self.texts.clear();
                self.reasonings.clear();
                Ok(())
            }
            "reset-step" => {
                self.reset_step();
                Ok(())
            }
            "start" => {
                if let Some(id) = chunk.optional_string("messageId")? {
                    self.id = id.to_owned();
                }
                self.merge(&mut event);
                Ok(())
            }
            "finish" => {
                if let Some(reason) = chunk.optional_string("finishReason")? {
                    self.finish_reason = Some(reason.to_owned());
                }
                self.merge(&mut event);
                Ok(())
            }
            "message-metadata" => {
                self.merge(&mut event);
                Ok(())
            }
            "error" => {
                let message = chunk.string("errorText")?.to_owned();
                log.record(ErrorRecord {
                    event: log.events,
                    code: "error".to_owned(),
                    message: Some(message),
                });
                self.kept.push(Value::Object(event));
                Ok(())
            }
            _ if kind.starts_with("data-") => self.data_part(&kind, event),
            _ => {
                self.kept.push(Value::Object(event)); // abort, and types this version does not know
                Ok(())
            }
        }
    }

    fn active(&mut self, kind: &str) -> &mut HashMap<String, usize> {
        if kind == "text" {
            &mut self.texts
        } else {
            &mut self.reasonings
        }
    }

    fn stream_start(&mut self, chunk: &Chunk<'_>, kind: &str) -> Result<(), Bad> {
        let id = chunk.string("id")?;
        let metadata = chunk.optional_object("providerMetadata")?;
        let mut part = Map::new();
        part.insert("type".to_owned(), kind.into());
        if kind == "reasoning" {
            part.insert("id".to_owned(), id.into()); // a text part has none
        }
        part.insert("text".to_owned(), "".into());
        if let Some(metadata) = metadata {
            part.insert("providerMetadata".to_owned(), metadata);
        }
        part.insert("state".to_owned(), "streaming".into());
        let position = self.parts.len();
        self.active(kind).insert(id.to_owned(), position);
        self.parts.push(part);
        Ok(())
    }

    fn streaming(&mut self, kind: &str, id: &str, verb: &str) -> Result<usize, Bad> {
        match self.active(kind).get(id) {
            Some(&position) => Ok(position),
            None => bad(format!(
                "is a {kind}-{verb} for {kind} part {}, which is not streaming",
                json::quote(id)
            )),
        }
    }

    fn stream_delta(&mut self, chunk: &Chunk<'_>, kind: &str) -> Result<(), Bad> {
        let id = chunk.string("id")?;
        let delta = chunk.string("delta")?;
        let metadata = chunk.optional_object("providerMetadata")?;
        let position = self.streaming(kind, id, "delta")?;
        let part = &mut self.parts[position];
        if let Some(Value::String(text)) = part.get_mut("text") {
            text.push_str(delta);
        }
        if let Some(metadata) = metadata {
            part.insert("providerMetadata".to_owned(), metadata);
        }
        Ok(())
    }

    fn stream_end(&mut self, chunk: &Chunk<'_>, kind: &str) -> Result<(), Bad> {
        let id = chunk.string("id")?;
        let metadata = chunk.optional_object("providerMetadata")?;
        let position = self.streaming(kind, id, "end")?;
        let part = &mut self.parts[position];
        part.insert("state".to_owned(), "done".into());
        if let Some(metadata) = metadata {
            part.insert("providerMetadata".to_owned(), metadata);
        }
        self.active(kind).remove(id);
        Ok(())
    }

    fn push_with_metadata(
        &mut self,
        mut part: Map<String, Value>,
        chunk: &Chunk<'_>,
    ) -> Result<(), Bad> {
        if let Some(metadata) = chunk.optional_object("providerMetadata")? {
            part.insert("providerMetadata".to_owned(), metadata);
        }
        self.parts.push(part);
        Ok(())
    }

    fn data_part(&mut self, kind: &str, chunk: Map<String, Value>) -> Result<(), Bad> {
        let view = Chunk {
            kind,
            fields: &chunk,
        };
        let id = view.optional_string("id")?.map(str::to_owned);
        if view.optional_bool("transient")? == Some(true) {
            return Ok(()); // for the moment it arrives only: never stored
        }
        let key = id.map(|id| (kind.to_owned(), id));
        if let Some(&position) = key.as_ref().and_then(|key| self.data.get(key)) {
            let data = chunk.get("data").cloned();
            put(&mut self.parts[position], "data", data);
            return Ok(());
        }
        if let Some(key) = key {
            self.data.insert(key, self.parts.len());
        }
        self.parts.push(chunk);
        Ok(())
    }

    fn reset_step(&mut self) {
        let cut = self.step;
        self.rewrites += 1;
        let mut earlier: Vec<usize> = self
            .pending
            .keys()
            .copied()
            .filter(|&position| position < cut)
            .collect();
        earlier.sort_unstable();
        for position in earlier {
            self.settle(position); // their calls end here
        }
        self.texts.clear();
        self.reasonings.clear();
        self.partials.clear();
        for position in (cut..self.parts.len()).rev() {
            self.forget(position);
        }
        self.parts.truncate(cut);
    }

    /// Drops the indexes' entries for the last part, about to go.
    fn forget(&mut self, position: usize) {
        self.pending.remove(&position);
        let part = &self.parts[position];
        if let Some(key) = tool_key(part) {
            if let Some(positions) = self.tools.get_mut(&key) {
                positions.pop();
                if positions.is_empty() {
                    self.tools.remove(&key);
                }
            }
            let approval = part
                .get("approval")
                .and_then(|approval| approval.get("id"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(approval) = approval {
                self.unlist_approval(&approval, position);
            }
            return;
        }
        let part_type = part.get("type").and_then(Value::as_str).unwrap_or("");
        if let (true, Some(id)) = (
            part_type.starts_with("data-"),
            part.get("id").and_then(Value::as_str),
        ) {
            let key = (part_type.to_owned(), id.to_owned());
            if self.data.get(&key) == Some(&position) {
                self.data.remove(&key);
            }
        }
    }

    fn merge(&mut self, event: &mut Map<String, Value>) {
        let metadata = match event.shift_remove("messageMetadata") {
            None | Some(Value::Null) => return,
            Some(metadata) => metadata,
        };
        match &mut self.metadata {
            None => self.metadata = Some(metadata),
            Some(held) => merge_metadata(held, metadata),
        }
    }

    fn tool_input_start(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let call_id = chunk.string("toolCallId")?;
        let name = chunk.string("toolName")?;
        let fields = chunk.tool_fields()?;
        let dynamic = chunk.optional_bool("dynamic")? == Some(true);
        let title = chunk.optional_string("title")?;
        if self.partials.contains_key(call_id) {
            self.settle_call(call_id); // that call's text is final
            self.rewrites += 1; // and a new one begins
        }
        self.partials.insert(
            call_id.to_owned(),
            Partial {
                name: name.to_owned(),
                dynamic,
                title: title.map(str::to_owned),
                tool_metadata: fields.tool_metadata.clone(),
                text: String::new(),
            },
        );
        self.update_tool(
            dynamic,
            call_id,
            name,
            "input-streaming",
            ToolValues::default(),
            title,
            fields,
        );
        Ok(())
    }

    /// A text, reasoning or tool input delta for a part that takes it, from
    /// a probe: what the full path does for it. Returns false, having
    /// changed nothing, for anything else.
    fn append_quickly(&mut self, target: Target, id: &str, piece: &str, expected: bool) -> bool {
        if self.done {
            return false;
        }
        let kind = match target {
            Target::Text => "text",
            Target::Reasoning => "reasoning",
            Target::ToolInput => {
                let Some(partial) = self.partials.get_mut(id) else {
                    return false;
                };
                if matches!(self.hot.target(expected), Some((hot, _)) if hot == target) {
                    // The last event was this call's delta, applied in full:
                    // the part's update would repeat what it holds, and only
                    // the input text grows.
                    partial.text.push_str(piece);
                    return true;
                }
                self.append_input(id, piece);
                self.hot.remember(id, (target, 0));
                return true;
            }
        };
        let position = match self.hot.target(expected) {
            Some((hot, position)) if hot == target => position,
            _ => {
                let Some(&position) = self.active(kind).get(id) else {
                    return false;
                };
                self.hot.remember(id, (target, position));
                position
            }
        };
        if let Some(Value::String(text)) = json::field_mut(&mut self.parts[position], "text") {
            text.push_str(piece);
        }
        true
    }

    fn tool_input_delta(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let call_id = chunk.string("toolCallId")?;
        let delta = chunk.string("inputTextDelta")?;
        if !self.partials.contains_key(call_id) {
            return bad(format!(
                "is a tool-input-delta for tool call {}, which has not started",
                json::quote(call_id)
            ));
        }
        self.append_input(call_id, delta);
        Ok(())
    }

    /// A fragment of a started call's input text: the SDK's update of its
    /// part, the input left to parse once.
    fn append_input(&mut self, call_id: &str, delta: &str) {
        let dynamic = self.partials[call_id].dynamic;
        let position = self.find_tool(dynamic, call_id);
        if let Some(pending) = self.pending_of(call_id) {
            if Some(pending) != position {
                self.settle(pending); // its input is the text before this delta
            }
        }
        let partial = self.partials.get_mut(call_id).expect("looked up");
        partial.text.push_str(delta);
        let name = partial.name.clone();
        let title = partial.title.clone();
        let fields = ToolFields {
            tool_metadata: partial.tool_metadata.clone(),
            ..ToolFields::default()
        };
        let position = self.update_tool(
            dynamic,
            call_id,
            &name,
            "input-streaming",
            ToolValues::default(),
            title.as_deref(),
            fields,
        );
        self.pending.insert(position, call_id.to_owned());
    }

    fn tool_input_available(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let call_id = chunk.string("toolCallId")?;
        let name = chunk.string("toolName")?;
        let fields = chunk.tool_fields()?;
        let dynamic = chunk.optional_bool("dynamic")? == Some(true);
        let title = chunk.optional_string("title")?;
        if let Some(position) = self.find_tool(dynamic, call_id) {
            self.pending.remove(&position); // the input is the snapshot's
        }
        let values = ToolValues {
            input: chunk.fields.get("input").cloned(),
            ..ToolValues::default()
        };
        self.update_tool(
            dynamic,
            call_id,
            name,
            "input-available",
            values,
            title,
            fields,
        );
        Ok(())
    }

    fn tool_input_error(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let call_id = chunk.string("toolCallId")?;
        let name = chunk.string("toolName")?;
        let error_text = chunk.string("errorText")?;
        let fields = chunk.tool_fields()?;
        let mut dynamic = chunk.optional_bool("dynamic")? == Some(true);
        chunk.optional_string("title")?;
        if let Some(existing) = self.find_any_tool(call_id) {
            dynamic =
                self.parts[existing].get("type").and_then(Value::as_str) == Some("dynamic-tool");
        }
        if let Some(position) = self.find_tool(dynamic, call_id) {
            self.pending.remove(&position); // the chunk says what the input is
        }
        let given = chunk.fields.get("input").cloned();
        let values = if dynamic {
            ToolValues {
                input: given,
                error_text: Some(error_text.into()),
                ..ToolValues::default()
            }
        } else {
            ToolValues {
                raw_input: given,
                error_text: Some(error_text.into()),
                gives_raw_input: true,
                ..ToolValues::default()
            }
        };
        self.update_tool(dynamic, call_id, name, "output-error", values, None, fields);
        Ok(())
    }

    fn tool_approval_request(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let approval_id = chunk.string("approvalId")?;
        let call_id = chunk.string("toolCallId")?;
        let automatic = chunk.optional_bool("isAutomatic")?;
        let signature = chunk.optional_string("signature")?;
        let position = self.tool_invocation(call_id, chunk.kind)?;
        self.settle(position);
        let old = self.parts[position]
            .get("approval")
            .and_then(|approval| approval.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(old) = old {
            self.unlist_approval(&old, position);
        }
        let mut approval = Map::new();
        approval.insert("id".to_owned(), approval_id.into());
        if automatic == Some(true) {
            approval.insert("isAutomatic".to_owned(), true.into());
        }
        if let Some(signature) = signature {
            approval.insert("signature".to_owned(), signature.into());
        }
        let part = &mut self.parts[position];
        part.insert("state".to_owned(), "approval-requested".into());
        part.insert("approval".to_owned(), Value::Object(approval));
        let positions = self.approvals.entry(approval_id.to_owned()).or_default();
        let at = positions.partition_point(|&held| held < position);
        positions.insert(at, position);
        Ok(())
    }

    fn tool_approval_response(&mut self, chunk: &Chunk<'_>) -> Result<(), Bad> {
        let approval_id = chunk.string("approvalId")?;
        let approved = chunk.required("approved", Kind::Bool)?.clone();
        let reason = chunk.optional_string("reason")?;
        let executed = chunk.optional_bool("providerExecuted")?;
        let metadata = chunk.optional_object("providerMetadata")?;
        let Some(&position) = self
            .approvals
            .get(approval_id)
            .and_then(|positions| positions.first())
        else {
            return bad(format!(
                "is a tool-approval-response for approval {}, which was never requested",
                json::quote(approval_id)
            ));
        };
        self.settle(position);
        let part = &mut self.parts[position];
        let old = part.get("approval").cloned().unwrap_or(Value::Null);
        let mut approval = Map::new();
        approval.insert("id".to_owned(), approval_id.into());
        approval.insert("approved".to_owned(), approved);
        if let Some(reason) = reason {
            approval.insert("reason".to_owned(), reason.into());
        }
        if old.get("isAutomatic") == Some(&Value::Bool(true)) {
            approval.insert("isAutomatic".to_owned(), true.into());
        }
        if let Some(signature) = old.get("signature").filter(|value| !value.is_null()) {
            approval.insert("signature".to_owned(), signature.clone());
        }
        part.insert("state".to_owned(), "approval-responded".into());
        part.insert("approval".to_owned(), Value::Object(approval));
        if let Some(executed) = executed {
            part.insert("providerExecuted".to_owned(), executed.into());
        }
        if let Some(metadata) = metadata {
            part.insert("callProviderMetadata".to_owned(), metadata);
        }
        Ok(())
    }

    fn tool_output(&mut self, chunk: &Chunk<'_>, state: &str) -> Result<(), Bad> {
        let call_id = chunk.string("toolCallId")?;
        let error_text = if state == "output-error" {
            Some(chunk.string("errorText")?)
        } else {
            None
        };
        let executed = chunk.optional_bool("providerExecuted")?;
        let metadata = chunk.optional_object("providerMetadata")?;
        let preliminary = if state == "output-available" {
            chunk.optional_bool("preliminary")?
        } else {
            None
        };
        chunk.optional_object("toolMetadata")?;
        chunk.optional_bool("dynamic")?;
        let position = self.tool_invocation(call_id, chunk.kind)?;
        self.settle(position);
        let part = &mut self.parts[position];
        let dynamic = part.get("type").and_then(Value::as_str) == Some("dynamic-tool");
        let mut values = ToolValues {
            input: part.get("input").cloned(),
            ..ToolValues::default()
        };
        match error_text {
            Some(error_text) => {
                values.error_text = Some(error_text.into());
                if !dynamic {
                    values.raw_input = part.get("rawInput").cloned();
                    values.gives_raw_input = true;
                }
            }
            None => {
                values.output = chunk.fields.get("output").cloned();
                values.preliminary = preliminary.map(Value::Bool);
            }
        }
        revise(part, state, values, executed, metadata);
        Ok(())
    }

    /// The SDK's `updateToolPart` and `updateDynamicToolPart`: the current
    /// step's part for the call, revised, or a new part. Returns its
    /// position.
    #[allow(clippy::too_many_arguments)]
    fn update_tool(
        &mut self,
        dynamic: bool,
        call_id: &str,
        name: &str,
        state: &str,
        values: ToolValues,
        title: Option<&str>,
        fields: ToolFields,
    ) -> usize {
        if let Some(position) = self.find_tool(dynamic, call_id) {
            let part = &mut self.parts[position];
            if dynamic {
                part.insert("toolName".to_owned(), name.into());
            }
            if let Some(title) = title {
                part.insert("title".to_owned(), title.into());
            }
            if let Some(tool_metadata) = fields.tool_metadata {
                part.insert("toolMetadata".to_owned(), tool_metadata);
            }
            revise(
                part,
                state,
                values,
                fields.provider_executed,
                fields.provider_metadata,
            );
            return position;
        }
        let mut part = Map::new();
        if dynamic {
            part.insert("type".to_owned(), "dynamic-tool".into());
            part.insert("toolName".to_owned(), name.into());
        } else {
            part.insert("type".to_owned(), format!("tool-{name}").into());
        }
        part.insert("toolCallId".to_owned(), call_id.into());
        part.insert("state".to_owned(), state.into());
        if let Some(title) = title {
            part.insert("title".to_owned(), title.into());
        }
        if let Some(tool_metadata) = fields.tool_metadata {
            part.insert("toolMetadata".to_owned(), tool_metadata);
        }
        let mut order = vec![("input", values.input), ("output", values.output)];
        if !dynamic {
            order.push(("rawInput", values.raw_input));
        }
        order.push(("errorText", values.error_text));
        order.push(("preliminary", values.preliminary));
        for (key, value) in order {
            if let Some(value) = value {
                part.insert(key.to_owned(), value);
            }
        }
        if let Some(executed) = fields.provider_executed {
            part.insert("providerExecuted".to_owned(), executed.into());
        }
        if let Some(metadata) = fields.provider_metadata {
            part.insert(metadata_key(state).to_owned(), metadata);
        }
        let position = self.parts.len();
        self.parts.push(part);
        self.tools
            .entry((dynamic, call_id.to_owned()))
            .or_default()
            .push(position);
        position
    }

    /// The first tool part of the call, of that kind, in the current step.
    fn find_tool(&self, dynamic: bool, call_id: &str) -> Option<usize> {
        let positions = self.tools.get(&(dynamic, call_id.to_owned()))?;
        first_from(positions, self.step)
    }

    fn find_any_tool(&self, call_id: &str) -> Option<usize> {
        let found = [
            self.find_tool(false, call_id),
            self.find_tool(true, call_id),
        ];
        found.into_iter().flatten().min()
    }

    /// The SDK's `getToolInvocation`: the call's first part in the current
    /// step, else its last part in the message.
    fn tool_invocation(&self, call_id: &str, kind: &str) -> Result<usize, Bad> {
        if let Some(position) = self.find_any_tool(call_id) {
            return Ok(position);
        }
        let last = [false, true]
            .into_iter()
            .filter_map(|dynamic| {
                self.tools
                    .get(&(dynamic, call_id.to_owned()))
                    .and_then(|positions| positions.last().copied())
            })
            .max();
        match last {
            Some(position) => Ok(position),
            None => bad(format!(
                "is a {kind} for tool call {}, which has not started",
                json::quote(call_id)
            )),
        }
    }

    fn pending_of(&self, call_id: &str) -> Option<usize> {
        for dynamic in [false, true] {
            if let Some(positions) = self.tools.get(&(dynamic, call_id.to_owned())) {
                for &position in positions.iter().rev() {
                    if self.pending.get(&position).map(String::as_str) == Some(call_id) {
                        return Some(position);
                    }
                }
            }
        }
        None
    }

    fn settle_call(&mut self, call_id: &str) {
        if let Some(position) = self.pending_of(call_id) {
            self.settle(position);
        }
    }

    /// Gives a part whose input was streaming that input, parsed once, if
    /// it is complete JSON.
    fn settle(&mut self, position: usize) {
        let Some(call_id) = self.pending.remove(&position) else {
            return;
        };
        let Some(partial) = self.partials.get(&call_id) else {
            return;
        };
        if let Ok(value) = json::parse(&partial.text) {
            self.parts[position].insert("input".to_owned(), value);
        }
    }

    fn unlist_approval(&mut self, approval_id: &str, position: usize) {
        if let Some(positions) = self.approvals.get_mut(approval_id) {
            if let Some(at) = positions.iter().position(|&held| held == position) {
                positions.remove(at);
            }
            if positions.is_empty() {
                self.approvals.remove(approval_id);
            }
        }
    }
}

/// What an update does to an existing tool part: the state, and the fields
/// an update sets (those it does not give are cleared; a dynamic part keeps
/// its raw input unless one is given).
fn revise(
    part: &mut Map<String, Value>,
    state: &str,
    values: ToolValues,
    executed: Option<bool>,
    metadata: Option<Value>,
) {
    part.insert("state".to_owned(), state.into());
    put(part, "input", values.input);
    put(part, "output", values.output);
    put(part, "errorText", values.error_text);
    put(part, "preliminary", values.preliminary);
    let dynamic = part.get("type").and_then(Value::as_str) == Some("dynamic-tool");
    if !dynamic || values.gives_raw_input {
        put(part, "rawInput", values.raw_input);
    }
    if let Some(executed) = executed {
        part.insert("providerExecuted".to_owned(), executed.into());
    }
    if let Some(metadata) = metadata {
        part.insert(metadata_key(state).to_owned(), metadata);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(assembler: &mut Assembler, chunks: &[&str]) {
        for chunk in chunks {
            assembler
                .feed(format!("data: {chunk}\n\n").as_bytes())
                .unwrap();
        }
    }

    /// Every prefix of a stream of interleaved deltas, read by the quick
    /// path and by the full one (an observer takes every event there):
    /// the same message, and the same after the end.
    #[test]
    fn quick_path_and_full_path_agree() {
        let chunks = [
            r#"{"type":"start","messageId":"m"}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"tool-input-start","toolCallId":"a","toolName":"f"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":"{\"x\""}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":":1"}"#,
            r#"{"type":"tool-input-start","toolCallId":"b","toolName":"g","dynamic":true,"title":"G"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"b","inputTextDelta":"[1"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":"}"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"b","inputTextDelta":",2"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"b","inputTextDelta":"]"}"#,
            r#"{"type":"text-start","id":"t"}"#,
            r#"{"type":"text-delta","id":"t","delta":"He"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":" "}"#,
            r#"{"type":"text-delta","id":"t","delta":"llo"}"#,
            r#"{"type":"finish-step"}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":"x"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":"y"}"#,
            r#"{"type":"tool-input-available","toolCallId":"b","toolName":"g","dynamic":true,"input":[1,2]}"#,
            r#"{"type":"tool-input-delta","toolCallId":"b","inputTextDelta":"z"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"b","inputTextDelta":"w"}"#,
            r#"{"type":"finish"}"#,
        ];
        for cut in 1..=chunks.len() {
            let stream: String = chunks[..cut]
                .iter()
                .map(|chunk| format!("data: {chunk}\n\n"))
                .collect();
            let mut quick = Assembler::default();
            quick.feed(stream.as_bytes()).unwrap();
            let mut full = Assembler::default();
            let mut seen = 0;
            full.feed_observed(stream.as_bytes(), &mut |_| seen += 1)
                .unwrap();
            assert_eq!(seen, cut);
            assert_eq!(quick.message(), full.message(), "after {cut} chunks");
            quick.close().unwrap();
            full.close().unwrap();
            assert_eq!(quick.message(), full.message(), "closed after {cut}");
        }
    }

    #[test]
    fn assembles_text_and_a_tool_part_through_its_states() {
        let mut assembler = Assembler::default();
        feed(
            &mut assembler,
            &[
                r#"{"type":"start","messageId":"m"}"#,
                r#"{"type":"start-step"}"#,
                r#"{"type":"text-start","id":"t"}"#,
                r#"{"type":"text-delta","id":"t","delta":"He"}"#,
                r#"{"type":"text-delta","id":"t","delta":"llo"}"#,
                r#"{"type":"text-end","id":"t"}"#,
                r#"{"type":"tool-input-start","toolCallId":"c","toolName":"f"}"#,
                r#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{\"a\""}"#,
                r#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":":1}"}"#,
            ],
        );
        // The input is not parsed while it streams.
        assert_eq!(assembler.message()["parts"][2].get("input"), None);
        feed(
            &mut assembler,
            &[
                r#"{"type":"tool-output-available","toolCallId":"c","output":2}"#,
                r#"{"type":"finish","finishReason":"stop"}"#,
                "[DONE]",
            ],
        );
        assembler.close().unwrap();
        let message = assembler.message();
        assert_eq!(message["id"], "m");
        assert_eq!(message["parts"][1]["text"], "Hello");
        assert_eq!(message["parts"][1]["state"], "done");
        let tool = &message["parts"][2];
        assert_eq!(tool["type"], "tool-f");
        assert_eq!(tool["state"], "output-available");
        assert_eq!(tool["input"]["a"], 1);
        assert_eq!(tool["output"], 2);
        assert_eq!(assembler.finish_reason(), Some("stop"));
    }

    #[test]
    fn reset_step_retracts_the_step_and_data_parts_reconcile() {
        let mut assembler = Assembler::default();
        feed(
            &mut assembler,
            &[
                r#"{"type":"data-x","id":"1","data":1}"#,
                r#"{"type":"start-step"}"#,
                r#"{"type":"data-x","id":"2","data":2}"#,
                r#"{"type":"reset-step"}"#,
                r#"{"type":"data-x","id":"1","data":3}"#,
                r#"{"type":"data-x","id":"2","data":4}"#,
            ],
        );
        let message = assembler.message();
        let parts = message["parts"].as_array().unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0]["data"], 3);
        assert_eq!(parts[2]["data"], 4);
    }

    #[test]
    fn metadata_merges_deeply_and_arrays_replace() {
        let mut base = json::parse(r#"{"a":{"b":1},"l":[1]}"#).unwrap();
        let over = json::parse(r#"{"a":{"c":2},"l":[2],"__proto__":1}"#).unwrap();
        merge_metadata(&mut base, over);
        assert_eq!(base, json::parse(r#"{"a":{"b":1,"c":2},"l":[2]}"#).unwrap());
    }

    #[test]
    fn a_delta_for_a_part_not_streaming_is_an_error() {
        let mut assembler = Assembler::new(Options {
            on_error: OnError::Skip,
            ..Options::default()
        });
        feed(
            &mut assembler,
            &[
                r#"{"type":"text-delta","id":"x","delta":"a"}"#,
                r#"{"type":"tool-output-available","toolCallId":"c","output":1}"#,
            ],
        );
        let problems: Vec<_> = assembler
            .errors()
            .iter()
            .map(|error| error.message.clone().unwrap())
            .collect();
        assert_eq!(
            problems,
            [
                "AI SDK UI message chunk 1 is a text-delta for text part \"x\", which is not streaming",
                "AI SDK UI message chunk 2 is a tool-output-available for tool call \"c\", which has not started",
            ]
        );
    }
}
