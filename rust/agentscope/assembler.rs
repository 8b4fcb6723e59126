//! Assembling an AgentScope Agent API (`/process`) stream into its final
//! AgentResponse. `python/agentcodec/_pure/agentscope/assembler.py` mirrors this
//! module rule for rule.
//!
//! The state is the response's own fields, its messages in order of first
//! appearance, and per message its content slots by index. Deltas append to
//! strings in place (amortised O(1)); nothing is copied until the state is
//! read.

use std::collections::{BTreeMap, BTreeSet};

use super::probe::Probe;
use super::vocabulary::{CONTENT_TYPES, ROLES, TERMINAL_STATUSES};
use crate::accumulate::{append, append_at, get_mut_at};
use crate::events::or_null;
use crate::frozen::{Budget, FrozenValue, Rendered, FREEZE_MAX_BYTES};
use crate::hashing::{HashMap, IndexMap};
use crate::json::{self, Map, Value, MAX_DEPTH};
use crate::json_probe::{Scalar, StrField};
use crate::sse::Limits;
use crate::stream::{Assemble, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError};
use crate::tool_calls::{rewritten, Arguments, ToolCall, ToolCalls};

/// Keys of tool-call data that producers repeat in every delta: an equal
/// repeat is not appended.
const IDENTITY_KEYS: [&str; 5] = [
    "id",
    "call_id",
    "name",
    "server_label",
    "approval_request_id",
];

/// How a `delta: true` data content merges into its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataMerge {
    /// Strings and lists append, objects merge, new keys are added, an
    /// identity field repeated unchanged is kept once, anything else is
    /// replaced. Refusal, audio, video and file deltas append too.
    Merge,
    /// Exactly agentscope-runtime's `Message.add_delta_content`: only keys
    /// already present, only str onto str and list onto list; everything
    /// else is dropped. Only text, image and data deltas merge.
    Upstream,
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub data_merge: DataMerge,
    pub on_error: OnError,
    /// Reject what upstream's models reject: an unknown role or content type.
    pub strict: bool,
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            data_merge: DataMerge::Merge,
            on_error: OnError::Raise,
            strict: false,
            limits: Limits::default(),
        }
    }
}

/// A message: live while it may change, frozen once it is done.
#[derive(Debug, Clone)]
struct Message {
    body: Body,
    /// It was thawed: it stays live from then on, so that a stream that
    /// keeps changing a done message cannot make it freeze and thaw in turn.
    thawed: bool,
}

#[derive(Debug, Clone)]
enum Body {
    Live(Box<Live>),
    /// A message whose status is terminal and that carries no data content
    /// (tool calls are read live), kept as its JSON text (`FrozenValue`):
    /// a small message costs its text, not a tree of maps.
    Frozen(Box<Frozen>),
}

#[derive(Debug, Clone)]
struct Frozen {
    /// The message as it reads, its slots as its content.
    text: FrozenValue,
    /// The slots' indexes, in order: empty when the content is a field.
    slots: Box<[i64]>,
    rewrites: u64,
}

/// A live message as `Live::render` makes it, written without building it
/// (every live message has a "content" field, from `Live::new`: its slots,
/// when it has any, are written there).
struct Rendering<'a>(&'a Live);

impl serde::Serialize for Rendering<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Live { fields, slots, .. } = self.0;
        let mut map = serializer.serialize_map(Some(fields.len()))?;
        for (key, value) in fields {
            if !slots.is_empty() && key == "content" {
                map.serialize_entry(key, &Slots(slots))?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

struct Slots<'a>(&'a BTreeMap<i64, Value>);

impl serde::Serialize for Slots<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.values())
    }
}

#[derive(Debug, Clone)]
struct Live {
    /// Every field but the content, in order; "content" keeps its place.
    fields: Map<String, Value>,
    /// Content slots by index. Empty: the content is `fields["content"]`.
    slots: BTreeMap<i64, Value>,
    /// Tool call id -> the indexes of the data slots that carry it: where a
    /// data delta without an index goes, found without a scan.
    calls: HashMap<String, BTreeSet<i64>>,
    /// Times a slot's arguments were replaced by more than an append: see
    /// `tool_calls`.
    rewrites: u64,
}

/// A data slot's tool-call arguments.
fn slot_arguments(slot: &Value) -> Option<&Value> {
    slot.get("data").and_then(|data| data.get("arguments"))
}

/// The tool call a data slot carries.
fn slot_call_id(slot: &Value) -> Option<&str> {
    if slot.get("type").and_then(Value::as_str) != Some("data") {
        return None;
    }
    slot.get("data")
        .and_then(|data| data.get("call_id"))
        .and_then(Value::as_str)
        .filter(|call_id| !call_id.is_empty())
}

impl Message {
    /// What upstream's `Message(id=msg_id)` holds, streaming.
    fn new(msg_id: Value) -> Self {
        Message {
            body: Body::Live(Box::new(Live::new(msg_id))),
            thawed: false,
        }
    }

    /// The message to change, thawed if it was frozen.
    fn live(&mut self) -> &mut Live {
        if let Body::Frozen(frozen) = &self.body {
            let live = frozen.thaw();
            self.body = Body::Live(Box::new(live));
            self.thawed = true;
        }
        match &mut self.body {
            Body::Live(live) => live,
            Body::Frozen(_) => unreachable!("thawed above"),
        }
    }

