//! AG-UI to and from the neutral vocabulary.
//! `python/agentcodec/_pure/agui/events.py` mirrors this module rule for
//! rule (and says what each direction does).

use std::collections::BTreeSet;

use super::vocabulary::CHUNK_PASS_THROUGH;
pub use super::vocabulary::KNOWN;
use crate::events::{
    as_int, block_delta, block_finished, block_replaced, block_started, frame_sse, get, get_str,
    has_annotations, message_finished, message_started, nonempty, or_null, passthrough, run_failed,
    run_finished, run_started, state_patch, state_snapshot, BlockRef, Decode, Encode, Event, Loss,
};
use crate::hashing::{HashMap, HashSet, IndexMap};
use crate::json::{self, write_string, Map, Value};
use crate::partial_json::PartialJson;

/// AG-UI usage keys, by the neutral (snake_case) name, in the model's order.
const USAGE_KEYS: [(&str, &str); 5] = [
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("reasoning_tokens", "reasoningTokens"),
    ("cached_input_tokens", "cachedInputTokens"),
];
const TEXT_ROLES: [&str; 4] = ["developer", "system", "assistant", "user"];

/// A field in its wire spelling or, when that is absent or null, in snake_case.
fn field<'e>(event: &'e Event, camel: &str, snake: &str) -> Option<&'e Value> {
    get(event, camel).or_else(|| get(event, snake))
}

fn field_str<'e>(event: &'e Event, camel: &str, snake: &str) -> Option<&'e str> {
    field(event, camel, snake).and_then(Value::as_str)
}

/// AG-UI's list of token counts as one neutral usage: counts summed.
fn usage_from_agui(usage: Option<&Value>) -> Value {
    let Some(Value::Array(entries)) = usage else {
        return Value::Null;
    };
    let mut total = Map::new();
    for entry in entries {
        let Value::Object(entry) = entry else {
            continue;
        };
        for (neutral, wire) in USAGE_KEYS {
            if let Some(count) = as_int(entry.get(wire)) {
                let sum = total.get(neutral).and_then(Value::as_i64).unwrap_or(0);
                total.insert(neutral.to_owned(), sum.saturating_add(count).into());
            }
        }
    }
    if total.is_empty() {
        Value::Null
    } else {
        Value::Object(total)
    }
}

fn usage_to_agui(usage: Option<&Value>) -> Option<Value> {
    let Some(Value::Object(usage)) = usage else {
        return None;
    };
    let mut entry = Map::new();
    for (neutral, wire) in USAGE_KEYS {
        if as_int(usage.get(neutral)).is_some() {
            entry.insert(wire.to_owned(), usage[neutral].clone());
        }
    }
    (!entry.is_empty()).then(|| Value::Array(vec![Value::Object(entry)]))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Text,
    Tool,
    Reasoning,
}

#[derive(Debug, Clone, Default)]
struct DecodedMessage {
    /// The next block's index.
    blocks: i64,
    open: HashSet<i64>,
    /// Created for a tool call without a parent: finished with its last block.
    synthetic: bool,
}

#[derive(Debug, Clone)]
struct DecodedCall {
    /// The message its block is in, and the block's index.
    owner: String,
    index: i64,
    name: Value,
    /// Its arguments read so far, to know when they are whole.
    arguments: PartialJson,
    /// Whether any argument text came.
    streamed: bool,
}

impl DecodedCall {
    /// Whether its arguments can take no more: whole, or not JSON. (None
    /// at all counts as whole: the call has none.)
    fn complete(&self) -> bool {
        !self.streamed || self.arguments.complete_at_end() || self.arguments.error().is_some()
    }
}

