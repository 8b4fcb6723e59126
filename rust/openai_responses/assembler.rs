//! Assembling an OpenAI Responses API stream into its Response.
//! `python/agentcodec/_pure/openai_responses/assembler.py` mirrors this module rule
//! for rule.
//!
//! The state is the Response's own fields (from the latest lifecycle event)
//! and its output items by `output_index`. Every delta kind appends in place;
//! every `*.done` and `output_item.done` replaces what it names;
//! `response.completed` carries the final output. Items are matched by id
//! before position, because gateways send `output_item.done` out of order
//! or at the wrong index.

use std::collections::BTreeMap;

use super::probe::Probe;
use crate::article::article;
use crate::events::or_null;
use crate::hashing::HashMap;
use crate::json::{self, quote, Map, Value};
use crate::json_probe::{Scalar, StrField};
use crate::stream::{bad, Assemble, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};
use crate::tool_calls::{rewritten, Arguments, ToolCall, ToolCalls};

const LIFECYCLE: [&str; 3] = [
    "response.created",
    "response.queued",
    "response.in_progress",
];
const TERMINAL: [&str; 3] = [
    "response.completed",
    "response.failed",
    "response.incomplete",
];
const STATUS_TOOLS: [&str; 6] = [
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
];
const STATUSES: [&str; 6] = [
    "in_progress",
    "searching",
    "completed",
    "failed",
    "generating",
    "interpreting",
];
/// Events with nothing to assemble into the Response.
const IGNORED: [&str; 5] = [
    "response.audio.delta",
    "response.audio.done",
    "response.audio.transcript.delta",
    "response.audio.transcript.done",
    "response.image_generation_call.partial_image",
];

/// Where a delta or done event writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    /// A part of the item's "content"; the kind of part it opens.
    Content(&'static str),
    /// A part of the item's "summary".
    Summary(&'static str),
    /// A field of the item itself.
    Item,
}

impl Where {
    fn parts_key(self) -> &'static str {
        match self {
            Where::Content(_) => "content",
            Where::Summary(_) => "summary",
            Where::Item => "",
        }
    }

    fn index_key(self) -> &'static str {
        match self {
            Where::Content(_) => "content_index",
            Where::Summary(_) => "summary_index",
            Where::Item => "",
        }
    }

    fn new_part(self) -> Option<&'static str> {
        match self {
            Where::Content(kind) | Where::Summary(kind) => Some(kind),
            Where::Item => None,
        }
    }
}

/// What a delta appends to, and the field.
fn delta_target(kind: &str) -> Option<(Where, &'static str)> {
    Some(match kind {
        "response.output_text.delta" => (Where::Content("output_text"), "text"),
        "response.refusal.delta" => (Where::Content("refusal"), "refusal"),
        "response.reasoning_text.delta" => (Where::Content("reasoning_text"), "text"),
        "response.reasoning_summary_text.delta" => (Where::Summary("summary_text"), "text"),
        "response.function_call_arguments.delta" | "response.mcp_call_arguments.delta" => {
            (Where::Item, "arguments")
        }
        "response.custom_tool_call_input.delta" => (Where::Item, "input"),
        "response.code_interpreter_call_code.delta" => (Where::Item, "code"),
        _ => return None,
    })
}

/// What a done event replaces, the field, and the event's key holding the value.
fn done_target(kind: &str) -> Option<(Where, &'static str, &'static str)> {
    Some(match kind {
        "response.output_text.done" => (Where::Content("output_text"), "text", "text"),
        "response.refusal.done" => (Where::Content("refusal"), "refusal", "refusal"),
        "response.reasoning_text.done" => (Where::Content("reasoning_text"), "text", "text"),
        "response.reasoning_summary_text.done" => (Where::Summary("summary_text"), "text", "text"),
        "response.function_call_arguments.done" | "response.mcp_call_arguments.done" => {
            (Where::Item, "arguments", "arguments")
        }
        "response.custom_tool_call_input.done" => (Where::Item, "input", "input"),
        "response.code_interpreter_call_code.done" => (Where::Item, "code", "code"),
        _ => return None,
    })
}

