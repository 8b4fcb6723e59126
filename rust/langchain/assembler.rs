//! Assembling the messages channel of the LangChain Agent Streaming
//! Protocol. `python/agentcodec/_pure/langchain/assembler.py` mirrors this module
//! rule for rule.
//!
//! A message is identified by its namespace and node; its content blocks
//! by their wire index, and blocks may interleave. Deltas append (text,
//! reasoning, base64 data, tool-call arguments) or shallow-merge
//! (`block-delta`); `content-block-finish` is authoritative;
//! `message-finish` turns tool-call chunks still open into tool calls
//! (strict JSON) or invalid tool calls. Events already applied (by
//! `event_id`) are not applied again.

use std::collections::{BTreeMap, BTreeSet};

use super::probe::{Change, Probe, QuickDelta, MAX_INDEX};
use super::vocabulary::TOOL_CALL_BLOCKS;
use crate::accumulate::{append, append_at};
use crate::events::or_null;
use crate::frozen::{FrozenValue, Rendered, FREEZE_MAX_BYTES};
use crate::hashing::HashMap;
use crate::json::{self, Map, Value};
use crate::json_probe::{Cursor, Strings};
use crate::recent::RecentIds;
use crate::sse::Limits;
use crate::stream::{Assemble, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError};
use crate::tool_calls::{rewritten, Arguments, ToolCall, ToolCalls};

/// How many recent event ids are remembered to drop a replayed event: more
/// than the 10,000 events a server's replay buffer holds.
const SEEN_EVENT_IDS: usize = 16384;
const INVALID_JSON: &str = "Failed to parse tool call arguments as JSON";
const NOT_AN_OBJECT: &str = "Tool call arguments are not a JSON object";
/// Keys of the spec's camelCase spelling that blocks and messages may use.
const CAMEL_KEYS: [(&str, &str); 7] = [
    ("mimeType", "mime_type"),
    ("fileId", "file_id"),
    ("toolCallId", "tool_call_id"),
    ("startIndex", "start_index"),
    ("endIndex", "end_index"),
    ("citedText", "cited_text"),
    ("messageId", "message_id"),
];
const BLOCK_EVENTS: [&str; 5] = [
    "content-block-start",
    "content-block-delta",
    "content-block-finish",
    "message-finish",
    "error",
];
const START_KEYS: [&str; 6] = ["event", "role", "id", "message_id", "messageId", "metadata"];
const FINISH_KEYS: [&str; 7] = [
    "event",
    "usage",
    "metadata",
    "response_metadata",
    "responseMetadata",
    "reason",
    "finish_reason",
];

/// What a `block-delta` carrying tool arguments means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolArgs {
    /// The spec: the arguments replace the ones held.
    Strict,
    /// For older producers that sent fragments: arguments that do not
    /// extend the ones held are appended to them.
    Auto,
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub tool_args: ToolArgs,
    pub on_error: OnError,
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tool_args: ToolArgs::Strict,
            on_error: OnError::Raise,
            limits: Limits::default(),
        }
    }
}

type MessageKey = (Vec<String>, Option<String>);

#[derive(Debug, Clone)]
struct LastActive {
    namespace_text: String,
    node: Option<String>,
    position: usize,
}

#[derive(Debug, Clone)]
struct Message {
    fields: Map<String, Value>,
    extra: Map<String, Value>,
    blocks: BTreeMap<u64, Map<String, Value>>,
    finished: BTreeSet<u64>,
    /// Times a block's arguments were replaced by more than an append.
    rewrites: u64,
}

impl Message {
    fn new(namespace: &[String], node: Option<&str>, id: Value, role: Value) -> Self {
        let mut fields = Map::new();
        let namespace = Value::Array(namespace.iter().cloned().map(Value::String).collect());
        let node = node.map_or(Value::Null, |node| Value::String(node.to_owned()));
        for (key, value) in [
            ("id", id),
            ("role", role),
            ("namespace", namespace),
            ("node", node),
            ("metadata", Value::Null),
            ("usage", Value::Null),
            ("finish_reason", Value::Null),
            ("response_metadata", Value::Null),
            ("status", "in_progress".into()),
            ("error", Value::Null),
        ] {
            fields.insert(key.to_owned(), value);
        }
        Message {
            fields,
            extra: Map::new(),
            blocks: BTreeMap::new(),
            finished: BTreeSet::new(),
            rewrites: 0,
        }
    }