/// AG-UI events to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    messages: HashMap<String, DecodedMessage>,
    /// AG-UI message id -> its open text or reasoning block's index.
    text: HashMap<String, i64>,
    reasoning: HashMap<String, i64>,
    calls: HashMap<String, DecodedCall>,
    /// The calls whose TOOL_CALL_END came before their arguments were
    /// whole, in that order: producers that interleave parallel calls
    /// (pydantic-ai) send arguments after the end, which the AG-UI client
    /// appends. Each finishes when its arguments are whole, or when the
    /// run ends.
    deferred: Vec<String>,
    chunk: Option<(Chunk, String)>,
    thinking: Option<String>,
    events: u64,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.events += 1;
        let kind = get_str(event, "type").unwrap_or("");
        let chunk = match kind {
            "TEXT_MESSAGE_CHUNK" => Some(Chunk::Text),
            "TOOL_CALL_CHUNK" => Some(Chunk::Tool),
            "REASONING_MESSAGE_CHUNK" => Some(Chunk::Reasoning),
            _ => None,
        };
        if let Some(mode) = chunk {
            self.expand_chunk(mode, event, out);
            return;
        }
        if KNOWN.contains(&kind) && !CHUNK_PASS_THROUGH.contains(&kind) && self.chunk.is_some() {
            self.close_chunk(out);
        }
        match kind {
            "RUN_STARTED" => out.push(run_started(
                or_null(field(event, "runId", "run_id")),
                or_null(field(event, "threadId", "thread_id")),
                Value::Null,
                Value::Null,
            )),
            "RUN_FINISHED" => {
                self.finish_deferred(out);
                let outcome = get(event, "outcome")
                    .and_then(|outcome| outcome.get("type"))
                    .and_then(Value::as_str);
                let status = match outcome {
                    Some("cancelled") => "cancelled",
                    Some("interrupt") => "interrupted",
                    _ => "completed",
                };
                out.push(run_finished(
                    status,
                    usage_from_agui(get(event, "usage")),
                    or_null(get(event, "result")),
                ));
            }
            "RUN_ERROR" => {
                self.finish_deferred(out);
                out.push(run_failed(
                    or_null(get(event, "code")),
                    or_null(get(event, "message")),
                    usage_from_agui(get(event, "usage")),
                ));
            }
            "TEXT_MESSAGE_START"
            | "TEXT_MESSAGE_CONTENT"
            | "TEXT_MESSAGE_END"
            | "REASONING_MESSAGE_START"
            | "REASONING_MESSAGE_CONTENT"
            | "REASONING_MESSAGE_END" => self.text_event(kind, event, out),
            "TOOL_CALL_START" | "TOOL_CALL_ARGS" | "TOOL_CALL_END" => {
                self.tool_event(kind, event, out)
            }
            "TOOL_CALL_RESULT" => self.tool_result(event, out),
            "REASONING_ENCRYPTED_VALUE" => self.encrypted_value(event, out),
            "STATE_SNAPSHOT" => out.push(state_snapshot(or_null(get(event, "snapshot")))),
            "STATE_DELTA" => out.push(state_patch(or_null(get(event, "delta")))),
            "THINKING_TEXT_MESSAGE_START"
            | "THINKING_TEXT_MESSAGE_CONTENT"
            | "THINKING_TEXT_MESSAGE_END" => self.thinking(kind, event, out),
            _ => out.push(passthrough("agui", event)),
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        self.finish_deferred(out);
    }
}

impl Decoder {
    fn open_message(&mut self, message_id: &str, role: &str, kind: &str, out: &mut Vec<Event>) {
        if !self.messages.contains_key(message_id) {
            self.messages.insert(
                message_id.to_owned(),
                DecodedMessage {
                    synthetic: kind == "tool_call",
                    ..DecodedMessage::default()
                },
            );
            out.push(message_started(message_id, role, Some(kind)));
        }
    }

    fn open_block(
        &mut self,
        message_id: &str,
        kind: &str,
        fields: &[(&str, Value)],
        out: &mut Vec<Event>,
    ) -> i64 {
        let message = self
            .messages
            .get_mut(message_id)
            .expect("the message was opened");
        let index = message.blocks;
        message.blocks += 1;
        message.open.insert(index);
        out.push(block_started(message_id, index, kind, fields));
        index
    }

    fn close_block(
        &mut self,
        message_id: &str,
        index: i64,
        finish_message: bool,
        out: &mut Vec<Event>,
    ) {
        let message = self
            .messages
            .get_mut(message_id)
            .expect("the message was opened");
        if message.open.remove(&index) {
            out.push(block_finished(message_id, index));
            if finish_message && message.open.is_empty() {
                out.push(message_finished(message_id, Value::Null, Value::Null));
            }
        }
    }

    fn blocks(&mut self, reasoning: bool) -> &mut HashMap<String, i64> {
        if reasoning {
            &mut self.reasoning
        } else {
            &mut self.text
        }
    }

    fn open_text(
        &mut self,
        message_id: &str,
        role: Option<&str>,
        reasoning: bool,
        out: &mut Vec<Event>,
    ) {
        if self.blocks(reasoning).contains_key(message_id) {
            return; // already open: the client ignores a second start
        }
        if reasoning {
            self.open_message(message_id, "assistant", "reasoning", out);
        } else {
            self.open_message(
                message_id,
                nonempty(role).unwrap_or("assistant"),
                "message",
                out,
            );
        }
        let kind = if reasoning { "reasoning" } else { "text" };
        let index = self.open_block(message_id, kind, &[], out);
        self.blocks(reasoning).insert(message_id.to_owned(), index);
    }

