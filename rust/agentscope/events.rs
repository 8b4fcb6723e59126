//! AgentScope (`/process`) to and from the neutral vocabulary.
//! `python/agentcodec/_pure/agentscope/events.py` mirrors this module rule
//! for rule (and says what each direction does).

use std::collections::BTreeMap;

use super::probe::Probe;
use crate::events::{
    appended_field, as_int, block_finished, block_key, block_replaced, block_started, frame_sse,
    get, get_str, has_annotations, is_falsy, message_finished, message_started, nonempty, now,
    or_null, passthrough, run_failed, run_finished, run_started, Decode, Encode, Event, Held, Loss,
    Quick,
};
use crate::hashing::{HashMap, HashSet, IndexMap};
use crate::json::{self, Map, Value};
use crate::json_probe::{Scalar, StrField};

/// AgentScope message type -> neutral message kind, and the tool it names.
fn message_type(name: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match name {
        "message" => ("message", None),
        "reasoning" => ("reasoning", None),
        "function_call" => ("tool_call", Some("function")),
        "plugin_call" => ("tool_call", Some("plugin")),
        "mcp_call" => ("tool_call", Some("mcp")),
        "component_call" => ("tool_call", Some("component")),
        "function_call_output" => ("tool_result", Some("function")),
        "plugin_call_output" => ("tool_result", Some("plugin")),
        "mcp_call_output" => ("tool_result", Some("mcp")),
        "component_call_output" => ("tool_result", Some("component")),
        _ => return None,
    })
}

fn tool_type(tool: &str) -> Option<&'static str> {
    Some(match tool {
        "function" => "function_call",
        "plugin" => "plugin_call",
        "mcp" => "mcp_call",
        "component" => "component_call",
        _ => return None,
    })
}

/// A media content type's URL field.
fn media_field(content_type: &str) -> Option<&'static str> {
    Some(match content_type {
        "image" => "image_url",
        "video" => "video_url",
        "file" => "file_url",
        "audio" => "data",
        _ => return None,
    })
}

const ROLES: [&str; 4] = ["assistant", "user", "system", "tool"];

#[derive(Debug, Clone)]
struct DecodedBlock {
    kind: &'static str,
    /// What its streamed field carried, for snapshots.
    held: Option<Held>,
    /// A media block's URL.
    media: Option<String>,
    open: bool,
}

#[derive(Debug, Clone)]
struct DecodedMessage {
    kind: &'static str,
    tool: Option<&'static str>,
    blocks: IndexMap<i64, DecodedBlock>,
    open: bool,
}

impl DecodedMessage {
    fn new(kind: &'static str, tool: Option<&'static str>) -> Self {
        DecodedMessage {
            kind,
            tool,
            blocks: IndexMap::default(),
            open: true,
        }
    }
}

/// AgentScope events to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    started: bool,
    messages: HashMap<String, DecodedMessage>,
    unnamed: u64,
    /// The message id-less content goes to until an event of another
    /// message ends it (see the assembler's `MessageKey`).
    anonymous: Option<String>,
    /// The messages announced open and not ended, in the order they were
    /// announced: id-less content goes to the last of them (see the
    /// assembler's `content_message`).
    announced: Vec<String>,
    /// The message the last quick delta went to, when its id is plain: the
    /// next delta's id is read with a compare ([`Probe::read`]).
    last_id: Option<String>,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode_text<'t>(&mut self, text: &'t str, out: &mut Vec<Event>) -> Quick<'t> {
        let mut probe = Probe::default();
        if probe.read(text, self.last_id.as_deref()) {
            self.append_delta(probe, out)
        } else {
            Quick::No
        }
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        match get(event, "object") {
            Some(Value::String(kind)) if kind == "content" => self.content(event, out),
            Some(Value::String(kind)) if kind == "message" => self.message(event, out),
            Some(Value::String(kind)) if kind == "response" => self.response(event, out),
            None if event.contains_key("error") => {
                let error = &event["error"];
                let (code, message) = match error {
                    Value::Object(error) => (get(error, "code"), get(error, "message")),
                    other => (get(event, "code"), Some(other)),
                };
                let code = code
                    .and_then(Value::as_str)
                    .or_else(|| get_str(event, "error_type"))
                    .filter(|code| !code.is_empty())
                    .unwrap_or("stream_error");
                let message = message
                    .and_then(Value::as_str)
                    .map_or(Value::Null, Value::from);
                out.push(run_failed(code.into(), message, Value::Null));
            }
            _ => out.push(passthrough("agentscope", event)),
        }
    }
}