    fn render(&self) -> Value {
        let mut message = self.fields.clone();
        let content = self.blocks.values().cloned().map(Value::Object).collect();
        message.insert("content".to_owned(), Value::Array(content));
        for (key, value) in &self.extra {
            message.insert(key.clone(), value.clone());
        }
        Value::Object(message)
    }

    fn set_status(&mut self, status: &str) {
        self.fields.insert("status".to_owned(), status.into());
    }
}

/// A message as the assembler keeps it: live while it is active, and once
/// it finished with no tool-call block, as its JSON text (`FrozenValue`):
/// a short message costs its text, not a tree of maps. Only an active
/// message changes, so a frozen one is never needed live again.
#[derive(Debug, Clone)]
enum Stored {
    Live(Box<Message>),
    Frozen { text: FrozenValue, rewrites: u64 },
}

impl Stored {
    fn render(&self) -> Rendered<'_> {
        match self {
            Stored::Live(message) => Rendered::Value(message.render()),
            Stored::Frozen { text, .. } => Rendered::Json(text.as_str()),
        }
    }

    fn rewrites(&self) -> u64 {
        match self {
            Stored::Live(message) => message.rewrites,
            Stored::Frozen { rewrites, .. } => *rewrites,
        }
    }

    fn live(&mut self) -> Option<&mut Message> {
        match self {
            Stored::Live(message) => Some(message),
            Stored::Frozen { .. } => None,
        }
    }

    /// Freezes a message that finished, unless it has a tool call (read
    /// live by `tool_calls`) or its text is long (its maps are a small
    /// part of it, and the text would cost a parse on every read).
    fn freeze(&mut self) {
        let Stored::Live(message) = self else {
            return;
        };
        if message.blocks.values().any(|block| {
            block
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|kind| TOOL_CALL_BLOCKS.contains(&kind))
        }) {
            return;
        }
        if let Some(text) = FrozenValue::freeze(&message.render(), FREEZE_MAX_BYTES) {
            *self = Stored::Frozen {
                text,
                rewrites: message.rewrites,
            };
        }
    }
}

/// Assembles the messages of a LangChain Agent Streaming Protocol stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<LangChain>,
}

/// What LangChain protocol messages do: the state they build.
#[derive(Debug, Clone)]
pub struct LangChain {
    options: Options,
    messages: Vec<Stored>,
    /// The message being streamed for each (namespace, node).
    active: HashMap<MessageKey, usize>,
    /// The last active message a delta went to, by its namespace's JSON
    /// text and its node: forgotten whenever `active` changes, so that the
    /// next delta to it is found without reading its namespace or a lookup.
    last_active: Option<LastActive>,
    seen_ids: RecentIds,
    duplicates: u64,
    /// Where the quick path last found the field it appended to, in its
    /// block: the next delta looks there first (see `append_at`).
    appended_at: usize,
    /// The content blocks all messages hold (for `max_blocks`).
    blocks: usize,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        Value::Array(self.messages())
    }
}