    fn append_text(
        &mut self,
        message_id: &str,
        delta: &str,
        reasoning: bool,
        out: &mut Vec<Event>,
    ) {
        if !self.blocks(reasoning).contains_key(message_id) {
            self.open_text(message_id, None, reasoning, out);
        }
        if !delta.is_empty() {
            let index = self.blocks(reasoning)[message_id];
            out.push(block_delta(message_id, index, delta));
        }
    }

    fn close_text(&mut self, message_id: &str, reasoning: bool, out: &mut Vec<Event>) {
        if let Some(index) = self.blocks(reasoning).remove(message_id) {
            self.close_block(message_id, index, true, out);
        }
    }

    fn open_call(
        &mut self,
        call_id: &str,
        name: Value,
        parent: Option<&str>,
        out: &mut Vec<Event>,
    ) {
        if let Some(call) = self.calls.get_mut(call_id) {
            if call.name != name {
                // A replayed start renames the call.
                call.name = name.clone();
                out.push(block_replaced(
                    &call.owner,
                    call.index,
                    vec![("name", name)],
                ));
            }
            return;
        }
        let owner = parent.unwrap_or(call_id).to_owned();
        self.open_message(&owner, "assistant", "tool_call", out);
        let fields = [
            ("call_id", Value::from(call_id)),
            ("name", name.clone()),
            ("tool", "function".into()),
        ];
        let index = self.open_block(&owner, "tool_call", &fields, out);
        let call = DecodedCall {
            owner,
            index,
            name,
            arguments: PartialJson::default(),
            streamed: false,
        };
        self.calls.insert(call_id.to_owned(), call);
    }

    /// Appends to a call's arguments; a call whose end came early finishes
    /// once they are whole.
    fn append_arguments(&mut self, call_id: &str, delta: &str, out: &mut Vec<Event>) {
        let Some(call) = self.calls.get_mut(call_id) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        out.push(block_delta(&call.owner, call.index, delta));
        if call.arguments.error().is_none() {
            let _ = call
                .arguments
                .feed(delta.as_bytes(), &mut crate::partial_json::Validate);
        }
        call.streamed = true;
        if call.complete() && self.deferred.iter().any(|id| id == call_id) {
            self.deferred.retain(|id| id != call_id);
            self.close_call(call_id, out);
        }
    }

    /// TOOL_CALL_END: the call finishes, unless its arguments are not whole
    /// yet (more may follow: see `deferred`).
    fn end_call(&mut self, call_id: &str, out: &mut Vec<Event>) {
        let Some(call) = self.calls.get(call_id) else {
            return;
        };
        if call.complete() {
            self.close_call(call_id, out);
        } else if !self.deferred.iter().any(|id| id == call_id) {
            self.deferred.push(call_id.to_owned());
        }
    }

    /// The run ends: the calls still waiting for their arguments finish.
    fn finish_deferred(&mut self, out: &mut Vec<Event>) {
        for call_id in std::mem::take(&mut self.deferred) {
            self.close_call(&call_id, out);
        }
    }

    fn close_call(&mut self, call_id: &str, out: &mut Vec<Event>) {
        if let Some(call) = self.calls.get(call_id) {
            let (owner, index) = (call.owner.clone(), call.index);
            let synthetic = self.messages[&owner].synthetic;
            self.close_block(&owner, index, synthetic, out);
        }
    }

    fn text_event(&mut self, kind: &str, event: &Event, out: &mut Vec<Event>) {
        let reasoning = kind.starts_with("REASONING");
        let message_id = field_str(event, "messageId", "message_id");
        let delta = event.get("delta").and_then(Value::as_str);
        let content = kind.ends_with("_CONTENT");
        match message_id {
            Some(message_id) if !content || delta.is_some() => {
                if kind.ends_with("_START") {
                    let role = get_str(event, "role");
                    self.open_text(message_id, role, reasoning, out);
                } else if content {
                    self.append_text(message_id, delta.unwrap_or(""), reasoning, out);
                } else {
                    self.close_text(message_id, reasoning, out);
                }
            }
            _ => out.push(passthrough("agui", event)),
        }
    }