fn part_target(kind: &str) -> Option<Where> {
    match kind {
        "response.content_part.added" | "response.content_part.done" => {
            Some(Where::Content("output_text"))
        }
        "response.reasoning_summary_part.added" | "response.reasoning_summary_part.done" => {
            Some(Where::Summary("summary_text"))
        }
        _ => None,
    }
}

/// A part opened by a delta whose producer skipped the part's added event.
fn new_part(kind: &str) -> Value {
    let mut part = Map::new();
    part.insert("type".to_owned(), kind.into());
    match kind {
        "output_text" => {
            part.insert("annotations".to_owned(), Value::Array(Vec::new()));
            part.insert("text".to_owned(), "".into());
        }
        "refusal" => {
            part.insert("refusal".to_owned(), "".into());
        }
        _ => {
            part.insert("text".to_owned(), "".into());
        }
    }
    Value::Object(part)
}

/// Assembles an OpenAI Responses stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Responses>,
}

/// How an item is recognised again: by its id, or by its call id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Identity {
    Id(String),
    CallId(String),
    None,
}

fn identity(item: &Value) -> Identity {
    if let Some(id) = item.get("id").and_then(Value::as_str) {
        return Identity::Id(id.to_owned());
    }
    match item.get("call_id").and_then(Value::as_str) {
        Some(call_id) => Identity::CallId(call_id.to_owned()),
        None => Identity::None,
    }
}

#[derive(Debug, Clone)]
pub struct Responses {
    /// The latest Response's fields; "output" keeps its place, if it had one.
    header: Map<String, Value>,
    items: BTreeMap<i64, Value>,
    positions: HashMap<Identity, i64>,
    kept: Vec<Value>,
    /// A terminal event came: the Response is final, as openai-python's
    /// `get_final_response()` has it.
    ended: bool,
    /// Times an item's arguments were replaced by more than an append.
    rewrites: u64,
    /// The content and summary parts all items hold (for `max_blocks`).
    parts: usize,
}

/// The parts an item holds: its content and summary parts, a Responses
/// item's blocks.
fn part_count(item: &Value) -> usize {
    ["content", "summary"]
        .iter()
        .map(|key| match item.get(*key) {
            Some(Value::Array(parts)) => parts.len(),
            _ => 0,
        })
        .sum()
}

type Applied = std::result::Result<(), Bad>;

fn int(event: &Map<String, Value>, key: &str) -> Result<i64, Bad> {
    match event.get(key) {
        Some(Value::Number(number)) if number.as_i64().is_some() => {
            Ok(number.as_i64().unwrap_or_default())
        }
        None | Some(Value::Null) => bad(format!("has no {key}")),
        Some(_) => bad(format!(
            "has {} {key} that is not a 64-bit integer",
            article(key)
        )),
    }
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.response()
    }
}

