//! Assembling an AG-UI event stream into the run the AG-UI client holds.
//! `python/agentcodec/_pure/agui/assembler.py` mirrors this module rule for rule.
//!
//! The rules are the client's (`@ag-ui/client`: `transformChunks`, then
//! `defaultApplyEvents`), applied in linear time: messages and tool calls
//! are found by id in maps, not by scanning; text and arguments grow in
//! place; a JSON Patch is applied in place and undone if it fails. Where the
//! client only logs (a delta for a message never started, a patch that does
//! not apply), this assembler reports the event as `on_error` says, and
//! nothing applied before it is lost.

use super::probe::Probe;
use super::vocabulary::CHUNK_PASS_THROUGH;
use crate::article::article;
use crate::events::or_null;
use crate::hashing::{HashMap, HashSet};
use crate::json::{self, quote, Map, Value};
use crate::json_patch::apply_patch;
use crate::json_probe::{Hot, StrField};
use crate::stream::{bad, Assemble, Bad, Budget, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};
use crate::tool_calls::{Arguments, ToolCall, ToolCalls};

/// Events kept in order for whoever wants them; they change no message or state.
const KEPT_EVENTS: [&str; 11] = [
    "STEP_STARTED",
    "STEP_FINISHED",
    "RAW",
    "CUSTOM",
    "REASONING_START",
    "REASONING_END",
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
    "THINKING_START",
    "THINKING_END",
];
const KNOWN_EVENTS: [&str; 22] = [
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_RESULT",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "REASONING_ENCRYPTED_VALUE",
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "THINKING_TEXT_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END",
];

/// What a `*_CHUNK` event opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkMode {
    Text,
    Tool,
    Reasoning,
}

fn chunk_mode(kind: &str) -> Option<ChunkMode> {
    match kind {
        "TEXT_MESSAGE_CHUNK" => Some(ChunkMode::Text),
        "TOOL_CALL_CHUNK" => Some(ChunkMode::Tool),
        "REASONING_MESSAGE_CHUNK" => Some(ChunkMode::Reasoning),
        _ => None,
    }
}

/// Assembles an AG-UI stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<AgUi>,
}

/// What applying an event gives: `Bad` says why it could not be.
type Applied = std::result::Result<(), Bad>;

#[derive(Debug, Clone)]
pub struct AgUi {
    run: Map<String, Value>,
    messages: Vec<Value>,
    state: Value,
    kept: Vec<Value>,
    /// id -> the position of the first message with it.
    by_id: HashMap<String, usize>,
    /// call id -> the positions of the first message holding it, and of the
    /// call in its `toolCalls`.
    calls: HashMap<String, (usize, usize)>,
    chunk: Option<(ChunkMode, String)>,
    thinking: Option<String>,
    terminal: bool,
    /// Tool calls TOOL_CALL_END ended.
    ended_calls: HashSet<String>,
    /// Times messages were replaced (MESSAGES_SNAPSHOT): see `tool_calls`.
    rewrites: u64,
    /// The tool calls all messages hold (for `max_blocks`).
    call_count: usize,
    /// The message or tool call the last quick delta appended to.
    hot: Hot<Target>,
}

#[derive(Debug, Clone, Copy)]
enum Target {
    Message(usize),
    /// The message holding the call, and the call in its `toolCalls`.
    Call(usize, usize),
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.run()
    }
}

crate::stream::assemble_with_driver!(Assembler, AgUi);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler::with_history(options, Vec::new(), Value::Object(Map::new()))
    }

    /// An assembler that continues a thread: the messages and state the
    /// client held before this run.
    pub fn with_history(options: Options, messages: Vec<Value>, state: Value) -> Self {
        let mut run = Map::new();
        for key in [
            "threadId",
            "runId",
            "parentRunId",
            "status",
            "error",
            "result",
            "outcome",
            "usage",
        ] {
            run.insert(key.to_owned(), Value::Null);
        }
        run.insert("status".to_owned(), "running".into());
        let mut protocol = AgUi {
            run,
            messages,
            state,
            kept: Vec::new(),
            by_id: HashMap::default(),
            calls: HashMap::default(),
            chunk: None,
            thinking: None,
            terminal: false,
            ended_calls: HashSet::default(),
            rewrites: 0,
            call_count: 0,
            hot: Hot::default(),
        };
        protocol.reindex();
        Assembler {
            driver: Driver::new(protocol, options.limits, options.on_error, "AG-UI event"),
        }
    }

    /// The run so far: its fields, messages, state and kept events.
    pub fn run(&self) -> Value {
        let state = &self.driver.protocol;
        let mut run = state.run.clone();
        run.insert("messages".to_owned(), Value::Array(state.messages.clone()));
        run.insert("state".to_owned(), state.state.clone());
        run.insert("events".to_owned(), Value::Array(state.kept.clone()));
        Value::Object(run)
    }

    pub fn messages(&self) -> &[Value] {
        &self.driver.protocol.messages
    }

    pub fn state(&self) -> &Value {
        &self.driver.protocol.state
    }

    pub fn status(&self) -> &str {
        self.driver.protocol.run["status"].as_str().unwrap_or("")
    }

    /// Every tool call of every message: `messageId`, `id` and `name`, and
    /// its `arguments` text so far. A call is finished once TOOL_CALL_END
    /// ended it or the run ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let state = &self.driver.protocol;
        let ended = state.terminal || self.is_closed();
        let mut calls = Vec::new();
        for (position, message) in state.messages.iter().enumerate() {
            let Some(Value::Array(entries)) = message.get("toolCalls") else {
                continue;
            };
            for (at, entry) in entries.iter().enumerate() {
                let function = entry.get("function");
                let id = entry.get("id");
                let mut fields = Map::new();
                fields.insert("messageId".to_owned(), or_null(message.get("id")));
                fields.insert("id".to_owned(), or_null(id));
                fields.insert(
                    "name".to_owned(),
                    or_null(function.and_then(|function| function.get("name"))),
                );
                let arguments =
                    Arguments::of(function.and_then(|function| function.get("arguments")));
                let call_ended = id
                    .and_then(Value::as_str)
                    .is_some_and(|id| state.ended_calls.contains(id));
                calls.push(ToolCall {
                    key: format!("{position}/{at}").into(),
                    fields,
                    field: "arguments",
                    arguments,
                    finished: ended || call_ended,
                });
            }
        }
        ToolCalls {
            calls,
            rewrites: state.rewrites,
        }
    }
}

