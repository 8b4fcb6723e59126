//! The LangGraph Agent Server's streams to and from the neutral vocabulary.
//! `python/agentcodec/_pure/langgraph/events.py` mirrors this module (its
//! docstring says what each direction writes).

use super::assembler::{empty_end, ChunkedMessage};
use super::probe::{Adds, TextPiece};
use super::vocabulary::CHUNK_TYPES;
use super::wire::read;
use crate::events::{
    as_int, as_namespace, block_delta, block_finished, block_key, block_replaced, block_started,
    frame_sse, get, get_str, has_annotations, is_falsy, message_finished, message_started_at,
    nonempty, or_null, passthrough, run_failed, run_finished, run_started, sse_field,
    state_snapshot, Decode, Encode, Event, Held, Loss, Quick,
};
use crate::framing::Kind;
use crate::hashing::{HashMap, IndexMap};
use crate::json::{int_text, to_text, Map, Value};
use crate::json_probe::Scalar;
use crate::stop_reasons;

const TARGET: &str = "langgraph";

/// A subgraph's namespace as the vocabulary holds it (`inner:<task>`, parts
/// joined by `|`, is `["inner:<task>"]`); `None` for the root's.
fn parts(namespace: &str) -> Option<Vec<String>> {
    (!namespace.is_empty()).then(|| namespace.split('|').map(str::to_owned).collect())
}

/// A message being decoded.
#[derive(Debug, Default)]
struct Streamed {
    namespace: String,
    /// The graph node that writes it, where the stream says.
    node: Option<String>,
    /// A content index (its JSON text): its block.
    blocks: HashMap<String, i64>,
    /// A tool-call chunk index (its JSON text): its block.
    calls: HashMap<String, i64>,
    /// The block of string content.
    text: Option<i64>,
    finished: bool,
    provider: Option<String>,
    reason: Option<String>,
    usage: Option<Map<String, Value>>,
    /// Sent whole so far (the legacy mode), not chunk by chunk.
    snapshots: bool,
    /// A block: what its snapshots sent.
    held: HashMap<i64, Held>,
    /// A reasoning block: the signature sent.
    signatures: HashMap<i64, String>,
    /// The content blocks of other kinds, as the last snapshot had them.
    others: IndexMap<String, Value>,
}

impl Streamed {
    fn new(namespace: &str, node: Option<String>) -> Streamed {
        Streamed {
            namespace: namespace.to_owned(),
            node,
            ..Streamed::default()
        }
    }
}

/// The reasoning block types of list content, and the field holding their text.
fn reasoning_field(kind: Option<&str>) -> Option<&'static str> {
    match kind {
        Some("thinking") => Some("thinking"),
        Some("reasoning") => Some("reasoning"),
        _ => None,
    }
}

/// LangGraph Agent Server events to neutral events.
#[derive(Debug, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    next_block: i64,
    messages: IndexMap<String, Streamed>,
    /// A place (namespace, and the node of the event: two nodes of one graph
    /// stream side by side): the message streamed last there.
    last: HashMap<(String, Option<String>), String>,
    interrupted: bool,
    /// The graph node that writes a message: the event's (a chunk's
    /// metadata), or what `messages/metadata` said of the message before it
    /// came (id -> node, until it starts).
    event_node: Option<String>,
    nodes: HashMap<String, String>,
    quick: QuickState,
}

/// What the quick path ([`Decode::decode_text`]) keeps between events.
#[derive(Debug, Default)]
struct QuickState {
    /// The run's metadata beside the last chunk it read (its text), and
    /// the node it names.
    metadata: String,
    node: Option<String>,
    /// The place (namespace, node) and message it last found in `last`:
    /// there already, until the full path decodes an event.
    place: Option<(String, Option<String>, String)>,
}

/// The graph node a chunk's (or a message's) metadata names.
fn node_of(metadata: Option<&Value>) -> Option<String> {
    metadata
        .and_then(|metadata| metadata.get("langgraph_node"))
        .and_then(Value::as_str)
        .filter(|node| !node.is_empty())
        .map(str::to_owned)
}