impl Decoder {
    /// A text, reasoning or refusal delta, or a tool call's arguments or a
    /// tool result's output streamed as a data delta, to a block that is
    /// open, from a probe: what [`Decoder::content`] does for it.
    fn append_delta<'t>(&mut self, mut probe: Probe<'t>, out: &mut Vec<Event>) -> Quick<'t> {
        let is_delta = probe.object.as_ref().and_then(StrField::as_str) == Some("content")
            && probe.delta == Some(Scalar::Bool(true))
            && probe.status.as_ref().and_then(Scalar::as_str) != Some("completed");
        let (true, None, Some(message_id), Some(index), Some(content_type)) = (
            is_delta,
            &self.anonymous, // ending it takes the full path
            probe.msg_id.as_ref().and_then(StrField::as_str),
            probe.index.as_ref().and_then(Scalar::as_i64),
            probe.kind.as_ref().and_then(StrField::as_str),
        ) else {
            return Quick::No;
        };
        let Some(block) = self
            .messages
            .get_mut(message_id)
            .and_then(|message| message.blocks.get_mut(&index))
            .filter(|block| block.open)
        else {
            return Quick::No;
        };
        if self.last_id.as_deref() != Some(message_id) {
            self.last_id = (json::plain_run(message_id.as_bytes(), 0) == message_id.len())
                .then(|| message_id.to_owned());
        }
        // Where `apply` takes the appended string from.
        let (data_key, field) = match block.kind {
            "tool_call" => (true, "arguments"),
            "tool_result" => (true, "output"),
            "text" | "reasoning" | "refusal" if content_type == "refusal" => (false, "refusal"),
            "text" | "reasoning" | "refusal" => (false, "text"),
            _ => return Quick::No,
        };
        let value = if data_key {
            probe.data_string(field)
        } else {
            probe.appended(field)
        };
        let (Some(value), Some(held)) = (value, block.held.as_mut()) else {
            return Quick::No;
        };
        if !held.take_delta(value) {
            held.append(value, out);
            return Quick::Events;
        }
        if value.is_empty() {
            return Quick::Events; // nothing to pass on
        }
        let taken = match field {
            _ if data_key => probe.take_data_string(field),
            "refusal" => match probe.refusal.take() {
                Some(StrField::Str(text)) => Some(text),
                _ => None,
            },
            _ => match probe.text.take() {
                Some(StrField::Str(text)) => Some(text),
                _ => None,
            },
        };
        match (probe.msg_id.take(), taken) {
            (Some(StrField::Str(message_id)), Some(delta)) => Quick::Delta {
                message_id,
                index,
                delta,
            },
            _ => unreachable!("both were read as strings"),
        }
    }

    fn response(&mut self, event: &Event, out: &mut Vec<Event>) {
        if !self.started {
            self.started = true;
            out.push(run_started(
                or_null(get(event, "id")),
                or_null(get(event, "session_id")),
                Value::Null,
                or_null(get(event, "created_at")),
            ));
        }
        let usage = or_null(get(event, "usage"));
        match get_str(event, "status") {
            Some("completed") => out.push(run_finished("completed", usage, Value::Null)),
            Some("canceled") => out.push(run_finished("cancelled", usage, Value::Null)),
            Some("incomplete") => out.push(run_finished("incomplete", usage, Value::Null)),
            Some("failed" | "rejected") => {
                let error = match get(event, "error") {
                    Some(Value::Object(error)) => error.clone(),
                    _ => Map::new(),
                };
                out.push(run_failed(
                    or_null(get(&error, "code")),
                    or_null(get(&error, "message")),
                    usage,
                ));
            }
            _ => {}
        }
    }

    fn message(&mut self, event: &Event, out: &mut Vec<Event>) {
        let message_id = get_str(event, "id");
        let heartbeat = get_str(event, "type") == Some("heartbeat");
        if let (Some(message_id), false) = (message_id, heartbeat) {
            self.end_anonymous(out); // as in the assembler, a heartbeat is no message
            let known = self.announced.iter().position(|id| id == message_id);
            match (event.get("status").map(Value::as_str), known) {
                (Some(Some("created" | "in_progress")), None) => {
                    self.announced.push(message_id.to_owned());
                }
                (Some(Some("created" | "in_progress")), Some(_)) | (None, _) => {}
                (Some(_), Some(at)) => {
                    self.announced.remove(at);
                }
                (Some(_), None) => {}
            }
        }
        let mapped = match event.get("type") {
            None => message_type("message"),
            // The Java runtime's stream adapter sends a tool's result as an
            // approval response with the tool's role (a slip for
            // mcp_call_output); a real approval response comes from the user.
            Some(Value::String(name))
                if name == "mcp_approval_response" && get_str(event, "role") == Some("tool") =>
            {
                message_type("mcp_call_output")
            }
            Some(Value::String(name)) => message_type(name),
            Some(_) => None,
        };
        let (Some(message_id), Some((kind, tool))) = (message_id, mapped) else {
            if get_str(event, "type") != Some("heartbeat") {
                out.push(passthrough("agentscope", event));
            }
            return;
        };
        if !self.messages.contains_key(message_id) {
            self.messages
                .insert(message_id.to_owned(), DecodedMessage::new(kind, tool));
            let role = get_str(event, "role").unwrap_or("assistant");
            out.push(message_started(message_id, role, Some(kind)));
        }
        let message = self.messages.get_mut(message_id).expect("just inserted");
        if get_str(event, "status") != Some("completed") || !message.open {
            return;
        }
        // A completed message's content is authoritative, positioned by its
        // index (or its place in the list).
        if let Some(Value::Array(content)) = get(event, "content") {
            for (position, item) in content.iter().enumerate() {
                let Value::Object(item) = item else {
                    continue;
                };
                let index = as_int(item.get("index")).unwrap_or(position as i64);
                let empty = get_str(item, "type") == Some("text") && is_falsy(get(item, "text"));
                if !message.blocks.contains_key(&index) && empty {
                    continue; // a stray empty slot, never streamed
                }
                apply(message_id, message, index, item, true, true, out);
            }
        }
        for (index, block) in &mut message.blocks {
            finish_block(message_id, *index, block, out);
        }
        message.open = false;
        out.push(message_finished(
            message_id,
            or_null(get(event, "usage")),
            Value::Null,
        ));
    }

    /// An event of a message with an id ends the anonymous message: no more
    /// content can go to it, so it finishes.
    fn end_anonymous(&mut self, out: &mut Vec<Event>) {
        let Some(message_id) = self.anonymous.take() else {
            return;
        };
        if let Some(message) = self.messages.get_mut(&message_id).filter(|m| m.open) {
            for (index, block) in &mut message.blocks {
                finish_block(&message_id, *index, block, out);
            }
            message.open = false;
            out.push(message_finished(&message_id, Value::Null, Value::Null));
        }
    }

    fn content(&mut self, event: &Event, out: &mut Vec<Event>) {
        let message_id = match get_str(event, "msg_id") {
            Some(message_id) => {
                self.end_anonymous(out);
                message_id.to_owned()
            }
            None => match (self.announced.last(), &self.anonymous) {
                (Some(message_id), _) | (None, Some(message_id)) => message_id.clone(),
                (None, None) => {
                    self.unnamed += 1;
                    let message_id = format!("msg-{}", self.unnamed);
                    self.anonymous = Some(message_id.clone());
                    message_id
                }
            },
        };
        if !self.messages.contains_key(&message_id) {
            // Content before (or without) its message: the message starts here.
            let kind = if get_str(event, "type") == Some("data") {
                "tool_call"
            } else {
                "message"
            };
            let tool = (kind == "tool_call").then_some("function");
            self.messages
                .insert(message_id.clone(), DecodedMessage::new(kind, tool));
            out.push(message_started(&message_id, "assistant", Some(kind)));
        }
        let message = self.messages.get_mut(&message_id).expect("just inserted");
        let index = as_int(event.get("index")).unwrap_or_else(|| {
            message
                .blocks
                .keys()
                .max()
                .map_or(0, |last| last.saturating_add(1))
        });
        let is_final = get_str(event, "status") == Some("completed");
        let snapshot = event.get("delta") != Some(&Value::Bool(true));
        apply(&message_id, message, index, event, snapshot, is_final, out);
        if is_final {
            if let Some(block) = message.blocks.get_mut(&index) {
                finish_block(&message_id, index, block, out);
            }
        }
    }
}