    fn tool_event(&mut self, kind: &str, event: &Event, out: &mut Vec<Event>) {
        let call_id = field_str(event, "toolCallId", "tool_call_id");
        let delta = event.get("delta").and_then(Value::as_str);
        let Some(call_id) = call_id else {
            out.push(passthrough("agui", event));
            return;
        };
        match kind {
            "TOOL_CALL_START" => {
                let name = or_null(field(event, "toolCallName", "tool_call_name"));
                let parent = field_str(event, "parentMessageId", "parent_message_id");
                self.open_call(
                    call_id,
                    name,
                    parent.filter(|parent| !parent.is_empty()),
                    out,
                );
            }
            "TOOL_CALL_ARGS" => match (self.calls.contains_key(call_id), delta) {
                (true, Some(delta)) => self.append_arguments(call_id, delta, out),
                _ => out.push(passthrough("agui", event)),
            },
            _ => self.end_call(call_id, out),
        }
    }

    fn tool_result(&mut self, event: &Event, out: &mut Vec<Event>) {
        let message_id = field_str(event, "messageId", "message_id");
        let call_id = field_str(event, "toolCallId", "tool_call_id");
        let content = event
            .get("content")
            .filter(|content| content.is_string() || content.is_array());
        let (Some(message_id), Some(call_id), Some(content)) = (message_id, call_id, content)
        else {
            out.push(passthrough("agui", event));
            return;
        };
        let name = self
            .calls
            .get(call_id)
            .map_or(Value::Null, |call| call.name.clone());
        if !self.messages.contains_key(message_id) {
            self.messages
                .insert(message_id.to_owned(), DecodedMessage::default());
            out.push(message_started(message_id, "tool", Some("tool_result")));
        }
        let fields = [("call_id", Value::from(call_id)), ("name", name)];
        let index = self.open_block(message_id, "tool_result", &fields, out);
        match content {
            Value::String(text) => {
                if !text.is_empty() {
                    out.push(block_delta(message_id, index, text));
                }
            }
            parts => out.push(block_replaced(
                message_id,
                index,
                vec![("output", parts.clone())],
            )),
        }
        self.close_block(message_id, index, true, out);
    }

    fn encrypted_value(&mut self, event: &Event, out: &mut Vec<Event>) {
        let entity = field_str(event, "entityId", "entity_id");
        let value = or_null(field(event, "encryptedValue", "encrypted_value"));
        let target = match entity {
            Some(entity) if get_str(event, "subtype") == Some("tool-call") => self
                .calls
                .get(entity)
                .map(|call| (call.owner.clone(), call.index)),
            Some(entity) => self
                .messages
                .get(entity)
                .map(|message| (entity.to_owned(), (message.blocks - 1).max(0))),
            None => None,
        };
        match target {
            Some((message_id, index)) => out.push(block_replaced(
                &message_id,
                index,
                vec![("encrypted", value)],
            )),
            None => out.push(passthrough("agui", event)),
        }
    }

    /// `transformChunks`: a chunk continues what the last one opened, or
    /// closes it and opens its own.
    fn expand_chunk(&mut self, mode: Chunk, event: &Event, out: &mut Vec<Event>) {
        let chunk_id = if mode == Chunk::Tool {
            field_str(event, "toolCallId", "tool_call_id")
        } else {
            field_str(event, "messageId", "message_id")
        };
        let switches = match mode {
            Chunk::Reasoning => chunk_id.is_some_and(|id| !id.is_empty()),
            _ => chunk_id.is_some(),
        };
        if let Some((open_mode, open_id)) = &self.chunk {
            if *open_mode != mode || (switches && chunk_id != Some(open_id.as_str())) {
                self.close_chunk(out);
            }
        }
        if self.chunk.is_none() {
            let name = field(event, "toolCallName", "tool_call_name");
            let Some(chunk_id) = chunk_id.filter(|_| mode != Chunk::Tool || name.is_some()) else {
                out.push(passthrough("agui", event));
                return;
            };
            if mode == Chunk::Tool {
                let parent = field_str(event, "parentMessageId", "parent_message_id");
                self.open_call(
                    chunk_id,
                    or_null(name),
                    parent.filter(|parent| !parent.is_empty()),
                    out,
                );
            } else {
                let role = get_str(event, "role");
                self.open_text(chunk_id, role, mode == Chunk::Reasoning, out);
            }
            self.chunk = Some((mode, chunk_id.to_owned()));
        }
        let Some(delta) = event.get("delta").and_then(Value::as_str) else {
            return;
        };
        let open_id = self
            .chunk
            .as_ref()
            .map(|(_, id)| id.clone())
            .unwrap_or_default();
        if mode != Chunk::Tool {
            self.append_text(&open_id, delta, mode == Chunk::Reasoning, out);
        } else {
            self.append_arguments(&open_id, delta, out);
        }
    }

    fn close_chunk(&mut self, out: &mut Vec<Event>) {
        if let Some((mode, chunk_id)) = self.chunk.take() {
            if mode == Chunk::Tool {
                self.close_call(&chunk_id, out);
            } else {
                self.close_text(&chunk_id, mode == Chunk::Reasoning, out);
            }
        }
    }

