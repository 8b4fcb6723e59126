//! The LangChain Agent Streaming Protocol to and from the neutral vocabulary.
//! `python/agentcodec/_pure/langchain/events.py` mirrors this module rule
//! for rule (and says what each direction does).

use std::borrow::Cow;

use crate::events::{
    appended_field, as_int, as_namespace, block_fields, block_finished, block_key, block_replaced,
    block_started, either, frame_sse, get, get_str, message_finished, message_started_at, nonempty,
    or_null, passthrough, run_failed, run_finished, run_started, sse_field, Decode, Encode, Event,
    Held, Loss,
};
use crate::hashing::{HashMap, IndexMap};
use crate::json::{parse, to_text, Map, Value};
use crate::stop_reasons;

const PROTOCOL: &str = "langchain";
const INVALID_JSON: &str = "Failed to parse tool call arguments as JSON";
/// Block indexes on the wire: what a JavaScript number holds exactly.
const MAX_INDEX: i64 = 1 << 53;

fn role_in(role: &str) -> &'static str {
    match role {
        "human" => "user",
        "system" => "system",
        "tool" => "tool",
        _ => "assistant",
    }
}

fn role_out(role: &str) -> &'static str {
    match role {
        "user" => "human",
        "system" => "system",
        "tool" => "tool",
        _ => "ai",
    }
}

/// Usage keys in either spelling -> the neutral (snake_case) name.
fn usage_key(key: &str) -> Option<&'static str> {
    match key {
        "input_tokens" | "inputTokens" => Some("input_tokens"),
        "output_tokens" | "outputTokens" => Some("output_tokens"),
        "total_tokens" | "totalTokens" => Some("total_tokens"),
        _ => None,
    }
}

fn usage(value: Option<&Value>) -> Value {
    let Some(Value::Object(usage)) = value else {
        return Value::Null;
    };
    let mut out = Map::new();
    for (key, count) in usage {
        if let Some(neutral) = usage_key(key) {
            out.insert(neutral.to_owned(), count.clone());
        }
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Object(out)
    }
}

/// The first of `keys` that is present and not null.
fn first<'v>(data: &'v Map<String, Value>, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().find_map(|key| get(data, key))
}

/// Whether `text` is the JSON of `value`, compared as written.
fn same_json(text: &str, value: &Value) -> bool {
    parse(text).is_ok_and(|parsed| to_text(&parsed) == to_text(value))
}

#[derive(Debug, Clone)]
struct DecodedBlock {
    kind: &'static str,
    held: Option<Held>,
    open: bool,
}

#[derive(Debug, Clone)]
struct DecodedMessage {
    id: String,
    /// A tool message's call: its text blocks are the call's result.
    call_id: Value,
    blocks: IndexMap<i64, DecodedBlock>,
}

/// LangChain protocol messages to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    /// (namespace as written, node) -> the message open there.
    active: HashMap<(String, Option<String>), DecodedMessage>,
    count: u64,
    started: bool,
    /// The run's namespace: the first lifecycle event's.
    run_namespace: Option<Vec<String>>,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, envelope: &Event, out: &mut Vec<Event>) {
        let params = match envelope.get("params") {
            Some(Value::Object(params)) => Some(params),
            _ => None,
        };
        let data = match params.and_then(|params| params.get("data")) {
            Some(Value::Object(data)) => Some(data),
            _ => None,
        };
        let is_event = match envelope.get("type") {
            None => true,
            Some(kind) => kind.as_str() == Some("event"),
        };
        let (true, Some(params), Some(data)) = (is_event, params, data) else {
            out.push(passthrough(PROTOCOL, envelope));
            return;
        };
        match get_str(envelope, "method") {
            Some("messages") => self.messages_event(params, data, envelope, out),
            Some("lifecycle") if self.of_subgraph(params.get("namespace")) => {
                out.push(passthrough(PROTOCOL, envelope));
            }
            Some("lifecycle") => self.lifecycle(data, envelope, out),
            _ => out.push(passthrough(PROTOCOL, envelope)),
        }
    }
}

