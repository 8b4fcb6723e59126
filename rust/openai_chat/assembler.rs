//! Assembling an OpenAI Chat Completions stream into its ChatCompletion.
//! `python/agentcodec/_pure/openai_chat/assembler.py` mirrors this module rule for
//! rule.
//!
//! The state is the completion's fields (from the first chunk; `usage`,
//! `system_fingerprint` and `moderation` from the latest chunk that has
//! them) and its choices by `index`, each with its message merged from the
//! deltas. The merge is openai-python's `accumulate_delta` with its known
//! faults fixed: strings append and lists of `index`ed entries merge by
//! index, but `role`, `id` and `name` are set once (servers repeat them in
//! every chunk, and the SDK concatenates them into "assistantassistant"),
//! and numbers replace (the SDK adds them).

use std::collections::BTreeMap;

use super::probe::{Chunk, Delta, TEXT_KEYS};
use crate::events::or_null;
use crate::hashing::HashMap;
use crate::json::{self, Map, Value};
use crate::json_probe::{Obj, Scalar, StrField};
use crate::stream::{bad, Assemble, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};
use crate::tool_calls::{Arguments, ToolCall, ToolCalls};

/// Fields a server repeats without meaning to append: kept as first given.
const SET_ONCE: [&str; 3] = ["role", "id", "name"];
/// Fields that say which entry or variant: replaced, never appended.
const REPLACED: [&str; 2] = ["index", "type"];

/// Assembles an OpenAI Chat Completions stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Chat>,
}

#[derive(Debug, Clone)]
struct Choice {
    /// The choice's own fields, from its first chunk, without `delta`.
    fields: Map<String, Value>,
    message: Map<String, Value>,
    /// Where the message's tool calls stand.
    calls: Entries,
}

#[derive(Debug, Clone)]
pub struct Chat {
    /// The completion's fields; `None` before the first chunk.
    header: Option<Map<String, Value>>,
    choices: BTreeMap<i64, Choice>,
    kept: Vec<Value>,
    /// `[DONE]` came: the stream is over.
    done: bool,
    /// The tool calls all choices hold (for `max_blocks`).
    tool_calls: usize,
}

/// The tool calls a choice's message holds: a Chat message's blocks.
fn tool_call_count(message: &Map<String, Value>) -> usize {
    match message.get("tool_calls") {
        Some(Value::Array(calls)) => calls.len(),
        _ => 0,
    }
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.completion()
    }
}

crate::stream::assemble_with_driver!(Assembler, Chat);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        let protocol = Chat {
            header: None,
            choices: BTreeMap::new(),
            kept: Vec::new(),
            done: false,
            tool_calls: 0,
        };
        Assembler {
            driver: Driver::new(
                protocol,
                options.limits,
                options.on_error,
                "OpenAI Chat Completions chunk",
            ),
        }
    }

    /// The ChatCompletion so far: the first chunk's fields with `object`
    /// `"chat.completion"`, and every choice with its message.
    pub fn completion(&self) -> Value {
        let state = &self.driver.protocol;
        let mut choices: Vec<Value> = state.choices.values().map(Choice::to_value).collect();
        let mut completion = Map::new();
        match &state.header {
            Some(header) => {
                for (key, value) in header {
                    if key == "choices" {
                        let choices = std::mem::take(&mut choices);
                        completion.insert(key.clone(), Value::Array(choices));
                    } else {
                        completion.insert(key.clone(), value.clone());
                    }
                }
            }
            None => {
                completion.insert("object".to_owned(), "chat.completion".into());
                completion.insert("choices".to_owned(), Value::Array(choices));
            }
        }
        Value::Object(completion)
    }

    /// Every tool call of every choice: `choice`, `id`, `type` and `name`,
    /// and its `arguments` text so far. A call is finished once its choice
    /// has a finish reason or the stream ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let ended = self.driver.protocol.done || self.is_closed();
        let mut calls = Vec::new();
        for (index, choice) in &self.driver.protocol.choices {
            let Some(Value::Array(entries)) = choice.message.get("tool_calls") else {
                continue;
            };
            let finished =
                ended || !matches!(choice.fields.get("finish_reason"), None | Some(Value::Null));
            for (position, entry) in entries.iter().enumerate() {
                let Value::Object(entry) = entry else {
                    continue;
                };
                let function = entry.get("function");
                let mut fields = Map::new();
                fields.insert("choice".to_owned(), (*index).into());
                fields.insert("id".to_owned(), or_null(entry.get("id")));
                fields.insert("type".to_owned(), or_null(entry.get("type")));
                fields.insert(
                    "name".to_owned(),
                    or_null(function.and_then(|function| function.get("name"))),
                );
                let arguments =
                    Arguments::of(function.and_then(|function| function.get("arguments")));
                calls.push(ToolCall {
                    key: format!("{index}/{position}").into(),
                    fields,
                    field: "arguments",
                    arguments,
                    finished,
                });
            }
        }
        ToolCalls { calls, rewrites: 0 }
    }

    /// Chunks kept without being assembled: errors the server sent and
    /// content-filter annotations (`object: ""`).
    pub fn events(&self) -> &[Value] {
        &self.driver.protocol.kept
    }
}