fn finish_block(message_id: &str, index: i64, block: &mut DecodedBlock, out: &mut Vec<Event>) {
    if block.open {
        block.open = false;
        if let Some(held) = &mut block.held {
            held.flush(out);
        }
        out.push(block_finished(message_id, index));
    }
}

/// A content's value into its block: appended, or as a snapshot.
fn apply(
    message_id: &str,
    message: &mut DecodedMessage,
    index: i64,
    content: &Event,
    snapshot: bool,
    is_final: bool,
    out: &mut Vec<Event>,
) {
    let content_type = get_str(content, "type");
    let data = get(content, "data");
    if !message.blocks.contains_key(&index) {
        let block = start(message_id, message, index, content, out);
        message.blocks.insert(index, block);
    }
    let block = message.blocks.get_mut(&index).expect("just inserted");
    if !block.open {
        return;
    }
    match block.kind {
        "data" => {
            out.push(block_replaced(
                message_id,
                index,
                vec![("value", or_null(data))],
            ));
            return;
        }
        "media" => {
            let field = content_type.and_then(media_field).unwrap_or("data");
            if let Some(value) = get_str(content, field) {
                if block.media.as_deref() != Some(value) {
                    block.media = Some(value.to_owned());
                    out.push(block_replaced(
                        message_id,
                        index,
                        vec![("url", value.into())],
                    ));
                }
            }
            return;
        }
        _ => {}
    }
    let value = match block.kind {
        "tool_call" | "tool_result" => {
            let key = if block.kind == "tool_call" {
                "arguments"
            } else {
                "output"
            };
            match data {
                Some(Value::Object(data)) => get(data, key),
                _ => None,
            }
        }
        _ => {
            let key = if content_type == Some("refusal") {
                "refusal"
            } else {
                "text"
            };
            get(content, key)
        }
    };
    let held = block
        .held
        .as_mut()
        .expect("streamed blocks hold their text");
    match value {
        Some(Value::String(value)) => {
            if snapshot {
                held.snapshot(value, is_final, out);
            } else {
                held.append(value, out);
            }
        }
        Some(other) if block.kind == "tool_result" => {
            out.push(block_replaced(
                message_id,
                index,
                vec![("output", other.clone())],
            ));
        }
        _ => {}
    }
}