crate::stream::assemble_with_driver!(Assembler, LangChain);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        let protocol = LangChain {
            options,
            messages: Vec::new(),
            active: HashMap::default(),
            last_active: None,
            seen_ids: RecentIds::new(SEEN_EVENT_IDS),
            duplicates: 0,
            appended_at: usize::MAX,
            blocks: 0,
        };
        Assembler {
            driver: Driver::new(
                protocol,
                options.limits,
                options.on_error,
                "LangChain protocol message",
            ),
        }
    }

    pub fn duplicate_count(&self) -> u64 {
        self.driver.protocol.duplicates
    }

    /// Assembles one WebSocket text frame (one JSON message).
    pub fn feed_frame(&mut self, frame: &str) -> Result<(), Error> {
        self.driver.feed_text(frame)
    }

    /// Every message so far, in the order they started.
    pub fn messages(&self) -> Vec<Value> {
        self.rendered_messages()
            .into_iter()
            .map(Rendered::into_value)
            .collect()
    }

    /// [`Assembler::messages`], each finished one as its JSON text.
    pub fn rendered_messages(&self) -> Vec<Rendered<'_>> {
        self.driver
            .protocol
            .messages
            .iter()
            .map(Stored::render)
            .collect()
    }

    /// Every tool-call block of every message (`tool_call_chunk`,
    /// `tool_call`, `invalid_tool_call` and their server kinds):
    /// `message_id`, `index`, `type`, `id` and `name`, and its `args`: the
    /// text so far while it streams, the value once the message finished
    /// it. A block is finished once it or its message finished or the
    /// stream ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let closed = self.is_closed();
        let mut calls = Vec::new();
        let mut rewrites = 0;
        for (position, message) in self.driver.protocol.messages.iter().enumerate() {
            rewrites += message.rewrites();
            // A frozen message has no tool call.
            let Stored::Live(message) = message else {
                continue;
            };
            let open = message.fields.get("status").and_then(Value::as_str) == Some("in_progress");
            for (index, block) in &message.blocks {
                let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
                if !TOOL_CALL_BLOCKS.contains(&kind) {
                    continue;
                }
                let mut fields = Map::new();
                fields.insert("message_id".to_owned(), or_null(message.fields.get("id")));
                fields.insert("index".to_owned(), (*index).into());
                fields.insert("type".to_owned(), kind.into());
                fields.insert("id".to_owned(), or_null(block.get("id")));
                fields.insert("name".to_owned(), or_null(block.get("name")));
                let arguments = Arguments::of(block.get("args"));
                calls.push(ToolCall {
                    key: format!("{position}/{index}").into(),
                    fields,
                    field: "args",
                    arguments,
                    finished: closed || !open || message.finished.contains(index),
                });
            }
        }
        ToolCalls { calls, rewrites }
    }
}

impl Protocol for LangChain {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        // Read in place: a Probe is large, and moving it out of the Option
        // costs a copy an event.
        let probe = Probe::read(text);
        let Some(delta) = probe.as_ref().and_then(Probe::quick) else {
            return false;
        };
        self.quick_delta(&delta)
    }

    fn apply_object(&mut self, _log: &mut Log, envelope: Map<String, Value>) -> Result<(), Error> {
        self.apply_envelope(envelope);
        Ok(())
    }

    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn block_count(&self) -> usize {
        self.blocks
    }

    fn finish(&mut self) {
        self.last_active = None;
        for (_, position) in self.active.drain() {
            if let Some(message) = self.messages[position].live() {
                message.set_status("incomplete");
            }
        }
    }
}

impl LangChain {
    /// Applies one protocol message. What is not a `messages` event (a
    /// command's response, another method, an event id seen before) is
    /// passed over.
    fn apply_envelope(&mut self, mut envelope: Map<String, Value>) {
        match envelope.get("type") {
            None => {}
            Some(Value::String(kind)) if kind == "event" => {}
            Some(_) => return, // a command response: nothing to assemble
        }
        if let Some(Value::String(event_id)) = first(&envelope, &["event_id", "eventId"]) {
            if self.seen_ids.contains(event_id.as_str()) {
                self.duplicates += 1;
                return;
            }
            self.seen_ids.insert(event_id);
        }
        if envelope.get("method").and_then(Value::as_str) != Some("messages") {
            return;
        }
        let Some(Value::Object(mut params)) = envelope.shift_remove("params") else {
            return;
        };
        let namespace = match params.get("namespace") {
            None => Vec::new(),
            Some(Value::Array(parts)) => {
                let mut namespace = Vec::with_capacity(parts.len());
                for part in parts {
                    let Value::String(part) = part else {
                        return;
                    };
                    namespace.push(part.clone());
                }
                namespace
            }
            Some(_) => return,
        };
        let Some(Value::Object(data)) = params.shift_remove("data") else {
            return;
        };
        let node = params
            .get("node")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.messages_event(namespace, node, data);
    }