impl Decode for Decoder {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Named)
    }

    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    /// A chunk that adds a piece of text to a block already open, read
    /// without a `Value` tree (the run's metadata beside it read only when
    /// it changed): the one `block_delta` the full path gives it.
    fn decode_text<'t>(&mut self, text: &'t str, _out: &mut Vec<Event>) -> Quick<'t> {
        if !self.started || self.ended {
            return Quick::No;
        }
        // (in the server's layout alone: the metadata must be known, for
        // the node it names)
        let Some((piece, fresh)) = TextPiece::read_in_layout(text, &self.quick.metadata) else {
            return Quick::No;
        };
        if let Some(fresh) = fresh {
            self.quick.metadata.clear();
            self.quick.metadata.push_str(fresh);
            self.quick.node = node_of(crate::json::parse(fresh).ok().as_ref());
            self.quick.place = None;
        }
        self.quick_delta(piece).unwrap_or(Quick::No)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        // (what the quick path knows of `last` may change here)
        self.quick.place = None;
        let part = match read(event) {
            Ok(part) if !self.ended => part,
            _ => {
                out.push(passthrough(TARGET, event));
                return;
            }
        };
        let null = Value::Null;
        let data = part.data.unwrap_or(&null);
        self.event_node = None;
        if part.mode == "metadata" {
            if !self.started {
                self.started = true;
                out.push(run_started(
                    or_null(data.get("run_id")),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ));
            }
            return;
        }
        self.start(out);
        if matches!(part.mode, "values" | "updates") {
            // (an update names the nodes whose step ended; another node's
            // message may still stream beside them)
            let nodes = match (part.mode, data) {
                ("updates", Value::Object(updates)) => Some(updates),
                _ => None,
            };
            self.finish_step(&part.namespace, nodes, out);
        }
        let root = part.namespace.is_empty();
        match (part.mode, data) {
            ("messages", Value::Array(pair)) if pair.len() == 2 && pair[0].is_object() => {
                let message = pair[0].as_object().expect("checked above");
                self.event_node = node_of(pair.get(1));
                self.message(&part.namespace, message, event, out);
            }
            ("messages/partial" | "messages/complete", Value::Array(messages)) => {
                let last = part.mode == "messages/complete";
                // (one message an event, as the server writes them; the event
                // passes through once if any it holds is not an AI's or a tool's)
                let mut read_all = true;
                for message in messages {
                    read_all &= match message {
                        Value::Object(message) => self.whole(&part.namespace, message, last, out),
                        _ => false,
                    };
                }
                if !read_all {
                    out.push(passthrough(TARGET, event));
                }
            }
            ("values", Value::Object(values)) if root => {
                let interrupts = part.interrupts.or_else(|| values.get("__interrupt__"));
                self.interrupted = !is_falsy(interrupts);
                let state: Map<String, Value> = values
                    .iter()
                    .filter(|(key, _)| !matches!(key.as_str(), "messages" | "__interrupt__"))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                out.push(state_snapshot(Value::Object(state)));
            }
            ("updates", Value::Object(updates))
                if root && !is_falsy(updates.get("__interrupt__")) =>
            {
                self.interrupted = true;
                out.push(passthrough(TARGET, event));
            }
            ("error", data) => {
                self.finish_all(out);
                let (code, message) = match data {
                    Value::Object(map) => (or_null(map.get("error")), or_null(map.get("message"))),
                    other => (Value::Null, other.clone()),
                };
                let message = match message {
                    Value::String(text) => Value::String(text),
                    other => Value::String(to_text(&other)),
                };
                out.push(run_failed(code, message, Value::Null));
                self.ended = true;
            }
            ("end", _) => self.end(out),
            (mode, data) => {
                if let ("messages/metadata", Value::Object(messages)) = (mode, data) {
                    for (message_id, value) in messages {
                        let node = node_of(value.get("metadata"));
                        if let Some(node) = node.filter(|_| !self.messages.contains_key(message_id))
                        {
                            self.nodes.insert(message_id.clone(), node);
                        }
                    }
                }
                out.push(passthrough(TARGET, event));
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if self.started && !self.ended {
            self.end(out);
        }
    }
}