    /// The message, unless it is frozen.
    fn as_live(&self) -> Option<&Live> {
        match &self.body {
            Body::Live(live) => Some(live),
            Body::Frozen(_) => None,
        }
    }

    fn as_live_mut(&mut self) -> Option<&mut Live> {
        match &mut self.body {
            Body::Live(live) => Some(live),
            Body::Frozen(_) => None,
        }
    }

    fn rewrites(&self) -> u64 {
        match &self.body {
            Body::Live(live) => live.rewrites,
            Body::Frozen(frozen) => frozen.rewrites,
        }
    }

    fn render(&self) -> Value {
        self.rendered().into_value()
    }

    /// The message as it reads: built, or its text when it is frozen.
    fn rendered(&self) -> Rendered<'_> {
        match &self.body {
            Body::Live(live) => Rendered::Value(live.render()),
            Body::Frozen(frozen) => Rendered::Json(frozen.text.as_str()),
        }
    }

    /// Freezes a message that is done: its status is terminal, it carries
    /// no data content, it was never thawed, and it reads back.
    fn freeze_if_done(&mut self) {
        let Body::Live(live) = &self.body else {
            return;
        };
        let done = live
            .fields
            .get("status")
            .and_then(Value::as_str)
            .is_some_and(is_terminal);
        if self.thawed
            || !done
            || live
                .slots
                .values()
                .any(|slot| slot.get("type").and_then(Value::as_str) == Some("data"))
        {
            return;
        }
        // What the text will take, known before it is written, and its
        // depth: a slot is two levels down (content, slot).
        let mut budget = Budget::new(FREEZE_MAX_BYTES);
        let mut fits = budget.take(live.fields.len() * 2 + 1);
        for (key, value) in &live.fields {
            fits = fits
                && budget.take(key.len() + 2)
                && if key == "content" && !live.slots.is_empty() {
                    budget.take(live.slots.len() + 1)
                        && live
                            .slots
                            .values()
                            .all(|slot| budget.admits(slot, MAX_DEPTH - 2))
                } else {
                    budget.admits(value, MAX_DEPTH - 1)
                };
        }
        if !fits {
            return;
        }
        let Some(text) = FrozenValue::write(&Rendering(live), budget.used()) else {
            return;
        };
        self.body = Body::Frozen(Box::new(Frozen {
            text,
            slots: live.slots.keys().copied().collect(),
            rewrites: live.rewrites,
        }));
    }
}

impl Frozen {
    fn thaw(&self) -> Live {
        let mut live = Live {
            fields: self.text.thaw_map(),
            slots: BTreeMap::new(),
            calls: HashMap::default(),
            rewrites: self.rewrites,
        };
        if self.slots.is_empty() {
            return live;
        }
        // The content was the slots: they go back to their indexes, and the
        // field keeps its place (a live message's slots replace it).
        let content = live.fields.insert("content".to_owned(), Value::Null);
        let Some(Value::Array(items)) = content else {
            return live;
        };
        for (index, slot) in self.slots.iter().zip(items) {
            if let Some(call_id) = slot_call_id(&slot) {
                live.calls
                    .entry(call_id.to_owned())
                    .or_default()
                    .insert(*index);
            }
            live.slots.insert(*index, slot);
        }
        live
    }
}

impl Live {
    /// Puts a slot at an index, replacing what was there.
    fn set_slot(&mut self, index: i64, slot: Value) {
        if let Some(old) = self.slots.remove(&index) {
            if rewritten(slot_arguments(&old), slot_arguments(&slot)) {
                self.rewrites += 1;
            }
            self.unlist(index, &old);
        }
        if let Some(call_id) = slot_call_id(&slot) {
            self.calls
                .entry(call_id.to_owned())
                .or_default()
                .insert(index);
        }
        self.slots.insert(index, slot);
    }

    /// A message's content, authoritative: slots by array order.
    fn set_content(&mut self, items: Vec<Value>) {
        if !self.slots.is_empty() {
            self.rewrites += 1;
        }
        self.slots.clear();
        self.calls.clear();
        for (index, item) in (0..).zip(items) {
            self.set_slot(index, item);
        }
    }

    fn unlist(&mut self, index: i64, slot: &Value) {
        if let Some(call_id) = slot_call_id(slot) {
            if let Some(indexes) = self.calls.get_mut(call_id) {
                indexes.remove(&index);
                if indexes.is_empty() {
                    self.calls.remove(call_id);
                }
            }
        }
    }

    /// Merges a delta into the slot at an index, keeping the call index
    /// true (a merge may change the call id a data slot carries).
    fn merge_into(&mut self, index: i64, event: &Map<String, Value>, upstream: bool) {
        let Some(slot) = self.slots.get(&index) else {
            return;
        };
        let before = slot_call_id(slot).map(str::to_owned);
        // Arguments that are not text replace the ones held (see `merge`).
        if event
            .get("data")
            .and_then(|data| data.get("arguments"))
            .is_some_and(|arguments| !arguments.is_string() && !arguments.is_null())
        {
            self.rewrites += 1;
        }
        let Some(Value::Object(slot)) = self.slots.get_mut(&index) else {
            return;
        };
        merge_delta(slot, event, upstream);
        let after = slot_call_id(&self.slots[&index]);
        if before.as_deref() != after {
            let after = after.map(str::to_owned);
            if let Some(call_id) = before {
                if let Some(indexes) = self.calls.get_mut(&call_id) {
                    indexes.remove(&index);
                    if indexes.is_empty() {
                        self.calls.remove(&call_id);
                    }
                }
            }
            if let Some(call_id) = after {
                self.calls.entry(call_id).or_default().insert(index);
            }
        }
    }