    /// Applies a message from its probe when it is a delta that appends to
    /// an existing block of the active message (or a duplicate of an event
    /// seen): what `apply_envelope` does for it, without a `Value` tree.
    /// Returns false, having changed nothing, for anything else.
    fn quick_delta(&mut self, delta: &QuickDelta<'_>) -> bool {
        // Hashed once, for the duplicate check and for remembering it.
        let event_id = delta.event_id.map(|id| (self.seen_ids.hash(id), id));
        if let Some((hash, event_id)) = event_id {
            if self.seen_ids.contains_hashed(hash, event_id) {
                self.duplicates += 1;
                return true;
            }
        }
        let Some(position) = self.find_active(delta.namespace, delta.node) else {
            return false;
        };
        let Some(message) = self.messages[position].live() else {
            return false;
        };
        if message.finished.contains(&delta.index) {
            return false;
        }
        let Some(block) = message.blocks.get_mut(&delta.index) else {
            return false;
        };
        let (field, piece) = match delta.change {
            Change::Text(text) => ("text", text),
            Change::Reasoning(text) => ("reasoning", text),
            Change::Args(args) if is_tool_chunk(block.get("type")) => ("args", args),
            Change::Args(_) => return false,
        };
        append_at(block, field, piece, &mut self.appended_at);
        if let Some((hash, event_id)) = event_id {
            self.seen_ids.insert_hashed(hash, event_id);
        }
        true
    }

    /// The position of the active message for this namespace (its JSON
    /// text) and node, remembering the last one found: deltas mostly follow
    /// each other, and their namespace is then the same text. `None` when
    /// there is none, or the namespace is not a list of strings.
    fn find_active(&mut self, namespace_text: &str, node: Option<&str>) -> Option<usize> {
        if let Some(last) = &self.last_active {
            if last.namespace_text == namespace_text && last.node.as_deref() == node {
                return Some(last.position);
            }
        }
        // A different text may still be the same namespace (written with
        // escapes or spaces): read, it is looked up by value.
        let Ok(Strings(Some(names))) = Cursor::new(namespace_text).strings() else {
            return None;
        };
        let key: MessageKey = (
            names.iter().map(|part| part.to_string()).collect(),
            node.map(str::to_owned),
        );
        let position = *self.active.get(&key)?;
        self.last_active = Some(LastActive {
            namespace_text: namespace_text.to_owned(),
            node: key.1,
            position,
        });
        Some(position)
    }

    /// The message being streamed here, or one made up for a stream joined
    /// midway.
    fn message_for(&mut self, key: &MessageKey) -> usize {
        if let Some(&position) = self.active.get(key) {
            return position;
        }
        let message = Message::new(&key.0, key.1.as_deref(), Value::Null, Value::Null);
        self.messages.push(Stored::Live(Box::new(message)));
        let position = self.messages.len() - 1;
        self.active.insert(key.clone(), position);
        position
    }

    fn messages_event(
        &mut self,
        namespace: Vec<String>,
        node: Option<String>,
        data: Map<String, Value>,
    ) {
        let Some(kind) = data.get("event").and_then(Value::as_str).map(str::to_owned) else {
            return;
        };
        let key = (namespace, node);
        if kind == "message-start" {
            self.start_message(key, &data);
            return;
        }
        if !BLOCK_EVENTS.contains(&kind.as_str()) {
            return; // usage, provider and future events: tolerated
        }
        let position = self.message_for(&key);
        let auto_args = self.options.tool_args == ToolArgs::Auto;
        let Some(message) = self.messages[position].live() else {
            return; // only an active message changes, and it is live
        };
        if kind == "message-finish" {
            finish_message(message, &data);
            self.active.remove(&key);
            self.last_active = None;
            self.messages[position].freeze();
            return;
        }
        if kind == "error" {
            message.set_status("error");
            let mut error = Map::new();
            error.insert(
                "message".to_owned(),
                data.get("message").cloned().unwrap_or(Value::Null),
            );
            error.insert(
                "code".to_owned(),
                data.get("code").cloned().unwrap_or(Value::Null),
            );
            message
                .fields
                .insert("error".to_owned(), Value::Object(error));
            self.active.remove(&key);
            self.last_active = None;
            self.messages[position].freeze();
            return;
        }
        let Some(index) = data
            .get("index")
            // (as_i64: JSON's -0 is 0, as Python reads it; as_u64 refuses it)
            .and_then(Value::as_i64)
            .and_then(|index| u64::try_from(index).ok())
            .filter(|index| *index < MAX_INDEX)
        else {
            return;
        };
        let content = || match first(&data, &["content", "content_block", "contentBlock"]) {
            Some(Value::Object(block)) => Some(block_keys(block)),
            _ => None,
        };
        // Blocks are only ever added, and only here.
        let before = message.blocks.len();
        match kind.as_str() {
            "content-block-start" => {
                if let Some(block) = content() {
                    note_replacing(message, index, &block);
                    message.blocks.insert(index, block);
                    message.finished.remove(&index);
                }
            }
            "content-block-finish" => {
                if let Some(block) = content() {
                    let block = finished_block(message.blocks.get(&index), block);
                    note_replacing(message, index, &block);
                    message.blocks.insert(index, block);
                    message.finished.insert(index);
                }
            }
            _ if message.finished.contains(&index) => {}
            _ => match data.get("delta") {
                Some(Value::Object(delta)) => apply_delta(message, index, delta, auto_args),
                _ => {
                    if let Some(fragment) = content() {
                        apply_fragment(message, index, fragment, auto_args);
                    }
                }
            },
        }
        self.blocks += message.blocks.len() - before;
    }