    /// AG-UI before 1.0: THINKING_TEXT_MESSAGE_* are reasoning, with the id
    /// `thinking-` and the number of the event that opened it.
    fn thinking(&mut self, kind: &str, event: &Event, out: &mut Vec<Event>) {
        if kind == "THINKING_TEXT_MESSAGE_START" {
            let id = format!("thinking-{}", self.events);
            self.open_text(&id, None, true, out);
            self.thinking = Some(id);
            return;
        }
        let Some(id) = self.thinking.clone() else {
            return;
        };
        if kind == "THINKING_TEXT_MESSAGE_CONTENT" {
            if let Some(delta) = event.get("delta").and_then(Value::as_str) {
                self.append_text(&id, delta, true, out);
            }
        } else {
            self.close_text(&id, true, out);
            self.thinking = None;
        }
    }
}

// --- encoding --------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Reasoning,
    ToolCall,
    ToolResult,
}

#[derive(Debug, Clone)]
struct EncodedBlock {
    kind: BlockKind,
    /// The AG-UI message or tool call it writes to.
    agui_id: String,
    /// A tool result's call.
    call_id: String,
    /// A tool result's text so far, or the content parts that replaced it.
    text: String,
    parts: Option<Value>,
    /// A streamed delta's event as written up to the delta: the same for
    /// every delta of the block, so written once (empty until the first).
    framing: Vec<u8>,
}

/// Neutral events to AG-UI events, in the form ag-ui-protocol serialises.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    options: (Option<String>, Option<String>),
    thread_id: Option<String>,
    run_id: Option<String>,
    started: bool,
    ended: bool,
    /// message id -> (role, kind).
    messages: HashMap<String, (String, Option<String>)>,
    blocks: IndexMap<(String, i64), EncodedBlock>,
    /// The run's finished blocks that may still take an encrypted value
    /// (text, reasoning, tool calls): (kind, the AG-UI id it goes to).
    finished: HashMap<(String, i64), (BlockKind, String)>,
    open_text: IndexMap<String, u32>,
    open_reasoning: IndexMap<String, u32>,
    open_calls: BTreeSet<String>,
}

fn agui_event(kind: &str, fields: Vec<(&str, Value)>) -> Event {
    let mut event = Map::with_capacity(fields.len() + 1);
    event.insert("type".to_owned(), kind.into());
    for (key, value) in fields {
        event.insert(key.to_owned(), value);
    }
    event
}