    fn new(msg_id: Value) -> Self {
        let mut fields = Map::with_capacity(12);
        for (key, value) in [
            ("sequence_number", Value::Null),
            ("object", "message".into()),
            ("status", "in_progress".into()),
            ("error", Value::Null),
            ("id", msg_id),
            ("type", "message".into()),
            ("role", Value::Null),
            ("content", Value::Null),
            ("code", Value::Null),
            ("message", Value::Null),
            ("usage", Value::Null),
            ("metadata", Value::Null),
        ] {
            fields.insert(key.to_owned(), value);
        }
        Live {
            fields,
            slots: BTreeMap::new(),
            calls: HashMap::default(),
            rewrites: 0,
        }
    }

    fn render(&self) -> Value {
        let mut fields = self.fields.clone();
        if !self.slots.is_empty() {
            fields.insert(
                "content".to_owned(),
                Value::Array(self.slots.values().cloned().collect()),
            );
        }
        Value::Object(fields)
    }
}

/// Assembles an AgentScope `/process` stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<AgentScope>,
}

/// What AgentScope events do: the state they build.
#[derive(Debug, Clone)]
pub struct AgentScope {
    options: Options,
    response: Map<String, Value>,
    response_seen: bool,
    /// The output of the terminal response event, verbatim; `None` until
    /// one arrives, when the output is the messages assembled so far.
    output: Option<Value>,
    /// Keyed by the message's string id; any other id counts as none.
    messages: IndexMap<MessageKey, Message>,
    /// The anonymous message id-less events go to, until an event of
    /// another message ends it (the next id-less event starts another).
    anonymous: Option<u64>,
    anonymous_count: u64,
    /// Where the messages announced open (a message event with an id and
    /// status `created` or `in_progress`) and not ended stand in
    /// `messages`, in the order they were announced: content without a
    /// `msg_id` goes to the last of them (the Java runtime announces a
    /// message, then streams its deltas without its id).
    announced: Vec<usize>,
    /// Where the last message a delta went to stands in `messages`.
    last_message: Option<usize>,
    /// Whether that message's id is plain (see [`AgentScope::id_hint`]).
    last_plain: bool,
    /// The slot the last quick delta went to. Only quick deltas run between
    /// two events of the full path, which clears it.
    hot: Option<HotSlot>,
    /// The content slots all messages hold (for `max_blocks`).
    slots: usize,
}

/// A message's key: its string id, or, for a message without one (the
/// Java runtime's stream adapter sends its text deltas with `msg_id: null`),
/// its number among the anonymous ones. Consecutive id-less events are one
/// message; an event of any other message ends it, so that text before and
/// after a tool call are two messages, as they were two turns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum MessageKey {
    Id(String),
    Anonymous(u64),
}

/// What the quick path knows of the slot it last appended to.
#[derive(Debug, Clone)]
struct HotSlot {
    message: usize,
    index: i64,
    /// A data slot: only arguments alone append quickly (a tool call's
    /// streamed arguments); other data merges take the full path.
    data: bool,
    /// The field its type appends to, if any.
    field: Option<&'static str>,
    /// Where that field (or a data slot's `data`) was in the slot's map
    /// last time.
    field_at: usize,
    /// Where `arguments` was in a data slot's `data` last time.
    arguments_at: usize,
    /// Its status, when a string.
    status: Option<String>,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.response()
    }
}

