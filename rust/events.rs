//! The protocol-neutral event vocabulary. `python/agentcodec/_pure/events.py`
//! mirrors this module and documents the vocabulary (run, message and block
//! started/finished, block deltas and replacements, state snapshots and
//! patches, pass-through).
//!
//! A neutral event is a JSON object with a `type`, the same dict the pure
//! backend builds, key for key and in the same order, so that both backends
//! hand out, and write, the same events. Each protocol has a decoder (its
//! events in, neutral events out) and an encoder (neutral events in, its
//! events out), in its own folder.

use std::borrow::Cow;

use crate::article::article;
use crate::json::{write_object, Map, Value};

/// A neutral event, or a protocol event: a JSON object.
pub type Event = Map<String, Value>;

/// The neutral vocabulary, as `python/agentcodec/_vocabulary/vocabulary.txt`
/// holds it for both backends (build.rs makes its constants).
pub mod vocabulary {
    include!(concat!(env!("OUT_DIR"), "/vocabulary/_vocabulary.rs"));
}

/// Refuses a neutral event given from outside (a server's, to an encoder)
/// that has no neutral type, saying why: an encoder would write nothing of
/// it. The events the decoders make always have one.
pub fn check_type(event: &Event) -> Result<(), String> {
    match event.get("type") {
        Some(Value::String(kind)) if vocabulary::EVENT_TYPES.contains(&kind.as_str()) => Ok(()),
        Some(Value::String(kind)) => Err(format!(
            "a neutral event's type is one of {}, not {kind}",
            vocabulary::EVENT_TYPES.join(", ")
        )),
        _ => Err(format!(
            "a neutral event has a type, one of {}",
            vocabulary::EVENT_TYPES.join(", ")
        )),
    }
}

/// The statuses of a finished run (`run_finished`'s `status`).
pub const RUN_STATUSES: [&str; 4] = ["completed", "incomplete", "cancelled", "interrupted"];

/// Indexes and counts: integers of at most 64 bits.
pub fn as_int(value: Option<&Value>) -> Option<i64> {
    value.and_then(Value::as_i64)
}

/// A field that is present and not null.
pub fn get<'e>(event: &'e Event, key: &str) -> Option<&'e Value> {
    event.get(key).filter(|value| !value.is_null())
}

/// A field that is a string.
pub fn get_str<'e>(event: &'e Event, key: &str) -> Option<&'e str> {
    event.get(key).and_then(Value::as_str)
}

/// A string that is not empty: where the pure backend writes `value or
/// default`, an empty string takes the default too.
pub fn nonempty(value: Option<&str>) -> Option<&str> {
    value.filter(|text| !text.is_empty())
}

/// Whether a `block_replaced` carries annotations (a non-empty list).
pub fn has_annotations(event: &Event) -> bool {
    matches!(event.get("annotations"), Some(Value::Array(list)) if !list.is_empty())
}

/// An optional value: `None` is JSON null.
pub fn or_null(value: Option<&Value>) -> Value {
    value.cloned().unwrap_or(Value::Null)
}

fn event(kind: &str, fields: Vec<(&str, Value)>) -> Event {
    let mut event = Map::with_capacity(fields.len() + 1);
    event.insert("type".to_owned(), kind.into());
    for (key, value) in fields {
        event.insert(key.to_owned(), value);
    }
    event
}

pub fn run_started(run_id: Value, thread_id: Value, model: Value, created_at: Value) -> Event {
    event(
        "run_started",
        vec![
            ("run_id", run_id),
            ("thread_id", thread_id),
            ("model", model),
            ("created_at", created_at),
        ],
    )
}

/// `run_finished`, its `stop_reason` null: most protocols say why a
/// message stopped, not the run. A decoder whose protocol says it of the
/// run (an incomplete Response's reason) sets it on the event made here.
pub fn run_finished(status: &str, usage: Value, result: Value) -> Event {
    event(
        "run_finished",
        vec![
            ("status", status.into()),
            ("usage", usage),
            ("result", result),
            ("stop_reason", Value::Null),
        ],
    )
}

pub fn run_failed(code: Value, message: Value, usage: Value) -> Event {
    event(
        "run_failed",
        vec![("code", code), ("message", message), ("usage", usage)],
    )
}

pub fn message_started(message_id: &str, role: &str, kind: Option<&str>) -> Event {
    message_started_in(message_id, role, kind, None)
}