impl Decoder {
    /// Whether a lifecycle event is a subgraph's: in a namespace of str
    /// below the run's. The first is the run's.
    fn of_subgraph(&mut self, namespace: Option<&Value>) -> bool {
        let Some(Value::Array(parts)) = namespace else {
            return false;
        };
        let Some(namespace) = parts
            .iter()
            .map(|part| part.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
        else {
            return false;
        };
        match &self.run_namespace {
            None => {
                self.run_namespace = Some(namespace);
                false
            }
            Some(run) => namespace.len() > run.len() && namespace.starts_with(run),
        }
    }

    fn lifecycle(&mut self, data: &Map<String, Value>, envelope: &Event, out: &mut Vec<Event>) {
        match get_str(data, "event") {
            // (a server says the root graph is "running" where a writer says it "started")
            Some("started" | "running") if !self.started => {
                self.started = true;
                out.push(run_started(
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ));
            }
            Some(status @ ("completed" | "interrupted")) => {
                out.push(run_finished(status, Value::Null, Value::Null));
            }
            Some("failed") => {
                let error = data.get("error").filter(|error| error.is_string());
                out.push(run_failed(Value::Null, or_null(error), Value::Null));
            }
            _ => out.push(passthrough(PROTOCOL, envelope)),
        }
    }

    fn message(
        &mut self,
        key: &(String, Option<String>),
        data: &Map<String, Value>,
        namespace: Option<Vec<String>>,
        out: &mut Vec<Event>,
    ) {
        self.count += 1;
        let name =
            nonempty(first(data, &["id", "message_id", "messageId"]).and_then(Value::as_str))
                .map_or_else(|| format!("message-{}", self.count), str::to_owned);
        let role = role_in(get_str(data, "role").unwrap_or(""));
        let call_id = if role == "tool" {
            or_null(first(data, &["tool_call_id", "toolCallId"]))
        } else {
            Value::Null
        };
        let kind = (role == "tool").then_some("tool_result");
        let node = nonempty(key.1.as_deref());
        out.push(message_started_at(&name, role, kind, namespace, node));
        self.active.insert(
            key.clone(),
            DecodedMessage {
                id: name,
                call_id,
                blocks: IndexMap::default(),
            },
        );
    }

    fn messages_event(
        &mut self,
        params: &Map<String, Value>,
        data: &Map<String, Value>,
        envelope: &Event,
        out: &mut Vec<Event>,
    ) {
        let namespace = match params.get("namespace") {
            Some(namespace @ Value::Array(_)) => to_text(namespace),
            _ => "[]".to_owned(),
        };
        let key = (namespace, get_str(params, "node").map(str::to_owned));
        let kind = get_str(data, "event").unwrap_or("");
        if kind == "message-start" {
            if let Some(mut previous) = self.active.remove(&key) {
                finish_message(&mut previous, &Map::new(), out);
            }
            self.message(&key, data, as_namespace(params.get("namespace")), out);
            return;
        }
        if ![
            "content-block-start",
            "content-block-delta",
            "content-block-finish",
            "message-finish",
            "error",
        ]
        .contains(&kind)
        {
            out.push(passthrough(PROTOCOL, envelope));
            return;
        }
        if !self.active.contains_key(&key) {
            let namespace = as_namespace(params.get("namespace"));
            self.message(&key, &Map::new(), namespace, out);
        }
        if kind == "message-finish" {
            let mut message = self.active.remove(&key).expect("the message is active");
            finish_message(&mut message, data, out);
            return;
        }
        if kind == "error" {
            self.active.remove(&key);
            out.push(run_failed(
                or_null(data.get("code")),
                or_null(data.get("message")),
                Value::Null,
            ));
            return;
        }
        let Some(index) = as_int(data.get("index")).filter(|index| (0..MAX_INDEX).contains(index))
        else {
            out.push(passthrough(PROTOCOL, envelope));
            return;
        };
        let message = self.active.get_mut(&key).expect("the message is active");
        let content = match first(data, &["content", "content_block", "contentBlock"]) {
            Some(Value::Object(content)) => Some(content),
            _ => None,
        };
        match kind {
            "content-block-start" => {
                if let Some(content) = content {
                    start(message, index, content, out);
                }
            }
            "content-block-finish" => {
                if let Some(content) = content {
                    if !message.blocks.contains_key(&index) {
                        start(message, index, content, out);
                    }
                    snapshot(message, index, content, out);
                    let block = message.blocks.get_mut(&index).expect("the block started");
                    if block.open {
                        block.open = false;
                        if let Some(held) = &mut block.held {
                            held.flush(out);
                        }
                        out.push(block_finished(&message.id, index));
                    }
                }
            }
            _ => {
                if !message.blocks.contains_key(&index) {
                    let mut text = Map::new();
                    text.insert("type".to_owned(), "text".into());
                    start(message, index, &text, out);
                }
                match (data.get("delta"), content) {
                    (Some(Value::Object(delta)), _) => apply_delta(message, index, delta, out),
                    (_, Some(content)) => {
                        // A legacy block-shaped fragment.
                        let mut legacy = content.clone();
                        legacy.insert("type".to_owned(), "legacy".into());
                        apply_delta(message, index, &legacy, out);
                    }
                    _ => {}
                }
            }
        }
    }
}

fn start(
    message: &mut DecodedMessage,
    index: i64,
    content: &Map<String, Value>,
    out: &mut Vec<Event>,
) {
    let kind_in = get_str(content, "type").unwrap_or("");
    let (kind, fields): (&'static str, Vec<(&str, Value)>) = match kind_in {
        "text" if !message.call_id.is_null() => {
            ("tool_result", vec![("call_id", message.call_id.clone())])
        }
        "text" => ("text", Vec::new()),
        "reasoning" => ("reasoning", Vec::new()),
        "tool_call_chunk"
        | "tool_call"
        | "server_tool_call_chunk"
        | "server_tool_call"
        | "invalid_tool_call" => {
            let tool = if kind_in.starts_with("server") {
                "server"
            } else {
                "function"
            };
            (
                "tool_call",
                vec![
                    ("call_id", or_null(content.get("id"))),
                    ("name", or_null(content.get("name"))),
                    ("tool", tool.into()),
                ],
            )
        }
        "image" | "audio" | "video" | "file" => (
            "media",
            vec![
                ("media_type", kind_in.into()),
                (
                    "mime_type",
                    or_null(first(content, &["mime_type", "mimeType"])),
                ),
                ("url", or_null(content.get("url"))),
            ],
        ),
        _ => ("data", vec![("value", Value::Object(content.clone()))]),
    };
    let held = appended_field(kind).map(|field| Held::new(&message.id, index, field));
    message.blocks.insert(
        index,
        DecodedBlock {
            kind,
            held,
            open: true,
        },
    );
    out.push(block_started(&message.id, index, kind, &fields));
    snapshot(message, index, content, out);
}

/// A block's whole value (at its start or finish), as neutral events.
fn snapshot(
    message: &mut DecodedMessage,
    index: i64,
    content: &Map<String, Value>,
    out: &mut Vec<Event>,
) {
    let block = message.blocks.get_mut(&index).expect("the block started");
    let (true, Some(held)) = (block.open, &mut block.held) else {
        return;
    };
    match block.kind {
        "text" | "reasoning" | "tool_result" => {
            let key = if block.kind == "tool_result" {
                "text"
            } else {
                block.kind
            };
            // An empty finish does not erase what streamed.
            if let Some(value) = nonempty(get_str(content, key)) {
                held.snapshot(value, true, out);
            }
        }
        "tool_call" => match content.get("args") {
            Some(Value::String(args)) => held.snapshot(args, true, out),
            Some(args @ Value::Object(_)) => {
                held.flush(out);
                if !same_json(&held.sent, args) {
                    held.snapshot(&to_text(args), true, out);
                }
            }
            _ => {}
        },
        "media" => {
            if let Some(data) =
                nonempty(first(content, &["base64", "data"]).and_then(Value::as_str))
            {
                held.snapshot(data, true, out);
            }
        }
        _ => {}
    }
}

fn apply_delta(
    message: &mut DecodedMessage,
    index: i64,
    delta: &Map<String, Value>,
    out: &mut Vec<Event>,
) {
    let block = message.blocks.get_mut(&index).expect("the block started");
    let tool_args;
    let piece = match get_str(delta, "type").unwrap_or("") {
        "text-delta" => delta.get("text"),
        "reasoning-delta" => delta.get("reasoning"),
        "tool-call-delta" => {
            tool_args = either(delta.get("args"), Some(&Value::String(String::new())));
            Some(&tool_args)
        }
        "data-delta" => {
            let encoding = delta.get("encoding");
            let base64 = encoding
                .is_none_or(|encoding| encoding.is_null() || encoding.as_str() == Some("base64"));
            if base64 {
                delta.get("data")
            } else {
                None
            }
        }
        "legacy" => first(delta, &["text", "reasoning", "args", "data"]),
        "block-delta" => {
            if let (Some(Value::Object(fields)), true) = (delta.get("fields"), block.open) {
                let mut replaced: Map<String, Value> = fields
                    .iter()
                    // The fields that name the neutral event itself cannot be replaced.
                    .filter(|(key, _)| !["type", "message_id", "index"].contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                // Arguments or text in a block-delta are cumulative snapshots.
                let streamed = match block.kind {
                    "tool_call" => "args",
                    "tool_result" => "text",
                    kind => kind,
                };
                if let (Some(held), Some(Value::String(_))) =
                    (&mut block.held, replaced.get(streamed))
                {
                    let Some(Value::String(value)) = replaced.shift_remove(streamed) else {
                        unreachable!("a string was just seen");
                    };
                    held.snapshot(&value, false, out);
                }
                if !replaced.is_empty() {
                    let fields = replaced
                        .iter()
                        .map(|(key, value)| (key.as_str(), value.clone()))
                        .collect();
                    out.push(block_replaced(&message.id, index, fields));
                }
            }
            return;
        }
        _ => None,
    };
    if let (Some(Value::String(piece)), true, Some(held)) = (piece, block.open, &mut block.held) {
        held.append(piece, out);
    }
}

fn finish_message(message: &mut DecodedMessage, data: &Map<String, Value>, out: &mut Vec<Event>) {
    for (&index, block) in &mut message.blocks {
        if block.open {
            block.open = false;
            if let Some(held) = &mut block.held {
                held.flush(out);
            }
            out.push(block_finished(&message.id, index));
        }
    }
    let metadata = first(data, &["metadata", "response_metadata", "responseMetadata"]);
    let mut reason = first(data, &["reason", "finish_reason"]);
    if let (None, Some(Value::Object(metadata))) = (reason, metadata) {
        reason = metadata.get("finish_reason");
    }
    let reason = reason.filter(|reason| reason.is_string()).cloned();
    out.push(message_finished(
        &message.id,
        usage(data.get("usage")),
        reason.unwrap_or(Value::Null),
    ));
}

// --- encoding ------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct OpenBlock {
    kind: String,
    /// The block's index on the wire.
    wire: i64,
    /// The namespace's wire its message is on (its position in `wires`).
    owner: usize,
    fields: Map<String, Value>,
    text: String,
}

/// The message on the wire in one namespace: the protocol keys a message by
/// its namespace (and node), so a subgraph's messages stream beside the
/// run's own, each in its namespace.
#[derive(Debug, Clone, Default)]
struct Wire {
    /// In full: the encoder's namespace, then the messages' own.
    namespace: Vec<String>,
    /// The message open here.
    current: Option<String>,
    /// The neutral messages it carries, and whether each has finished.
    members: HashMap<String, bool>,
    /// The next block's index on the wire.
    next_index: i64,
}

/// Neutral events to LangChain protocol envelopes (the messages and
/// lifecycle channels).
#[derive(Debug, Clone)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    /// The stream's namespace: the lifecycle's, and the one every message's
    /// own (a subgraph's path) is under.
    namespace: Vec<String>,
    /// The namespaces of the messages written in one.
    message_namespaces: HashMap<String, Vec<String>>,
    /// A message's own node, where its start names one: before `node`.
    message_nodes: HashMap<String, String>,
    /// Each place's wire (by the messages' own namespace and node), in the
    /// order first written.
    wires: IndexMap<(Vec<String>, Option<String>), Wire>,
    node: Option<String>,
    timestamp: Option<Value>,
    seq: i64,
    roles: HashMap<String, &'static str>,
    /// Started, announced with its first block.
    pending: Option<String>,
    blocks: IndexMap<(String, i64), OpenBlock>,
    ended: bool,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::with_capacity(fields.len());
    for (key, value) in fields {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

fn content(block: &OpenBlock, is_final: bool) -> Value {
    let text = block.text.as_str();
    let field = |name: &str| or_null(block.fields.get(name));
    match block.kind.as_str() {
        "reasoning" => object(vec![
            ("type", "reasoning".into()),
            ("reasoning", text.into()),
        ]),
        "tool_call" => {
            let call = [("id", field("call_id")), ("name", field("name"))];
            // A provider's server tool (a web search the model ran) has
            // blocks of its own; an invalid call is one kind for both.
            let server = block.fields.get("tool").and_then(Value::as_str) == Some("server");
            if !is_final {
                let chunk = if server {
                    "server_tool_call_chunk"
                } else {
                    "tool_call_chunk"
                };
                let mut fields = vec![("type", chunk.into())];
                fields.extend(call);
                fields.push(("args", text.into()));
                return object(fields);
            }
            let args = if text.is_empty() {
                Some(Value::Object(Map::new()))
            } else {
                parse(text).ok()
            };
            match args {
                Some(args @ Value::Object(_)) => {
                    let kind = if server {
                        "server_tool_call"
                    } else {
                        "tool_call"
                    };
                    let mut fields = vec![("type", kind.into())];
                    fields.extend(call);
                    fields.push(("args", args));
                    object(fields)
                }
                _ => {
                    let mut fields = vec![("type", "invalid_tool_call".into())];
                    fields.extend(call);
                    fields.push(("args", text.into()));
                    fields.push(("error", INVALID_JSON.into()));
                    object(fields)
                }
            }
        }
        "media" => {
            let mut fields = vec![(
                "type",
                either(block.fields.get("media_type"), Some(&Value::from("file"))),
            )];
            if let Some(mime_type) = get(&block.fields, "mime_type") {
                fields.push(("mime_type", mime_type.clone()));
            }
            if let Some(url) = get(&block.fields, "url") {
                fields.push(("url", url.clone()));
            }
            if is_final && !text.is_empty() {
                fields.push(("base64", text.into()));
            }
            object(fields)
        }
        "data" => object(vec![
            ("type", "non_standard".into()),
            ("value", field("value")),
        ]),
        _ => object(vec![("type", "text".into()), ("text", text.into())]),
    }
}

impl Encoder {
    pub fn new(namespace: Vec<String>, node: Option<String>, timestamp: Option<Value>) -> Self {
        Encoder {
            namespace,
            message_namespaces: HashMap::default(),
            message_nodes: HashMap::default(),
            wires: IndexMap::default(),
            node,
            timestamp: timestamp.filter(|value| !value.is_null()),
            seq: 0,
            roles: HashMap::default(),
            pending: None,
            blocks: IndexMap::default(),
            ended: false,
            lost: Vec::new(),
        }
    }

    /// An envelope of `method`, in the namespace of the wire at `wire`
    /// (the encoder's own without one).
    fn envelope(&mut self, method: &str, data: Value, wire: Option<usize>) -> Event {
        self.seq += 1;
        let mut params = Map::new();
        let namespace = match wire {
            Some(wire) => &self.wires[wire].namespace,
            None => &self.namespace,
        };
        let namespace = namespace.iter().map(|part| part.as_str().into()).collect();
        params.insert("namespace".to_owned(), Value::Array(namespace));
        let timestamp = self.timestamp.clone().unwrap_or_else(|| now_ms().into());
        params.insert("timestamp".to_owned(), timestamp);
        let own = wire
            .and_then(|wire| self.wires[wire].current.as_ref())
            .and_then(|current| self.message_nodes.get(current));
        if let (Some(node), "messages") = (own.or(self.node.as_ref()), method) {
            params.insert("node".to_owned(), node.as_str().into());
        }
        params.insert("data".to_owned(), data);
        let mut envelope = Map::new();
        envelope.insert("type".to_owned(), "event".into());
        envelope.insert("event_id".to_owned(), format!("evt-{}", self.seq).into());
        envelope.insert("seq".to_owned(), self.seq.into());
        envelope.insert("method".to_owned(), method.into());
        envelope.insert("params".to_owned(), Value::Object(params));
        envelope
    }

    fn messages(&mut self, data: Value, wire: usize, out: &mut Vec<Event>) {
        let envelope = self.envelope("messages", data, Some(wire));
        out.push(envelope);
    }

    fn lifecycle(&mut self, data: Value, out: &mut Vec<Event>) {
        let envelope = self.envelope("lifecycle", data, None);
        out.push(envelope);
    }

    /// The position of the wire of the message's namespace.
    fn wire_of(&mut self, message_id: &str) -> usize {
        let own = self
            .message_namespaces
            .get(message_id)
            .map_or(&[][..], Vec::as_slice);
        let place = (own.to_vec(), self.message_nodes.get(message_id).cloned());
        if let Some(position) = self.wires.get_index_of(&place) {
            return position;
        }
        let mut namespace = self.namespace.clone();
        namespace.extend_from_slice(own);
        let wire = Wire {
            namespace,
            ..Wire::default()
        };
        self.wires.insert_full(place, wire).0
    }

    /// Writes the message's start, ending the one on its namespace's wire
    /// before it. An assistant message that starts while an assistant
    /// message is on the wire joins it: one AI message holds its reasoning,
    /// text and tool calls, however many messages the source split them
    /// into. A subgraph's messages are on a wire of their own.
    fn announce(&mut self, message_id: &str, call_id: Option<&Value>, out: &mut Vec<Event>) {
        let position = self.wire_of(message_id);
        let wire = &mut self.wires[position];
        if wire.members.contains_key(message_id) {
            return;
        }
        let role = self.roles.get(message_id).copied().unwrap_or("ai");
        if let Some(current) = &wire.current {
            if role == "ai" && self.roles.get(current).copied().unwrap_or("ai") == "ai" {
                wire.members.insert(message_id.to_owned(), false);
                return;
            }
            self.end_message(position, None, out);
        }
        let mut start = vec![
            ("event", "message-start".into()),
            ("role", role.into()),
            ("id", message_id.into()),
        ];
        if let (true, Some(Value::String(call_id))) = (role == "tool", call_id) {
            start.push(("tool_call_id", call_id.as_str().into()));
        }
        let wire = &mut self.wires[position];
        wire.current = Some(message_id.to_owned());
        wire.members = HashMap::from_iter([(message_id.to_owned(), false)]);
        wire.next_index = 0;
        self.messages(object(start), position, out);
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index), Some(kind)) = (
            get_str(event, "message_id"),
            as_int(event.get("index")),
            get_str(event, "kind"),
        ) else {
            return;
        };
        self.announce(message_id, event.get("call_id"), out);
        if kind == "refusal" {
            self.lost.push(Loss::refusal("langchain"));
        }
        self.lost.extend(Loss::server(PROTOCOL, event));
        self.lost
            .extend(Loss::tool_kind(PROTOCOL, event, &["server"]));
        let mut fields = Map::new();
        for name in block_fields(kind) {
            fields.insert((*name).to_owned(), or_null(event.get(*name)));
        }
        let owner = self.wire_of(message_id);
        let wire = &mut self.wires[owner];
        let block = OpenBlock {
            kind: kind.to_owned(),
            wire: wire.next_index,
            owner,
            fields,
            text: String::new(),
        };
        wire.next_index += 1;
        let start = object(vec![
            ("event", "content-block-start".into()),
            ("index", block.wire.into()),
            ("content", content(&block, false)),
        ]);
        self.blocks.insert((message_id.to_owned(), index), block);
        self.messages(start, owner, out);
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(block) = block_key(event).and_then(|key| self.blocks.get_mut(&key)) else {
            return;
        };
        let Some(piece) = event
            .get("delta")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        else {
            return;
        };
        block.text.push_str(piece);
        let delta = match block.kind.as_str() {
            "reasoning" => object(vec![
                ("type", "reasoning-delta".into()),
                ("reasoning", piece.into()),
            ]),
            "tool_call" => object(vec![
                ("type", "tool-call-delta".into()),
                ("args", piece.into()),
            ]),
            "media" => object(vec![("type", "data-delta".into()), ("data", piece.into())]),
            _ => object(vec![("type", "text-delta".into()), ("text", piece.into())]),
        };
        let owner = block.owner;
        let data = object(vec![
            ("event", "content-block-delta".into()),
            ("index", block.wire.into()),
            ("delta", delta),
        ]);
        self.messages(data, owner, out);
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(block) = block_key(event).and_then(|key| self.blocks.get_mut(&key)) else {
            return;
        };
        let field = appended_field(&block.kind);
        let kind = content(block, false)
            .get("type")
            .cloned()
            .unwrap_or(Value::Null);
        let mut fields = Map::new();
        fields.insert("type".to_owned(), kind);
        for (key, value) in event {
            let mut key = key.as_str();
            if ["type", "message_id", "index"].contains(&key) {
                continue;
            }
            // A tool's result is a tool message's text: any other value as its JSON.
            let value = match value {
                Value::String(_) | Value::Null => Cow::Borrowed(value),
                other if Some(key) == field && block.kind == "tool_result" => {
                    let text = to_text(other);
                    // Once a block: the same value again is the same text.
                    if text != block.text {
                        self.lost.push(Loss::result_as_json(PROTOCOL));
                    }
                    Cow::Owned(Value::String(text))
                }
                other => Cow::Borrowed(other),
            };
            if let (true, Value::String(text)) = (Some(key) == field, value.as_ref()) {
                block.text.clone_from(text);
                key = match key {
                    "text" if block.kind == "reasoning" => "reasoning",
                    "arguments" => "args",
                    "data" => "base64",
                    _ => "text",
                };
            } else if block.fields.contains_key(key) {
                block
                    .fields
                    .insert(key.to_owned(), value.clone().into_owned());
            }
            fields.insert(key.to_owned(), value.into_owned());
        }
        let (wire, owner) = (block.wire, block.owner);
        let delta = object(vec![
            ("type", "block-delta".into()),
            ("fields", Value::Object(fields)),
        ]);
        let data = object(vec![
            ("event", "content-block-delta".into()),
            ("index", wire.into()),
            ("delta", delta),
        ]);
        self.messages(data, owner, out);
    }