crate::stream::assemble_with_driver!(Assembler, AgentScope);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        let mut response = Map::new();
        response.insert("object".to_owned(), "response".into());
        response.insert("status".to_owned(), "in_progress".into());
        response.insert("output".to_owned(), Value::Null);
        let protocol = AgentScope {
            options,
            response,
            response_seen: false,
            output: None,
            messages: IndexMap::default(),
            anonymous: None,
            anonymous_count: 0,
            announced: Vec::new(),
            last_message: None,
            last_plain: false,
            hot: None,
            slots: 0,
        };
        Assembler {
            driver: Driver::new(
                protocol,
                options.limits,
                options.on_error,
                "AgentScope event",
            ),
        }
    }

    pub fn options(&self) -> Options {
        self.driver.protocol.options
    }

    /// The AgentResponse assembled so far.
    pub fn response(&self) -> Value {
        let (mut response, messages) = self.rendered_response();
        if let (Some(messages), Value::Object(response)) = (messages, &mut response) {
            let output = messages.into_iter().map(Rendered::into_value).collect();
            response.insert("output".to_owned(), Value::Array(output));
        }
        response
    }

    /// [`Assembler::response`] in two parts: the response, and the messages
    /// its `output` is when no terminal response gave one (each frozen one
    /// as its text); its `output` is then null, in its place, for the
    /// reader to fill.
    pub fn rendered_response(&self) -> (Value, Option<Vec<Rendered<'_>>>) {
        let state = &self.driver.protocol;
        let mut response = state.response.clone();
        let (output, messages) = match &state.output {
            Some(Value::Array(items)) if state.anonymous_count > 0 => {
                (Value::Null, Some(self.output_with_anonymous(items)))
            }
            Some(output) => (output.clone(), None),
            None => (Value::Null, Some(self.rendered_messages())),
        };
        response.insert("output".to_owned(), output);
        (Value::Object(response), messages)
    }

    /// The terminal response's output with the anonymous messages, which a
    /// server that sends text without message ids leaves out of it (the
    /// Java runtime lists only its completed messages), each before the
    /// first item whose message came after it in the stream.
    fn output_with_anonymous<'a>(&'a self, items: &[Value]) -> Vec<Rendered<'a>> {
        let messages = &self.driver.protocol.messages;
        let anonymous: Vec<usize> = messages
            .keys()
            .enumerate()
            .filter(|(_, key)| matches!(key, MessageKey::Anonymous(_)))
            .map(|(position, _)| position)
            .collect();
        let rendered = |position: usize| messages[position].rendered();
        let mut output = Vec::with_capacity(items.len() + anonymous.len());
        let mut next = 0;
        for item in items {
            let position = item
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| messages.get_index_of(&MessageKey::Id(id.to_owned())));
            if let Some(position) = position {
                while next < anonymous.len() && anonymous[next] < position {
                    output.push(rendered(anonymous[next]));
                    next += 1;
                }
            }
            output.push(Rendered::Value(item.clone()));
        }
        output.extend(anonymous[next..].iter().map(|&position| rendered(position)));
        output
    }

    /// Every message assembled, in order of first appearance.
    pub fn messages(&self) -> Vec<Value> {
        self.driver
            .protocol
            .messages
            .values()
            .map(Message::render)
            .collect()
    }

    /// [`Assembler::messages`], each frozen one as its JSON text.
    pub fn rendered_messages(&self) -> Vec<Rendered<'_>> {
        self.driver
            .protocol
            .messages
            .values()
            .map(Message::rendered)
            .collect()
    }

    /// Every tool call: each data content whose `data` has `arguments`
    /// (function, plugin, MCP and component calls): `msg_id`, `index`,
    /// `type` (the message's), `call_id` and `name`, and its `arguments`
    /// text so far. A call is finished once its content or message is no
    /// longer in progress or the response ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let state = &self.driver.protocol;
        let ended = self.is_closed()
            || state
                .response
                .get("status")
                .and_then(Value::as_str)
                .is_some_and(is_terminal);
        let in_progress = |value: Option<&Value>| {
            matches!(value.and_then(Value::as_str), None | Some("in_progress"))
        };
        let mut calls = Vec::new();
        let mut rewrites = 0;
        for (position, message) in state.messages.values().enumerate() {
            rewrites += message.rewrites();
            // A frozen message carries no data content.
            let Some(message) = message.as_live() else {
                continue;
            };
            let message_open = in_progress(message.fields.get("status"));
            for (index, slot) in &message.slots {
                if slot.get("type").and_then(Value::as_str) != Some("data") {
                    continue;
                }
                let Some(data) = slot.get("data").filter(|data| data.is_object()) else {
                    continue;
                };
                let Some(arguments) = data.get("arguments") else {
                    continue;
                };
                let mut fields = Map::new();
                fields.insert("msg_id".to_owned(), or_null(message.fields.get("id")));
                fields.insert("index".to_owned(), (*index).into());
                fields.insert("type".to_owned(), or_null(message.fields.get("type")));
                fields.insert("call_id".to_owned(), or_null(data.get("call_id")));
                fields.insert("name".to_owned(), or_null(data.get("name")));
                let arguments = Arguments::of(Some(arguments));
                calls.push(ToolCall {
                    key: format!("{position}/{index}").into(),
                    fields,
                    field: "arguments",
                    arguments,
                    finished: ended || !message_open || !in_progress(slot.get("status")),
                });
            }
        }
        ToolCalls { calls, rewrites }
    }
}

impl Protocol for AgentScope {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let mut probe = Probe::default();
        probe.read(text, self.id_hint()) && self.append_delta(&probe)
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        self.apply(log, event)
    }

    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn block_count(&self) -> usize {
        self.slots
    }

    fn finish(&mut self) {
        let terminal = self
            .response
            .get("status")
            .and_then(Value::as_str)
            .is_some_and(is_terminal);
        if !terminal {
            self.response
                .insert("status".to_owned(), "incomplete".into());
        }
    }
}