/// A field in its wire spelling (camelCase) or, failing that, in snake_case;
/// null counts as absent.
fn field<'e>(event: &'e Map<String, Value>, camel: &str, snake: &str) -> Option<&'e Value> {
    match event.get(camel) {
        None | Some(Value::Null) if camel != snake => event.get(snake),
        found => found,
    }
    .filter(|value| !value.is_null())
}

fn str_field<'e>(event: &'e Map<String, Value>, camel: &str, snake: &str) -> Result<&'e str, Bad> {
    match field(event, camel, snake) {
        Some(Value::String(text)) => Ok(text),
        None => bad(format!("has no {camel}")),
        Some(_) => bad(format!(
            "has {} {camel} that is not a string",
            article(camel)
        )),
    }
}

fn optional_str<'e>(
    event: &'e Map<String, Value>,
    camel: &str,
    snake: &str,
) -> Result<Option<&'e str>, Bad> {
    match field(event, camel, snake) {
        Some(Value::String(text)) => Ok(Some(text)),
        None => Ok(None),
        Some(_) => bad(format!(
            "has {} {camel} that is not a string",
            article(camel)
        )),
    }
}

fn metadata(event: &Map<String, Value>) -> Result<Option<&Map<String, Value>>, Bad> {
    match event.get("metadata") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => bad("has metadata that is not an object"),
    }
}

/// Folds an event's metadata into what it builds, key by key, last write wins.
fn merge_metadata(target: &mut Value, metadata: Option<&Map<String, Value>>) {
    let (Some(metadata), Value::Object(target)) = (metadata, target) else {
        return;
    };
    match target.get_mut("metadata") {
        Some(Value::Object(existing)) => {
            for (key, value) in metadata {
                existing.insert(key.clone(), value.clone());
            }
        }
        _ => {
            target.insert("metadata".to_owned(), Value::Object(metadata.clone()));
        }
    }
}

fn delta_of(event: &Map<String, Value>) -> Result<&str, Bad> {
    match event.get("delta") {
        Some(Value::String(delta)) => Ok(delta),
        None | Some(Value::Null) => bad("has no delta"),
        Some(_) => bad("has a delta that is not a string"),
    }
}

/// `content = existing + delta`, where content that is not a string counts as "".
fn append_content(message: &mut Value, delta: &str) {
    let Value::Object(message) = message else {
        return;
    };
    match json::field_mut(message, "content") {
        Some(Value::String(content)) => content.push_str(delta),
        _ => {
            message.insert("content".to_owned(), Value::String(delta.to_owned()));
        }
    }
}

/// `function.arguments += delta`, a function that is not an object
/// starting as `{"name": "", "arguments": ""}`.
fn append_arguments(call: &mut Value, delta: &str) {
    let Value::Object(call) = call else {
        return;
    };
    if !matches!(json::field(call, "function"), Some(Value::Object(_))) {
        let mut fresh = Map::new();
        fresh.insert("name".to_owned(), "".into());
        fresh.insert("arguments".to_owned(), "".into());
        // (kept where a `function` that is not an object stood)
        call.insert("function".to_owned(), Value::Object(fresh));
    }
    let Some(Value::Object(function)) = json::field_mut(call, "function") else {
        unreachable!("just made an object");
    };
    match json::field_mut(function, "arguments") {
        Some(Value::String(arguments)) => arguments.push_str(delta),
        _ => {
            function.insert("arguments".to_owned(), Value::String(delta.to_owned()));
        }
    }
}