fn start(
    message_id: &str,
    message: &DecodedMessage,
    index: i64,
    content: &Event,
    out: &mut Vec<Event>,
) -> DecodedBlock {
    let content_type = get_str(content, "type");
    let empty = Map::new();
    let data = match content.get("data") {
        Some(Value::Object(data)) => data,
        _ => &empty,
    };
    let mut fields: Vec<(&str, Value)> = Vec::new();
    let kind = match content_type {
        Some("text") if message.kind == "reasoning" => "reasoning",
        Some("text") => "text",
        Some("refusal") => "refusal",
        Some("data") if matches!(message.kind, "tool_call" | "tool_result") => {
            fields.push(("call_id", or_null(get(data, "call_id"))));
            fields.push(("name", or_null(get(data, "name"))));
            fields.push(("tool", message.tool.map_or(Value::Null, Value::from)));
            fields.push(("server", or_null(get(data, "server_label"))));
            message.kind
        }
        Some(media) if media_field(media).is_some() => {
            fields.push(("media_type", media.into()));
            let mime = if media == "audio" {
                or_null(get(content, "format"))
            } else {
                Value::Null
            };
            fields.push(("mime_type", mime));
            "media"
        }
        _ => "data",
    };
    let held = appended_field(kind)
        .filter(|_| kind != "media")
        .map(|field| Held::new(message_id, index, field));
    out.push(block_started(message_id, index, kind, &fields));
    DecodedBlock {
        kind,
        held,
        media: None,
        open: true,
    }
}

// --- encoding --------------------------------------------------------------------------

/// A content's fields, past the ones every content has, in upstream's order.
fn content_fields(content_type: &str) -> &'static [&'static str] {
    match content_type {
        "text" => &["text"],
        "refusal" => &["refusal"],
        "data" => &["data"],
        "image" => &["image_url"],
        "audio" => &["data", "format"],
        "video" => &["video_url"],
        _ => &["file_url", "file_id", "filename", "file_data"],
    }
}

#[derive(Debug, Clone)]
struct Content {
    /// The neutral block kind.
    kind: String,
    content_type: &'static str,
    index: i64,
    /// What deltas appended.
    text: String,
    /// A data content's fixed keys, or a media content's fields.
    data: Map<String, Value>,
}

#[derive(Debug, Clone)]
struct Written {
    id: String,
    message_type: String,
    role: String,
    /// Contents opened so far: the next one's index.
    count: i64,
    /// Completed contents, by index.
    done: BTreeMap<i64, Value>,
}

/// Which AgentScope message a block's content went to: the neutral
/// message's current one, by its place among them.
type WrittenKey = (String, u32);