impl AgentScope {
    /// Applies a content delta that appends to an existing slot, from a
    /// probe: what [`AgentScope::content`] does for it, without a `Value` tree.
    /// Returns false, having changed nothing, for any other event.
    fn append_delta(&mut self, probe: &Probe<'_>) -> bool {
        let upstream = self.options.data_merge == DataMerge::Upstream;
        if probe.object.as_ref().and_then(StrField::as_str) != Some("content")
            || probe.delta != Some(Scalar::Bool(true))
        {
            return false;
        }
        let (Some(index), Some(msg_id)) = (
            probe.index.as_ref().and_then(Scalar::as_i64),
            probe.msg_id.as_ref().and_then(StrField::as_str),
        ) else {
            return false;
        };
        if self.options.strict
            && !probe
                .kind
                .as_ref()
                .and_then(StrField::as_str)
                .is_some_and(|kind| CONTENT_TYPES.contains(&kind))
        {
            return false;
        }
        // The id the probe was told to expect is the last message's.
        let found = match self.last_message {
            Some(last) if probe.msg_id_expected => Some(last),
            _ => self.find_message(msg_id),
        };
        let Some(position) = found else {
            return false;
        };
        let Some(message) = self
            .messages
            .get_index_mut(position)
            .and_then(|(_, message)| message.as_live_mut())
        else {
            return false;
        };
        let Some(Value::Object(slot)) = message.slots.get_mut(&index) else {
            return false;
        };
        // What the slot's type and status are, from the last quick delta to
        // this slot when there was one: two map lookups saved per delta.
        let mut hot = match self.hot.take() {
            Some(hot) if hot.message == position && hot.index == index => hot,
            _ => {
                let kind = slot.get("type").and_then(Value::as_str).unwrap_or("");
                HotSlot {
                    message: position,
                    index,
                    data: kind == "data",
                    field: appended_field(kind, upstream),
                    field_at: usize::MAX,
                    arguments_at: usize::MAX,
                    status: match slot.get("status") {
                        Some(Value::String(status)) => Some(status.clone()),
                        _ => None,
                    },
                }
            }
        };
        let arguments = if hot.data {
            match probe.arguments_alone() {
                Some(piece) => Some(piece),
                None => return false,
            }
        } else {
            None
        };
        // The new status, when it changes, settled before anything changes.
        let new_status = match &probe.status {
            Some(Scalar::Str(new)) if hot.status.as_deref() == Some(new.as_ref()) => None,
            Some(status) => match status.to_value() {
                Some(value) => Some(value),
                None => return false, // an array or object: the full path decides
            },
            None => None,
        };
        if let Some(piece) = arguments {
            // Onto arguments already held as text; anything else is the
            // merge's to decide (nothing has changed yet).
            let data = match get_mut_at(slot, "data", &mut hot.field_at) {
                Some(Value::Object(data)) => data,
                _ => return false,
            };
            match get_mut_at(data, "arguments", &mut hot.arguments_at) {
                Some(Value::String(text)) => text.push_str(piece),
                _ => return false,
            }
        } else if let Some(field) = hot.field {
            if let Some(piece) = probe.appended(field) {
                append_at(slot, field, piece, &mut hot.field_at);
            }
        }
        if let Some(value) = new_status {
            slot.insert("status".to_owned(), value);
        }
        let status = match &probe.status {
            Some(Scalar::Str(new)) if hot.status.as_deref() != Some(new.as_ref()) => {
                Some(new.as_ref().to_owned())
            }
            Some(Scalar::Str(_)) | None => hot.status,
            Some(_) => None,
        };
        self.hot = Some(HotSlot { status, ..hot });
        self.anonymous = None; // a delta of another message ends it
        true
    }

    /// The position of the message with this id, remembering the last one
    /// found: deltas mostly go to the message before them.
    fn find_message(&mut self, msg_id: &str) -> Option<usize> {
        if let Some(position) = self.last_message {
            if let Some((MessageKey::Id(key), _)) = self.messages.get_index(position) {
                if key == msg_id {
                    return Some(position);
                }
            }
        }
        let position = self
            .messages
            .get_index_of(&MessageKey::Id(msg_id.to_owned()))?;
        self.last_message = Some(position);
        self.last_plain = json::plain_run(msg_id.as_bytes(), 0) == msg_id.len();
        Some(position)
    }

    /// The id the next delta likely names (the last one found), when it is
    /// plain enough to be read with a compare ([`Probe::read`]).
    fn id_hint(&self) -> Option<&str> {
        if !self.last_plain {
            return None;
        }
        match self.messages.get_index(self.last_message?) {
            Some((MessageKey::Id(key), _)) => Some(key),
            _ => None,
        }
    }

    fn apply(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        self.hot = None;
        if self.options.strict {
            if let Some(problem) = strict_problem(&event) {
                return log.fail(problem.to_owned());
            }
        }
        match event.get("object") {
            Some(Value::String(kind)) if kind == "content" => self.content(event),
            Some(Value::String(kind)) if kind == "message" => self.message(event),
            Some(Value::String(kind)) if kind == "response" => self.response_event(event),
            None | Some(Value::Null) if event.contains_key("error") => {
                self.error_frame(log, &event)
            }
            // Other objects are tolerated and ignored.
            _ => {}
        }
        Ok(())
    }

    /// Where the message of `msg_id` stands in `messages`, made if new.
    fn position_for(&mut self, msg_id: Option<&Value>) -> usize {
        let key = match msg_id {
            Some(Value::String(id)) => {
                self.anonymous = None;
                MessageKey::Id(id.clone())
            }
            _ => MessageKey::Anonymous(*self.anonymous.get_or_insert_with(|| {
                self.anonymous_count += 1;
                self.anonymous_count
            })),
        };
        let entry = self.messages.entry(key);
        let position = entry.index();
        entry.or_insert_with(|| Message::new(msg_id.cloned().unwrap_or(Value::Null)));
        position
    }

    /// The message content goes to: its `msg_id`'s, or without one, the
    /// open message announced last, or else the anonymous one.
    fn content_message(&mut self, msg_id: Option<&Value>) -> &mut Message {
        let position = match (msg_id, self.announced.last()) {
            (Some(Value::String(_)), _) | (_, None) => self.position_for(msg_id),
            (_, Some(&position)) => position,
        };
        &mut self.messages[position]
    }