impl Choice {
    fn to_value(&self) -> Value {
        let mut choice = Map::new();
        choice.insert("index".to_owned(), or_null(self.fields.get("index")));
        choice.insert("message".to_owned(), Value::Object(self.message.clone()));
        choice.insert(
            "finish_reason".to_owned(),
            or_null(self.fields.get("finish_reason")),
        );
        choice.insert("logprobs".to_owned(), or_null(self.fields.get("logprobs")));
        for (key, value) in &self.fields {
            if !choice.contains_key(key) {
                choice.insert(key.clone(), value.clone());
            }
        }
        Value::Object(choice)
    }
}

impl Protocol for Chat {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some(chunk) = Chunk::read(text) else {
            return false;
        };
        self.append_delta(&chunk)
    }

    /// The end of the run: a Chat stream ends with `[DONE]`.
    fn done_marker(&mut self, _log: &mut Log) -> Result<(), Error> {
        self.done = true;
        Ok(())
    }

    fn apply_object(&mut self, log: &mut Log, chunk: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, chunk);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        self.choices.len()
    }

    fn block_count(&self) -> usize {
        self.tool_calls
    }

    fn finish(&mut self) {}
}

/// What a quick path will append to a message, once every check passed: to
/// each of [`TEXT_KEYS`], and to one tool call's arguments (by position).
#[derive(Default)]
struct Appends<'p> {
    texts: [Option<&'p str>; 4],
    arguments: Option<(usize, &'p str)>,
}

impl Chat {
    /// A delta that appends text or tool-call arguments to a choice that
    /// exists, from a probe: what the full path does for it, without a
    /// `Value` tree. Returns false, having changed nothing, for any other
    /// chunk.
    fn append_delta(&mut self, chunk: &Chunk<'_>) -> bool {
        if self.done || self.header.is_none() {
            return false;
        }
        if matches!(&chunk.object, Some(StrField::Str(object)) if object.is_empty()) {
            return false;
        }
        let absent = |field: &Option<Scalar<'_>>| matches!(field, None | Some(Scalar::Null));
        if !absent(&chunk.usage) || !absent(&chunk.moderation) || !absent(&chunk.error) {
            return false;
        }
        let fingerprint = match &chunk.system_fingerprint {
            None | Some(Scalar::Null) => None,
            Some(Scalar::Str(text)) => Some(text),
            Some(_) => return false,
        };
        let Some(Obj(Some(choice))) = &chunk.choices else {
            return false;
        };
        if !absent(&choice.finish_reason) || !absent(&choice.logprobs) {
            return false;
        }
        let Some(Obj(Some(delta))) = &choice.delta else {
            return false;
        };
        let Some(index) = choice.index.as_ref().and_then(Scalar::as_i64) else {
            return false;
        };
        let Some(held) = self.choices.get_mut(&index) else {
            return false;
        };
        let Some(appends) = plan(&held.message, held.calls.shared, delta) else {
            return false;
        };
        for (key, piece) in TEXT_KEYS.iter().zip(appends.texts) {
            let Some(piece) = piece else {
                continue;
            };
            match json::field_mut(&mut held.message, key) {
                Some(Value::String(text)) => text.push_str(piece),
                _ => {
                    held.message.insert((*key).to_owned(), piece.into());
                }
            }
        }
        if let Some((at, piece)) = appends.arguments {
            if let Some(Value::Array(calls)) = json::field_mut(&mut held.message, "tool_calls") {
                let function = calls[at]
                    .as_object_mut()
                    .and_then(|call| json::field_mut(call, "function"));
                if let Some(Value::Object(function)) = function {
                    match json::field_mut(function, "arguments") {
                        Some(Value::String(text)) => text.push_str(piece),
                        _ => {
                            function.insert("arguments".to_owned(), piece.into());
                        }
                    }
                }
            }
        }
        if let (Some(fingerprint), Some(header)) = (fingerprint, self.header.as_mut()) {
            if json::field(header, "system_fingerprint").and_then(Value::as_str)
                != Some(fingerprint)
            {
                header.insert("system_fingerprint".to_owned(), fingerprint.as_ref().into());
            }
        }
        true
    }

    fn apply(&mut self, log: &mut Log, chunk: Map<String, Value>) -> Result<(), Bad> {
        if !crate::events::is_falsy(chunk.get("error")) {
            let (code, message) = super::error_fields(chunk.get("error"));
            log.record(ErrorRecord {
                event: log.events,
                code: code.unwrap_or("error").to_owned(),
                message: message.map(str::to_owned),
            });
            self.kept.push(Value::Object(chunk));
            return Ok(());
        }
        if self.done {
            return bad("comes after [DONE]");
        }
        if chunk.get("object").and_then(Value::as_str) == Some("") {
            // Azure's content-filter annotations: not part of the completion
            // (openai-python's stream helper drops them).
            self.kept.push(Value::Object(chunk));
            return Ok(());
        }
        let choices = checked_choices(&chunk)?;
        let mut chunk = chunk;
        let given = match chunk.get_mut("choices") {
            Some(Value::Array(choices)) => std::mem::take(choices),
            _ => Vec::new(),
        };
        match self.header.as_mut() {
            None => {
                let mut header = Map::new();
                for (key, value) in chunk {
                    match key.as_str() {
                        "obfuscation" => {}
                        "choices" => {
                            header.insert(key, Value::Null);
                        }
                        "object" => {
                            header.insert(key, "chat.completion".into());
                        }
                        _ => {
                            header.insert(key, value);
                        }
                    }
                }
                for key in ["object", "choices", "system_fingerprint", "usage"] {
                    if !header.contains_key(key) {
                        let value = match key {
                            "object" => "chat.completion".into(),
                            _ => Value::Null,
                        };
                        header.insert(key.to_owned(), value);
                    }
                }
                self.header = Some(header);
            }
            Some(header) => {
                for key in ["usage", "system_fingerprint", "moderation"] {
                    match chunk.shift_remove(key) {
                        None | Some(Value::Null) => {}
                        Some(value) => {
                            header.insert(key.to_owned(), value);
                        }
                    }
                }
            }
        }
        for (index, choice) in choices.into_iter().zip(given) {
            let Value::Object(mut choice) = choice else {
                unreachable!("checked");
            };
            let delta = match choice.shift_remove("delta") {
                Some(Value::Object(delta)) => delta,
                _ => Map::new(),
            };
            match self.choices.get_mut(&index) {
                None => {
                    let mut message = Map::new();
                    let mut calls = Entries::default();
                    merge_message(&mut message, delta, &mut calls);
                    self.tool_calls += tool_call_count(&message);
                    self.choices.insert(
                        index,
                        Choice {
                            fields: choice,
                            message,
                            calls,
                        },
                    );
                }
                // Only a delta with tool calls changes how many there are.
                Some(held) if delta.contains_key("tool_calls") => {
                    let before = tool_call_count(&held.message);
                    merge_message(&mut held.message, delta, &mut held.calls);
                    self.tool_calls = self.tool_calls - before + tool_call_count(&held.message);
                    held.update_fields(choice);
                }
                Some(held) => {
                    merge_message(&mut held.message, delta, &mut held.calls);
                    held.update_fields(choice);
                }
            }
        }
        Ok(())
    }
}

impl Choice {
    /// What a later chunk of the choice says of it besides its delta.
    fn update_fields(&mut self, mut choice: Map<String, Value>) {
        match choice.shift_remove("finish_reason") {
            Some(Value::String(reason)) if !reason.is_empty() => {
                self.fields
                    .insert("finish_reason".to_owned(), Value::String(reason));
            }
            _ => {}
        }
        if let Some(Value::Object(logprobs)) = choice.shift_remove("logprobs") {
            extend_logprobs(&mut self.fields, logprobs);
        }
    }
}

/// Checks a chunk's choices before anything is applied, so that a bad chunk
/// changes nothing: their indexes, in order.
fn checked_choices(chunk: &Map<String, Value>) -> Result<Vec<i64>, Bad> {
    let choices = match chunk.get("choices") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(choices)) => choices,
        Some(_) => return bad("has choices that are not a list"),
    };
    let mut indexes = Vec::with_capacity(choices.len());
    for (position, choice) in choices.iter().enumerate() {
        let Value::Object(choice) = choice else {
            return bad(format!(
                "has a choice (at {position}) that is not an object"
            ));
        };
        let index = match choice.get("index") {
            Some(Value::Number(number)) if number.as_i64().is_some() => {
                number.as_i64().unwrap_or_default()
            }
            None | Some(Value::Null) => {
                return bad(format!("has a choice (at {position}) without an index"))
            }
            Some(_) => {
                return bad(format!(
                    "has a choice (at {position}) whose index is not a 64-bit integer"
                ))
            }
        };
        let delta = match choice.get("delta") {
            None | Some(Value::Null) => None,
            Some(Value::Object(delta)) => Some(delta),
            Some(_) => {
                return bad(format!(
                    "has a delta (choice {index}) that is not an object"
                ))
            }
        };
        for key in ["content", "refusal"] {
            if let Some(value) = delta.and_then(|delta| delta.get(key)) {
                if !value.is_null() && !value.is_string() {
                    return bad(format!(
                        "has a delta (choice {index}) whose {key} is not a string"
                    ));
                }
            }
        }
        match delta.and_then(|delta| delta.get("tool_calls")) {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) if calls.iter().all(Value::is_object) => {}
            Some(_) => {
                return bad(format!(
                    "has a delta (choice {index}) whose tool_calls are not a list of objects"
                ))
            }
        }
        indexes.push(index);
    }
    Ok(indexes)
}