    fn start_message(&mut self, key: MessageKey, data: &Map<String, Value>) {
        if let Some(&previous) = self.active.get(&key) {
            // A new message on the same namespace and node ends the last
            // one, which no event reaches again.
            if let Some(message) = self.messages[previous].live() {
                message.set_status("incomplete");
            }
            self.messages[previous].freeze();
        }
        let id = first(data, &["id", "message_id", "messageId"])
            .cloned()
            .unwrap_or(Value::Null);
        let role = data.get("role").cloned().unwrap_or(Value::Null);
        let mut message = Message::new(&key.0, key.1.as_deref(), id, role);
        if let Some(metadata @ Value::Object(_)) = data.get("metadata") {
            message
                .fields
                .insert("metadata".to_owned(), metadata.clone());
        }
        for (name, value) in data {
            if !START_KEYS.contains(&name.as_str()) {
                message
                    .extra
                    .insert(camel_key(name).to_owned(), value.clone());
            }
        }
        self.messages.push(Stored::Live(Box::new(message)));
        self.active.insert(key, self.messages.len() - 1);
        self.last_active = None;
    }
}

/// The value of the first key present (a field and its legacy names).
fn first<'a>(data: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|key| data.get(*key))
}

fn camel_key(key: &str) -> &str {
    CAMEL_KEYS
        .iter()
        .find(|(camel, _)| *camel == key)
        .map_or(key, |(_, snake)| snake)
}

/// A block with the spec's camelCase keys in their wire spelling.
fn block_keys(block: &Map<String, Value>) -> Map<String, Value> {
    let mut renamed = Map::new();
    for (key, value) in block {
        renamed.insert(camel_key(key).to_owned(), value.clone());
    }
    renamed
}

fn is_tool_chunk(kind: Option<&Value>) -> bool {
    matches!(
        kind.and_then(Value::as_str),
        Some("tool_call_chunk" | "server_tool_call_chunk")
    )
}

fn apply_delta(message: &mut Message, index: u64, delta: &Map<String, Value>, auto_args: bool) {
    let kind = delta.get("type").and_then(Value::as_str);
    match kind {
        Some(kind @ ("text-delta" | "reasoning-delta")) => {
            let field = if kind == "text-delta" {
                "text"
            } else {
                "reasoning"
            };
            let Some(Value::String(piece)) = delta.get(field) else {
                return;
            };
            let block = message.blocks.entry(index).or_insert_with(|| {
                let mut block = Map::new();
                block.insert("type".to_owned(), field.into());
                block.insert(field.to_owned(), "".into());
                block
            });
            append(block, field, piece);
        }
        Some("data-delta") => {
            let Some(Value::String(piece)) = delta.get("data") else {
                return;
            };
            let known_encoding = match delta.get("encoding") {
                None | Some(Value::Null) => true,
                Some(Value::String(encoding)) => encoding == "base64",
                Some(_) => false,
            };
            let Some(block) = message.blocks.get_mut(&index) else {
                return;
            };
            if !known_encoding {
                return;
            }
            let field = if block.contains_key("data") && !block.contains_key("base64") {
                "data"
            } else {
                "base64"
            };
            append(block, field, piece);
        }
        Some("block-delta") => {
            let Some(Value::Object(fields)) = delta.get("fields") else {
                return;
            };
            match message.blocks.get_mut(&index) {
                None => {
                    message.blocks.insert(index, block_keys(fields));
                }
                Some(block) => {
                    if merge_fields(block, &block_keys(fields), auto_args) {
                        message.rewrites += 1;
                    }
                }
            }
        }
        Some("tool-call-delta") => {
            let Some(block) = message.blocks.get_mut(&index) else {
                return;
            };
            if !is_tool_chunk(block.get("type")) {
                return;
            }
            match delta.get("args") {
                None | Some(Value::Null) => append(block, "args", ""),
                Some(Value::String(piece)) => append(block, "args", piece),
                Some(_) => {}
            }
        }
        // Unknown delta types: ignored, the block is kept.
        _ => {}
    }
}