/// Neutral events to AgentScope events, as agentscope-runtime writes them.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    session_id: Option<String>,
    response_id: Option<String>,
    created_at: Option<i64>,
    sequence: i64,
    started: bool,
    ended: bool,
    output: Vec<Value>,
    /// neutral message -> (role, kind).
    roles: HashMap<String, (String, Option<String>)>,
    /// neutral message -> its AgentScope messages so far; the last is current
    /// while `current` says so.
    written: HashMap<String, Vec<Written>>,
    current: IndexMap<String, u32>,
    /// The neutral messages that have finished: a block that starts in one
    /// afterwards (AG-UI producers start a tool call in the text message
    /// they ended) finishes its AgentScope message with it.
    finished: HashSet<String>,
    /// (neutral message, block index) -> (its AgentScope message, content).
    blocks: IndexMap<(String, i64), (WrittenKey, Content)>,
}

fn sequence_value(number: i64) -> Value {
    number.into()
}

impl Encoder {
    pub fn new(
        session_id: Option<String>,
        response_id: Option<String>,
        created_at: Option<i64>,
    ) -> Self {
        Encoder {
            session_id,
            response_id,
            created_at,
            ..Encoder::default()
        }
    }

    fn next(&mut self) -> Value {
        let number = self.sequence;
        self.sequence += 1;
        sequence_value(number)
    }