/// A message written in a namespace: the path of the subgraph or sub-agent
/// that wrote it (`None` for the run's own).
pub fn message_started_in(
    message_id: &str,
    role: &str,
    kind: Option<&str>,
    namespace: Option<Vec<String>>,
) -> Event {
    message_started_at(message_id, role, kind, namespace, None)
}

/// A message written in a namespace by a graph's node (where the source
/// names the node: provenance, which a target without nodes drops as it
/// drops a run's metadata).
pub fn message_started_at(
    message_id: &str,
    role: &str,
    kind: Option<&str>,
    namespace: Option<Vec<String>>,
    node: Option<&str>,
) -> Event {
    let namespace = namespace.map_or(Value::Null, |parts| {
        Value::Array(parts.into_iter().map(Value::String).collect())
    });
    event(
        "message_started",
        vec![
            ("message_id", message_id.into()),
            ("role", role.into()),
            ("kind", kind.map_or(Value::Null, Value::from)),
            ("namespace", namespace),
            ("node", node.map_or(Value::Null, Value::from)),
        ],
    )
}

/// Where a message is written: its namespace (`None`: the run's own) and
/// its node.
pub type Place = (Option<Vec<String>>, Option<String>);

/// Where a `message_started`'s message is written. Two messages of two
/// places that stream at once are two writers' (two subgraphs, or two nodes
/// of one graph side by side), which a target of one answer keeps apart.
pub fn message_place(event: &Event) -> Place {
    let node = nonempty(get_str(event, "node")).map(str::to_owned);
    (as_namespace(event.get("namespace")), node)
}

/// A message's namespace as the vocabulary holds it: a list of str with at
/// least one part, else `None` (the run's own messages).
pub fn as_namespace(value: Option<&Value>) -> Option<Vec<String>> {
    let Some(Value::Array(parts)) = value else {
        return None;
    };
    if parts.is_empty() {
        return None;
    }
    parts
        .iter()
        .map(|part| part.as_str().map(str::to_owned))
        .collect()
}

pub fn message_finished(message_id: &str, usage: Value, stop_reason: Value) -> Event {
    event(
        "message_finished",
        vec![
            ("message_id", message_id.into()),
            ("usage", usage),
            ("stop_reason", stop_reason),
        ],
    )
}

/// The media kind of a MIME type, as a media block's `media_type` says
/// it: image, audio, video, or file for any other.
pub fn media_kind(mime_type: &str) -> &'static str {
    match mime_type.split('/').next() {
        Some("image") => "image",
        Some("audio") => "audio",
        Some("video") => "video",
        _ => "file",
    }
}

/// The fixed fields of each block kind, in order.
pub fn block_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "reasoning" => &["summary"],
        "tool_call" => &["call_id", "name", "tool", "server"],
        "tool_result" => &["call_id", "name", "tool"],
        "media" => &["media_type", "mime_type", "url"],
        "data" => &["value"],
        _ => &[],
    }
}

/// The field a `block_delta` appends to, by block kind.
pub fn appended_field(kind: &str) -> Option<&'static str> {
    match kind {
        "text" | "reasoning" | "refusal" => Some("text"),
        "tool_call" => Some("arguments"),
        "tool_result" => Some("output"),
        "media" => Some("data"),
        _ => None,
    }
}

/// `block_started`: the kind's fixed fields taken from `fields` (null when absent).
pub fn block_started(message_id: &str, index: i64, kind: &str, fields: &[(&str, Value)]) -> Event {
    let mut out = event(
        "block_started",
        vec![
            ("message_id", message_id.into()),
            ("index", index.into()),
            ("kind", kind.into()),
        ],
    );
    for name in block_fields(kind) {
        let value = fields
            .iter()
            .find(|(key, _)| key == name)
            .map_or(Value::Null, |(_, value)| value.clone());
        out.insert((*name).to_owned(), value);
    }
    out
}

pub fn block_delta(message_id: &str, index: i64, delta: &str) -> Event {
    event(
        "block_delta",
        vec![
            ("message_id", message_id.into()),
            ("index", index.into()),
            ("delta", delta.into()),
        ],
    )
}

pub fn block_replaced(message_id: &str, index: i64, fields: Vec<(&str, Value)>) -> Event {
    let mut out = event(
        "block_replaced",
        vec![("message_id", message_id.into()), ("index", index.into())],
    );
    for (key, value) in fields {
        out.insert(key.to_owned(), value);
    }
    out
}

pub fn block_finished(message_id: &str, index: i64) -> Event {
    event(
        "block_finished",
        vec![("message_id", message_id.into()), ("index", index.into())],
    )
}