/// block-delta: a shallow merge, except that an id or name already known is
/// not cleared by null, and (in "auto" mode) arguments that do not extend
/// the ones held are taken as a fragment to append.
fn merge_fields(
    block: &mut Map<String, Value>,
    fields: &Map<String, Value>,
    auto_args: bool,
) -> bool {
    let mut rewrote = false;
    for (key, value) in fields {
        let held = block.get(key);
        if (key == "id" || key == "name")
            && value.is_null()
            && held.is_some_and(|held| !held.is_null())
        {
            continue;
        }
        if key == "args" && auto_args {
            if let (Some(Value::String(held)), Value::String(new)) = (held, value) {
                if !new.starts_with(held.as_str()) {
                    let new = new.clone();
                    append(block, "args", &new);
                    continue;
                }
            }
        }
        if key == "args" {
            rewrote |= rewritten(held, Some(value));
        }
        block.insert(key.clone(), value.clone());
    }
    rewrote
}

/// A legacy delta: a block-shaped fragment under `content`.
fn apply_fragment(
    message: &mut Message,
    index: u64,
    fragment: Map<String, Value>,
    auto_args: bool,
) {
    let Some(block) = message.blocks.get_mut(&index) else {
        message.blocks.insert(index, fragment);
        return;
    };
    let kind = fragment.get("type").and_then(Value::as_str);
    match kind {
        Some(kind @ ("text" | "reasoning")) => {
            if let Some(Value::String(piece)) = fragment.get(kind) {
                append(block, kind, piece);
            }
        }
        Some("tool_call_chunk" | "server_tool_call_chunk") => {
            if let Some(Value::String(piece)) = fragment.get("args") {
                append(block, "args", piece);
            }
            for key in ["id", "name"] {
                if let Some(value) = fragment.get(key).filter(|value| !value.is_null()) {
                    block.insert(key.to_owned(), value.clone());
                }
            }
        }
        _ => match fragment.get("data") {
            Some(Value::String(piece)) => append(block, "data", piece),
            _ => {
                if merge_fields(block, &fragment, auto_args) {
                    message.rewrites += 1;
                }
            }
        },
    }
}

/// Counts a rewrite when the block at `index` is replaced by one whose
/// arguments do not continue its own.
fn note_replacing(message: &mut Message, index: u64, block: &Map<String, Value>) {
    let old = message.blocks.get(&index).and_then(|old| old.get("args"));
    if rewritten(old, block.get("args")) {
        message.rewrites += 1;
    }
}

/// Python's truth value of a JSON value, for "is this field empty".
fn is_falsy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => true,
        Some(Value::Number(number)) => number.as_f64() == Some(0.0),
        Some(Value::String(text)) => text.is_empty(),
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(map)) => map.is_empty(),
        Some(Value::Bool(true)) => false,
    }
}

/// content-block-finish replaces the block, but an empty text or reasoning
/// in it does not erase what was streamed.
fn finished_block(
    held: Option<&Map<String, Value>>,
    mut last: Map<String, Value>,
) -> Map<String, Value> {
    let kind = last
        .get("type")
        .and_then(Value::as_str)
        .filter(|kind| matches!(*kind, "text" | "reasoning"));
    if let (Some(held), Some(kind)) = (held, kind) {
        let kind = kind.to_owned();
        if let Some(Value::String(streamed)) = held.get(&kind) {
            if !streamed.is_empty() && is_falsy(last.get(&kind)) {
                last.insert(kind, Value::String(streamed.clone()));
            }
        }
    }
    last
}