fn role_of(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

fn holds_call(message: &Value, call_id: &str) -> bool {
    message
        .get("toolCalls")
        .and_then(Value::as_array)
        .is_some_and(|calls| {
            calls
                .iter()
                .any(|call| call.get("id").and_then(Value::as_str) == Some(call_id))
        })
}

impl Protocol for AgUi {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let mut probe = Probe::default();
        probe.read(text, self.hot.id()) && self.append_delta(&probe)
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        self.hot.forget();
        let kind = match event.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            None | Some(Value::Null) => return log.fail("has no type".to_owned()),
            Some(_) => return log.fail("has a type that is not a string".to_owned()),
        };
        match self.apply(log, &kind, event) {
            Ok(()) => Ok(()),
            Err(Bad(problem)) => log.fail(format!("({kind}) {problem}")),
        }
    }

    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn block_count(&self) -> usize {
        self.call_count
    }

    fn finish(&mut self) {
        self.hot.forget();
        if !self.terminal {
            self.run.insert("status".to_owned(), "incomplete".into());
        }
    }
}

impl AgUi {
    /// A content or arguments delta for a message or tool call that exists,
    /// from a probe: what the full path does for it, without a `Value` tree.
    /// Returns false, having changed nothing, for any other event.
    fn append_delta(&mut self, probe: &Probe<'_>) -> bool {
        let (Some(StrField::Str(kind)), Some(StrField::Str(delta))) = (&probe.kind, &probe.delta)
        else {
            return false;
        };
        if probe.metadata || delta.is_empty() {
            return false;
        }
        // The id as read is the hot one's: its target, if of the kind asked.
        let hot = self.hot.target(probe.id_expected);
        match kind.as_ref() {
            "TEXT_MESSAGE_CONTENT" | "REASONING_MESSAGE_CONTENT" => {
                let position = match hot {
                    Some(Target::Message(position)) => position,
                    _ => {
                        let Some(id) = probe.message_id() else {
                            return false;
                        };
                        let Some(&position) = self.by_id.get(id) else {
                            return false;
                        };
                        self.hot.remember(id, Target::Message(position));
                        position
                    }
                };
                append_content(&mut self.messages[position], delta);
            }
            "TOOL_CALL_ARGS" => {
                let (message, call) = match hot {
                    Some(Target::Call(message, call)) => (message, call),
                    _ => {
                        let Some(id) = probe.tool_call_id() else {
                            return false;
                        };
                        let Some(&(message, call)) = self.calls.get(id) else {
                            return false;
                        };
                        self.hot.remember(id, Target::Call(message, call));
                        (message, call)
                    }
                };
                let calls = self.messages[message]
                    .as_object_mut()
                    .and_then(|message| json::field_mut(message, "toolCalls"));
                let Some(call) = calls.and_then(|calls| calls.get_mut(call)) else {
                    return false;
                };
                append_arguments(call, delta);
            }
            _ => return false,
        }
        self.chunk = None;
        true
    }

    /// Makes every message findable again, after messages were replaced
    /// or moved, and counts their tool calls again.
    fn reindex(&mut self) {
        self.hot.forget();
        self.by_id.clear();
        self.calls.clear();
        self.call_count = 0;
        for position in 0..self.messages.len() {
            self.index(position);
        }
    }