pub fn passthrough(protocol: &str, source: &Event) -> Event {
    event(
        "passthrough",
        vec![
            ("protocol", protocol.into()),
            ("event", Value::Object(source.clone())),
        ],
    )
}

pub fn state_snapshot(snapshot: Value) -> Event {
    event("state_snapshot", vec![("snapshot", snapshot)])
}

pub fn state_patch(patch: Value) -> Event {
    event("state_patch", vec![("patch", patch)])
}

/// What Python's `not value` says: null, false, zero, and empty strings,
/// arrays and objects are falsy. Where the pure backend writes `a or b` of
/// two JSON values, both backends take `b` when `a` is falsy.
pub fn is_falsy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => true,
        Some(Value::Number(number)) => number.as_f64() == Some(0.0),
        Some(Value::String(text)) => text.is_empty(),
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(map)) => map.is_empty(),
        Some(_) => false,
    }
}

/// `a or b` of two fields, as Python evaluates it.
pub fn either(a: Option<&Value>, b: Option<&Value>) -> Value {
    if is_falsy(a) {
        or_null(b)
    } else {
        or_null(a)
    }
}

/// The block an event names: its message id and index.
pub fn block_key(event: &Event) -> Option<(String, i64)> {
    Some((
        get_str(event, "message_id")?.to_owned(),
        as_int(event.get("index"))?,
    ))
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

/// A value fit for an SSE field line: a string without CR, LF or NUL.
pub fn sse_field(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.contains(['\r', '\n', '\0']))
}

/// Appends one event as an SSE frame: an `id:` and an `event:` line when
/// given and fit for a field line, then the event as one `data:` line.
pub fn frame_sse(out: &mut Vec<u8>, name: Option<&str>, id: Option<&str>, event: &Event) {
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(name) = name {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    write_object(out, event);
    out.extend_from_slice(b"\n\n");
}

/// What a block has streamed, for turning the snapshots some producers send
/// (the whole value so far, each time) into deltas. See the pure backend's
/// `Held` for the rules: a final snapshot adds what extends the text sent or
/// replaces it; one in progress sends only what it shares with the one
/// before it, the rest waiting for the next snapshot, a delta, or the end.
#[derive(Debug, Clone)]
pub struct Held {
    message_id: String,
    index: i64,
    field: &'static str,
    /// What the neutral events carried so far.
    pub sent: String,
    /// The last snapshot in progress, not all sent.
    last: Option<String>,
}

impl Held {
    pub fn new(message_id: &str, index: i64, field: &'static str) -> Self {
        Held {
            message_id: message_id.to_owned(),
            index,
            field,
            sent: String::new(),
            last: None,
        }
    }

    /// A delta that is nothing but itself (no snapshot held back): taken,
    /// for the caller to pass on as one `block_delta` (or nothing, when it
    /// is empty). False, having changed nothing, otherwise.
    pub fn take_delta(&mut self, piece: &str) -> bool {
        if self.last.is_some() {
            return false;
        }
        self.sent.push_str(piece);
        true
    }

    /// A delta: appended, after what a snapshot held back.
    pub fn append(&mut self, piece: &str, out: &mut Vec<Event>) {
        self.flush(out);
        if !piece.is_empty() {
            self.sent.push_str(piece);
            out.push(block_delta(&self.message_id, self.index, piece));
        }
    }

    pub fn snapshot(&mut self, value: &str, is_final: bool, out: &mut Vec<Event>) {
        if is_final || !value.starts_with(self.sent.as_str()) {
            self.last = None;
            self.extend_to(value, out);
            return;
        }
        if let Some(last) = &self.last {
            let shared = common_prefix(last, value);
            if shared > self.sent.len() {
                let piece = &value[self.sent.len()..shared];
                out.push(block_delta(&self.message_id, self.index, piece));
                self.sent.push_str(piece);
            }
        }
        self.last = Some(value.to_owned());
    }

    /// Sends what a snapshot in progress held back.
    pub fn flush(&mut self, out: &mut Vec<Event>) {
        if let Some(last) = self.last.take() {
            self.extend_to(&last, out);
        }
    }

    fn extend_to(&mut self, value: &str, out: &mut Vec<Event>) {
        if value == self.sent {
            return;
        }
        if let Some(rest) = value.strip_prefix(self.sent.as_str()) {
            out.push(block_delta(&self.message_id, self.index, rest));
        } else {
            out.push(block_replaced(
                &self.message_id,
                self.index,
                vec![(self.field, value.into())],
            ));
        }
        self.sent = value.to_owned();
    }
}

/// The length in bytes of the longest common prefix of two strings, in
/// whole characters.
pub fn common_prefix(a: &str, b: &str) -> usize {
    let mut length = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(length) {
        length -= 1;
    }
    length
}

/// What [`Decode::decode_text`] made of an event's text.
#[derive(Debug, PartialEq, Eq)]
pub enum Quick<'t> {
    /// Not a hot event: nothing changed, the full path decodes it.
    No,
    /// Decoded into the events given.
    Events,
    /// Decoded into this one `block_delta` (its delta not empty), in parts.
    Delta {
        message_id: Cow<'t, str>,
        index: i64,
        delta: Cow<'t, str>,
    },
}