impl Encoder {
    pub fn new(thread_id: Option<String>, run_id: Option<String>) -> Self {
        Encoder {
            options: (thread_id.clone(), run_id.clone()),
            thread_id,
            run_id,
            ..Encoder::default()
        }
    }

    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        let thread_id = self
            .thread_id
            .take()
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| "thread".to_owned());
        let run_id = self
            .run_id
            .take()
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| "run".to_owned());
        self.thread_id = Some(thread_id.clone());
        self.run_id = Some(run_id.clone());
        out.push(agui_event(
            "RUN_STARTED",
            vec![("threadId", thread_id.into()), ("runId", run_id.into())],
        ));
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        for message_id in self.open_text.keys() {
            out.push(agui_event(
                "TEXT_MESSAGE_END",
                vec![("messageId", message_id.as_str().into())],
            ));
        }
        for message_id in self.open_reasoning.keys() {
            out.push(agui_event(
                "REASONING_MESSAGE_END",
                vec![("messageId", message_id.as_str().into())],
            ));
        }
        for call_id in &self.open_calls {
            out.push(agui_event(
                "TOOL_CALL_END",
                vec![("toolCallId", call_id.as_str().into())],
            ));
        }
        self.open_text.clear();
        self.open_reasoning.clear();
        self.open_calls.clear();
    }

    fn run_ids(&self) -> Vec<(&'static str, Value)> {
        vec![
            (
                "threadId",
                self.thread_id.clone().map_or(Value::Null, Value::from),
            ),
            (
                "runId",
                self.run_id.clone().map_or(Value::Null, Value::from),
            ),
        ]
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.close_all(out);
        let mut fields = self.run_ids();
        if let Some(result) = get(event, "result") {
            fields.push(("result", result.clone()));
        }
        let status = get_str(event, "status");
        let carried = if status == Some("cancelled") {
            "cancelled"
        } else {
            "completed"
        };
        self.lost.extend(Loss::status("agui", status, carried));
        if status == Some("cancelled") {
            let mut outcome = Map::new();
            outcome.insert("type".to_owned(), "cancelled".into());
            fields.push(("outcome", Value::Object(outcome)));
        }
        if let Some(usage) = usage_to_agui(get(event, "usage")) {
            fields.push(("usage", usage));
        }
        out.push(agui_event("RUN_FINISHED", fields));
        self.ended = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.close_all(out);
        let message = get_str(event, "message").unwrap_or("run failed");
        let mut fields = vec![("message", Value::from(message))];
        if let Some(code) = get_str(event, "code") {
            fields.push(("code", code.into()));
        }
        if let Some(usage) = usage_to_agui(get(event, "usage")) {
            fields.push(("usage", usage));
        }
        out.push(agui_event("RUN_ERROR", fields));
        self.ended = true;
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let (role, message_kind) = self
            .messages
            .get(message_id)
            .cloned()
            .unwrap_or_else(|| ("assistant".to_owned(), None));
        let new_block = |kind, agui_id: &str| EncodedBlock {
            kind,
            agui_id: agui_id.to_owned(),
            call_id: String::new(),
            text: String::new(),
            parts: None,
            framing: Vec::new(),
        };
        let block = match get_str(event, "kind") {
            Some(kind @ ("text" | "refusal")) => {
                if kind == "refusal" {
                    self.lost.push(Loss::refusal("agui"));
                }
                if !self.open_text.contains_key(message_id) {
                    let role = if TEXT_ROLES.contains(&role.as_str()) {
                        role.as_str()
                    } else {
                        "assistant"
                    };
                    out.push(agui_event(
                        "TEXT_MESSAGE_START",
                        vec![("messageId", message_id.into()), ("role", role.into())],
                    ));
                }
                *self.open_text.entry(message_id.to_owned()).or_insert(0) += 1;
                new_block(BlockKind::Text, message_id)
            }
            Some("reasoning") => {
                let agui_id = if message_kind.as_deref() == Some("reasoning") {
                    message_id.to_owned()
                } else {
                    format!("{message_id}-reasoning")
                };
                if !self.open_reasoning.contains_key(&agui_id) {
                    out.push(agui_event(
                        "REASONING_MESSAGE_START",
                        vec![
                            ("messageId", agui_id.as_str().into()),
                            ("role", "reasoning".into()),
                        ],
                    ));
                }
                *self.open_reasoning.entry(agui_id.clone()).or_insert(0) += 1;
                new_block(BlockKind::Reasoning, &agui_id)
            }
            Some("tool_call") => {
                self.lost.extend(Loss::server("agui", event));
                self.lost.extend(Loss::tool_kind("agui", event, &[]));
                let call_id = nonempty(get_str(event, "call_id"))
                    .map_or_else(|| format!("{message_id}-{index}"), str::to_owned);
                let name = get_str(event, "name").unwrap_or("");
                let mut fields = vec![
                    ("toolCallId", Value::from(call_id.as_str())),
                    ("toolCallName", name.into()),
                ];
                if message_id != call_id {
                    fields.push(("parentMessageId", message_id.into()));
                }
                out.push(agui_event("TOOL_CALL_START", fields));
                self.open_calls.insert(call_id.clone());
                new_block(BlockKind::ToolCall, &call_id)
            }
            Some("tool_result") => {
                let mut block = new_block(BlockKind::ToolResult, message_id);
                block.call_id = get_str(event, "call_id").unwrap_or("").to_owned();
                block
            }
            // Media and data have no place in AG-UI.
            other => {
                self.lost.push(Loss::block("agui", other.unwrap_or("")));
                return;
            }
        };
        self.blocks.insert((message_id.to_owned(), index), block);
    }

    fn block_key(event: &Event) -> Option<(String, i64)> {
        Some((
            get_str(event, "message_id")?.to_owned(),
            as_int(event.get("index"))?,
        ))
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(block) = Self::block_key(event).and_then(|key| self.blocks.get_mut(&key)) else {
            return;
        };
        let Some(delta) = event
            .get("delta")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        else {
            return;
        };
        let (kind, id_key) = match block.kind {
            BlockKind::Text => ("TEXT_MESSAGE_CONTENT", "messageId"),
            BlockKind::Reasoning => ("REASONING_MESSAGE_CONTENT", "messageId"),
            BlockKind::ToolCall => ("TOOL_CALL_ARGS", "toolCallId"),
            BlockKind::ToolResult => {
                if block.parts.is_none() {
                    block.text.push_str(delta);
                }
                return;
            }
        };
        out.push(agui_event(
            kind,
            vec![
                (id_key, block.agui_id.as_str().into()),
                ("delta", delta.into()),
            ],
        ));
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = Self::block_key(event) else {
            return;
        };
        // AG-UI only appends: a correction of streamed text has no place.
        let corrected = match self.blocks.get(&key).map(|block| block.kind) {
            Some(BlockKind::Text) => Some("text"),
            Some(BlockKind::Reasoning) => Some("reasoning"),
            _ => None,
        };
        if let (Some(kind), Some(_)) = (corrected, get_str(event, "text")) {
            self.lost.push(Loss::correction("agui", kind));
        }
        let Some(block) = self.blocks.get_mut(&key) else {
            // AG-UI's encrypted value names its message or tool call, so it
            // may follow their end.
            if let (Some((kind, agui_id)), Some(encrypted)) = (
                self.finished.get(&key),
                event.get("encrypted").and_then(Value::as_str),
            ) {
                out.push(encrypted_value(*kind, agui_id, encrypted));
            }
            return;
        };
        if has_annotations(event) {
            self.lost.push(Loss::annotations("agui"));
        }
        if block.kind == BlockKind::ToolResult {
            if let Some(output) = event.get("output") {
                match output {
                    Value::String(text) => {
                        block.text = text.clone();
                        block.parts = None;
                    }
                    Value::Null => {
                        block.text.clear();
                        block.parts = None;
                    }
                    Value::Array(parts) if parts.iter().all(is_content_part) => {
                        block.text.clear();
                        block.parts = Some(output.clone());
                    }
                    // AG-UI's content is a string or parts: any other value as its JSON.
                    other => {
                        let text = json::to_text(other);
                        // Once a block: the same value again is the same text.
                        if text != block.text {
                            self.lost.push(Loss::result_as_json("agui"));
                        }
                        block.text = text;
                        block.parts = None;
                    }
                }
            }
        }
        if let Some(encrypted) = event.get("encrypted").and_then(Value::as_str) {
            if block.kind != BlockKind::ToolResult {
                out.push(encrypted_value(block.kind, &block.agui_id, encrypted));
            }
        }
        // Text, reasoning and arguments only grow in AG-UI: a replacement
        // that is not an extension cannot be carried.
    }

    fn block_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some((key, block)) = Self::block_key(event)
            .and_then(|key| self.blocks.swap_remove_full(&key))
            .map(|(_, key, block)| (key, block))
        else {
            return;
        };
        if block.kind != BlockKind::ToolResult {
            self.finished
                .insert(key, (block.kind, block.agui_id.clone()));
        }
        match block.kind {
            BlockKind::Text => {
                release(&mut self.open_text, &block.agui_id, "TEXT_MESSAGE_END", out)
            }
            BlockKind::Reasoning => release(
                &mut self.open_reasoning,
                &block.agui_id,
                "REASONING_MESSAGE_END",
                out,
            ),
            BlockKind::ToolCall => {
                if self.open_calls.remove(&block.agui_id) {
                    out.push(agui_event(
                        "TOOL_CALL_END",
                        vec![("toolCallId", block.agui_id.into())],
                    ));
                }
            }
            BlockKind::ToolResult => {
                let content = block.parts.unwrap_or(Value::String(block.text));
                out.push(agui_event(
                    "TOOL_CALL_RESULT",
                    vec![
                        ("messageId", block.agui_id.into()),
                        ("toolCallId", block.call_id.into()),
                        ("content", content),
                        ("role", "tool".into()),
                    ],
                ));
            }
        }
    }
}