impl Decoder {
    /// The delta a piece adds, where the full path would give that alone:
    /// its message streams chunk by chunk, has not ended, holds the
    /// provider it names, and has the block it adds to.
    fn quick_delta<'t>(&mut self, piece: TextPiece<'t>) -> Option<Quick<'t>> {
        let streamed = self.messages.get(piece.id.as_ref())?;
        if streamed.snapshots || streamed.finished {
            return None;
        }
        if let Some(provider) = piece.provider.as_deref().filter(|p| !p.is_empty()) {
            if streamed.provider.as_deref() != Some(provider) {
                return None;
            }
        }
        let mut buffer = [0u8; 20];
        let (index, delta) = match piece.adds {
            Adds::Text(text) => (streamed.text?, text),
            Adds::Block(index, key, text) => {
                let Some(Scalar::Str(kind)) = &piece.block_kind else {
                    return None;
                };
                // (the field the full path reads for the block's type)
                let field = match kind.as_ref() {
                    "text" | "thinking" | "reasoning" => kind.as_ref(),
                    _ => return None,
                };
                if key != field {
                    return None;
                }
                (*streamed.blocks.get(int_text(index, &mut buffer))?, text)
            }
            Adds::Args(index, args) => (*streamed.calls.get(int_text(index, &mut buffer))?, args),
        };
        // The full path's `last`: the message streamed last at its place.
        let node = &self.quick.node;
        let known = self
            .quick
            .place
            .as_ref()
            .is_some_and(|(namespace, at, id)| {
                namespace == piece.namespace && at == node && id == piece.id.as_ref()
            });
        if !known {
            let place = (piece.namespace.to_owned(), node.clone());
            self.last.insert(place.clone(), piece.id.to_string());
            self.quick.place = Some((place.0, place.1, piece.id.to_string()));
        }
        Some(Quick::Delta {
            message_id: piece.id,
            index,
            delta,
        })
    }

    /// Where the event's message is: its namespace and the event's node.
    fn place(&self, namespace: &str) -> (String, Option<String>) {
        (namespace.to_owned(), self.event_node.clone())
    }

    /// The node writing a message that starts.
    fn node(&mut self, message_id: &str) -> Option<String> {
        self.nodes
            .remove(message_id)
            .or_else(|| self.event_node.clone())
    }

    fn start(&mut self, out: &mut Vec<Event>) {
        if !self.started {
            self.started = true;
            out.push(run_started(
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ));
        }
    }

    fn end(&mut self, out: &mut Vec<Event>) {
        self.finish_all(out);
        let status = if self.interrupted {
            "interrupted"
        } else {
            "completed"
        };
        out.push(run_finished(status, Value::Null, Value::Null));
        self.ended = true;
    }

    fn finish_all(&mut self, out: &mut Vec<Event>) {
        let ids: Vec<String> = self.messages.keys().cloned().collect();
        for id in ids {
            self.finish_message(&id, out);
        }
    }

    fn finish_message(&mut self, message_id: &str, out: &mut Vec<Event>) {
        let Some(streamed) = self.messages.get_mut(message_id) else {
            return;
        };
        if streamed.finished {
            return;
        }
        streamed.finished = true;
        for other in streamed.others.values() {
            let mut source = Map::new();
            source.insert("content_block".to_owned(), other.clone());
            source.insert("message_id".to_owned(), message_id.into());
            out.push(passthrough(TARGET, &source));
        }
        let mut blocks: Vec<i64> = streamed
            .blocks
            .values()
            .chain(streamed.calls.values())
            .chain(streamed.text.iter())
            .copied()
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        for index in blocks {
            if let Some(held) = streamed.held.get_mut(&index) {
                held.flush(out);
            }
            out.push(block_finished(message_id, index));
        }
        let usage = streamed.usage.clone().map_or(Value::Null, Value::Object);
        let reason = streamed.reason.clone().map_or(Value::Null, Value::String);
        out.push(message_finished(message_id, usage, reason));
    }

    fn block(
        &mut self,
        message_id: &str,
        kind: &str,
        fields: &[(&str, Value)],
        out: &mut Vec<Event>,
    ) -> i64 {
        let index = self.next_block;
        self.next_block += 1;
        out.push(block_started(message_id, index, kind, fields));
        index
    }

    fn message(
        &mut self,
        namespace: &str,
        message: &Map<String, Value>,
        event: &Event,
        out: &mut Vec<Event>,
    ) {
        let Some(mut message_id) = message
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
        else {
            return;
        };
        let kind = message.get("type").and_then(Value::as_str);
        let chunked = kind.is_some_and(|kind| CHUNK_TYPES.contains(&kind));
        let last_position = message.get("chunk_position").and_then(Value::as_str) == Some("last");
        if !self.messages.contains_key(&message_id)
            && chunked
            && last_position
            && empty_end(message)
        {
            if let Some(last) = self.last.get(&self.place(namespace)) {
                // Ends the message before it.
                message_id = last.clone();
            }
        }
        if !chunked {
            // A whole message: a tool's, or an AI's a node did not stream.
            if !self.messages.contains_key(&message_id)
                && !self.whole(namespace, message, true, out)
            {
                out.push(passthrough(TARGET, event));
                let mut streamed = Streamed::new(namespace, self.event_node.clone());
                streamed.finished = true;
                self.messages.insert(message_id.clone(), streamed);
                self.last.insert(self.place(namespace), message_id.clone());
            }
            return;
        }
        match self.messages.get(&message_id) {
            None => {
                let node = self.node(&message_id);
                self.messages
                    .insert(message_id.clone(), Streamed::new(namespace, node.clone()));
                out.push(message_started_at(
                    &message_id,
                    "assistant",
                    Some("message"),
                    parts(namespace),
                    node.as_deref(),
                ));
            }
            Some(streamed) if streamed.snapshots => return,
            Some(_) => {}
        }
        // (messages of one namespace may interleave: choices, or calls
        // attached to an earlier message; each ends at its last chunk)
        self.last.insert(self.place(namespace), message_id.clone());
        let streamed = &mut self.messages[&message_id];
        if streamed.finished {
            let brings =
                !is_falsy(message.get("content")) || !is_falsy(message.get("tool_call_chunks"));
            if empty_end(message) || !brings {
                return;
            }
            // More of a message that ended reopens it, in blocks of their own.
            streamed.finished = false;
            streamed.text = None;
            streamed.blocks.clear();
            streamed.calls.clear();
        }
        self.chunk(&message_id, message, out);
        if last_position {
            self.finish_message(&message_id, out);
        }
    }

    /// A message sent whole so far (`last`: finished): whether it is one
    /// this reads (an AI's or a tool's, with an id).
    fn whole(
        &mut self,
        namespace: &str,
        message: &Map<String, Value>,
        last: bool,
        out: &mut Vec<Event>,
    ) -> bool {
        let Some(message_id) = message
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
        else {
            return false;
        };
        let kind = message.get("type").and_then(Value::as_str);
        if !self.messages.contains_key(message_id) {
            if empty_end(message) {
                if let Some(before) = self.last.get(&self.place(namespace)).cloned() {
                    // The empty message that ends the one before it.
                    self.finish_message(&before, out);
                    return true;
                }
            }
            let ai = kind.is_some_and(|kind| kind == "ai" || CHUNK_TYPES.contains(&kind));
            if kind != Some("tool") && !ai {
                return false;
            }
            let node = self.node(message_id);
            let mut streamed = Streamed::new(namespace, node.clone());
            streamed.snapshots = true;
            self.messages.insert(message_id.to_owned(), streamed);
            self.last
                .insert(self.place(namespace), message_id.to_owned());
            if kind == Some("tool") {
                self.tool_result(message_id, message, out);
                return true;
            }
            out.push(message_started_at(
                message_id,
                "assistant",
                Some("message"),
                parts(namespace),
                node.as_deref(),
            ));
        }
        self.last
            .insert(self.place(namespace), message_id.to_owned());
        let streamed = &self.messages[message_id];
        if streamed.finished || !streamed.snapshots {
            // (sent again after it ended, or streamed in chunks: it stands)
            return true;
        }
        self.snapshot(message_id, message, last, out);
        if last {
            self.finish_message(message_id, out);
        }
        true
    }

    fn snapshot(
        &mut self,
        message_id: &str,
        message: &Map<String, Value>,
        last: bool,
        out: &mut Vec<Event>,
    ) {
        let streamed = self.messages.get_mut(message_id).expect("a known message");
        if let Some(Value::Object(metadata)) = message.get("response_metadata") {
            read_metadata(streamed, metadata);
        }
        if let Some(Value::Object(usage)) = message.get("usage_metadata") {
            if !usage.is_empty() {
                // (the message's whole so far)
                streamed.usage = Some(usage.clone());
            }
        }
        match message.get("content") {
            Some(Value::String(text)) if !text.is_empty() => {
                self.held(message_id, "text", "text", &[], out)
                    .snapshot(text, true, out);
            }
            Some(Value::Array(blocks)) => {
                for (position, block) in blocks.iter().enumerate() {
                    match block {
                        Value::String(text) if !text.is_empty() => {
                            let key = if position == 0 {
                                "text".to_owned()
                            } else {
                                format!("#{position}")
                            };
                            self.held(message_id, &key, "text", &[], out)
                                .snapshot(text, true, out);
                        }
                        Value::Object(block) => self.whole_block(message_id, block, position, out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        for (prefix, found) in [
            ("#", message.get("tool_calls")),
            ("#invalid-", message.get("invalid_tool_calls")),
        ] {
            let Some(Value::Array(calls)) = found else {
                continue;
            };
            for (position, call) in calls.iter().enumerate() {
                let Value::Object(call) = call else {
                    continue;
                };
                let call_id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty());
                let key = call_id.map_or_else(|| format!("{prefix}{position}"), str::to_owned);
                let fields = [
                    ("call_id", call_id.map_or(Value::Null, Value::from)),
                    ("name", or_null(call.get("name"))),
                    ("tool", "function".into()),
                ];
                let args = match call.get("args") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(text)) => Some(text.clone()),
                    // (parsed: its JSON's closing brackets move as it grows)
                    Some(args) => Some(to_text(args)),
                };
                let held = self.held(message_id, &key, "tool_call", &fields, out);
                if let Some(args) = args {
                    held.snapshot(&args, last, out);
                }
            }
        }
    }

    fn whole_block(
        &mut self,
        message_id: &str,
        block: &Map<String, Value>,
        position: usize,
        out: &mut Vec<Event>,
    ) {
        let kind = block.get("type").and_then(Value::as_str);
        let key = block
            .get("index")
            .map_or_else(|| position.to_string(), to_text);
        let (neutral, field) = match (kind, reasoning_field(kind)) {
            (Some("text"), _) => ("text", "text"),
            (_, Some(field)) => ("reasoning", field),
            _ => {
                let streamed = self.messages.get_mut(message_id).expect("a known message");
                streamed.others.insert(key, Value::Object(block.clone()));
                return;
            }
        };
        let held = self.held(message_id, &key, neutral, &[], out);
        if let Some(text) = block
            .get(field)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            held.snapshot(text, true, out);
        }
        let Some(index) = self.messages[message_id].blocks.get(&key).copied() else {
            return;
        };
        if neutral == "reasoning" {
            if let Some(signature) = block
                .get("signature")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                let streamed = self.messages.get_mut(message_id).expect("a known message");
                if streamed.signatures.get(&index).map(String::as_str) != Some(signature) {
                    streamed.signatures.insert(index, signature.to_owned());
                    out.push(signed(message_id, index, signature, streamed));
                }
            }
        }
    }

    /// The block a snapshot's part (by its key) streams into, started the
    /// first time.
    fn held(
        &mut self,
        message_id: &str,
        key: &str,
        kind: &str,
        fields: &[(&str, Value)],
        out: &mut Vec<Event>,
    ) -> &mut Held {
        let calls = kind == "tool_call";
        let streamed = &self.messages[message_id];
        let keyed = if calls {
            &streamed.calls
        } else {
            &streamed.blocks
        };
        let index = match keyed.get(key) {
            Some(&index) => index,
            None => {
                let index = self.block(message_id, kind, fields, out);
                let streamed = self.messages.get_mut(message_id).expect("a known message");
                let keyed = if calls {
                    &mut streamed.calls
                } else {
                    &mut streamed.blocks
                };
                keyed.insert(key.to_owned(), index);
                let field = if calls { "arguments" } else { "text" };
                streamed
                    .held
                    .insert(index, Held::new(message_id, index, field));
                index
            }
        };
        self.messages
            .get_mut(message_id)
            .expect("a known message")
            .held
            .get_mut(&index)
            .expect("a block's snapshots")
    }

    /// A step of a graph ended (its values, or the updates of `nodes`,
    /// came): the messages those nodes streamed are whole.
    fn finish_step(
        &mut self,
        namespace: &str,
        nodes: Option<&Map<String, Value>>,
        out: &mut Vec<Event>,
    ) {
        let open: Vec<String> = self
            .messages
            .iter()
            .filter(|(_, streamed)| streamed.namespace == namespace && !streamed.finished)
            .filter(|(_, streamed)| match (nodes, &streamed.node) {
                (Some(nodes), Some(node)) => nodes.contains_key(node),
                _ => true,
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in open {
            self.finish_message(&id, out);
        }
    }

    fn chunk(&mut self, message_id: &str, chunk: &Map<String, Value>, out: &mut Vec<Event>) {
        let streamed = self.messages.get_mut(message_id).expect("a known message");
        if let Some(Value::Object(metadata)) = chunk.get("response_metadata") {
            read_metadata(streamed, metadata);
        }
        if let Some(Value::Object(usage)) = chunk.get("usage_metadata") {
            if !usage.is_empty() {
                match &mut streamed.usage {
                    None => streamed.usage = Some(usage.clone()),
                    Some(held) => {
                        for key in ["input_tokens", "output_tokens", "total_tokens"] {
                            if let Some(right) = as_int(usage.get(key)) {
                                let left = as_int(held.get(key)).unwrap_or(0);
                                held.insert(key.to_owned(), left.wrapping_add(right).into());
                            }
                        }
                    }
                }
            }
        }
        match chunk.get("content") {
            Some(Value::String(text)) if !text.is_empty() => self.text(message_id, text, out),
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    match block {
                        Value::String(text) if !text.is_empty() => self.text(message_id, text, out),
                        Value::Object(block) => self.content_block(message_id, block, out),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if let Some(Value::Array(calls)) = chunk.get("tool_call_chunks") {
            for call in calls {
                if let Value::Object(call) = call {
                    self.call_chunk(message_id, call, out);
                }
            }
        }
    }

    fn text(&mut self, message_id: &str, text: &str, out: &mut Vec<Event>) {
        let index = match self.messages[message_id].text {
            Some(index) => index,
            None => {
                let index = self.block(message_id, "text", &[], out);
                self.messages[message_id].text = Some(index);
                index
            }
        };
        out.push(block_delta(message_id, index, text));
    }

    fn content_block(
        &mut self,
        message_id: &str,
        block: &Map<String, Value>,
        out: &mut Vec<Event>,
    ) {
        let kind = block.get("type").and_then(Value::as_str);
        let held = self.messages[message_id].blocks.len();
        let key = block.get("index").map_or_else(|| held.to_string(), to_text);
        let field = match kind {
            Some("text") => "text",
            Some("thinking") => "thinking",
            Some("reasoning") => "reasoning",
            _ => {
                let mut source = Map::new();
                source.insert("content_block".to_owned(), Value::Object(block.clone()));
                source.insert("message_id".to_owned(), message_id.into());
                out.push(passthrough(TARGET, &source));
                return;
            }
        };
        let neutral = if field == "text" { "text" } else { "reasoning" };
        let index = match self.messages[message_id].blocks.get(&key) {
            Some(&index) => index,
            None => {
                let index = self.block(message_id, neutral, &[], out);
                self.messages[message_id].blocks.insert(key, index);
                index
            }
        };
        if let Some(text) = block
            .get(field)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            out.push(block_delta(message_id, index, text));
        }
        if neutral == "reasoning" {
            if let Some(signature) = block
                .get("signature")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                out.push(signed(
                    message_id,
                    index,
                    signature,
                    &self.messages[message_id],
                ));
            }
        }
    }

    fn call_chunk(&mut self, message_id: &str, call: &Map<String, Value>, out: &mut Vec<Event>) {
        let held = self.messages[message_id].calls.len();
        let key = match call.get("index") {
            None | Some(Value::Null) => to_text(&Value::String(format!("call-{held}"))),
            Some(index) => to_text(index),
        };
        let index = match self.messages[message_id].calls.get(&key) {
            Some(&index) => index,
            None => {
                let call_id = call
                    .get("id")
                    .filter(|id| id.is_string())
                    .cloned()
                    .unwrap_or(Value::Null);
                let fields = [
                    ("call_id", call_id),
                    ("name", or_null(call.get("name"))),
                    ("tool", "function".into()),
                ];
                let index = self.block(message_id, "tool_call", &fields, out);
                self.messages[message_id].calls.insert(key, index);
                index
            }
        };
        if let Some(args) = call
            .get("args")
            .and_then(Value::as_str)
            .filter(|a| !a.is_empty())
        {
            out.push(block_delta(message_id, index, args));
        }
    }

    fn tool_result(
        &mut self,
        message_id: &str,
        message: &Map<String, Value>,
        out: &mut Vec<Event>,
    ) {
        let streamed = self.messages.get(message_id);
        let namespace = streamed.and_then(|streamed| parts(&streamed.namespace));
        let node = streamed.and_then(|streamed| streamed.node.clone());
        out.push(message_started_at(
            message_id,
            "tool",
            Some("tool_result"),
            namespace,
            node.as_deref(),
        ));
        let fields = [
            ("call_id", or_null(message.get("tool_call_id"))),
            ("name", or_null(message.get("name"))),
            ("tool", "function".into()),
        ];
        let index = self.block(message_id, "tool_result", &fields, out);
        let text = match message.get("content") {
            Some(Value::String(text)) => text.clone(),
            other => to_text(&or_null(other)),
        };
        if !text.is_empty() {
            out.push(block_delta(message_id, index, &text));
        }
        out.push(block_finished(message_id, index));
        out.push(message_finished(message_id, Value::Null, Value::Null));
        self.messages[message_id].finished = true;
    }
}

/// What a message's response metadata says: its provider, its finish reason.
fn read_metadata(streamed: &mut Streamed, metadata: &Map<String, Value>) {
    if let Some(provider) = metadata
        .get("model_provider")
        .and_then(Value::as_str)
        .filter(|provider| !provider.is_empty())
    {
        streamed.provider = Some(provider.to_owned());
    }
    let reason = if metadata.contains_key("finish_reason") {
        metadata.get("finish_reason")
    } else {
        metadata.get("stop_reason")
    };
    if let Some(reason) = reason.and_then(Value::as_str).filter(|r| !r.is_empty()) {
        streamed.reason = Some(reason.to_owned());
    }
}

/// A reasoning block's signature, its provider's (the chunks name it).
fn signed(message_id: &str, index: i64, signature: &str, streamed: &Streamed) -> Event {
    let by = streamed.provider.as_deref().unwrap_or(TARGET);
    block_replaced(
        message_id,
        index,
        vec![("encrypted", signature.into()), ("encrypted_by", by.into())],
    )
}

/// What a block written is.
#[derive(Debug)]
enum Written {
    Text,
    Reasoning,
    /// A tool call: its place among the message's.
    ToolCall(i64),
    /// A tool result: its call's id, name, and output so far.
    ToolResult(Value, Value, String),
}

/// Neutral events to a LangGraph Agent Server stream.
#[derive(Debug)]
pub struct Encoder {
    lost: Vec<Loss>,
    run_id: Option<String>,
    node: String,
    /// A message's own node, where its start names one: before `node`.
    nodes: HashMap<String, String>,
    started: bool,
    finished: bool,
    state: Map<String, Value>,
    /// Each message written, as it adds up (the values' messages), in order.
    written: IndexMap<String, WrittenMessage>,
    others: std::collections::HashSet<String>,
    /// Messages whose content is a list of blocks.
    listed: std::collections::HashSet<String>,
    /// A message's text block written as string content: its first; any
    /// other is a block of the list, so that it reads back as one.
    string_block: HashMap<String, i64>,
    blocks: HashMap<(String, i64), Written>,
    calls: HashMap<String, i64>,
    /// A message written in a subgraph: the name its events take
    /// (`messages|inner:<task>`).
    names: HashMap<String, String>,
}

/// What one chunk written holds beside its message's id.
struct Chunk {
    content: Value,
    metadata: Map<String, Value>,
    usage: Value,
    calls: Vec<Value>,
    last: bool,
}

impl Chunk {
    fn content(content: Value) -> Chunk {
        Chunk {
            content,
            metadata: Map::new(),
            usage: Value::Null,
            calls: Vec::new(),
            last: false,
        }
    }
}

#[derive(Debug)]
enum WrittenMessage {
    Chunked(Box<ChunkedMessage>),
    Whole(Value),
}

impl Encoder {
    pub fn new(run_id: Option<String>, node: Option<String>) -> Self {
        Encoder {
            lost: Vec::new(),
            run_id,
            node: node.unwrap_or_else(|| "model".to_owned()),
            nodes: HashMap::default(),
            started: false,
            finished: false,
            state: Map::new(),
            written: IndexMap::default(),
            others: Default::default(),
            listed: Default::default(),
            string_block: HashMap::default(),
            blocks: HashMap::default(),
            calls: HashMap::default(),
            names: HashMap::default(),
        }
    }

    /// The name of a message's events: its subgraph's after the mode.
    fn name(&self, message_id: &str) -> &str {
        self.names
            .get(message_id)
            .map_or("messages", String::as_str)
    }

    fn part(event: &str, data: Value) -> Event {
        let mut part = Map::new();
        part.insert("event".to_owned(), event.into());
        part.insert("data".to_owned(), data);
        part
    }

    /// Writes one chunk of an AI message.
    fn chunk(&mut self, message_id: &str, written: Chunk, out: &mut Vec<Event>) {
        let mut chunk = Map::new();
        chunk.insert("content".to_owned(), written.content);
        chunk.insert("additional_kwargs".to_owned(), Value::Object(Map::new()));
        chunk.insert(
            "response_metadata".to_owned(),
            Value::Object(written.metadata),
        );
        chunk.insert("type".to_owned(), "AIMessageChunk".into());
        chunk.insert("name".to_owned(), Value::Null);
        chunk.insert("id".to_owned(), message_id.into());
        chunk.insert("tool_calls".to_owned(), Value::Array(Vec::new()));
        chunk.insert("invalid_tool_calls".to_owned(), Value::Array(Vec::new()));
        chunk.insert("usage_metadata".to_owned(), written.usage);
        chunk.insert("tool_call_chunks".to_owned(), Value::Array(written.calls));
        chunk.insert(
            "chunk_position".to_owned(),
            if written.last {
                "last".into()
            } else {
                Value::Null
            },
        );
        match self.written.get_mut(message_id) {
            // (chunks written here add up: nothing to refuse)
            Some(WrittenMessage::Chunked(held)) => {
                let _ = held.add_chunk(&chunk);
            }
            _ => {
                if let Ok(held) = ChunkedMessage::from_chunk(&chunk) {
                    self.written.insert(
                        message_id.to_owned(),
                        WrittenMessage::Chunked(Box::new(held)),
                    );
                }
            }
        }
        let mut metadata = Map::new();
        let node = self.nodes.get(message_id).unwrap_or(&self.node);
        metadata.insert("langgraph_node".to_owned(), node.as_str().into());
        let data = Value::Array(vec![Value::Object(chunk), Value::Object(metadata)]);
        out.push(Self::part(self.name(message_id), data));
    }

    fn text_chunk(
        &mut self,
        message_id: &str,
        kind: &str,
        field: &str,
        text: &str,
        index: i64,
        out: &mut Vec<Event>,
    ) {
        let mut block = Map::new();
        block.insert("type".to_owned(), kind.into());
        block.insert(field.to_owned(), text.into());
        block.insert("index".to_owned(), index.into());
        let content = Value::Array(vec![Value::Object(block)]);
        self.chunk(message_id, Chunk::content(content), out);
    }

    fn call_chunk(
        &mut self,
        message_id: &str,
        name: Value,
        args: &str,
        id: Value,
        position: i64,
        out: &mut Vec<Event>,
    ) {
        let mut call = Map::new();
        call.insert("name".to_owned(), name);
        call.insert("args".to_owned(), args.into());
        call.insert("id".to_owned(), id);
        call.insert("index".to_owned(), position.into());
        call.insert("type".to_owned(), "tool_call_chunk".into());
        let written = Chunk {
            calls: vec![Value::Object(call)],
            ..Chunk::content(Value::String(String::new()))
        };
        self.chunk(message_id, written, out);
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        if self.others.contains(&key.0) {
            self.lost.push(Loss::other_role(TARGET, kind));
            return;
        }
        let written = match kind {
            "text" => Written::Text,
            "refusal" => {
                self.lost.push(Loss::refusal(TARGET));
                Written::Text
            }
            "reasoning" => {
                self.listed.insert(key.0.clone());
                Written::Reasoning
            }
            "tool_call" => {
                self.lost.extend(Loss::server(TARGET, event));
                self.lost.extend(Loss::tool_kind(TARGET, event, &[]));
                let position = self.calls.entry(key.0.clone()).or_insert(0);
                let at = *position;
                *position += 1;
                let name = get_str(event, "name").map_or(Value::Null, Value::from);
                let id = get_str(event, "call_id").map_or(Value::Null, Value::from);
                // Its name and id go at once, as a provider's first chunk of a call does.
                self.call_chunk(&key.0, name, "", id, at, out);
                Written::ToolCall(at)
            }
            "tool_result" => Written::ToolResult(
                or_null(get(event, "call_id")),
                or_null(get(event, "name")),
                String::new(),
            ),
            other => {
                self.lost.push(Loss::block(TARGET, other));
                return;
            }
        };
        self.blocks.insert(key, written);
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(key), Some(delta)) = (block_key(event), get_str(event, "delta")) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let (message_id, index) = (key.0.clone(), key.1);
        let listed = self.listed.contains(&message_id)
            || (matches!(self.blocks.get(&key), Some(Written::Text))
                && *self.string_block.entry(message_id.clone()).or_insert(index) != index);
        let Some(written) = self.blocks.get_mut(&key) else {
            return;
        };
        match written {
            Written::ToolResult(_, _, output) => output.push_str(delta),
            Written::ToolCall(position) => {
                let position = *position;
                self.call_chunk(&message_id, Value::Null, delta, Value::Null, position, out);
            }
            Written::Reasoning => {
                self.text_chunk(&message_id, "reasoning", "reasoning", delta, index, out);
            }
            Written::Text if listed => {
                self.text_chunk(&message_id, "text", "text", delta, index, out);
            }
            Written::Text => self.chunk(&message_id, Chunk::content(delta.into()), out),
        }
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let Some(written) = self.blocks.get_mut(&key) else {
            return;
        };
        if let (Written::ToolResult(_, _, held), Some(output)) =
            (&mut *written, get(event, "output"))
        {
            // A tool message's content is text here: any other value as its JSON.
            let text = match output {
                Value::Null => String::new(),
                Value::String(text) => text.clone(),
                other => to_text(other),
            };
            if !output.is_null() && !output.is_string() && *held != text {
                self.lost.push(Loss::result_as_json(TARGET));
            }
            *held = text;
        }
        let kind = match written {
            Written::Text => Some("text"),
            Written::Reasoning => Some("reasoning"),
            _ => None,
        };
        if let Some(kind) = kind {
            if get(event, "text").is_some_and(Value::is_string) {
                self.lost.push(Loss::correction(TARGET, kind));
            }
        }
        if has_annotations(event) {
            self.lost.push(Loss::annotations(TARGET));
        }
        let signature = get_str(event, "encrypted").filter(|s| !s.is_empty());
        if let (Some("reasoning"), Some(signature)) = (kind, signature) {
            let signature = signature.to_owned();
            self.text_chunk(&key.0, "reasoning", "signature", &signature, key.1, out);
        } else if signature.is_some() {
            self.lost.push(Loss::signature(TARGET));
        }
    }

    fn block_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let Some(Written::ToolResult(call_id, name, output)) = self.blocks.remove(&key) else {
            return;
        };
        // A result in an assistant's message (not a tool's) is a tool message of its own.
        let tool_id = if matches!(self.written.get(&key.0), Some(WrittenMessage::Chunked(_))) {
            format!("{}-result-{}", key.0, key.1)
        } else {
            key.0.clone()
        };
        let mut message = Map::new();
        message.insert("content".to_owned(), output.into());
        message.insert("additional_kwargs".to_owned(), Value::Object(Map::new()));
        message.insert("response_metadata".to_owned(), Value::Object(Map::new()));
        message.insert("type".to_owned(), "tool".into());
        message.insert("name".to_owned(), name);
        message.insert("id".to_owned(), tool_id.clone().into());
        message.insert("tool_call_id".to_owned(), call_id);
        message.insert("artifact".to_owned(), Value::Null);
        message.insert("status".to_owned(), "success".into());
        let message = Value::Object(message);
        self.written
            .insert(tool_id, WrittenMessage::Whole(message.clone()));
        let mut metadata = Map::new();
        let node = self.nodes.get(&key.0).map_or("tools", String::as_str);
        metadata.insert("langgraph_node".to_owned(), node.into());
        out.push(Self::part(
            self.name(&key.0),
            Value::Array(vec![message, Value::Object(metadata)]),
        ));
    }

    fn message_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id").map(str::to_owned) else {
            return;
        };
        if !matches!(
            self.written.get(&message_id),
            Some(WrittenMessage::Chunked(_))
        ) {
            return;
        }
        let mut metadata = Map::new();
        if let Some(reason) = get_str(event, "stop_reason").filter(|r| !r.is_empty()) {
            metadata.insert("finish_reason".to_owned(), reason.into());
        }
        let usage = match get(event, "usage") {
            Some(Value::Object(usage)) => usage_metadata(usage),
            _ => Value::Null,
        };
        let content = if self.listed.contains(&message_id) {
            Value::Array(Vec::new())
        } else {
            Value::String(String::new())
        };
        let written = Chunk {
            metadata,
            usage,
            last: true,
            ..Chunk::content(content)
        };
        self.chunk(&message_id, written, out);
    }

    fn written_whole(&mut self, message: &Value) {
        let Some((map, id)) = message
            .as_object()
            .and_then(|map| Some((map, map.get("id")?.as_str()?)))
        else {
            return;
        };
        if !self.written.contains_key(id) && empty_end(map) && !self.written.is_empty() {
            return; // (the empty message that ends another: the thread never keeps it)
        }
        self.written
            .insert(id.to_owned(), WrittenMessage::Whole(message.clone()));
    }

    fn values(&self) -> Value {
        let mut values = self.state.clone();
        let messages = self
            .written
            .values()
            .map(|held| match held {
                WrittenMessage::Chunked(message) => message.message(),
                WrittenMessage::Whole(message) => message.clone(),
            })
            .collect();
        values.insert("messages".to_owned(), Value::Array(messages));
        Value::Object(values)
    }
}