    fn response(
        &mut self,
        status: &str,
        error: Value,
        completed_at: Value,
        usage: Value,
        out: &mut Vec<Event>,
    ) {
        let terminal = !matches!(status, "created" | "in_progress");
        let mut event = Map::new();
        event.insert("sequence_number".to_owned(), self.next());
        event.insert("object".to_owned(), "response".into());
        event.insert("status".to_owned(), status.into());
        event.insert("error".to_owned(), error);
        event.insert("id".to_owned(), or_str(&self.response_id));
        event.insert(
            "created_at".to_owned(),
            self.created_at.map_or(Value::Null, Value::from),
        );
        event.insert("completed_at".to_owned(), completed_at);
        let output = if terminal {
            Value::Array(self.output.clone())
        } else {
            Value::Null
        };
        event.insert("output".to_owned(), output);
        event.insert("usage".to_owned(), usage);
        event.insert("session_id".to_owned(), or_str(&self.session_id));
        out.push(event);
    }

    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        if self.response_id.as_deref().is_none_or(str::is_empty) {
            self.response_id = Some("response".to_owned());
        }
        if self.created_at.is_none() {
            self.created_at = Some(now());
        }
        self.response("created", Value::Null, Value::Null, Value::Null, out);
        self.response("in_progress", Value::Null, Value::Null, Value::Null, out);
    }

    fn message_type(event: &Event) -> (String, &'static str) {
        match get_str(event, "kind") {
            Some("reasoning") => ("reasoning".to_owned(), "text"),
            Some("refusal") => ("message".to_owned(), "refusal"),
            Some(kind @ ("tool_call" | "tool_result")) => {
                let tool = nonempty(get_str(event, "tool")).unwrap_or("function");
                let base = tool_type(tool).unwrap_or("function_call");
                if kind == "tool_result" {
                    (format!("{base}_output"), "data")
                } else {
                    (base.to_owned(), "data")
                }
            }
            Some("media") => {
                let media = match get_str(event, "media_type") {
                    Some("image") => "image",
                    Some("audio") => "audio",
                    Some("video") => "video",
                    _ => "file",
                };
                ("message".to_owned(), media)
            }
            Some("data") => ("message".to_owned(), "data"),
            _ => ("message".to_owned(), "text"),
        }
    }

    fn written_mut(&mut self, key: &WrittenKey) -> &mut Written {
        &mut self.written.get_mut(&key.0).expect("written")[key.1 as usize]
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kinds = ["plugin", "mcp", "component"];
        self.lost
            .extend(Loss::tool_kind("agentscope", event, &kinds));
        let (message_type, content_type) = Self::message_type(event);
        let mcp_call = message_type == "mcp_call";
        let current = self.current.get(message_id).copied();
        let same = current
            .is_some_and(|at| self.written[message_id][at as usize].message_type == message_type);
        let at = match current {
            Some(at) if same => at,
            _ => {
                if let Some(at) = current {
                    self.complete_message(
                        (message_id.to_owned(), at),
                        "completed",
                        Value::Null,
                        out,
                    );
                }
                let role = if message_type.ends_with("_output") {
                    "tool".to_owned()
                } else {
                    self.roles
                        .get(message_id)
                        .map_or_else(|| "assistant".to_owned(), |(role, _)| role.clone())
                };
                let role = if ROLES.contains(&role.as_str()) {
                    role
                } else {
                    "assistant".to_owned()
                };
                self.open_message(message_id, message_type, role, out)
            }
        };
        let key = (message_id.to_owned(), at);
        let written = self.written_mut(&key);
        let kind = nonempty(get_str(event, "kind"))
            .unwrap_or("text")
            .to_owned();
        let mut content = Content {
            kind,
            content_type,
            index: written.count,
            text: String::new(),
            data: Map::new(),
        };
        written.count += 1;
        if content_type == "data" {
            let mut data = Map::new();
            match content.kind.as_str() {
                "tool_call" | "tool_result" => {
                    data.insert("call_id".to_owned(), or_null(get(event, "call_id")));
                    data.insert("name".to_owned(), or_null(get(event, "name")));
                    let field = if content.kind == "tool_call" {
                        "arguments"
                    } else {
                        "output"
                    };
                    data.insert(field.to_owned(), "".into());
                    if mcp_call && content.kind == "tool_call" {
                        if let Some(server) = get_str(event, "server") {
                            data.insert("server_label".to_owned(), server.into());
                        }
                    }
                }
                _ => {
                    data.insert("value".to_owned(), or_null(get(event, "value")));
                }
            }
            content.data = data;
            if content.kind != "data" {
                let start = self.content_event(&key, &content, "in_progress", false, None);
                out.push(start);
            }
        } else if content.kind == "media" {
            content
                .data
                .insert("url".to_owned(), or_null(get(event, "url")));
            content
                .data
                .insert("mime_type".to_owned(), or_null(get(event, "mime_type")));
        }
        self.blocks
            .insert((message_id.to_owned(), index), (key, content));
    }

    fn open_message(
        &mut self,
        message_id: &str,
        message_type: String,
        role: String,
        out: &mut Vec<Event>,
    ) -> u32 {
        let written = self.written.entry(message_id.to_owned()).or_default();
        let uses = written.len();
        let id = if uses == 0 {
            message_id.to_owned()
        } else {
            format!("{message_id}_{uses}")
        };
        written.push(Written {
            id,
            message_type,
            role,
            count: 0,
            done: BTreeMap::new(),
        });
        let at = u32::try_from(uses).unwrap_or(u32::MAX);
        self.current.insert(message_id.to_owned(), at);
        let event = self.message_event(
            &(message_id.to_owned(), at),
            "in_progress",
            Value::Null,
            Value::Null,
        );
        out.push(event);
        at
    }

    fn message_event(
        &mut self,
        key: &WrittenKey,
        status: &str,
        content: Value,
        usage: Value,
    ) -> Event {
        let sequence = self.next();
        let written = self.written_mut(key);
        let mut event = Map::new();
        event.insert("sequence_number".to_owned(), sequence);
        event.insert("object".to_owned(), "message".into());
        event.insert("status".to_owned(), status.into());
        event.insert("error".to_owned(), Value::Null);
        event.insert("id".to_owned(), written.id.as_str().into());
        event.insert("type".to_owned(), written.message_type.as_str().into());
        event.insert("role".to_owned(), written.role.as_str().into());
        event.insert("content".to_owned(), content);
        for key in ["code", "message"] {
            event.insert(key.to_owned(), Value::Null);
        }
        event.insert("usage".to_owned(), usage);
        event.insert("metadata".to_owned(), Value::Null);
        event
    }

    /// A content event: `status` "in_progress" or "completed", or "stored"
    /// (completed, without a sequence number: inside a message).
    fn content_event(
        &mut self,
        key: &WrittenKey,
        content: &Content,
        status: &str,
        delta: bool,
        piece: Option<&str>,
    ) -> Event {
        let (sequence, msg_id) = self.content_header(key, status);
        content_body(sequence, msg_id, content, status, delta, piece)
    }

    /// A content event's sequence number (none for the stored copy) and
    /// message id.
    fn content_header(&mut self, key: &WrittenKey, status: &str) -> (Value, String) {
        let sequence = if status == "stored" {
            Value::Null
        } else {
            self.next()
        };
        (sequence, self.written_mut(key).id.clone())
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(block_key) = block_key(event) else {
            return;
        };
        let Some(delta) = event
            .get("delta")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        else {
            return;
        };
        let Some((key, content)) = self.blocks.get_mut(&block_key) else {
            return;
        };
        content.text.push_str(delta);
        if content.kind == "media" {
            return; // media is written whole, when it completes
        }
        // The content is read in place: a copy would copy its whole text.
        let key = key.clone();
        let (sequence, msg_id) = self.content_header(&key, "in_progress");
        let content = &self.blocks[&block_key].1;
        out.push(content_body(
            sequence,
            msg_id,
            content,
            "in_progress",
            true,
            Some(delta),
        ));
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(block_key) = block_key(event) else {
            return;
        };
        let Some((key, content)) = self.blocks.get_mut(&block_key) else {
            return;
        };
        if nonempty(get_str(event, "encrypted")).is_some() {
            // A reasoning content has no place for a signature.
            self.lost.push(Loss::signature("agentscope"));
        }
        if has_annotations(event) {
            self.lost.push(Loss::annotations("agentscope"));
        }
        if content.kind == "media" {
            for field in ["url", "mime_type"] {
                if let Some(value) = event.get(field) {
                    content.data.insert(field.to_owned(), value.clone());
                }
            }
            return;
        }
        let field = appended_field(&content.kind);
        if content.kind == "data" && event.contains_key("value") {
            content
                .data
                .insert("value".to_owned(), event["value"].clone());
        } else if let Some(value) = field.and_then(|field| event.get(field)) {
            match value {
                Value::String(text) => content.text = text.clone(),
                other if content.kind == "tool_result" => {
                    content.data.insert("output".to_owned(), other.clone());
                    content.text.clear();
                }
                _ => {}
            }
        } else {
            return;
        }
        let (key, content) = (key.clone(), content.clone());
        let snapshot = self.content_event(&key, &content, "in_progress", false, None);
        out.push(snapshot);
    }

    /// Completes a block's content; false where no such block is open.
    fn finish_content(&mut self, block_key: &(String, i64), out: &mut Vec<Event>) -> bool {
        let Some((key, content)) = self.blocks.shift_remove(block_key) else {
            return false;
        };
        let completed = self.content_event(&key, &content, "completed", false, None);
        out.push(completed);
        let stored = self.content_event(&key, &content, "stored", false, None);
        self.written_mut(&key)
            .done
            .insert(content.index, Value::Object(stored));
        true
    }

    /// Completes an AgentScope message, `status` `completed`, or
    /// `incomplete` for one the run's failure cut.
    fn complete_message(
        &mut self,
        key: WrittenKey,
        status: &str,
        usage: Value,
        out: &mut Vec<Event>,
    ) {
        // Contents still open are completed with the message.
        let open: Vec<(String, i64)> = self
            .blocks
            .iter()
            .filter(|(_, (written, _))| *written == key)
            .map(|(block_key, _)| block_key.clone())
            .collect();
        for block_key in open {
            self.finish_content(&block_key, out);
        }
        let content = Value::Array(self.written_mut(&key).done.values().cloned().collect());
        let message = self.message_event(&key, status, content, usage);
        self.output.push(Value::Object(message.clone()));
        out.push(message);
    }

    /// A block that started after its neutral message finished has its
    /// AgentScope message to itself: that message completes when its last
    /// open block does, not at the end of the run (after the tool's result
    /// and the answer that followed).
    fn complete_if_orphaned(&mut self, message_id: &str, out: &mut Vec<Event>) {
        if !self.finished.contains(message_id) {
            return;
        }
        let Some(&at) = self.current.get(message_id) else {
            return;
        };
        let key = (message_id.to_owned(), at);
        if self.blocks.values().any(|(written, _)| *written == key) {
            return;
        }
        self.current.shift_remove(message_id);
        self.complete_message(key, "completed", Value::Null, out);
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let current: Vec<(String, u32)> = self.current.drain(..).collect();
        for key in current {
            self.complete_message(key, "completed", Value::Null, out);
        }
        let (status, carried) = match get_str(event, "status") {
            Some("cancelled") => ("canceled", "cancelled"),
            Some("incomplete" | "interrupted") => ("incomplete", "incomplete"),
            _ => ("completed", "completed"),
        };
        self.lost.extend(Loss::status(
            "agentscope",
            get_str(event, "status"),
            carried,
        ));
        let completed_at = self.created_at.map_or(Value::Null, Value::from);
        self.response(
            status,
            Value::Null,
            completed_at,
            or_null(get(event, "usage")),
            out,
        );
        self.ended = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // What streamed before the failure stays in the failed response.
        let current: Vec<(String, u32)> = self.current.drain(..).collect();
        for key in current {
            self.complete_message(key, "incomplete", Value::Null, out);
        }
        let mut error = Map::new();
        let code = nonempty(get_str(event, "code")).unwrap_or("AGENT_UNKNOWN_ERROR");
        error.insert("code".to_owned(), code.into());
        let message = nonempty(get_str(event, "message")).unwrap_or("");
        error.insert("message".to_owned(), message.into());
        self.response(
            "failed",
            Value::Object(error),
            Value::Null,
            or_null(get(event, "usage")),
            out,
        );
        self.ended = true;
    }
}