/// A tool-call chunk at the end of its message: a tool call when its
/// arguments are a JSON object (none at all count as `{}`), otherwise an
/// invalid tool call with the raw arguments and the reason.
fn finalize_tool_chunk(block: &Map<String, Value>) -> Map<String, Value> {
    let mut last = block.clone();
    let parsed = match block.get("args") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(raw)) if raw.is_empty() => Value::Object(Map::new()),
        Some(Value::String(raw)) => match json::parse(raw) {
            Ok(parsed) => parsed,
            Err(_) => {
                last.insert("type".to_owned(), "invalid_tool_call".into());
                last.insert("error".to_owned(), INVALID_JSON.into());
                return last;
            }
        },
        Some(other) => other.clone(),
    };
    if !parsed.is_object() {
        last.insert("type".to_owned(), "invalid_tool_call".into());
        last.insert("error".to_owned(), NOT_AN_OBJECT.into());
        return last;
    }
    let kind = match block.get("type").and_then(Value::as_str) {
        Some("server_tool_call_chunk") => "server_tool_call",
        _ => "tool_call",
    };
    last.insert("type".to_owned(), kind.into());
    last.insert("args".to_owned(), parsed);
    last
}

/// `inputTokens` -> `input_tokens`: how usage keys are normalised.
pub fn snake_case(key: &str) -> String {
    if !key.chars().any(char::is_uppercase) {
        return key.to_owned();
    }
    let mut out = String::with_capacity(key.len() + 4);
    let mut previous: Option<char> = None;
    for c in key.chars() {
        if c.is_ascii_uppercase()
            && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(c);
        previous = Some(c);
    }
    out.to_lowercase()
}