/// A protocol's events into neutral ones. Lenient: what it cannot place
/// passes through.
pub trait Decode {
    fn decode(&mut self, event: &Event, out: &mut Vec<Event>);

    /// The framing the protocol's streams may have besides SSE (see
    /// [`crate::stream::Protocol::framing`]).
    fn framing(&self) -> Option<crate::framing::Kind> {
        None
    }

    /// Whether an event is one of the protocol's (its module's
    /// `recognizes`).
    fn recognizes(&self, event: &Event) -> bool;

    /// The hot events (a delta to a block already open), decoded from their
    /// text without a `Value` tree: what [`Decode::decode`] gives for them.
    fn decode_text<'t>(&mut self, _text: &'t str, _out: &mut Vec<Event>) -> Quick<'t> {
        Quick::No
    }

    /// The `[DONE]` sentinel: the end of the run, for a protocol that ends
    /// its runs so.
    fn done(&mut self, _out: &mut Vec<Event>) {}

    fn finish(&mut self, _out: &mut Vec<Event>) {}
}

/// Neutral events into a protocol's events.
/// What a conversion could not carry into its target, as the target's
/// encoder found it: the source event that brought it is numbered by the
/// Transcoder, which keeps the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    /// What was lost: the kind of a block the target has no place for
    /// (`media`, `data`, `tool_result`).
    pub what: String,
    /// Why, in a sentence that names the target.
    pub why: String,
}

/// How many losses a conversion lists: past them, one more entry says the
/// rest went unlisted. A stream may bring a loss with every event (an
/// annotation each, where the target has none), and the list lives as long
/// as the conversion.
pub const MAX_LOSSES: usize = 1000;

/// The losses a conversion lists, by the event (from 1) that brought each,
/// at most [`MAX_LOSSES`] of them and then one that says so.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Losses {
    listed: Vec<(u64, Loss)>,
}

impl Losses {
    /// Lists what `event` lost, while there is room.
    pub fn extend(&mut self, event: u64, lost: impl IntoIterator<Item = Loss>) {
        for loss in lost {
            if self.listed.len() < MAX_LOSSES {
                self.listed.push((event, loss));
            } else {
                if self.listed.len() == MAX_LOSSES {
                    self.listed.push((event, Loss::unlisted()));
                }
                return;
            }
        }
    }

    /// What was listed, in order.
    pub fn as_slice(&self) -> &[(u64, Loss)] {
        &self.listed
    }
}

/// A `passthrough` event as its protocol names it: by the event's `type`,
/// its `event`, or its one key (`"<name> event of <protocol>"`).
fn passed_through(event: &Event) -> String {
    let protocol = get_str(event, "protocol");
    let name = match event.get("event") {
        Some(Value::Object(inner)) => get_str(inner, "type")
            .or_else(|| get_str(inner, "event"))
            .or_else(|| inner.keys().next().map(String::as_str)),
        _ => None,
    };
    // The name's first part: a namespace after `|` (a subgraph's events
    // are named so) names no other kind, where each of a graph's tasks
    // would be a kind of its own.
    let name = name.map(|name| name.split('|').next().unwrap_or(name));
    format!(
        "{} event of {}",
        name.unwrap_or("raw"),
        protocol.unwrap_or("an unnamed protocol")
    )
}

impl Loss {
    /// The entry that ends a full list: what follows is not listed.
    pub fn unlisted() -> Self {
        Loss {
            what: "losses".to_owned(),
            why: format!("more than {MAX_LOSSES} losses: the rest are not listed"),
        }
    }

    /// A block of a kind the target has no place for.
    pub fn block(target: &str, kind: &str) -> Self {
        Loss {
            what: kind.to_owned(),
            why: format!("{target} has no place for {} {kind} block", article(kind)),
        }
    }