    fn block_finished(&mut self, key: &(String, i64), out: &mut Vec<Event>) {
        let Some(block) = self.blocks.shift_remove(key) else {
            return;
        };
        let data = object(vec![
            ("event", "content-block-finish".into()),
            ("index", block.wire.into()),
            ("content", content(&block, true)),
        ]);
        self.messages(data, block.owner, out);
    }

    fn message_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        let position = self.wire_of(message_id);
        if !self.wires[position].members.contains_key(message_id) {
            if self.pending.as_deref() != Some(message_id) {
                return;
            }
            self.announce(message_id, None, out); // a message without blocks
        }
        let members = &mut self.wires[position].members;
        members.insert(message_id.to_owned(), true);
        if members.values().all(|finished| *finished) {
            self.end_message(position, Some(event), out);
        }
    }

    /// Ends the message on the wire at `position`.
    fn end_message(&mut self, position: usize, event: Option<&Event>, out: &mut Vec<Event>) {
        let wire = &self.wires[position];
        if wire.current.is_none() {
            return;
        }
        let keys: Vec<(String, i64)> = self
            .blocks
            .keys()
            .filter(|key| wire.members.contains_key(&key.0))
            .cloned()
            .collect();
        for key in keys {
            self.block_finished(&key, out);
        }
        let mut finish = vec![("event", "message-finish".into())];
        if let Some(event) = event {
            if let Some(usage @ Value::Object(_)) = event.get("usage") {
                finish.push(("usage", usage.clone()));
            }
            if let Some(reason @ Value::String(_)) = event.get("stop_reason") {
                finish.push(("finish_reason", reason.clone()));
            }
        }
        self.messages(object(finish), position, out);
        let wire = &mut self.wires[position];
        wire.current = None;
        wire.members.clear();
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        for position in 0..self.wires.len() {
            self.end_message(position, None, out);
        }
        // The lifecycle has no "cancelled" or "incomplete": a stopped run is
        // interrupted, a cut answer completed.
        let status = match get_str(event, "status") {
            Some("interrupted" | "cancelled") => "interrupted",
            _ => "completed",
        };
        self.lost
            .extend(Loss::status(PROTOCOL, get_str(event, "status"), status));
        // Usage is a message's: the run's has no place; nor has a stop
        // reason, but as its messages say it.
        self.lost.extend(Loss::usage(PROTOCOL, event));
        self.lost
            .extend(stop_reasons::loss(PROTOCOL, get_str(event, "stop_reason")));
        self.lifecycle(object(vec![("event", status.into())]), out);
        self.ended = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // Usage is a message's: the run's has no place.
        self.lost.extend(Loss::usage(PROTOCOL, event));
        let message = nonempty(get_str(event, "message")).unwrap_or("run failed");
        // The error ends the first message still open (the run's, unless
        // only a subgraph's is); the lifecycle ends the rest.
        if let Some(position) = self.wires.values().position(|wire| wire.current.is_some()) {
            let mut error = vec![("event", "error".into()), ("message", message.into())];
            if let Some(code) = get_str(event, "code") {
                error.push(("code", code.into()));
            }
            self.messages(object(error), position, out);
            self.blocks.clear();
        } else {
            // The lifecycle's failure has only its text: a code rides on a
            // message's error.
            self.lost
                .extend(Loss::error_code(PROTOCOL, get_str(event, "code"), None));
        }
        let failed = object(vec![("event", "failed".into()), ("error", message.into())]);
        self.lifecycle(failed, out);
        self.ended = true;
    }
}