/// Checks that a probed delta is one the quick path applies as the full
/// path would, and says what it appends: `None` when it is not.
fn plan<'p>(
    message: &Map<String, Value>,
    shared: bool,
    delta: &'p Delta<'_>,
) -> Option<Appends<'p>> {
    if delta.other {
        return None;
    }
    let mut appends = Appends::default();
    let holds = |key: &str| !matches!(json::field(message, key), None | Some(Value::Null));
    match &delta.role {
        None => {}
        // Set once: a repeat changes nothing.
        Some(Scalar::Null | Scalar::Str(_)) if holds("role") => {}
        Some(_) => return None,
    }
    for ((key, value), slot) in TEXT_KEYS.iter().zip(&delta.texts).zip(&mut appends.texts) {
        match value {
            None => {}
            Some(Scalar::Null) if holds(key) => {}
            Some(Scalar::Str(piece)) => match json::field(message, key) {
                None | Some(Value::Null | Value::String(_)) => *slot = Some(piece),
                Some(_) => return None,
            },
            Some(_) => return None,
        }
    }
    match &delta.tool_calls {
        None => {}
        Some(Obj(None)) => return None,
        Some(Obj(Some(call))) => {
            let Some(Obj(Some(function))) = &call.function else {
                return None;
            };
            let (false, false, Some(Scalar::Str(piece))) =
                (call.other, function.other, &function.arguments)
            else {
                return None;
            };
            let index = call.index.as_ref().and_then(Scalar::as_i64)?;
            if shared {
                return None; // the call the index names is found by the full path
            }
            let Some(Value::Array(calls)) = json::field(message, "tool_calls") else {
                return None;
            };
            let at = usize::try_from(index).ok().filter(|&at| {
                calls
                    .get(at)
                    .and_then(Value::as_object)
                    .and_then(|entry| json::field(entry, "index"))
                    .and_then(Value::as_i64)
                    == Some(index)
            })?;
            match calls[at]
                .as_object()
                .and_then(|call| json::field(call, "function"))
            {
                Some(Value::Object(held)) => match json::field(held, "arguments") {
                    None | Some(Value::Null | Value::String(_)) => {}
                    Some(_) => return None,
                },
                _ => return None,
            }
            appends.arguments = Some((at, piece));
        }
    }
    Some(appends)
}