    fn message(&mut self, mut event: Map<String, Value>) {
        if event.get("type").and_then(Value::as_str) == Some("heartbeat") {
            return;
        }
        let content = event.shift_remove("content");
        let position = self.position_for(event.get("id"));
        let message = &mut self.messages[position];
        let live = message.live();
        let before = live.slots.len();
        Self::update_message(live, event, content);
        let after = live.slots.len();
        let open = live.fields.get("id").is_some_and(Value::is_string)
            && matches!(
                live.fields.get("status").and_then(Value::as_str),
                Some("created" | "in_progress")
            );
        message.freeze_if_done();
        self.slots = self.slots - before + after;
        let known = self.announced.iter().position(|&at| at == position);
        match (open, known) {
            (true, None) => self.announced.push(position),
            (false, Some(at)) => {
                self.announced.remove(at);
            }
            _ => {}
        }
    }

    fn update_message(message: &mut Live, event: Map<String, Value>, content: Option<Value>) {
        for (key, value) in event {
            message.fields.insert(key, value);
        }
        match content {
            // A message's content is authoritative: positioned by array order.
            Some(Value::Array(items)) if !items.is_empty() => message.set_content(items),
            content if message.slots.is_empty() => {
                message
                    .fields
                    .insert("content".to_owned(), content.unwrap_or(Value::Null));
            }
            _ => {}
        }
    }

    fn content(&mut self, mut event: Map<String, Value>) {
        let upstream = self.options.data_merge == DataMerge::Upstream;
        let is_delta = event.get("delta") == Some(&Value::Bool(true));
        let index = event.get("index").and_then(int_index);
        let message = self.content_message(event.get("msg_id")).live();
        let index = match index {
            Some(index) => index,
            None => {
                if is_delta && !upstream {
                    // A data delta without an index joins the first slot of
                    // its tool call.
                    if let Some(index) = delta_call_id(&event)
                        .and_then(|call_id| message.calls.get(call_id))
                        .and_then(|indexes| indexes.first().copied())
                    {
                        message.merge_into(index, &event, upstream);
                        return;
                    }
                }
                message
                    .slots
                    .keys()
                    .next_back()
                    .map_or(0, |last| last.saturating_add(1))
            }
        };
        match message.slots.get(&index) {
            Some(Value::Object(_)) if is_delta => message.merge_into(index, &event, upstream),
            _ => {
                event.insert("index".to_owned(), index.into());
                let msg_id = message.fields.get("id").cloned().unwrap_or(Value::Null);
                event.insert("msg_id".to_owned(), msg_id);
                let before = message.slots.len();
                message.set_slot(index, Value::Object(event));
                self.slots += message.slots.len() - before;
            }
        }
    }

    fn response_event(&mut self, mut event: Map<String, Value>) {
        if !self.response_seen {
            // The first response event sets the key order; the placeholders
            // it does not mention follow.
            self.response_seen = true;
            let mut ordered: Map<String, Value> =
                event.keys().map(|key| (key.clone(), Value::Null)).collect();
            ordered.extend(std::mem::take(&mut self.response));
            if !event.contains_key("output") {
                let output = ordered.shift_remove("output").unwrap_or(Value::Null);
                ordered.insert("output".to_owned(), output);
            }
            self.response = ordered;
        }
        let output = event.shift_remove("output");
        let terminal = event
            .get("status")
            .and_then(Value::as_str)
            .is_some_and(is_terminal);
        for (key, value) in event {
            self.response.insert(key, value);
        }
        self.output = terminal.then(|| output.unwrap_or(Value::Null));
    }

    /// `{"error": ...}`: what a server sends when its stream fails.
    fn error_frame(&mut self, log: &mut Log, event: &Map<String, Value>) {
        let mut code = event.get("code").and_then(Value::as_str).map(str::to_owned);
        let mut message = None;
        match event.get("error") {
            Some(Value::Object(error)) => {
                if code.is_none() {
                    code = error.get("code").and_then(Value::as_str).map(str::to_owned);
                }
                message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Some(Value::String(error)) => message = Some(error.clone()),
            _ => {}
        }
        let code = code
            .or_else(|| {
                event
                    .get("error_type")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "stream_error".to_owned());
        log.record(ErrorRecord {
            event: log.events,
            code: code.clone(),
            message: message.clone(),
        });
        let mut error = Map::new();
        error.insert("code".to_owned(), code.into());
        error.insert(
            "message".to_owned(),
            message.map_or(Value::Null, Value::String),
        );
        self.response.insert("status".to_owned(), "failed".into());
        self.response
            .insert("error".to_owned(), Value::Object(error));
        // No response says what completed: nothing did.
        self.output = Some(Value::Array(Vec::new()));
    }
}

/// What upstream's models would reject: an unknown role or content type.
fn strict_problem(event: &Map<String, Value>) -> Option<&'static str> {
    let known = |value: Option<&Value>, allowed: &[&str]| {
        value
            .and_then(Value::as_str)
            .is_some_and(|v| allowed.contains(&v))
    };
    match event.get("object").and_then(Value::as_str) {
        Some("message") => {
            let role = event.get("role");
            if !matches!(role, None | Some(Value::Null)) && !known(role, &ROLES) {
                return Some("has an invalid role");
            }
            if let Some(Value::Array(parts)) = event.get("content") {
                if parts
                    .iter()
                    .any(|part| !known(part.get("type"), &CONTENT_TYPES))
                {
                    return Some("has content of an unknown type");
                }
            }
            None
        }
        Some("content") if !known(event.get("type"), &CONTENT_TYPES) => {
            Some("has content of an unknown type")
        }
        _ => None,
    }
}

fn is_terminal(status: &str) -> bool {
    TERMINAL_STATUSES.contains(&status)
}

/// A content index: an integer that fits in 64 bits; anything else is none.
fn int_index(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number.as_i64(),
        _ => None,
    }
}