crate::stream::assemble_with_driver!(Assembler, Responses);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        let protocol = Responses {
            header: Map::new(),
            items: BTreeMap::new(),
            positions: HashMap::default(),
            kept: Vec::new(),
            ended: false,
            rewrites: 0,
            parts: 0,
        };
        Assembler {
            driver: Driver::new(
                protocol,
                options.limits,
                options.on_error,
                "OpenAI Responses event",
            ),
        }
    }

    /// The Response so far: the last one the server sent, with every output
    /// item as assembled.
    pub fn response(&self) -> Value {
        let state = &self.driver.protocol;
        let output = Value::Array(state.items.values().cloned().collect());
        let mut response = state.header.clone();
        response.insert("output".to_owned(), output);
        Value::Object(response)
    }

    /// The text of every `output_text` part of every message, joined.
    pub fn output_text(&self) -> String {
        let mut text = String::new();
        for item in self.driver.protocol.items.values() {
            if item.get("type").and_then(Value::as_str) != Some("message") {
                continue;
            }
            for part in item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if part.get("type").and_then(Value::as_str) == Some("output_text") {
                    text.push_str(part.get("text").and_then(Value::as_str).unwrap_or(""));
                }
            }
        }
        text
    }

    /// Every item whose arguments stream (`function_call` and `mcp_call`):
    /// `id`, `type`, `call_id` (`server_label` for an MCP call) and `name`,
    /// and its `arguments` text so far. A call is finished once its item is
    /// no longer `in_progress` or the Response ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let state = &self.driver.protocol;
        let ended = state.ended || self.is_closed();
        let mut calls = Vec::new();
        for (index, item) in &state.items {
            let kind = item.get("type").and_then(Value::as_str);
            let by = match kind {
                Some("function_call") => "call_id",
                Some("mcp_call") => "server_label",
                _ => continue,
            };
            let mut fields = Map::new();
            for key in ["id", "type", by, "name"] {
                fields.insert(key.to_owned(), or_null(item.get(key)));
            }
            let arguments = Arguments::of(item.get("arguments"));
            let status = item.get("status").and_then(Value::as_str);
            calls.push(ToolCall {
                key: index.to_string().into(),
                fields,
                field: "arguments",
                arguments,
                finished: ended || !matches!(status, None | Some("in_progress")),
            });
        }
        ToolCalls {
            calls,
            rewrites: state.rewrites,
        }
    }

    /// Events kept without being assembled: `error` events and unknown types.
    pub fn events(&self) -> &[Value] {
        &self.driver.protocol.kept
    }

    pub fn status(&self) -> Option<&str> {
        self.driver
            .protocol
            .header
            .get("status")
            .and_then(Value::as_str)
    }
}

impl Protocol for Responses {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some(probe) = Probe::read(text) else {
            return false;
        };
        self.append_delta(&probe)
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
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
        self.items.len()
    }

    fn block_count(&self) -> usize {
        self.parts
    }

    fn finish(&mut self) {}
}

impl Responses {
    /// A delta to an item or part that exists, from a probe: what the full
    /// path does for it, without a `Value` tree. Returns false, having
    /// changed nothing, for any other event.
    fn append_delta(&mut self, probe: &Probe<'_>) -> bool {
        let (false, Some(StrField::Str(kind)), Some(StrField::Str(delta))) =
            (self.ended, &probe.kind, &probe.delta)
        else {
            return false;
        };
        let Some((target, field)) = delta_target(kind) else {
            return false;
        };
        if probe.logprobs {
            return false;
        }
        let Some(index) = probe.output_index.as_ref().and_then(Scalar::as_i64) else {
            return false;
        };
        let Some(item) = self.items.get_mut(&index) else {
            return false;
        };
        // The item at the index must be the one named (the full path looks
        // further when it is not).
        if let (Some(Scalar::Str(named)), Some(id)) = (
            &probe.item_id,
            item.as_object().and_then(|item| json::field(item, "id")),
        ) {
            if !id.is_null() && id.as_str() != Some(named.as_ref()) {
                return false;
            }
        }
        let slot = match target {
            Where::Item => item,
            _ => {
                let key = if matches!(target, Where::Summary(_)) {
                    &probe.summary_index
                } else {
                    &probe.content_index
                };
                let Some(at) = key.as_ref().and_then(Scalar::as_i64) else {
                    return false;
                };
                let parts = item
                    .as_object_mut()
                    .and_then(|item| json::field_mut(item, target.parts_key()));
                let Some(Value::Array(parts)) = parts else {
                    return false;
                };
                match usize::try_from(at).ok().and_then(|at| parts.get_mut(at)) {
                    Some(part @ Value::Object(_)) => part,
                    _ => return false,
                }
            }
        };
        let Value::Object(slot) = slot else {
            return false;
        };
        match json::field_mut(slot, field) {
            Some(Value::String(text)) => text.push_str(delta),
            _ => {
                slot.insert(field.to_owned(), Value::String(delta.as_ref().to_owned()));
            }
        }
        true
    }