fn extend_logprobs(fields: &mut Map<String, Value>, given: Map<String, Value>) {
    let Some(Value::Object(held)) = fields.get_mut("logprobs") else {
        fields.insert("logprobs".to_owned(), Value::Object(given));
        return;
    };
    for key in ["content", "refusal"] {
        let Some(Value::Array(items)) = given.get(key) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        match held.get_mut(key) {
            Some(Value::Array(list)) => list.extend(items.iter().cloned()),
            _ => {
                held.insert(key.to_owned(), Value::Array(items.clone()));
            }
        }
    }
}

// --- the merge ----------------------------------------------------------------------------

/// Merges a delta into a choice's message: [`merge_into`], with its
/// `tool_calls` found through `calls`.
fn merge_message(message: &mut Map<String, Value>, delta: Map<String, Value>, calls: &mut Entries) {
    for (key, value) in delta {
        let calls = (key == "tool_calls").then_some(&mut *calls);
        match message.get_mut(&key) {
            Some(slot) if !slot.is_null() => merge_value(&key, slot, value, calls),
            _ => {
                message.insert(key, fresh(value, calls));
            }
        }
    }
}

/// Merges a delta into what was assembled (see the module's doc).
fn merge_into(held: &mut Map<String, Value>, delta: Map<String, Value>) {
    for (key, value) in delta {
        match held.get_mut(&key) {
            Some(slot) if !slot.is_null() => merge_value(&key, slot, value, None),
            _ => {
                held.insert(key, fresh(value, None));
            }
        }
    }
}