/// The encrypted value of a message (text, reasoning) or a tool call.
fn encrypted_value(kind: BlockKind, agui_id: &str, encrypted: &str) -> Event {
    let subtype = if kind == BlockKind::ToolCall {
        "tool-call"
    } else {
        "message"
    };
    agui_event(
        "REASONING_ENCRYPTED_VALUE",
        vec![
            ("subtype", subtype.into()),
            ("entityId", agui_id.into()),
            ("encryptedValue", encrypted.into()),
        ],
    )
}

fn release(open: &mut IndexMap<String, u32>, agui_id: &str, end: &str, out: &mut Vec<Event>) {
    let Some(count) = open.get_mut(agui_id) else {
        return;
    };
    *count -= 1;
    if *count == 0 {
        open.shift_remove(agui_id);
        out.push(agui_event(end, vec![("messageId", agui_id.into())]));
    }
}

impl Encode for Encoder {
    /// A stream may hold more runs: only a new run follows the end.
    fn has_ended_before(&self, kind: &str) -> bool {
        self.ended && kind != "run_started"
    }

    /// Another protocol's events go out as `RAW` events, naming it.
    fn keeps_foreign_events(&self) -> bool {
        true
    }

    /// `STATE_SNAPSHOT` and `STATE_DELTA`.
    fn carries_state(&self) -> bool {
        true
    }