/// The protocol's own event a `passthrough` holds, where it is one the
/// encoder writes back: an event (`type: event`, or none), not a command's
/// response or error.
fn written_back(passthrough: &Event) -> Option<&Map<String, Value>> {
    match (get_str(passthrough, "protocol"), passthrough.get("event")) {
        (Some(PROTOCOL), Some(Value::Object(inner)))
            if inner
                .get("type")
                .is_none_or(|kind| kind.as_str() == Some("event")) =>
        {
            Some(inner)
        }
        _ => None,
    }
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.ended
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn carries_namespaces(&self) -> bool {
        true
    }

    fn keeps_own_event(&self, passthrough: &Event) -> bool {
        written_back(passthrough).is_some()
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.ended {
            return; // the run has ended
        }
        match get_str(event, "type").unwrap_or("") {
            "run_started" => self.lifecycle(object(vec![("event", "started".into())]), out),
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "message_started" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    let role = role_out(get_str(event, "role").unwrap_or(""));
                    self.roles.insert(message_id.to_owned(), role);
                    self.pending = Some(message_id.to_owned());
                    if let Some(namespace) = as_namespace(event.get("namespace")) {
                        self.message_namespaces
                            .insert(message_id.to_owned(), namespace);
                    }
                    if let Some(node) = nonempty(get_str(event, "node")) {
                        self.message_nodes
                            .insert(message_id.to_owned(), node.to_owned());
                    }
                }
            }
            "message_finished" => self.message_finished(event, out),
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => {
                if let Some(key) = block_key(event) {
                    self.block_finished(&key, out);
                }
            }
            "passthrough" => {
                if let Some(inner) = written_back(event) {
                    self.seq += 1;
                    let mut copy = inner.clone();
                    copy.insert("event_id".to_owned(), format!("evt-{}", self.seq).into());
                    copy.insert("seq".to_owned(), self.seq.into());
                    out.push(copy);
                }
            }
            _ => {}
        }
    }

    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        let seq = event
            .get("seq")
            .and_then(Value::as_i64)
            .map(|seq| seq.to_string());
        frame_sse(out, sse_field(event.get("method")), seq.as_deref(), event);
    }
}