    /// A reasoning signature or encrypted reasoning (`encrypted`) the
    /// target has no place for.
    pub fn signature(target: &str) -> Self {
        Loss {
            what: "signatures".to_owned(),
            why: format!("{target} has no place for a reasoning signature"),
        }
    }

    /// The signature of a block of another kind than reasoning (a text's or
    /// a tool call's, as a provider may sign them), where the target signs
    /// only reasoning.
    pub fn block_signature(target: &str, kind: &str) -> Self {
        Loss {
            what: "signatures".to_owned(),
            why: format!(
                "{target} has no place for the signature of {} {kind} block",
                article(kind)
            ),
        }
    }

    /// A refusal written as text: the target has no refusal block.
    pub fn refusal(target: &str) -> Self {
        Loss {
            what: "refusal_kind".to_owned(),
            why: format!("{target} has no refusal block: a refusal is written as text"),
        }
    }

    /// A correction of text that already streamed (a `block_replaced`
    /// with `text`): the target can only append.
    pub fn correction(target: &str, kind: &str) -> Self {
        Loss {
            what: "corrections".to_owned(),
            why: format!(
                "{target} cannot replace the text of {} {kind} block that already streamed",
                article(kind)
            ),
        }
    }

    /// A failed run's error code (`code`) the target has no place for: the
    /// failure is written with `written`, its own word, or without a code.
    /// None when there is no code, or it is written as it came.
    pub fn error_code(target: &str, code: Option<&str>, written: Option<&str>) -> Option<Self> {
        let code = nonempty(code)?;
        if written == Some(code) {
            return None;
        }
        let written = match written {
            Some(written) => format!("as {written}"),
            None => "without a code".to_owned(),
        };
        Some(Loss {
            what: "error_code".to_owned(),
            why: format!("{target} has no error code {code}: the failure is written {written}"),
        })
    }

    /// A run status the target has no word for: the run is written with
    /// the status it reads back as (`written`), which the encoder gives in
    /// the neutral words. None when the status is carried, or is none of
    /// the neutral statuses (an unknown one is written as completed).
    pub fn status(target: &str, status: Option<&str>, written: &str) -> Option<Self> {
        // Every protocol has a word for completed.
        let status = status.filter(|status| {
            RUN_STATUSES.contains(status) && *status != "completed" && *status != written
        })?;
        Some(Loss {
            what: "run_status".to_owned(),
            why: format!("{target} has no run status {status}: the run is written as {written}"),
        })
    }

    /// A tool result that is a JSON value, written as its JSON text: the
    /// target's tool results are text.
    pub fn result_as_json(target: &str) -> Self {
        Loss {
            what: "result_as_json".to_owned(),
            why: format!(
                "{target} carries tool results as text: a JSON value is written as its JSON"
            ),
        }
    }

    /// The usage a `run_finished`, `run_failed` or `message_finished`
    /// carries, where the target has no place for it. None when it carries
    /// none.
    pub fn usage(target: &str, event: &Event) -> Option<Self> {
        let Some(Value::Object(usage)) = event.get("usage") else {
            return None;
        };
        if usage.is_empty() {
            return None;
        }
        let of = match get_str(event, "type") {
            Some("run_failed") => "a failed run",
            Some("message_finished") => "a message",
            _ => "a run",
        };
        Some(Loss {
            what: "usage".to_owned(),
            why: format!("{target} has no place for the usage of {of}"),
        })
    }

    /// A run's usage left out because the encoder was told not to write it
    /// (`include_usage`).
    pub fn usage_not_asked(target: &str) -> Self {
        Loss {
            what: "usage".to_owned(),
            why: format!("{target} writes a run's usage only with include_usage"),
        }
    }

    /// A usage without the counts the target's usage must have (`needs`):
    /// it is left out.
    pub fn partial_usage(target: &str, needs: &str) -> Self {
        Loss {
            what: "usage".to_owned(),
            why: format!("{target} needs {needs} in a usage: one without them is left out"),
        }
    }

    /// A tool's arguments that are not a JSON object, where the target
    /// takes an object: they end as the JSON of their last clean prefix.
    pub fn broken_arguments(target: &str) -> Self {
        Loss {
            what: "broken_arguments".to_owned(),
            why: format!(
                "{target} takes a tool's input as a JSON object: arguments that are not one end at their last clean point"
            ),
        }
    }

    /// Annotations of a text block (citations) the target has no place for.
    pub fn annotations(target: &str) -> Self {
        Loss {
            what: "annotations".to_owned(),
            why: format!("{target} has no place for these annotations of a text block"),
        }
    }