/// A value given for the first time: a list of indexed entries is merged
/// even within its first delta, which may carry several fragments of one
/// entry. `entries`, when given, is made to describe the list.
fn fresh(value: Value, entries: Option<&mut Entries>) -> Value {
    let tools = entries.is_some();
    let mut own = Entries::default();
    let entries = entries.unwrap_or(&mut own);
    *entries = Entries::default();
    match value {
        Value::Array(items) if tools || has_indexed(&items) => {
            let mut list = Vec::with_capacity(items.len());
            entries.built = true;
            merge_indexed(&mut list, items, entries, tools);
            Value::Array(list)
        }
        other => other,
    }
}

fn merge_value(key: &str, slot: &mut Value, value: Value, entries: Option<&mut Entries>) {
    if value.is_null() || SET_ONCE.contains(&key) {
        return;
    }
    if REPLACED.contains(&key) {
        // The same index written another way (`-0`, say) keeps the first.
        if key != "index" || slot.as_i64().is_none() || slot.as_i64() != value.as_i64() {
            *slot = value;
        }
        return;
    }
    match (slot, value) {
        (Value::String(text), Value::String(piece)) => text.push_str(&piece),
        (Value::Object(held), Value::Object(delta)) => merge_into(held, delta),
        (Value::Array(list), Value::Array(items)) => match entries {
            Some(entries) => merge_list(list, items, entries, true),
            None => merge_list(list, items, &mut Entries::default(), false),
        },
        (slot, value) => {
            *slot = value;
            if let Some(entries) = entries {
                *entries = Entries::default(); // read again when next asked
            }
        }
    }
}