/// A neutral usage as LangChain's `usage_metadata`: its three counts.
fn usage_metadata(usage: &Map<String, Value>) -> Value {
    let mut found = Map::new();
    for key in ["input_tokens", "output_tokens", "total_tokens"] {
        if let Some(count) = as_int(usage.get(key)) {
            found.insert(key.to_owned(), count.into());
        }
    }
    if found.is_empty() {
        return Value::Null;
    }
    let input = as_int(found.get("input_tokens")).unwrap_or(0);
    let output = as_int(found.get("output_tokens")).unwrap_or(0);
    found.entry("input_tokens").or_insert(0.into());
    found.entry("output_tokens").or_insert(0.into());
    found
        .entry("total_tokens")
        .or_insert(input.wrapping_add(output).into());
    Value::Object(found)
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.finished
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn carries_namespaces(&self) -> bool {
        true
    }

    /// The graph's values, written at the run's end as the state leaves them.
    fn carries_state(&self) -> bool {
        true
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" && !self.started && self.run_id.is_none() {
            self.run_id = get_str(event, "run_id").map(str::to_owned);
        }
        if !self.started && kind != "passthrough" {
            self.started = true;
            // (a run id the source did not give is the same on every run, and both backends)
            let mut metadata = Map::new();
            let run_id = self
                .run_id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| "run".to_owned());
            metadata.insert("run_id".to_owned(), run_id.into());
            metadata.insert("attempt".to_owned(), 1.into());
            out.push(Self::part("metadata", Value::Object(metadata)));
        }
        match kind {
            "message_started" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    if matches!(
                        get_str(event, "role"),
                        Some("user" | "system" | "developer")
                    ) {
                        self.others.insert(message_id.to_owned());
                    }
                    if let Some(namespace) = as_namespace(event.get("namespace")) {
                        let name = std::iter::once("messages".to_owned())
                            .chain(namespace)
                            .collect::<Vec<_>>()
                            .join("|");
                        self.names.insert(message_id.to_owned(), name);
                    }
                    if let Some(node) = nonempty(get_str(event, "node")) {
                        self.nodes.insert(message_id.to_owned(), node.to_owned());
                    }
                }
            }
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => self.block_finished(event, out),
            "message_finished" => self.message_finished(event, out),
            "state_snapshot" => {
                if let Some(Value::Object(snapshot)) = get(event, "snapshot") {
                    self.state = snapshot.clone();
                }
            }
            "state_patch" => {
                // The values written at the end hold the state as the patches leave it.
                let mut state = Value::Object(std::mem::take(&mut self.state));
                let patch = or_null(get(event, "patch"));
                let mut budget = crate::stream::Budget::unlimited();
                if let Err(err) = crate::json_patch::apply_patch(&mut state, &patch, &mut budget) {
                    self.lost.push(Loss {
                        what: "state_patch".to_owned(),
                        why: format!("a state patch that does not apply was not written: {err}"),
                    });
                }
                if let Value::Object(state) = state {
                    self.state = state;
                }
            }
            "run_finished" => {
                // (an interrupt is what the graph asks, which the vocabulary does not hold)
                self.lost
                    .extend(Loss::status(TARGET, get_str(event, "status"), "completed"));
                self.lost.extend(Loss::usage(TARGET, event));
                // A stop reason is a message's (its response metadata): the
                // run's has no place.
                self.lost
                    .extend(stop_reasons::loss(TARGET, get_str(event, "stop_reason")));
                out.push(Self::part("values", self.values()));
                self.finished = true;
            }
            "run_failed" => {
                self.lost.extend(Loss::usage(TARGET, event));
                let mut error = Map::new();
                let code = get_str(event, "code")
                    .filter(|c| !c.is_empty())
                    .unwrap_or("Error");
                error.insert("error".to_owned(), code.into());
                let message = get_str(event, "message").unwrap_or("");
                error.insert("message".to_owned(), message.into());
                out.push(Self::part("error", Value::Object(error)));
                self.finished = true;
            }
            "passthrough" if get_str(event, "protocol") == Some(TARGET) => {
                if let Some(Value::Object(inner)) = get(event, "event") {
                    if let Some(name) = inner.get("event").and_then(Value::as_str) {
                        let data = or_null(inner.get("data"));
                        if let ("messages/partial" | "messages/complete", Value::Array(messages)) =
                            (name, &data)
                        {
                            // The legacy mode's messages, whole so far: the values' messages too.
                            for message in messages {
                                self.written_whole(message);
                            }
                        }
                        out.push(Self::part(name, data));
                    }
                }
            }
            _ => {}
        }
    }

    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        let name = sse_field(event.get("event")).unwrap_or("message");
        let data = or_null(event.get("data"));
        frame_value(out, name, &data);
    }
}

/// An SSE frame whose data is any JSON value.
fn frame_value(out: &mut Vec<u8>, name: &str, data: &Value) {
    match data {
        Value::Object(map) => frame_sse(out, Some(name), None, map),
        other => {
            out.extend_from_slice(b"event: ");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\ndata: ");
            crate::json::write_value(out, other);
            out.extend_from_slice(b"\n\n");
        }
    }
}