    /// The MCP server a `tool_call` names, where the target writes the call
    /// without one.
    pub fn server(target: &str, event: &Event) -> Option<Self> {
        let named = nonempty(get_str(event, "server")).is_some();
        (named && get_str(event, "kind") == Some("tool_call")).then(|| Loss {
            what: "tool_server".to_owned(),
            why: format!("{target} has no place for the MCP server of a tool call"),
        })
    }

    /// A tool call of a kind (`tool`: mcp, custom, server, plugin, ...) the
    /// target has no call for, beside its function calls (`carried`): the
    /// call is written as a function call. A function call is every
    /// target's, in either of Chat's forms.
    pub fn tool_kind(target: &str, event: &Event, carried: &[&str]) -> Option<Self> {
        if get_str(event, "kind") != Some("tool_call") {
            return None;
        }
        let tool = nonempty(get_str(event, "tool"))?;
        let written = matches!(tool, "function" | "function_call") || carried.contains(&tool);
        (!written).then(|| Loss {
            what: "tool_kind".to_owned(),
            why: format!("{target} has no {tool} tool call: it is written as a function call"),
        })
    }

    /// A message written in a namespace (a subgraph's or sub-agent's) by a
    /// target that has none: it reads as the run's own.
    pub fn namespace(target: &str, event: &Event) -> Option<Self> {
        if get_str(event, "type") != Some("message_started") {
            return None;
        }
        let namespace = as_namespace(event.get("namespace"))?;
        Some(Loss {
            what: "namespace".to_owned(),
            why: format!(
                "{target} has no namespaces: a message of {} is written as the run's",
                namespace.join("/")
            ),
        })
    }

    /// An event that has no neutral meaning (a `passthrough`: a step
    /// marker, a provider's progress, audio, a graph's debug output), which
    /// the target has no place for (another protocol's, or its own that it
    /// does not write back). Named by
    /// the event's `type`, its `event`, or its one key, as its protocol names
    /// its events.
    pub fn passthrough(target: &str, event: &Event) -> Option<Self> {
        if get_str(event, "type") != Some("passthrough") {
            return None;
        }
        let named = passed_through(event);
        Some(Loss {
            what: "passthrough".to_owned(),
            why: format!(
                "{target} has no place for {} {named}, which has no neutral meaning",
                article(&named)
            ),
        })
    }

    /// An event that came after the target's stream had ended, which it
    /// therefore does not write (a second run, or what a source says after
    /// its own end). Named by the event's `type`, or a passed-through
    /// event by its own, as [`Loss::passthrough`] names it.
    pub fn after_end(target: &str, kind: &str, event: Option<&Event>) -> Self {
        let named = match event {
            Some(event) if kind == "passthrough" => passed_through(event),
            _ => format!("{kind} event"),
        };
        Loss {
            what: "after_end".to_owned(),
            why: format!(
                "{target} writes nothing after its stream's end: {} {named} that came after it has no place",
                article(&named)
            ),
        }
    }

    /// What a `block_delta` or `block_replaced` (`kind`) brought to a block
    /// that is not open (never started, or finished already), which the
    /// target writes nothing of: a replacement's `fields`, sorted.
    pub fn block_not_open(target: &str, kind: &str, fields: &[&str]) -> Self {
        let brought = if fields.is_empty() {
            format!("a {kind}")
        } else {
            format!("the {} of a {kind}", fields.join(", "))
        };
        Loss {
            what: "block_not_open".to_owned(),
            why: format!(
                "{target} writes nothing to a block that is not open (never started, or finished): {brought} to one has no place"
            ),
        }
    }

    /// The run's state (a `state_snapshot` or `state_patch`: `kind`), where
    /// the target has no place for one. None for an empty one, which says
    /// nothing.
    pub fn state(target: &str, kind: &str, event: &Event) -> Option<Self> {
        let field = if kind == "state_patch" {
            "patch"
        } else {
            "snapshot"
        };
        if is_falsy(event.get(field)) {
            return None;
        }
        Some(Loss {
            what: "state".to_owned(),
            why: format!("{target} has no place for the run's state: a {kind} is not written"),
        })
    }

    /// The result a `run_finished` carries (what the agent returned), where
    /// the target has no place for one. None when it carries none.
    pub fn run_result(target: &str, event: &Event) -> Option<Self> {
        get(event, "result")?;
        Some(Loss {
            what: "run_result".to_owned(),
            why: format!("{target} has no place for a run's result"),
        })
    }