/// More items for a list: merged by index when any has one, else added
/// (tool calls: always merged, see [`merge_indexed`]).
fn merge_list(list: &mut Vec<Value>, items: Vec<Value>, entries: &mut Entries, tools: bool) {
    if tools || has_indexed(&items) {
        merge_indexed(list, items, entries, tools);
    } else {
        for item in items {
            entries.note(list.len(), &item);
            list.push(item);
        }
    }
}

fn has_indexed(items: &[Value]) -> bool {
    items
        .iter()
        .any(|item| matches!(item, Value::Object(entry) if entry.contains_key("index")))
}

/// Merges entries into a list by their `index`; an entry without an integer
/// index joins the last entry with its `id`, or is added.
///
/// Tool calls (`tools`) as OpenAI-compatible servers send them: a call
/// with the index of another but an id of its own is a call of its own
/// (servers that number every call 0), which the index names from then on;
/// a fragment with neither an index (none at all, or null) nor an id
/// continues the call before it (servers that leave the index out), unless
/// both name their function.
fn merge_indexed(list: &mut Vec<Value>, items: Vec<Value>, entries: &mut Entries, tools: bool) {
    for item in items {
        let Value::Object(entry) = item else {
            list.push(item);
            continue;
        };
        let found = match (entry.get("index").and_then(Value::as_i64), entry.get("id")) {
            (Some(index), _) => entries.find_index(list, index),
            (None, Some(Value::String(id))) => entries.find_id(list, id),
            (None, _) if tools && entry.get("index").is_none_or(Value::is_null) => list
                .len()
                .checked_sub(1)
                .filter(|&last| !(names_function(&list[last]) && names_function_in(&entry))),
            (None, _) => None,
        };
        let found = found.filter(|&at| {
            list[at].is_object() && !(tools && another_call(&list[at], entry.get("id")))
        });
        match found {
            Some(at) => {
                let Value::Object(held) = &mut list[at] else {
                    unreachable!("only objects have an index or an id");
                };
                let gives_id = entries.built && entry.contains_key("id");
                merge_into(held, entry);
                if gives_id {
                    // An id is set once: a held entry may only gain one.
                    if let Some(Value::String(id)) = held.get("id") {
                        entries.note_id(at, id);
                    }
                }
            }
            None => {
                let fresh = fresh_entry(entry);
                entries.note(list.len(), &fresh);
                list.push(fresh);
            }
        }
    }
}

/// Whether a tool call names its function.
fn names_function(call: &Value) -> bool {
    call.as_object().is_some_and(names_function_in)
}

fn names_function_in(call: &Map<String, Value>) -> bool {
    call.get("function")
        .and_then(|function| function.get("name"))
        .and_then(Value::as_str)
        .is_some_and(|name| !name.is_empty())
}

/// Whether a tool call's `id` names a call other than `held`.
fn another_call(held: &Value, id: Option<&Value>) -> bool {
    match (held.get("id"), id) {
        (Some(Value::String(held)), Some(Value::String(id))) => held != id,
        _ => false,
    }
}

fn fresh_entry(entry: Map<String, Value>) -> Value {
    let mut held = Map::new();
    merge_into(&mut held, entry);
    Value::Object(held)
}

/// Where a list's entries stand by their integer `index` and by their `id`:
/// what a scan from the end would find, without one. A stream may grow a
/// message's `tool_calls` to thousands, and a scan for each delta whose
/// entry is not at the position its index names (indexes from 1, calls out
/// of order, entries joined by id) made that quadratic. Kept for each
/// choice's `tool_calls`; other lists are short, and are scanned.
///
/// An entry never gains an integer index once made (an item that joins it
/// by index has the same one; by id, none), and may lose it only to a
/// value that is not one: positions that no longer have their index are
/// dropped when found. An id is set once. A list replaced by another value
/// is read again, with one scan, when next asked.
#[derive(Debug, Clone, Default)]
struct Entries {
    /// Whether the maps describe the list (else they are empty).
    built: bool,
    /// Index -> the positions of the entries with it, ascending.
    by_index: HashMap<i64, Vec<usize>>,
    /// Id -> the position of the last entry with it.
    by_id: HashMap<String, usize>,
    /// Whether an index names more than one entry (a server that numbers
    /// every call 0): the entry at the position an index names may not be
    /// the last with it.
    shared: bool,
}