fn snake_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (snake_case(key), snake_keys(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn finish_message(message: &mut Message, data: &Map<String, Value>) {
    let usage = match data.get("usage") {
        Some(usage @ Value::Object(_)) => snake_keys(usage),
        _ => Value::Null,
    };
    message.fields.insert("usage".to_owned(), usage);
    let metadata = first(data, &["metadata", "response_metadata", "responseMetadata"])
        .filter(|m| m.is_object());
    message.fields.insert(
        "response_metadata".to_owned(),
        metadata.cloned().unwrap_or(Value::Null),
    );
    let mut reason = first(data, &["reason", "finish_reason"]).filter(|reason| !reason.is_null());
    if reason.is_none() {
        reason = metadata.and_then(|metadata| metadata.get("finish_reason"));
    }
    let reason = reason
        .filter(|reason| reason.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    message.fields.insert("finish_reason".to_owned(), reason);
    let open_chunks: Vec<u64> = message
        .blocks
        .iter()
        .filter(|(index, block)| {
            !message.finished.contains(index) && is_tool_chunk(block.get("type"))
        })
        .map(|(index, _)| *index)
        .collect();
    for index in open_chunks {
        let last = finalize_tool_chunk(&message.blocks[&index]);
        note_replacing(message, index, &last);
        message.blocks.insert(index, last);
        message.finished.insert(index);
    }
    let incomplete: Vec<Value> = message
        .blocks
        .keys()
        .filter(|index| !message.finished.contains(index))
        .map(|index| Value::from(*index))
        .collect();
    message.set_status("completed");
    if !incomplete.is_empty() {
        message
            .extra
            .insert("incomplete_blocks".to_owned(), Value::Array(incomplete));
    }
    for (key, value) in data {
        if !FINISH_KEYS.contains(&key.as_str()) && !message.extra.contains_key(key) {
            message.extra.insert(key.clone(), value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/fixtures/langchain/parallel_tool_calls.sse");

    #[test]
    fn langchain_core_stream_in_any_chunking() {
        let mut whole = Assembler::default();
        whole.feed(FIXTURE.as_bytes()).unwrap();
        whole.close().unwrap();
        let messages = whole.messages();
        let content = messages[0]["content"].as_array().unwrap();
        let kinds: Vec<_> = content
            .iter()
            .map(|block| block["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["text", "tool_call", "tool_call"]);
        assert_eq!(content[1]["args"]["city"], "Paris");
        for size in [1, 5, 333] {
            let mut chunked = Assembler::default();
            for chunk in FIXTURE.as_bytes().chunks(size) {
                chunked.feed(chunk).unwrap();
            }
            chunked.close().unwrap();
            assert_eq!(chunked.messages(), messages);
        }
    }

    #[test]
    fn quick_path_and_full_path_agree() {
        let frames: Vec<&str> = FIXTURE
            .split("\n\n")
            .filter(|frame| !frame.is_empty())
            .collect();
        let mut quick = Assembler::default();
        let mut full = Assembler::default();
        for frame in &frames {
            quick.feed(format!("{frame}\n\n").as_bytes()).unwrap();
            let data = frame
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap();
            full.feed_event(json::parse(data).unwrap()).unwrap();
            assert_eq!(quick.messages(), full.messages());
        }
    }

    #[test]
    fn snake_case_keys() {
        assert_eq!(snake_case("inputTokens"), "input_tokens");
        assert_eq!(snake_case("input_tokens"), "input_tokens");
        assert_eq!(snake_case("cacheRead2X"), "cache_read2_x");
        assert_eq!(snake_case("ABC"), "abc");
    }

    #[test]
    fn replayed_events_are_dropped() {
        let mut assembler = Assembler::default();
        let frames: Vec<&str> = FIXTURE
            .split("\n\n")
            .filter(|frame| !frame.is_empty())
            .collect();
        for frame in frames.iter().chain(frames.iter()) {
            assembler.feed(format!("{frame}\n\n").as_bytes()).unwrap();
        }
        assert_eq!(assembler.duplicate_count(), frames.len() as u64);
    }

    fn frozen_count(assembler: &Assembler) -> usize {
        assembler
            .driver
            .protocol
            .messages
            .iter()
            .filter(|message| matches!(message, Stored::Frozen { .. }))
            .count()
    }

    /// A `messages` channel frame carrying `data` for node `node`.
    fn frame(node: &str, data: &str) -> String {
        format!(
            r#"data: {{"type":"event","method":"messages","params":{{"namespace":[],"node":"{node}","data":{data}}}}}"#
        ) + "\n\n"
    }

    #[test]
    fn a_finished_message_is_frozen_and_reads_the_same() {
        let mut assembler = Assembler::default();
        let text = [
            r#"{"event":"message-start","role":"ai","id":"a"}"#,
            r#"{"event":"content-block-start","index":2,"content":{"type":"text","text":""}}"#,
            r#"{"event":"content-block-delta","index":2,"delta":{"type":"text-delta","text":"hé"}}"#,
        ];
        for data in text {
            assembler.feed(frame("n", data).as_bytes()).unwrap();
        }
        let mut expected = assembler.messages();
        assembler
            .feed(frame("n", r#"{"event":"message-finish","reason":"stop"}"#).as_bytes())
            .unwrap();
        assert_eq!(frozen_count(&assembler), 1);
        expected[0]["status"] = "completed".into();
        expected[0]["finish_reason"] = "stop".into();
        expected[0]["content"][0]["text"] = "hé".into();
        // The block that never finished is named, as langchain-core does.
        expected[0]["incomplete_blocks"] = Value::Array(vec![2.into()]);
        assert_eq!(assembler.messages(), expected);
        // A message with a tool call stays live, for `tool_calls`; one that
        // failed is frozen too.
        let call = [
            r#"{"event":"message-start","role":"ai","id":"b"}"#,
            r#"{"event":"content-block-start","index":0,"content":{"type":"tool_call_chunk","id":"c","name":"f","args":"{}"}}"#,
            r#"{"event":"message-finish"}"#,
            r#"{"event":"message-start","role":"ai","id":"c"}"#,
            r#"{"event":"error","message":"boom"}"#,
            // One cut short by the next.
            r#"{"event":"message-start","role":"ai","id":"d"}"#,
            r#"{"event":"message-start","role":"ai","id":"e"}"#,
        ];
        for data in call {
            assembler.feed(frame("m", data).as_bytes()).unwrap();
        }
        assert_eq!(frozen_count(&assembler), 3);
        assert_eq!(assembler.messages()[3]["status"], "incomplete");
        assert_eq!(assembler.tool_calls().calls.len(), 1);
        assert_eq!(assembler.messages()[2]["status"], "error");
    }
}