    /// A block of a message the target does not stream: one of another
    /// role than the assistant's (a user's text, a tool's result).
    pub fn other_role(target: &str, kind: &str) -> Self {
        Loss {
            what: kind.to_owned(),
            why: format!(
                "{target} streams only what the assistant says: {} {kind} block of another role's message has no place",
                article(kind)
            ),
        }
    }
}

pub trait Encode {
    fn encode(&mut self, event: &Event, out: &mut Vec<Event>);

    /// What the encoder could not carry since the last call, in order.
    fn take_losses(&mut self) -> Vec<Loss> {
        Vec::new()
    }

    /// Whether its messages keep the namespace they were written in (a
    /// subgraph's path); where not, the Transcoder records the loss.
    fn carries_namespaces(&self) -> bool {
        false
    }

    /// Whether it writes the run's state (`state_snapshot`, `state_patch`);
    /// where not, the Transcoder records the loss, once for each kind.
    fn carries_state(&self) -> bool {
        false
    }

    /// Whether it writes a run's result (`run_finished`'s `result`); where
    /// not, the Transcoder records the loss.
    fn carries_run_result(&self) -> bool {
        false
    }

    /// Whether it writes why a message or a run stopped (its `stop_reason`),
    /// saying itself what it has no place for; where not, the Transcoder
    /// records a reason that says more than the stream does.
    fn carries_stop_reasons(&self) -> bool {
        false
    }

    /// Whether it writes another protocol's events that have no neutral
    /// meaning (AG-UI, as `RAW` events); where not, the Transcoder records
    /// each as a loss.
    fn keeps_foreign_events(&self) -> bool {
        false
    }

    /// Whether it writes back this `passthrough` of its own protocol's
    /// event as it came (most do); where not, the Transcoder records it as
    /// a loss, as it does another protocol's.
    fn keeps_own_event(&self, _passthrough: &Event) -> bool {
        true
    }

    /// Whether its stream has ended before an event of this `type` (its end
    /// is written: a message's stop, a task's final status), so that it
    /// writes nothing of it; the Transcoder records what comes after the
    /// end as a loss.
    fn has_ended_before(&self, _kind: &str) -> bool {
        false
    }

    /// The fields of a `block_replaced` it writes to a block it has
    /// finished (an encrypted value that names its message or tool call,
    /// not the block, may follow its end); the Transcoder records the others
    /// as a loss.
    fn writes_after_block_end(&self, _replaced: &Event) -> &'static [&'static str] {
        &[]
    }

    fn finish(&mut self, _out: &mut Vec<Event>) {}

    /// Appends one of this protocol's events as SSE bytes.
    fn frame(&self, event: &Event, out: &mut Vec<u8>);

    /// What follows the last event, once (Chat's `data: [DONE]`).
    fn trailer(&mut self, _out: &mut Vec<u8>) {}

    /// A `block_delta` given in parts, written straight to SSE bytes: what
    /// [`Encode::encode`] and [`Encode::frame`] give for it. False, having
    /// changed nothing, when the encoder takes the general path for it.
    fn write_delta(
        &mut self,
        _message_id: &str,
        _index: i64,
        _delta: &str,
        _out: &mut Vec<u8>,
    ) -> bool {
        false
    }
}

/// A block named by borrowed parts: finds it in a map keyed by
/// `(String, i64)` without building a key (it hashes as the key does).
#[derive(Debug, Hash)]
pub struct BlockRef<'a>(pub &'a str, pub i64);