/// A content event of `content`: its delta `piece`, or its whole text.
fn content_body(
    sequence: Value,
    msg_id: String,
    content: &Content,
    status: &str,
    delta: bool,
    piece: Option<&str>,
) -> Event {
    let mut event = Map::new();
    event.insert("sequence_number".to_owned(), sequence);
    event.insert("object".to_owned(), "content".into());
    let status = if status == "stored" {
        "completed"
    } else {
        status
    };
    event.insert("status".to_owned(), status.into());
    event.insert("error".to_owned(), Value::Null);
    event.insert("type".to_owned(), content.content_type.into());
    event.insert("index".to_owned(), content.index.into());
    event.insert("delta".to_owned(), delta.into());
    event.insert("msg_id".to_owned(), msg_id.into());
    for field in content_fields(content.content_type) {
        event.insert((*field).to_owned(), Value::Null);
    }
    let full = piece.unwrap_or(&content.text);
    match content.content_type {
        "text" => {
            event.insert("text".to_owned(), full.into());
        }
        "refusal" => {
            event.insert("refusal".to_owned(), full.into());
        }
        "data" => {
            let data = match content.kind.as_str() {
                kind @ ("tool_call" | "tool_result") => {
                    let field = if kind == "tool_call" {
                        "arguments"
                    } else {
                        "output"
                    };
                    if delta {
                        let mut data = Map::new();
                        data.insert(field.to_owned(), or_str_ref(piece));
                        Value::Object(data)
                    } else {
                        let mut data = content.data.clone();
                        let value = match (kind, content.data.get(field)) {
                            ("tool_result", Some(output)) if !output.is_string() => output.clone(),
                            _ => full.into(),
                        };
                        data.insert(field.to_owned(), value);
                        Value::Object(data)
                    }
                }
                _ => or_null(content.data.get("value")),
            };
            event.insert("data".to_owned(), data);
        }
        media => {
            let mut url = or_null(content.data.get("url"));
            if !content.text.is_empty() {
                let mime = nonempty(content.data.get("mime_type").and_then(Value::as_str))
                    .unwrap_or("application/octet-stream");
                url = format!("data:{mime};base64,{full}").into();
            }
            event.insert(media_field(media).unwrap_or("file_url").to_owned(), url);
            if media == "audio" {
                event.insert("format".to_owned(), or_null(content.data.get("mime_type")));
            }
        }
    }
    event
}