    /// `RUN_FINISHED`'s `result`.
    fn carries_run_result(&self) -> bool {
        true
    }

    /// An encrypted value, for a text, reasoning or tool call block of the
    /// run: it names its message or tool call, not the block.
    fn writes_after_block_end(&self, replaced: &Event) -> &'static [&'static str] {
        let known = Self::block_key(replaced).is_some_and(|key| self.finished.contains_key(&key));
        if known && replaced.get("encrypted").is_some_and(Value::is_string) {
            &["encrypted", "encrypted_by"]
        } else {
            &[]
        }
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" {
            if self.started && !self.ended {
                return;
            }
            if self.ended {
                // A new run on the same stream.
                self.started = false;
                self.ended = false;
                self.thread_id = None;
                self.run_id = None;
                self.finished.clear();
            }
            let from_event = |key| nonempty(get_str(event, key)).map(str::to_owned);
            let given = |value: Option<String>| value.filter(|text| !text.is_empty());
            self.thread_id = given(self.thread_id.take())
                .or_else(|| given(self.options.0.clone()))
                .or_else(|| from_event("thread_id"));
            self.run_id = given(self.run_id.take())
                .or_else(|| given(self.options.1.clone()))
                .or_else(|| from_event("run_id"));
        } else if self.ended {
            return; // nothing may follow RUN_FINISHED or RUN_ERROR but a new run
        }
        self.ensure_started(out);
        match kind {
            // A message's usage has no place: only the run's.
            "message_finished" => self.lost.extend(Loss::usage("agui", event)),
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "message_started" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    let role = nonempty(get_str(event, "role")).unwrap_or("assistant");
                    let message_kind = get_str(event, "kind").map(str::to_owned);
                    self.messages
                        .insert(message_id.to_owned(), (role.to_owned(), message_kind));
                }
            }
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => self.block_finished(event, out),
            "state_snapshot" => out.push(agui_event(
                "STATE_SNAPSHOT",
                vec![("snapshot", or_null(get(event, "snapshot")))],
            )),
            "state_patch" => out.push(agui_event(
                "STATE_DELTA",
                vec![("delta", or_null(get(event, "patch")))],
            )),
            "passthrough" => match (get_str(event, "protocol"), event.get("event")) {
                (Some("agui"), Some(Value::Object(inner))) => out.push(inner.clone()),
                (protocol, inner) => {
                    let mut fields = vec![("event", or_null(inner))];
                    if let Some(protocol) = protocol {
                        fields.push(("source", protocol.into()));
                    }
                    out.push(agui_event("RAW", fields));
                }
            },
            _ => {}
        }
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
        if self.ended {
            return true; // nothing follows the end
        }
        if !self.started {
            return false; // RUN_STARTED comes first
        }
        if delta.is_empty() {
            return true; // an empty delta says nothing
        }
        let Some(block) = self.blocks.get_mut(&BlockRef(message_id, index)) else {
            return true;
        };
        let (kind, id_key): (&[u8], &[u8]) = match block.kind {
            BlockKind::Text => (b"TEXT_MESSAGE_CONTENT", b"messageId"),
            BlockKind::Reasoning => (b"REASONING_MESSAGE_CONTENT", b"messageId"),
            BlockKind::ToolCall => (b"TOOL_CALL_ARGS", b"toolCallId"),
            BlockKind::ToolResult => {
                if block.parts.is_none() {
                    block.text.push_str(delta);
                }
                return true;
            }
        };
        // What frame() writes for {"type", id_key, "delta"}: all but the
        // delta is the block's own framing.
        if block.framing.is_empty() {
            let framing = &mut block.framing;
            framing.extend_from_slice(b"data: {\"type\":\"");
            framing.extend_from_slice(kind);
            framing.extend_from_slice(b"\",\"");
            framing.extend_from_slice(id_key);
            framing.extend_from_slice(b"\":");
            write_string(framing, &block.agui_id);
            framing.extend_from_slice(b",\"delta\":");
        }
        out.reserve(block.framing.len() + delta.len() + 5);
        out.extend_from_slice(&block.framing);
        write_string(out, delta);
        out.extend_from_slice(b"}\n\n");
        true
    }
}

/// The content parts a tool result may carry (AG-UI 1.0's InputContent).
const CONTENT_PART_TYPES: [&str; 5] = ["text", "image", "audio", "video", "document"];

fn is_content_part(part: &Value) -> bool {
    part.get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| CONTENT_PART_TYPES.contains(&kind))
}