impl indexmap::Equivalent<(String, i64)> for BlockRef<'_> {
    fn equivalent(&self, key: &(String, i64)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_of_no_neutral_type_is_refused() {
        let typed = |kind: Value| {
            let mut event = Event::new();
            event.insert("type".to_owned(), kind);
            event
        };
        for kind in vocabulary::EVENT_TYPES {
            assert_eq!(check_type(&typed(kind.into())), Ok(()));
        }
        let refused = check_type(&typed("block_deltas".into())).unwrap_err();
        assert!(refused.ends_with(", not block_deltas"), "{refused}");
        assert!(check_type(&typed(Value::Null)).is_err());
        assert!(check_type(&Event::new()).is_err());
    }

    #[test]
    fn losses_are_listed_up_to_their_bound_then_once_more() {
        let mut losses = Losses::default();
        for event in 1..=MAX_LOSSES as u64 + 5 {
            losses.extend(event, [Loss::signature("t"), Loss::refusal("t")]);
        }
        let listed = losses.as_slice();
        assert_eq!(listed.len(), MAX_LOSSES + 1);
        assert_eq!(listed[MAX_LOSSES - 1].1, Loss::refusal("t"));
        let (event, last) = &listed[MAX_LOSSES];
        assert_eq!(
            (*event, last.what.as_str()),
            (MAX_LOSSES as u64 / 2 + 1, "losses")
        );
    }

    fn deltas(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|event| {
                format!(
                    "{}:{}",
                    event["type"].as_str().unwrap(),
                    event
                        .get("delta")
                        .or(event.get("arguments"))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn snapshots_in_progress_send_what_they_share() {
        let mut held = Held::new("m", 0, "arguments");
        let mut out = Vec::new();
        held.snapshot(r#"{"city": "Pa"}"#, false, &mut out);
        held.snapshot(r#"{"city": "Paris"}"#, false, &mut out);
        held.snapshot(r#"{"city": "Paris", "unit": "C"}"#, true, &mut out);
        assert_eq!(
            deltas(&out),
            [
                r#"block_delta:{"city": "Pa"#,
                r#"block_delta:ris", "unit": "C"}"#
            ]
        );
        assert_eq!(held.sent, r#"{"city": "Paris", "unit": "C"}"#);
        let mut out = Vec::new();
        held.snapshot("{}", true, &mut out);
        assert_eq!(deltas(&out), ["block_replaced:{}"]);
    }

    #[test]
    fn a_delta_sends_what_a_snapshot_held_back() {
        let mut held = Held::new("m", 0, "text");
        let mut out = Vec::new();
        held.snapshot("Hel", false, &mut out);
        held.append("lo", &mut out);
        assert_eq!(deltas(&out), ["block_delta:Hel", "block_delta:lo"]);
    }

    #[test]
    fn a_tool_call_of_a_kind_the_target_has_not_is_a_loss() {
        let call = |tool: &str| {
            let mut event = Map::new();
            event.insert("type".to_owned(), "block_started".into());
            event.insert("kind".to_owned(), "tool_call".into());
            event.insert("tool".to_owned(), tool.into());
            event
        };
        let why = |tool: &str| Loss::tool_kind("t", &call(tool), &["mcp"]).map(|loss| loss.why);
        assert_eq!(why("function"), None);
        assert_eq!(why("function_call"), None);
        assert_eq!(why("mcp"), None);
        assert_eq!(why(""), None);
        assert_eq!(
            why("custom").as_deref(),
            Some("t has no custom tool call: it is written as a function call")
        );
        let mut result = call("custom");
        result.insert("kind".to_owned(), "tool_result".into());
        assert!(Loss::tool_kind("t", &result, &[]).is_none());
    }

    #[test]
    fn a_message_in_a_namespace_is_a_loss_where_the_target_has_none() {
        let started = |namespace: Value| {
            let mut event = message_started("m", "assistant", None);
            event.insert("namespace".to_owned(), namespace);
            event
        };
        let parts = |parts: &[&str]| Value::Array(parts.iter().map(|&part| part.into()).collect());
        let why = |namespace: Value| Loss::namespace("t", &started(namespace)).map(|loss| loss.why);
        assert_eq!(
            why(parts(&["outer:a", "inner:b"])).as_deref(),
            Some("t has no namespaces: a message of outer:a/inner:b is written as the run's")
        );
        // The run's own: none, an empty path, or not a path of str.
        assert_eq!(why(Value::Null), None);
        assert_eq!(why(parts(&[])), None);
        assert_eq!(why(Value::Array(vec!["a".into(), 1.into()])), None);
        assert_eq!(
            message_started_in("m", "tool", None, Some(vec!["inner:1".to_owned()]))["namespace"],
            parts(&["inner:1"])
        );
        assert_eq!(message_started("m", "tool", None)["namespace"], Value::Null);
    }

    #[test]
    fn a_message_names_its_node_only_where_the_source_does() {
        let started = message_started_at("m", "assistant", None, None, Some("agent"));
        assert_eq!(started["node"], Value::from("agent"));
        assert_eq!(started["namespace"], Value::Null);
        assert_eq!(message_started("m", "tool", None)["node"], Value::Null);
    }

    #[test]
    fn common_prefixes_end_on_characters() {
        assert_eq!(common_prefix("aé", "aè"), 1);
        assert_eq!(common_prefix("abc", "abd"), 2);
        assert_eq!(common_prefix("", "x"), 0);
        assert_eq!(common_prefix("数据", "数据"), 6);
    }
}