fn or_str(value: &Option<String>) -> Value {
    value.clone().map_or(Value::Null, Value::from)
}

fn or_str_ref(value: Option<&str>) -> Value {
    value.map_or(Value::Null, Value::from)
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.ended
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.ended {
            return; // the response has ended: one run per stream
        }
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" && !self.started {
            if self.session_id.as_deref().is_none_or(str::is_empty) {
                self.session_id = nonempty(get_str(event, "thread_id")).map(str::to_owned);
            }
            if self.response_id.as_deref().is_none_or(str::is_empty) {
                self.response_id = nonempty(get_str(event, "run_id")).map(str::to_owned);
            }
            if self.created_at.is_none() {
                self.created_at = as_int(event.get("created_at"));
            }
        }
        self.ensure_started(out);
        match kind {
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "message_started" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    let role = nonempty(get_str(event, "role")).unwrap_or("assistant");
                    let message_kind = get_str(event, "kind").map(str::to_owned);
                    self.roles
                        .insert(message_id.to_owned(), (role.to_owned(), message_kind));
                }
            }
            "message_finished" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    self.finished.insert(message_id.to_owned());
                    if let Some(at) = self.current.shift_remove(message_id) {
                        let usage = or_null(get(event, "usage"));
                        let key = (message_id.to_owned(), at);
                        self.complete_message(key, "completed", usage, out);
                    }
                }
            }
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => {
                if let Some(block_key) = block_key(event) {
                    if self.finish_content(&block_key, out) {
                        self.complete_if_orphaned(&block_key.0, out);
                    }
                }
            }
            "passthrough" => {
                if let (Some("agentscope"), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    out.push(inner.clone());
                }
            }
            _ => {}
        }
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_sse(out, None, None, event);
    }
}