    fn apply(&mut self, log: &mut Log, kind: &str, event: Map<String, Value>) -> Applied {
        if self.ended && kind != "error" {
            return bad("comes after the response ended");
        }
        if let Some((target, field)) = delta_target(kind) {
            return self.delta(&event, target, field);
        }
        if let Some((target, field, key)) = done_target(kind) {
            return self.done(&event, target, field, key);
        }
        if LIFECYCLE.contains(&kind) || TERMINAL.contains(&kind) {
            return self.lifecycle(log, kind, event);
        }
        if let Some(target) = part_target(kind) {
            return self.part(event, target);
        }
        match kind {
            "response.output_item.added" => self.item_added(event),
            "response.output_item.done" => self.item_done(event),
            "response.output_text.annotation.added" => self.annotation(event),
            "error" => {
                log.record(ErrorRecord {
                    event: log.events,
                    code: event
                        .get("code")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                        .to_owned(),
                    message: event
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
                self.kept.push(Value::Object(event));
                Ok(())
            }
            _ if IGNORED.contains(&kind) => Ok(()),
            _ => {
                let rest = kind.strip_prefix("response.").unwrap_or(kind);
                match rest.rsplit_once('.') {
                    Some((tool, status))
                        if STATUS_TOOLS.contains(&tool) && STATUSES.contains(&status) =>
                    {
                        let item = self.item(&event)?;
                        if let Value::Object(item) = item {
                            item.insert("status".to_owned(), status.into());
                        }
                        Ok(())
                    }
                    _ => {
                        self.kept.push(Value::Object(event));
                        Ok(())
                    }
                }
            }
        }
    }

    // --- the Response and its items -------------------------------------------------

    fn lifecycle(&mut self, log: &mut Log, kind: &str, mut event: Map<String, Value>) -> Applied {
        let Some(Value::Object(mut response)) = event.shift_remove("response") else {
            return bad("has no response object");
        };
        if let Some(Value::String(known)) = self.header.get("id") {
            match response.get("id") {
                Some(Value::String(id)) if id == known => {}
                Some(Value::String(id)) => {
                    return bad(format!(
                        "is for response {}, not {}",
                        quote(id),
                        quote(known)
                    ))
                }
                _ => return bad(format!("is for a response without the id {}", quote(known))),
            }
        }
        let output = match response.get_mut("output") {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) if items.iter().all(Value::is_object) => {
                Some(std::mem::take(items))
            }
            Some(_) => return bad("has an output that is not a list of items"),
        };
        if response.contains_key("output") {
            response.insert("output".to_owned(), Value::Null);
        }
        let error = response.get("error").cloned();
        self.header = response;
        match output {
            Some(output) if kind == "response.completed" => {
                // The final output, as the server has it.
                self.rewrites += 1;
                self.items = (0..).zip(output).collect();
                self.parts = self.items.values().map(part_count).sum();
                self.reindex();
            }
            Some(output) => {
                for item in output {
                    self.place(item, None);
                }
            }
            None => {}
        }
        if TERMINAL.contains(&kind) {
            self.ended = true;
            let failed = kind == "response.failed";
            if failed || matches!(error, Some(Value::Object(_))) {
                let error = error.unwrap_or(Value::Null);
                log.record(ErrorRecord {
                    event: log.events,
                    code: error
                        .get("code")
                        .and_then(Value::as_str)
                        .unwrap_or("response_failed")
                        .to_owned(),
                    message: error
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
            }
        }
        Ok(())
    }

    /// Counts a rewrite when the item at `at` is replaced by one whose
    /// arguments do not begin with its own.
    fn note_replacing(&mut self, at: i64, item: &Value) {
        let old = self.items.get(&at).and_then(|old| old.get("arguments"));
        if rewritten(old, item.get("arguments")) {
            self.rewrites += 1;
        }
    }

    fn reindex(&mut self) {
        self.positions.clear();
        for (&index, item) in &self.items {
            let identity = identity(item);
            if identity != Identity::None {
                self.positions.entry(identity).or_insert(index);
            }
        }
    }

    /// Puts a finished item where the same item stands (by id, or call id),
    /// else at `index` if that is free, else after the last.
    fn place(&mut self, item: Value, index: Option<i64>) {
        let identity = identity(&item);
        let found = match identity {
            Identity::None => None,
            _ => self.positions.get(&identity).copied(),
        };
        let at = found.unwrap_or_else(|| match index {
            Some(index) if !self.items.contains_key(&index) => index,
            _ => self
                .items
                .keys()
                .next_back()
                .map_or(0, |last| last.saturating_add(1)),
        });
        self.note_replacing(at, &item);
        self.insert(at, item);
        if identity != Identity::None {
            self.positions.insert(identity, at);
        }
    }

    /// Puts an item at `at`, replacing what was there, and counts its parts.
    fn insert(&mut self, at: i64, item: Value) {
        self.parts += part_count(&item);
        if let Some(old) = self.items.insert(at, item) {
            self.parts -= part_count(&old);
        }
    }

    fn item_added(&mut self, event: Map<String, Value>) -> Applied {
        let index = int(&event, "output_index")?;
        let item = match event.get("item") {
            None | Some(Value::Null) => return Ok(()), // an empty slot announced
            Some(item @ Value::Object(_)) => item.clone(),
            Some(_) => return bad("has an item that is not an object"),
        };
        if let Some(held) = self.items.get(&index) {
            if identity(held) != identity(&item) {
                return bad(format!(
                    "adds an item at output_index {index}, which another item holds"
                ));
            }
        }
        let identity = identity(&item);
        self.note_replacing(index, &item);
        self.insert(index, item);
        if identity != Identity::None {
            self.positions.insert(identity, index);
        }
        Ok(())
    }

    fn item_done(&mut self, mut event: Map<String, Value>) -> Applied {
        let index = int(&event, "output_index")?;
        match event.shift_remove("item") {
            Some(item @ Value::Object(_)) => {
                self.place(item, Some(index));
                Ok(())
            }
            _ => bad("has no item object"),
        }
    }

    /// The item an event addresses: at its `output_index`, unless that holds
    /// another item and its `item_id` names one.
    fn item(&mut self, event: &Map<String, Value>) -> Result<&mut Value, Bad> {
        Self::item_in(&mut self.items, &self.positions, event)
    }

    /// [`Responses::item`], borrowing only the items and their positions.
    fn item_in<'a>(
        items: &'a mut BTreeMap<i64, Value>,
        positions: &HashMap<Identity, i64>,
        event: &Map<String, Value>,
    ) -> Result<&'a mut Value, Bad> {
        let index = int(event, "output_index")?;
        let item_id = event.get("item_id").and_then(Value::as_str);
        let at_index = match items.get(&index) {
            Some(item) => match (item_id, item.get("id")) {
                (None, _) => true,
                (Some(named), Some(Value::String(id))) => named == id,
                (Some(_), None | Some(Value::Null)) => true,
                (Some(_), Some(_)) => false,
            },
            None => false,
        };
        let position = if at_index {
            Some(index)
        } else {
            item_id.and_then(|id| positions.get(&Identity::Id(id.to_owned())).copied())
        };
        match position.and_then(|at| items.get_mut(&at)) {
            Some(item) => Ok(item),
            None => bad(format!("is for output item {index}, which was never added")),
        }
    }

    /// What a delta or done event writes into: the item, or one of its
    /// content or summary parts (opened, when `open`, if it is the next one).
    fn slot(
        &mut self,
        event: &Map<String, Value>,
        target: Where,
        open: bool,
    ) -> Result<&mut Map<String, Value>, Bad> {
        let item = Self::item_in(&mut self.items, &self.positions, event)?;
        let Value::Object(item) = item else {
            unreachable!("items are objects");
        };
        if target == Where::Item {
            return Ok(item);
        }
        let index = int(event, target.index_key())?;
        let where_key = target.parts_key();
        if !matches!(item.get(where_key), Some(Value::Array(_))) {
            item.insert(where_key.to_owned(), Value::Array(Vec::new()));
        }
        let Some(Value::Array(parts)) = item.get_mut(where_key) else {
            unreachable!("just made an array");
        };
        if open && usize::try_from(index).ok() == Some(parts.len()) {
            if let Some(kind) = target.new_part() {
                parts.push(new_part(kind));
                self.parts += 1;
            }
        }
        match usize::try_from(index).ok().and_then(|at| parts.get_mut(at)) {
            Some(Value::Object(part)) => Ok(part),
            _ => bad(format!(
                "is for {where_key} part {index} of output item {}, which was never added",
                int(event, "output_index").unwrap_or_default()
            )),
        }
    }

    fn delta(&mut self, event: &Map<String, Value>, target: Where, field: &str) -> Applied {
        let delta = match event.get("delta") {
            Some(Value::String(delta)) => delta,
            None | Some(Value::Null) => return bad("has no delta"),
            Some(_) => return bad("has a delta that is not a string"),
        };
        let slot = self.slot(event, target, true)?;
        match slot.get_mut(field) {
            Some(Value::String(text)) => text.push_str(delta),
            _ => {
                slot.insert(field.to_owned(), Value::String(delta.clone()));
            }
        }
        if let Some(Value::Array(logprobs)) = event.get("logprobs") {
            if !logprobs.is_empty() {
                match slot.get_mut("logprobs") {
                    Some(Value::Array(held)) => held.extend(logprobs.iter().cloned()),
                    _ => {
                        slot.insert("logprobs".to_owned(), Value::Array(logprobs.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    fn done(
        &mut self,
        event: &Map<String, Value>,
        target: Where,
        field: &str,
        key: &str,
    ) -> Applied {
        let value = match event.get(key) {
            Some(Value::String(value)) => value.clone(),
            None | Some(Value::Null) => return bad(format!("has no {key}")),
            Some(_) => return bad(format!("has {} {key} that is not a string", article(key))),
        };
        let slot = self.slot(event, target, true)?;
        let value = Value::String(value);
        let replaced = rewritten(slot.get(field), Some(&value));
        slot.insert(field.to_owned(), value);
        if let Some(logprobs @ Value::Array(_)) = event.get("logprobs") {
            slot.insert("logprobs".to_owned(), logprobs.clone());
        }
        if replaced {
            self.rewrites += 1;
        }
        Ok(())
    }

    fn part(&mut self, mut event: Map<String, Value>, target: Where) -> Applied {
        let part = match event.shift_remove("part") {
            Some(part @ Value::Object(_)) => part,
            _ => return bad("has no part object"),
        };
        let item = Self::item_in(&mut self.items, &self.positions, &event)?;
        let index = int(&event, target.index_key())?;
        let output_index = int(&event, "output_index").unwrap_or_default();
        let Value::Object(item) = item else {
            unreachable!("items are objects");
        };
        let where_key = target.parts_key();
        if !matches!(item.get(where_key), Some(Value::Array(_))) {
            item.insert(where_key.to_owned(), Value::Array(Vec::new()));
        }
        let Some(Value::Array(parts)) = item.get_mut(where_key) else {
            unreachable!("just made an array");
        };
        match usize::try_from(index).ok() {
            Some(at) if at == parts.len() => {
                parts.push(part);
                self.parts += 1;
            }
            Some(at) if at < parts.len() => parts[at] = part,
            _ => {
                return bad(format!(
                "is for {where_key} part {index} of output item {output_index}, past its last part"
            ))
            }
        }
        Ok(())
    }

    fn annotation(&mut self, mut event: Map<String, Value>) -> Applied {
        let annotation = match event.shift_remove("annotation") {
            None | Some(Value::Null) => return bad("has no annotation"),
            Some(annotation) => annotation,
        };
        let part = self.slot(&event, Where::Content("output_text"), false)?;
        let index = int(&event, "annotation_index")?;
        if !matches!(part.get("annotations"), Some(Value::Array(_))) {
            part.insert("annotations".to_owned(), Value::Array(Vec::new()));
        }
        let Some(Value::Array(annotations)) = part.get_mut("annotations") else {
            unreachable!("just made an array");
        };
        match usize::try_from(index).ok() {
            Some(at) if at < annotations.len() => annotations[at] = annotation,
            _ => annotations.push(annotation),
        }
        Ok(())
    }
}