    /// Makes the message at `position`, and its tool calls, findable, unless
    /// an earlier one has the same id; its tool calls are its blocks.
    fn index(&mut self, position: usize) {
        let message = &self.messages[position];
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            self.by_id.entry(id.to_owned()).or_insert(position);
        }
        if let Some(calls) = message.get("toolCalls").and_then(Value::as_array) {
            self.call_count += calls.len();
            for (at, call) in calls.iter().enumerate() {
                if let Some(call_id) = call.get("id").and_then(Value::as_str) {
                    self.calls
                        .entry(call_id.to_owned())
                        .or_insert((position, at));
                }
            }
        }
    }

    fn push(&mut self, message: Value) -> usize {
        self.messages.push(message);
        let position = self.messages.len() - 1;
        self.index(position);
        position
    }

    /// The position of the message an event addresses by `messageId`.
    fn message(&self, event: &Map<String, Value>) -> Result<usize, Bad> {
        let id = str_field(event, "messageId", "message_id")?;
        match self.by_id.get(id) {
            Some(&position) => Ok(position),
            None => bad(format!(
                "is for message {}, which was never started",
                quote(id)
            )),
        }
    }

    fn call(&self, event: &Map<String, Value>) -> Result<(usize, usize), Bad> {
        let id = str_field(event, "toolCallId", "tool_call_id")?;
        match self.calls.get(id) {
            Some(&found) => Ok(found),
            None => bad(format!(
                "is for tool call {}, which was never started",
                quote(id)
            )),
        }
    }

    fn apply(&mut self, log: &mut Log, kind: &str, event: Map<String, Value>) -> Applied {
        if let Some(mode) = chunk_mode(kind) {
            return self.chunk(mode, &event, log.events);
        }
        let known = KNOWN_EVENTS.contains(&kind);
        if !known && !KEPT_EVENTS.contains(&kind) {
            // A type this version does not know: kept, changing nothing.
            self.kept.push(Value::Object(event));
            return Ok(());
        }
        if !CHUNK_PASS_THROUGH.contains(&kind) {
            self.chunk = None;
        }
        match kind {
            "TEXT_MESSAGE_START" => self.text_start(&event),
            "TEXT_MESSAGE_CONTENT" | "REASONING_MESSAGE_CONTENT" => self.content(&event),
            "TEXT_MESSAGE_END" | "REASONING_MESSAGE_END" => self.end(&event),
            "REASONING_MESSAGE_START" => self.reasoning_start(&event),
            "TOOL_CALL_START" => self.tool_start(&event),
            "TOOL_CALL_ARGS" => self.tool_args(&event),
            "TOOL_CALL_END" => self.tool_end(&event),
            "TOOL_CALL_RESULT" => self.tool_result(event),
            "STATE_SNAPSHOT" => self.state_snapshot(event),
            "STATE_DELTA" => self.state_delta(&event, &mut log.budget),
            "MESSAGES_SNAPSHOT" => self.messages_snapshot(event),
            "ACTIVITY_SNAPSHOT" => self.activity_snapshot(&event),
            "ACTIVITY_DELTA" => self.activity_delta(&event, &mut log.budget),
            "REASONING_ENCRYPTED_VALUE" => self.encrypted_value(&event),
            "RUN_STARTED" => self.run_started(event),
            "RUN_FINISHED" => self.run_finished(event),
            "RUN_ERROR" => self.run_error(log, &event),
            "THINKING_TEXT_MESSAGE_START"
            | "THINKING_TEXT_MESSAGE_CONTENT"
            | "THINKING_TEXT_MESSAGE_END" => self.thinking(kind, event, log.events),
            _ => {
                // STEP_*, RAW, CUSTOM, REASONING_START/END, SUBAGENT_*: kept.
                self.kept.push(Value::Object(event));
                Ok(())
            }
        }
    }

    // --- text and reasoning messages ------------------------------------------------

    fn text_start(&mut self, event: &Map<String, Value>) -> Applied {
        let id = str_field(event, "messageId", "message_id")?;
        let role = optional_str(event, "role", "role")?;
        let name = optional_str(event, "name", "name")?;
        let metadata = metadata(event)?;
        let position = match self.by_id.get(id) {
            Some(&position) => position,
            None => {
                let mut message = Map::new();
                message.insert("id".to_owned(), id.into());
                message.insert("role".to_owned(), role.unwrap_or("assistant").into());
                message.insert("content".to_owned(), "".into());
                if let Some(name) = name {
                    message.insert("name".to_owned(), name.into());
                }
                self.push(Value::Object(message))
            }
        };
        merge_metadata(&mut self.messages[position], metadata);
        Ok(())
    }

    fn reasoning_start(&mut self, event: &Map<String, Value>) -> Applied {
        let id = str_field(event, "messageId", "message_id")?;
        let metadata = metadata(event)?;
        let position = match self.by_id.get(id) {
            Some(&position) => position,
            None => {
                let mut message = Map::new();
                message.insert("id".to_owned(), id.into());
                message.insert("role".to_owned(), "reasoning".into());
                message.insert("content".to_owned(), "".into());
                self.push(Value::Object(message))
            }
        };
        merge_metadata(&mut self.messages[position], metadata);
        Ok(())
    }

    fn content(&mut self, event: &Map<String, Value>) -> Applied {
        let position = self.message(event)?;
        let delta = delta_of(event)?;
        let metadata = metadata(event)?;
        let message = &mut self.messages[position];
        if !delta.is_empty() {
            append_content(message, delta);
        } else if let Value::Object(message) = message {
            if !matches!(message.get("content"), Some(Value::String(_))) {
                message.insert("content".to_owned(), "".into());
            }
        }
        merge_metadata(message, metadata);
        Ok(())
    }

    fn end(&mut self, event: &Map<String, Value>) -> Applied {
        let position = self.message(event)?;
        let metadata = metadata(event)?;
        merge_metadata(&mut self.messages[position], metadata);
        Ok(())
    }

    // --- tool calls ------------------------------------------------------------------

    fn tool_start(&mut self, event: &Map<String, Value>) -> Applied {
        let call_id = str_field(event, "toolCallId", "tool_call_id")?;
        let name = str_field(event, "toolCallName", "tool_call_name")?;
        let parent_id = optional_str(event, "parentMessageId", "parent_message_id")?;
        let metadata = metadata(event)?;
        if let Some(&(message, call)) = self.calls.get(call_id) {
            // Idempotent: a replayed start renames, never duplicates.
            let call = &mut self.messages[message]["toolCalls"][call];
            if let Some(Value::Object(function)) = call.get_mut("function") {
                function.insert("name".to_owned(), name.into());
            }
            merge_metadata(call, metadata);
            return Ok(());
        }
        let new_owner = |id: &str| {
            let mut owner = Map::new();
            owner.insert("id".to_owned(), id.into());
            owner.insert("role".to_owned(), "assistant".into());
            owner.insert("toolCalls".to_owned(), Value::Array(Vec::new()));
            Value::Object(owner)
        };
        let owner = match parent_id.filter(|id| !id.is_empty()) {
            Some(parent_id) => match self.by_id.get(parent_id) {
                Some(&position) if role_of(&self.messages[position]) == Some("assistant") => {
                    position
                }
                Some(_) => self.push(new_owner(call_id)),
                None => self.push(new_owner(parent_id)),
            },
            None => self.push(new_owner(call_id)),
        };
        let Value::Object(owner_map) = &mut self.messages[owner] else {
            unreachable!("messages are objects");
        };
        if !matches!(owner_map.get("toolCalls"), Some(Value::Array(_))) {
            owner_map.insert("toolCalls".to_owned(), Value::Array(Vec::new()));
        }
        let Some(Value::Array(calls)) = owner_map.get_mut("toolCalls") else {
            unreachable!("just made an array");
        };
        let mut function = Map::new();
        function.insert("name".to_owned(), name.into());
        function.insert("arguments".to_owned(), "".into());
        let mut call = Map::new();
        call.insert("id".to_owned(), call_id.into());
        call.insert("type".to_owned(), "function".into());
        call.insert("function".to_owned(), Value::Object(function));
        let mut call = Value::Object(call);
        merge_metadata(&mut call, metadata);
        calls.push(call);
        let at = calls.len() - 1;
        self.calls.insert(call_id.to_owned(), (owner, at));
        self.call_count += 1;
        Ok(())
    }

    fn tool_args(&mut self, event: &Map<String, Value>) -> Applied {
        let (message, call) = self.call(event)?;
        let delta = delta_of(event)?;
        let metadata = metadata(event)?;
        let call = &mut self.messages[message]["toolCalls"][call];
        append_arguments(call, delta);
        merge_metadata(call, metadata);
        Ok(())
    }

    fn tool_end(&mut self, event: &Map<String, Value>) -> Applied {
        let (message, call) = self.call(event)?;
        let metadata = metadata(event)?;
        if let Some(call_id) = field(event, "toolCallId", "tool_call_id").and_then(Value::as_str) {
            self.ended_calls.insert(call_id.to_owned());
        }
        merge_metadata(&mut self.messages[message]["toolCalls"][call], metadata);
        Ok(())
    }

    fn tool_result(&mut self, event: Map<String, Value>) -> Applied {
        let message_id = str_field(&event, "messageId", "message_id")?;
        let call_id = str_field(&event, "toolCallId", "tool_call_id")?;
        let content = match event.get("content") {
            None => return bad("has no content"),
            Some(content @ (Value::String(_) | Value::Array(_))) => content.clone(),
            Some(_) => return bad("has content that is neither a string nor a list of parts"),
        };
        let role = optional_str(&event, "role", "role")?;
        let metadata = metadata(&event)?;
        let mut message = Map::new();
        message.insert("id".to_owned(), message_id.into());
        message.insert("toolCallId".to_owned(), call_id.into());
        message.insert("role".to_owned(), role.unwrap_or("tool").into());
        message.insert("content".to_owned(), content);
        let mut message = Value::Object(message);
        merge_metadata(&mut message, metadata);
        // Right after the assistant message holding the call (past the tool
        // results already there), so that each call is followed by its result.
        let Some(owner) = self.owner_of(call_id) else {
            self.push(message);
            return Ok(());
        };
        let mut at = owner + 1;
        while at < self.messages.len() && role_of(&self.messages[at]) == Some("tool") {
            at += 1;
        }
        self.insert_result(at, message);
        Ok(())
    }

    /// The position of the first assistant message holding the call.
    fn owner_of(&self, call_id: &str) -> Option<usize> {
        // The first message holding it (none: no message does).
        let &(first, _) = self.calls.get(call_id)?;
        if role_of(&self.messages[first]) == Some("assistant") {
            return Some(first);
        }
        // The first message holding it is not an assistant's: one after it may be.
        self.messages.iter().position(|candidate| {
            role_of(candidate) == Some("assistant") && holds_call(candidate, call_id)
        })
    }

    /// Puts a tool result (a message that holds no tool calls) at `at`,
    /// moving those after it along: what the maps say of them moves too,
    /// at a cost that grows with the messages after it, not with all of
    /// them (results mostly follow their calls closely).
    fn insert_result(&mut self, at: usize, message: Value) {
        if at == self.messages.len() {
            self.push(message);
            return;
        }
        self.messages.insert(at, message);
        // From the last back, so that a message is never taken for an
        // earlier one with the same id it has moved onto.
        for position in (at + 1..self.messages.len()).rev() {
            let moved = &self.messages[position];
            if let Some(id) = moved.get("id").and_then(Value::as_str) {
                if let Some(first) = self.by_id.get_mut(id) {
                    if *first == position - 1 {
                        *first = position;
                    }
                }
            }
            if let Some(calls) = moved.get("toolCalls").and_then(Value::as_array) {
                for (call, entry) in calls.iter().enumerate() {
                    let Some(call_id) = entry.get("id").and_then(Value::as_str) else {
                        continue;
                    };
                    if let Some(found) = self.calls.get_mut(call_id) {
                        if *found == (position - 1, call) {
                            *found = (position, call);
                        }
                    }
                }
            }
        }
        // The first message with its id is the new one if none was, or the
        // one that was comes after it.
        if let Some(id) = self.messages[at].get("id").and_then(Value::as_str) {
            match self.by_id.get_mut(id) {
                Some(first) if *first > at => *first = at,
                Some(_) => {}
                None => {
                    self.by_id.insert(id.to_owned(), at);
                }
            }
        }
    }

    // --- state, snapshots, activities --------------------------------------------------

    fn state_snapshot(&mut self, mut event: Map<String, Value>) -> Applied {
        match event.shift_remove("snapshot") {
            Some(snapshot) => {
                self.state = snapshot;
                Ok(())
            }
            None => bad("has no snapshot"),
        }
    }

    fn state_delta(&mut self, event: &Map<String, Value>, budget: &mut Budget) -> Applied {
        let delta = match event.get("delta") {
            Some(delta @ Value::Array(_)) => delta,
            None | Some(Value::Null) => return bad("has no delta"),
            Some(_) => return bad("has a delta that is not a JSON Patch array"),
        };
        apply_patch(&mut self.state, delta, budget)
            .map_err(|err| Bad(format!("does not apply to the state: {err}")))
    }

    fn messages_snapshot(&mut self, mut event: Map<String, Value>) -> Applied {
        let snapshot = match event.shift_remove("messages") {
            Some(Value::Array(messages)) => messages,
            None | Some(Value::Null) => return bad("has no messages"),
            Some(_) => return bad("has messages that are not a list"),
        };
        if !snapshot
            .iter()
            .all(|message| message.get("id").is_some_and(Value::is_string))
        {
            return bad("has a message without a string id");
        }
        // Messages in the snapshot replace theirs, others are dropped, except
        // the client-only activity and reasoning messages when the snapshot
        // has none of that role; new ones are appended.
        let mut by_id: HashMap<&str, usize> = HashMap::default();
        for (at, message) in snapshot.iter().enumerate() {
            by_id.insert(message["id"].as_str().unwrap_or(""), at);
        }
        let has_role = |role: &str| {
            snapshot
                .iter()
                .any(|message| role_of(message) == Some(role))
        };
        let (has_activity, has_reasoning) = (has_role("activity"), has_role("reasoning"));
        let preserved = |message: &Value| match role_of(message) {
            Some("activity") => !has_activity,
            Some("reasoning") => !has_reasoning,
            _ => false,
        };
        let mut kept = Vec::new();
        for message in std::mem::take(&mut self.messages) {
            if preserved(&message) {
                kept.push(message);
            } else if let Some(&at) = message
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| by_id.get(id))
            {
                kept.push(snapshot[at].clone());
            }
        }
        let known: std::collections::HashSet<String> = kept
            .iter()
            .filter_map(|message| message.get("id").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let added: Vec<Value> = snapshot
            .iter()
            .filter(|message| !known.contains(message["id"].as_str().unwrap_or("")))
            .cloned()
            .collect();
        kept.extend(added);
        self.messages = kept;
        self.rewrites += 1;
        self.reindex();
        Ok(())
    }

    fn activity_snapshot(&mut self, event: &Map<String, Value>) -> Applied {
        let id = str_field(event, "messageId", "message_id")?;
        let activity_type = str_field(event, "activityType", "activity_type")?;
        let content = match event.get("content") {
            Some(content @ Value::Object(_)) => content.clone(),
            _ => return bad("has no content object"),
        };
        let replace = match event.get("replace") {
            None | Some(Value::Null) => true,
            Some(value) => value == &Value::Bool(true),
        };
        let metadata = metadata(event)?;
        let mut activity = Map::new();
        activity.insert("id".to_owned(), id.into());
        activity.insert("role".to_owned(), "activity".into());
        activity.insert("activityType".to_owned(), activity_type.into());
        activity.insert("content".to_owned(), content.clone());
        let target = match self.by_id.get(id).copied() {
            None => Some(self.push(Value::Object(activity))),
            Some(position) if role_of(&self.messages[position]) == Some("activity") => {
                if replace {
                    if let Value::Object(existing) = &mut self.messages[position] {
                        existing.insert("activityType".to_owned(), activity_type.into());
                        existing.insert("content".to_owned(), content);
                    }
                }
                Some(position)
            }
            Some(position) if replace => {
                self.messages[position] = Value::Object(activity);
                self.reindex();
                Some(position)
            }
            Some(_) => None,
        };
        if let Some(position) = target {
            merge_metadata(&mut self.messages[position], metadata);
        }
        Ok(())
    }

    fn activity_delta(&mut self, event: &Map<String, Value>, budget: &mut Budget) -> Applied {
        let position = self.message(event)?;
        let activity_type = str_field(event, "activityType", "activity_type")?;
        let patch = match event.get("patch") {
            Some(patch @ Value::Array(_)) => patch,
            None | Some(Value::Null) => return bad("has no patch"),
            Some(_) => return bad("has a patch that is not a JSON Patch array"),
        };
        let metadata = metadata(event)?;
        let message = &mut self.messages[position];
        if role_of(message) != Some("activity") {
            let id = message.get("id").and_then(Value::as_str).unwrap_or("");
            return bad(format!(
                "is for message {}, which is not an activity message",
                quote(id)
            ));
        }
        let Value::Object(message_map) = message else {
            unreachable!("messages are objects");
        };
        let failed = |err| Bad(format!("does not apply to the activity's content: {err}"));
        match message_map.get_mut("content") {
            Some(content) if !content.is_null() => {
                apply_patch(content, patch, budget).map_err(failed)?
            }
            _ => {
                // No content yet: patched from {}, stored only if it applies.
                let mut content = Value::Object(Map::new());
                apply_patch(&mut content, patch, budget).map_err(failed)?;
                message_map.insert("content".to_owned(), content);
            }
        }
        message_map.insert("activityType".to_owned(), activity_type.into());
        merge_metadata(message, metadata);
        Ok(())
    }

    fn encrypted_value(&mut self, event: &Map<String, Value>) -> Applied {
        let subtype = str_field(event, "subtype", "subtype")?;
        let entity_id = str_field(event, "entityId", "entity_id")?;
        let value = str_field(event, "encryptedValue", "encrypted_value")?;
        if subtype == "tool-call" {
            let mut found = self.calls.get(entity_id).copied();
            if let Some((message, _)) = found {
                if role_of(&self.messages[message]) != Some("assistant") {
                    found = self
                        .messages
                        .iter()
                        .enumerate()
                        .find_map(|(position, message)| {
                            if role_of(message) != Some("assistant") {
                                return None;
                            }
                            message
                                .get("toolCalls")?
                                .as_array()?
                                .iter()
                                .position(|call| {
                                    call.get("id").and_then(Value::as_str) == Some(entity_id)
                                })
                                .map(|at| (position, at))
                        });
                }
            }
            let Some((message, call)) = found else {
                return bad(format!(
                    "is for tool call {}, which was never started",
                    quote(entity_id)
                ));
            };
            if let Value::Object(call) = &mut self.messages[message]["toolCalls"][call] {
                call.insert("encryptedValue".to_owned(), value.into());
            }
        } else {
            let Some(&position) = self.by_id.get(entity_id) else {
                return bad(format!(
                    "is for message {}, which was never started",
                    quote(entity_id)
                ));
            };
            if role_of(&self.messages[position]) != Some("activity") {
                if let Value::Object(message) = &mut self.messages[position] {
                    message.insert("encryptedValue".to_owned(), value.into());
                }
            }
        }
        Ok(())
    }

    // --- the run -------------------------------------------------------------------

    fn run_started(&mut self, event: Map<String, Value>) -> Applied {
        let thread_id = str_field(&event, "threadId", "thread_id")?.to_owned();
        let run_id = str_field(&event, "runId", "run_id")?.to_owned();
        let parent_run_id =
            optional_str(&event, "parentRunId", "parent_run_id")?.map(str::to_owned);
        let new_messages = match event.get("input") {
            Some(Value::Object(input)) => match input.get("messages") {
                None | Some(Value::Null) => None,
                Some(Value::Array(messages))
                    if messages
                        .iter()
                        .all(|message| message.get("id").is_some_and(Value::is_string)) =>
                {
                    Some(messages.clone())
                }
                Some(_) => return bad("has input messages without string ids"),
            },
            _ => None,
        };
        for (key, value) in [
            ("threadId", Value::String(thread_id)),
            ("runId", Value::String(run_id)),
            (
                "parentRunId",
                parent_run_id.map_or(Value::Null, Value::String),
            ),
            ("status", "running".into()),
            ("error", Value::Null),
            ("result", Value::Null),
            ("outcome", Value::Null),
            ("usage", Value::Null),
        ] {
            self.run.insert(key.to_owned(), value);
        }
        self.terminal = false;
        for message in new_messages.unwrap_or_default() {
            let id = message["id"].as_str().unwrap_or("");
            if !self.by_id.contains_key(id) {
                self.push(message);
            }
        }
        Ok(())
    }

    fn run_finished(&mut self, mut event: Map<String, Value>) -> Applied {
        self.run.insert("status".to_owned(), "finished".into());
        for key in ["result", "outcome"] {
            let value = event.shift_remove(key).unwrap_or(Value::Null);
            self.run.insert(key.to_owned(), value);
        }
        if let Some(usage) = event.shift_remove("usage").filter(|usage| !usage.is_null()) {
            self.run.insert("usage".to_owned(), usage);
        }
        self.terminal = true;
        Ok(())
    }

    fn run_error(&mut self, log: &mut Log, event: &Map<String, Value>) -> Applied {
        let message = str_field(event, "message", "message")?;
        let code = optional_str(event, "code", "code")?;
        let mut error = Map::new();
        error.insert("message".to_owned(), message.into());
        error.insert("code".to_owned(), code.map_or(Value::Null, Value::from));
        self.run.insert("status".to_owned(), "error".into());
        self.run.insert("error".to_owned(), Value::Object(error));
        if let Some(usage) = event.get("usage").filter(|usage| !usage.is_null()) {
            self.run.insert("usage".to_owned(), usage.clone());
        }
        self.terminal = true;
        log.record(ErrorRecord {
            event: log.events,
            code: code
                .filter(|code| !code.is_empty())
                .unwrap_or("run_error")
                .to_owned(),
            message: Some(message.to_owned()),
        });
        Ok(())
    }

    // --- shorthands and legacy events ------------------------------------------------

    /// `transformChunks`: a chunk continues what the last chunk opened, or
    /// closes it and opens its own; START, CONTENT/ARGS as it implies.
    fn chunk(&mut self, mode: ChunkMode, event: &Map<String, Value>, _number: u64) -> Applied {
        let chunk_id = if mode == ChunkMode::Tool {
            optional_str(event, "toolCallId", "tool_call_id")?
        } else {
            optional_str(event, "messageId", "message_id")?
        };
        let switches = match mode {
            ChunkMode::Reasoning => chunk_id.is_some_and(|id| !id.is_empty()),
            _ => chunk_id.is_some(),
        };
        let open = match &self.chunk {
            Some((open_mode, open_id)) => {
                *open_mode == mode && !(switches && chunk_id != Some(open_id.as_str()))
            }
            None => false,
        };
        if !open {
            self.chunk = None;
        }
        let metadata = event.get("metadata").filter(|value| !value.is_null());
        let delta = match event.get("delta") {
            None | Some(Value::Null) => None,
            Some(Value::String(delta)) => Some(delta.as_str()),
            Some(_) => return bad("has a delta that is not a string"),
        };
        let mut applied = false;
        if self.chunk.is_none() {
            let Some(chunk_id) = chunk_id else {
                return bad(match mode {
                    ChunkMode::Tool => "opens a tool call but has no toolCallId",
                    _ => "opens a message but has no messageId",
                });
            };
            let mut start = Map::new();
            match mode {
                ChunkMode::Text => {
                    let role = optional_str(event, "role", "role")?.unwrap_or("assistant");
                    start.insert("messageId".to_owned(), chunk_id.into());
                    start.insert("role".to_owned(), role.into());
                    if let Some(name) = event.get("name").filter(|name| !name.is_null()) {
                        start.insert("name".to_owned(), name.clone());
                    }
                }
                ChunkMode::Tool => {
                    let Some(name) = field(event, "toolCallName", "tool_call_name") else {
                        return bad("opens a tool call but has no toolCallName");
                    };
                    start.insert("toolCallId".to_owned(), chunk_id.into());
                    start.insert("toolCallName".to_owned(), name.clone());
                    if let Some(parent) = field(event, "parentMessageId", "parent_message_id") {
                        start.insert("parentMessageId".to_owned(), parent.clone());
                    }
                }
                ChunkMode::Reasoning => {
                    start.insert("messageId".to_owned(), chunk_id.into());
                }
            }
            if let Some(metadata) = metadata {
                start.insert("metadata".to_owned(), metadata.clone());
            }
            match mode {
                ChunkMode::Text => self.text_start(&start)?,
                ChunkMode::Tool => self.tool_start(&start)?,
                ChunkMode::Reasoning => self.reasoning_start(&start)?,
            }
            self.chunk = Some((mode, chunk_id.to_owned()));
            applied = true;
        }
        if delta.is_some() || (!applied && metadata.is_some()) {
            let open_id = self
                .chunk
                .as_ref()
                .map(|(_, id)| id.clone())
                .unwrap_or_default();
            let mut content = Map::new();
            content.insert("delta".to_owned(), delta.unwrap_or("").into());
            let id_key = if mode == ChunkMode::Tool {
                "toolCallId"
            } else {
                "messageId"
            };
            content.insert(id_key.to_owned(), open_id.into());
            if let Some(metadata) = metadata {
                content.insert("metadata".to_owned(), metadata.clone());
            }
            if mode == ChunkMode::Tool {
                self.tool_args(&content)?;
            } else {
                self.content(&content)?;
            }
        }
        Ok(())
    }

    /// AG-UI before 1.0 streamed reasoning as THINKING_TEXT_MESSAGE_*: they
    /// become reasoning messages with the id `thinking-` and the number of
    /// the event that opened it.
    fn thinking(&mut self, kind: &str, mut event: Map<String, Value>, number: u64) -> Applied {
        if kind == "THINKING_TEXT_MESSAGE_START" {
            let id = format!("thinking-{number}");
            self.thinking = Some(id.clone());
            event.insert("messageId".to_owned(), id.into());
            return self.reasoning_start(&event);
        }
        let Some(id) = self.thinking.clone() else {
            return bad("continues a thinking message that was never started");
        };
        event.insert("messageId".to_owned(), id.into());
        if kind == "THINKING_TEXT_MESSAGE_CONTENT" {
            self.content(&event)
        } else {
            self.end(&event)?;
            self.thinking = None;
            Ok(())
        }
    }
}