/// The string field a delta appends to, per content type.
fn appended_field(kind: &str, upstream: bool) -> Option<&'static str> {
    match kind {
        "text" => Some("text"),
        "image" => Some("image_url"),
        _ if upstream => None,
        "refusal" => Some("refusal"),
        "audio" => Some("data"),
        "video" => Some("video_url"),
        "file" => Some("file_data"),
        _ => None,
    }
}

/// The tool call a data delta names, when it is a data delta.
fn delta_call_id(event: &Map<String, Value>) -> Option<&str> {
    if event.get("type").and_then(Value::as_str) != Some("data") {
        return None;
    }
    event
        .get("data")
        .and_then(|data| data.get("call_id"))
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// Merges a `delta: true` content into its slot, following the slot's type
/// as upstream does.
fn merge_delta(slot: &mut Map<String, Value>, event: &Map<String, Value>, upstream: bool) {
    let kind = slot
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if kind == "data" {
        if let Some(Value::Object(delta)) = event.get("data") {
            match slot.get_mut("data") {
                Some(Value::Object(target)) => {
                    if upstream {
                        merge_upstream(target, delta);
                    } else {
                        merge(target, delta);
                    }
                }
                None | Some(Value::Null) if !upstream => {
                    slot.insert("data".to_owned(), Value::Object(delta.clone()));
                }
                _ => {}
            }
        }
    } else if let Some(field) = appended_field(&kind, upstream) {
        if let Some(Value::String(piece)) = event.get(field) {
            append(slot, field, piece);
        }
    }
    if let Some(status) = event.get("status") {
        slot.insert("status".to_owned(), status.clone());
    }
}

/// `Message.add_delta_content` for data.
fn merge_upstream(target: &mut Map<String, Value>, delta: &Map<String, Value>) {
    for (key, value) in delta {
        match (target.get_mut(key), value) {
            (Some(Value::String(text)), Value::String(piece)) => text.push_str(piece),
            (Some(Value::Array(items)), Value::Array(more)) => items.extend(more.iter().cloned()),
            _ => {}
        }
    }
}

/// The default data merge.
fn merge(target: &mut Map<String, Value>, delta: &Map<String, Value>) {
    for (key, value) in delta {
        if value.is_null() {
            continue; // no information
        }
        match (target.get_mut(key), value) {
            (None | Some(Value::Null), _) => {
                target.insert(key.clone(), value.clone());
            }
            (Some(Value::String(text)), Value::String(piece)) => {
                if IDENTITY_KEYS.contains(&key.as_str()) && text == piece {
                    continue;
                }
                text.push_str(piece);
            }
            (Some(Value::Array(items)), Value::Array(more)) => items.extend(more.iter().cloned()),
            (Some(Value::Object(inner)), Value::Object(more)) => merge(inner, more),
            (Some(existing), _) => *existing = value.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: [(&str, &str); 4] = [
        (
            include_str!("../../tests/fixtures/agentscope/runner_text.sse"),
            include_str!("../../tests/fixtures/agentscope/runner_text.json"),
        ),
        (
            include_str!("../../tests/fixtures/agentscope/runner_agentscope.sse"),
            include_str!("../../tests/fixtures/agentscope/runner_agentscope.json"),
        ),
        (
            include_str!("../../tests/fixtures/agentscope/builder_agent_turn.sse"),
            include_str!("../../tests/fixtures/agentscope/builder_agent_turn.json"),
        ),
        (
            include_str!("../../tests/fixtures/agentscope/runner_text_error.sse"),
            include_str!("../../tests/fixtures/agentscope/runner_text_error.json"),
        ),
    ];

    fn expected_final(json_text: &str) -> Value {
        json::parse(json_text).unwrap()["final"].clone()
    }

    #[test]
    fn upstream_streams_assemble_to_upstream_final_responses() {
        for (stream, expected) in FIXTURES {
            for size in [1, 7, 4096, stream.len()] {
                let mut assembler = Assembler::default();
                for chunk in stream.as_bytes().chunks(size) {
                    assembler.feed(chunk).unwrap();
                }
                assembler.close().unwrap();
                assert_eq!(
                    assembler.response(),
                    expected_final(expected),
                    "chunks of {size}"
                );
            }
        }
    }

    #[test]
    fn quick_path_and_full_path_agree() {
        for (stream, _) in FIXTURES {
            let cut = stream.len() * 2 / 3;
            let mut quick = Assembler::default();
            quick.feed(&stream.as_bytes()[..cut]).unwrap();
            let mut full = Assembler::default();
            let mut seen = 0;
            full.feed_observed(&stream.as_bytes()[..cut], &mut |_| seen += 1)
                .unwrap();
            assert!(seen > 0);
            assert_eq!(quick.response(), full.response());
            assert_eq!(quick.messages(), full.messages());
        }
    }

    #[test]
    fn bad_event_is_reported_and_the_rest_waits() {
        let mut assembler = Assembler::default();
        let stream = "data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m\",\"text\":\"a\"}\n\n\
                      data: [1]\n\n\
                      data: {\"object\":\"content\",\"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"m\",\"text\":\"b\"}\n\n";
        let err = assembler.feed(stream.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "AgentScope event 2 is a JSON array, not an object"
        );
        assert_eq!(assembler.messages()[0]["content"][0]["text"], "a");
        assembler.feed(b"").unwrap();
        assert_eq!(assembler.messages()[0]["content"][0]["text"], "ab");
        assembler.close().unwrap();
        assert_eq!(assembler.response()["status"], "incomplete");
    }

    #[test]
    fn upstream_data_merge() {
        let options = Options {
            data_merge: DataMerge::Upstream,
            ..Options::default()
        };
        let mut assembler = Assembler::new(options);
        let base = r#"{"object":"content","type":"data","index":0,"msg_id":"m","data":{"call_id":"c1","name":"f","arguments":"","lst":[1]}}"#;
        let delta = r#"{"object":"content","type":"data","index":0,"delta":true,"msg_id":"m","data":{"call_id":"c1","arguments":"{\"ci","lst":[2],"newkey":"x"}}"#;
        assembler.feed_event(json::parse(base).unwrap()).unwrap();
        assembler.feed_event(json::parse(delta).unwrap()).unwrap();
        let data = &assembler.messages()[0]["content"][0]["data"];
        assert_eq!(
            data.to_string(),
            r#"{"call_id":"c1c1","name":"f","arguments":"{\"ci","lst":[1,2]}"#
        );
    }

    fn frozen_count(assembler: &Assembler) -> usize {
        assembler
            .driver
            .protocol
            .messages
            .values()
            .filter(|message| matches!(message.body, Body::Frozen(_)))
            .count()
    }

    fn feed_events(assembler: &mut Assembler, events: &[&str]) {
        for event in events {
            assembler.feed_event(json::parse(event).unwrap()).unwrap();
        }
    }

    #[test]
    fn a_done_message_is_frozen_and_reads_the_same() {
        for (stream, expected) in FIXTURES {
            let mut assembler = Assembler::default();
            assembler.feed(stream.as_bytes()).unwrap();
            assembler.close().unwrap();
            assert_eq!(assembler.response(), expected_final(expected));
        }
        let mut assembler = Assembler::default();
        feed_events(
            &mut assembler,
            &[
                r#"{"object":"message","id":"m","status":"in_progress","role":"assistant"}"#,
                r#"{"object":"content","type":"text","index":3,"msg_id":"m","text":"a"}"#,
                r#"{"object":"content","type":"text","index":3,"delta":true,"msg_id":"m","text":"b"}"#,
                r#"{"object":"content","type":"image","index":7,"msg_id":"m","image_url":"u"}"#,
            ],
        );
        let live = assembler.messages();
        feed_events(
            &mut assembler,
            &[r#"{"object":"message","id":"m","status":"completed"}"#],
        );
        assert_eq!(frozen_count(&assembler), 1);
        let mut expected = live[0].clone();
        expected["status"] = "completed".into();
        assert_eq!(assembler.messages(), vec![expected.clone()]);
        // A later event thaws it, with its slots where they were.
        feed_events(
            &mut assembler,
            &[
                r#"{"object":"content","type":"text","index":3,"delta":true,"msg_id":"m","text":"c"}"#,
            ],
        );
        assert_eq!(frozen_count(&assembler), 0);
        expected["content"][0]["text"] = "abc".into();
        assert_eq!(assembler.messages(), vec![expected]);
        // And stays live: completing it again does not freeze it again.
        feed_events(
            &mut assembler,
            &[r#"{"object":"message","id":"m","status":"completed"}"#],
        );
        assert_eq!(frozen_count(&assembler), 0);
    }

    #[test]
    fn messages_with_tool_calls_or_much_text_stay_live() {
        let mut assembler = Assembler::default();
        let long = "x".repeat(FREEZE_MAX_BYTES);
        let events = [
            r#"{"object":"content","type":"data","index":0,"msg_id":"call","data":{"call_id":"c","name":"f","arguments":"{}"}}"#.to_owned(),
            r#"{"object":"message","id":"call","status":"completed"}"#.to_owned(),
            format!(r#"{{"object":"content","type":"text","index":0,"msg_id":"long","text":"{long}"}}"#),
            r#"{"object":"message","id":"long","status":"completed"}"#.to_owned(),
            r#"{"object":"content","type":"text","index":0,"msg_id":"short","text":"hi"}"#.to_owned(),
            r#"{"object":"message","id":"short","status":"failed"}"#.to_owned(),
        ];
        feed_events(
            &mut assembler,
            &events.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(frozen_count(&assembler), 1);
        let calls = assembler.tool_calls();
        assert_eq!(calls.calls.len(), 1);
        assert_eq!(assembler.messages()[2]["content"][0]["text"], "hi");
    }

    #[test]
    fn a_frozen_message_keeps_its_rewrite_count() {
        let mut assembler = Assembler::default();
        feed_events(
            &mut assembler,
            &[
                r#"{"object":"message","id":"m","status":"in_progress","content":[{"type":"text","text":"a"}]}"#,
                r#"{"object":"message","id":"m","status":"completed","content":[{"type":"text","text":"b"}]}"#,
            ],
        );
        assert_eq!(frozen_count(&assembler), 1);
        assert_eq!(assembler.tool_calls().rewrites, 1);
    }
}