impl Entries {
    fn build(&mut self, list: &[Value]) {
        if self.built {
            return;
        }
        self.built = true;
        for (at, entry) in list.iter().enumerate() {
            self.note(at, entry);
        }
    }

    /// An entry was put at `at`, after every other.
    fn note(&mut self, at: usize, entry: &Value) {
        if !self.built {
            return;
        }
        if let Some(index) = entry.get("index").and_then(Value::as_i64) {
            let positions = self.by_index.entry(index).or_default();
            self.shared |= !positions.is_empty();
            positions.push(at);
        }
        if let Some(Value::String(id)) = entry.get("id") {
            self.note_id(at, id);
        }
    }

    fn note_id(&mut self, at: usize, id: &str) {
        match self.by_id.get_mut(id) {
            Some(last) => *last = (*last).max(at),
            None => {
                self.by_id.insert(id.to_owned(), at);
            }
        }
    }

    /// Where the entry with `index` stands: at that position when the
    /// entries came in order (the usual case), else the last one with it.
    fn find_index(&mut self, list: &[Value], index: i64) -> Option<usize> {
        let has = |at: usize| list[at].get("index").and_then(Value::as_i64) == Some(index);
        if let (Ok(at), true) = (usize::try_from(index), self.built && !self.shared) {
            if at < list.len() && has(at) {
                return Some(at);
            }
        }
        self.build(list);
        let positions = self.by_index.get_mut(&index)?;
        while let Some(&at) = positions.last() {
            if has(at) {
                return Some(at);
            }
            positions.pop(); // it lost its index
        }
        None
    }

    /// Where the last entry with `id` stands.
    fn find_id(&mut self, list: &[Value], id: &str) -> Option<usize> {
        self.build(list);
        self.by_id.get(id).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(chunks: &[&str]) -> Value {
        let mut assembler = Assembler::default();
        for chunk in chunks {
            assembler
                .feed(format!("data: {chunk}\n\n").as_bytes())
                .unwrap();
        }
        assembler.close().unwrap();
        assembler.completion()
    }

    #[test]
    fn repeated_identity_fields_are_kept_once() {
        let completion = assemble(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"He"}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"llo"}}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":":1}"}}]},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]);
        let message = &completion["choices"][0]["message"];
        assert_eq!(message["role"], "assistant");
        assert_eq!(message["content"], "Hello");
        let call = &message["tool_calls"][0];
        assert_eq!(call["id"], "call_1");
        assert_eq!(call["function"]["name"], "f");
        assert_eq!(call["function"]["arguments"], "{\"a\":1}");
        assert_eq!(completion["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(completion["object"], "chat.completion");
    }

    #[test]
    fn a_bad_chunk_changes_nothing() {
        let mut assembler = Assembler::new(Options {
            on_error: OnError::Skip,
            ..Options::default()
        });
        assembler
            .feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
            .unwrap();
        assembler
            .feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}},{\"index\":1,\"delta\":{\"content\":5}}]}\n\n")
            .unwrap();
        assert_eq!(assembler.errors().len(), 1);
        assert_eq!(
            assembler.completion()["choices"][0]["message"]["content"],
            "a"
        );
    }

    #[test]
    fn a_reconnection_drops_the_cut_event_and_keeps_the_rest() {
        let mut assembler = Assembler::default();
        assembler
            .feed(b"retry: 250\nid: 1\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nid: 2\ndata: {\"choi")
            .unwrap();
        assert_eq!(assembler.last_event_id(), "1");
        assert_eq!(assembler.retry(), Some(250));
        assembler.reconnect().unwrap();
        assembler
            .feed(b"id: 2\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n")
            .unwrap();
        assert_eq!(assembler.last_event_id(), "2");
        assembler.close().unwrap();
        assert_eq!(
            assembler.completion()["choices"][0]["message"]["content"],
            "ab"
        );
        assert!(matches!(
            assembler.reconnect(),
            Err(Error::Closed("assembler"))
        ));
    }
}
