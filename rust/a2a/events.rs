//! A2A to and from the neutral vocabulary.
//! `python/agentcodec/_pure/a2a/events.py` mirrors this module rule for
//! rule (and says what each direction does).

use super::vocabulary::VERSIONS;
use super::wire::{self, What};
use crate::events::{
    as_int, block_delta, block_fields, block_finished, block_started, frame_sse, get_str,
    has_annotations, media_kind, message_finished, message_started, nonempty, passthrough,
    run_failed, run_finished, run_started, Decode, Encode, Event, Loss,
};
use crate::hashing::{HashSet, IndexMap};
use crate::json::{Map, Value};

const TARGET: &str = "a2a";

/// An A2A state that finishes the run, as the neutral status says it.
fn neutral_status(state: &str) -> Option<&'static str> {
    Some(match state {
        "completed" => "completed",
        "canceled" => "cancelled",
        "input-required" | "auth-required" => "interrupted",
        _ => return None,
    })
}

/// A neutral run status, as the A2A state the run ends in.
fn end_state(status: &str) -> &'static str {
    match status {
        "cancelled" => "canceled",
        "interrupted" => "input-required",
        _ => "completed",
    }
}

fn string(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(text)) => Value::String(text.clone()),
        _ => Value::Null,
    }
}

/// A part as a block: its kind, fixed fields and text (the text of a text
/// part, the base64 bytes of a file part). A part of no known kind is a
/// data block holding it.
fn read_part(
    part: &Map<String, Value>,
) -> (&'static str, Vec<(&'static str, Value)>, Option<&str>) {
    let kind = part.get("kind").filter(|kind| !kind.is_null());
    let untagged = kind.is_none();
    let tagged = |name: &str| kind.and_then(Value::as_str) == Some(name);
    if tagged("text") || untagged {
        if let Some(text) = get_str(part, "text") {
            return ("text", Vec::new(), Some(text));
        }
    }
    if (tagged("data") || untagged) && part.contains_key("data") {
        return ("data", vec![("value", part["data"].clone())], None);
    }
    let file = if tagged("file") {
        part.get("file").and_then(Value::as_object)
    } else if untagged {
        Some(part)
    } else {
        None
    };
    if let Some(file) = file {
        let field = |v03: &str, v10: &str| file.get(if tagged("file") { v03 } else { v10 });
        let url = field("uri", "url").and_then(Value::as_str);
        let data = field("bytes", "raw").and_then(Value::as_str);
        let mime_type = field("mimeType", "mediaType").and_then(Value::as_str);
        if url.is_some() || data.is_some() {
            let fields = vec![
                ("media_type", media_kind(mime_type.unwrap_or("")).into()),
                ("mime_type", mime_type.map_or(Value::Null, Value::from)),
                ("url", url.map_or(Value::Null, Value::from)),
            ];
            return ("media", fields, data);
        }
    }
    ("data", vec![("value", Value::Object(part.clone()))], None)
}

/// The text of a message's text parts, joined; `None` for no message.
fn message_text(message: Option<&Value>) -> Value {
    let Some(Value::Object(message)) = message else {
        return Value::Null;
    };
    let mut text = String::new();
    if let Some(Value::Array(parts)) = message.get("parts") {
        for part in parts {
            if let Some(piece) = part.as_object().and_then(|part| get_str(part, "text")) {
                text.push_str(piece);
            }
        }
    }
    text.into()
}

#[derive(Debug, Default)]
struct Artifact {
    /// The next block index.
    next: i64,
    /// The index of the open text block.
    text: Option<i64>,
}

/// A2A events to neutral events.
#[derive(Debug, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    /// Artifacts started and not finished, in order.
    open: IndexMap<String, Artifact>,
    /// Messages without an id, numbered.
    unnamed: u64,
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Ok(read) = wire::read(event) else {
            out.push(passthrough(TARGET, event));
            return;
        };
        if self.ended {
            out.push(passthrough(TARGET, event));
            return;
        }
        let body = wire::body(event, read.at);
        match read.what {
            What::Error => {
                self.close_all(out);
                let code = wire::error_code(body.get("code"));
                out.push(run_failed(
                    code.into(),
                    string(body.get("message")),
                    Value::Null,
                ));
                self.ended = true;
            }
            What::Task => {
                self.start(body, out);
                if let Some(Value::Array(artifacts)) = body.get("artifacts") {
                    for artifact in artifacts {
                        if let Value::Object(artifact) = artifact {
                            self.artifact(artifact, false, None, out);
                        }
                    }
                }
                self.status(body, false, out);
            }
            What::Status => {
                self.start(body, out);
                let last = matches!(body.get("final"), Some(Value::Bool(true)));
                self.status(body, last, out);
            }
            What::Artifact => {
                self.start(body, out);
                let last = matches!(body.get("lastChunk"), Some(Value::Bool(true)));
                if let Some(Value::Object(artifact)) = body.get("artifact") {
                    self.artifact(artifact, last, Some(body), out);
                }
            }
            What::Message => {
                self.message(body, out);
                self.ended = true;
            }
        }
    }
}

impl Decoder {
    fn start(&mut self, body: &Map<String, Value>, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        let run_id = if body.contains_key("taskId") {
            body.get("taskId")
        } else {
            body.get("id")
        };
        out.push(run_started(
            string(run_id),
            string(body.get("contextId")),
            Value::Null,
            Value::Null,
        ));
    }

    fn status(&mut self, body: &Map<String, Value>, last: bool, out: &mut Vec<Event>) {
        let Some(Value::Object(status)) = body.get("status") else {
            return;
        };
        let state = wire::state_name(get_str(status, "state").unwrap_or(""));
        let message = status.get("message");
        if state == "failed" || state == "rejected" {
            self.close_all(out);
            out.push(run_failed(state.into(), message_text(message), Value::Null));
            self.ended = true;
            return;
        }
        if let Some(Value::Object(message)) = message {
            self.message(message, out);
        }
        let status = neutral_status(&state);
        if status.is_some() || last {
            self.close_all(out);
            out.push(run_finished(
                status.unwrap_or("incomplete"),
                Value::Null,
                Value::Null,
            ));
            self.ended = true;
        }
    }

    fn message(&mut self, message: &Map<String, Value>, out: &mut Vec<Event>) {
        let message_id = match get_str(message, "messageId") {
            Some(id) => id.to_owned(),
            None => {
                self.unnamed += 1;
                format!("message-{}", self.unnamed)
            }
        };
        let role = match wire::role_name(message.get("role")).as_deref() {
            Some("user") => "user",
            _ => "assistant",
        };
        out.push(message_started(&message_id, role, Some("message")));
        let mut index = 0;
        if let Some(Value::Array(parts)) = message.get("parts") {
            for part in parts {
                let Value::Object(part) = part else {
                    continue;
                };
                let (kind, fields, text) = read_part(part);
                out.push(block_started(&message_id, index, kind, &fields));
                if let Some(text) = text.filter(|text| !text.is_empty()) {
                    out.push(block_delta(&message_id, index, text));
                }
                out.push(block_finished(&message_id, index));
                index += 1;
            }
        }
        out.push(message_finished(&message_id, Value::Null, Value::Null));
    }

    fn artifact(
        &mut self,
        artifact: &Map<String, Value>,
        last: bool,
        update: Option<&Map<String, Value>>,
        out: &mut Vec<Event>,
    ) {
        let Some(artifact_id) = get_str(artifact, "artifactId") else {
            if let Some(update) = update {
                out.push(passthrough(TARGET, update));
            }
            return;
        };
        if !self.open.contains_key(artifact_id) {
            self.open
                .insert(artifact_id.to_owned(), Artifact::default());
            out.push(message_started(artifact_id, "assistant", Some("message")));
        }
        let held = self.open.get_mut(artifact_id).expect("just made");
        if let Some(Value::Array(parts)) = artifact.get("parts") {
            for part in parts {
                let Value::Object(part) = part else {
                    continue;
                };
                let (kind, fields, text) = read_part(part);
                let text = text.filter(|text| !text.is_empty());
                if kind == "text" {
                    if let Some(index) = held.text {
                        if let Some(text) = text {
                            out.push(block_delta(artifact_id, index, text));
                        }
                        continue;
                    }
                }
                end_text(artifact_id, held, out);
                let index = held.next;
                held.next += 1;
                out.push(block_started(artifact_id, index, kind, &fields));
                if let Some(text) = text {
                    out.push(block_delta(artifact_id, index, text));
                }
                if kind == "text" {
                    held.text = Some(index);
                } else {
                    out.push(block_finished(artifact_id, index));
                }
            }
        }
        if last {
            end_text(artifact_id, held, out);
            self.open.shift_remove(artifact_id);
            out.push(message_finished(artifact_id, Value::Null, Value::Null));
        }
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        for (artifact_id, mut held) in std::mem::take(&mut self.open) {
            end_text(&artifact_id, &mut held, out);
            out.push(message_finished(&artifact_id, Value::Null, Value::Null));
        }
    }
}

fn end_text(artifact_id: &str, held: &mut Artifact, out: &mut Vec<Event>) {
    if let Some(index) = held.text.take() {
        out.push(block_finished(artifact_id, index));
    }
}

#[derive(Debug)]
struct Block {
    kind: &'static str,
    message_id: String,
    /// The kind's fixed fields, as the block started (or was replaced).
    fields: Map<String, Value>,
    pieces: String,
}

/// Neutral events to A2A events: JSON-RPC responses of `message/stream`.
#[derive(Debug)]
pub struct Encoder {
    lost: Vec<Loss>,
    version: &'static str,
    task_id: Option<String>,
    context_id: Option<String>,
    request_id: Value,
    started: bool,
    finished: bool,
    /// Messages of other roles.
    skipped: HashSet<String>,
    /// Messages whose artifact has a chunk.
    chunked: HashSet<String>,
    /// Those not finished, in order.
    open: IndexMap<String, ()>,
    blocks: IndexMap<(String, i64), Block>,
}

impl Encoder {
    pub fn new(
        version: Option<String>,
        task_id: Option<String>,
        context_id: Option<String>,
        request_id: Option<String>,
    ) -> Self {
        let version = VERSIONS
            .iter()
            .copied()
            .find(|known| Some(*known) == version.as_deref())
            .unwrap_or(VERSIONS[0]);
        Encoder {
            lost: Vec::new(),
            version,
            task_id,
            context_id,
            request_id: request_id.map_or(Value::Null, Value::from),
            started: false,
            finished: false,
            skipped: HashSet::default(),
            chunked: HashSet::default(),
            open: IndexMap::default(),
            blocks: IndexMap::default(),
        }
    }

    fn v03(&self) -> bool {
        self.version == "0.3"
    }

    /// Writes one result, as the version spells it, in its JSON-RPC response.
    fn respond(&self, kind: &str, body: Map<String, Value>, out: &mut Vec<Event>) {
        let result = if self.v03() {
            let mut result = body;
            result.insert("kind".to_owned(), kind.into());
            result
        } else {
            let field = match kind {
                "status-update" => "statusUpdate",
                "artifact-update" => "artifactUpdate",
                other => other,
            };
            let mut result = Map::new();
            result.insert(field.to_owned(), Value::Object(body));
            result
        };
        let mut response = Map::new();
        response.insert("jsonrpc".to_owned(), "2.0".into());
        response.insert("id".to_owned(), self.request_id.clone());
        response.insert("result".to_owned(), Value::Object(result));
        out.push(response);
    }

    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        // Ids the source did not give are the same on every run (and both backends).
        let task_id = self
            .task_id
            .get_or_insert_with(|| "task".to_owned())
            .clone();
        let context_id = self
            .context_id
            .get_or_insert_with(|| "context".to_owned())
            .clone();
        let mut status = Map::new();
        status.insert(
            "state".to_owned(),
            wire::spell_state("submitted", self.version).into(),
        );
        let mut task = Map::new();
        task.insert("id".to_owned(), task_id.into());
        task.insert("contextId".to_owned(), context_id.into());
        task.insert("status".to_owned(), Value::Object(status));
        self.respond("task", task, out);
    }

    fn ids(&self) -> Map<String, Value> {
        let mut ids = Map::new();
        let text = |id: &Option<String>| id.clone().map_or(Value::Null, Value::from);
        ids.insert("taskId".to_owned(), text(&self.task_id));
        ids.insert("contextId".to_owned(), text(&self.context_id));
        ids
    }

    fn chunk(&mut self, message_id: &str, parts: Vec<Value>, last: bool, out: &mut Vec<Event>) {
        self.ensure_started(out);
        let first = self.chunked.insert(message_id.to_owned());
        if !last {
            self.open.insert(message_id.to_owned(), ());
        }
        let mut artifact = Map::new();
        artifact.insert("artifactId".to_owned(), message_id.into());
        artifact.insert("parts".to_owned(), Value::Array(parts));
        let mut body = self.ids();
        body.insert("artifact".to_owned(), Value::Object(artifact));
        if self.v03() {
            body.insert("append".to_owned(), (!first).into());
            body.insert("lastChunk".to_owned(), last.into());
        } else {
            if !first {
                body.insert("append".to_owned(), true.into());
            }
            if last {
                body.insert("lastChunk".to_owned(), true.into());
            }
        }
        self.respond("artifact-update", body, out);
    }

    fn part(&self, kind: &str, value: Value) -> Value {
        let mut part = Map::new();
        if self.v03() {
            part.insert("kind".to_owned(), kind.into());
        }
        part.insert(kind.to_owned(), value);
        Value::Object(part)
    }

    fn block_started(&mut self, event: &Event) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        if self.skipped.contains(message_id) {
            self.lost.push(Loss::other_role(TARGET, kind));
            return;
        }
        let kind = match kind {
            "refusal" => {
                self.lost.push(Loss::refusal(TARGET));
                "text"
            }
            "text" => "text",
            "media" => "media",
            "data" => "data",
            other => {
                self.lost.push(Loss::block(TARGET, other));
                return;
            }
        };
        let fields = block_fields(kind)
            .iter()
            .map(|name| {
                (
                    (*name).to_owned(),
                    event.get(*name).cloned().unwrap_or(Value::Null),
                )
            })
            .collect();
        self.blocks.insert(
            (message_id.to_owned(), index),
            Block {
                kind,
                message_id: message_id.to_owned(),
                fields,
                pieces: String::new(),
            },
        );
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let Some(delta) = get_str(event, "delta").filter(|delta| !delta.is_empty()) else {
            return;
        };
        let key = (message_id.to_owned(), index);
        let Some(block) = self.blocks.get_mut(&key) else {
            return;
        };
        match block.kind {
            "text" => {
                block.pieces.push_str(delta);
                let part = self.part("text", delta.into());
                self.chunk(message_id, vec![part], false, out);
            }
            "media" => block.pieces.push_str(delta),
            _ => {}
        }
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        if nonempty(get_str(event, "encrypted")).is_some() {
            self.lost.push(Loss::signature(TARGET));
        }
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&(message_id.to_owned(), index)) else {
            return;
        };
        if has_annotations(event) {
            self.lost.push(Loss::annotations(TARGET));
        }
        match block.kind {
            "text" => {
                let Some(text) = get_str(event, "text") else {
                    return;
                };
                // A snapshot: what it adds to the text written is a chunk; a
                // correction of text that streamed has no place (a chunk only appends).
                if !text.starts_with(&block.pieces) {
                    self.lost.push(Loss::correction(TARGET, "text"));
                } else if text.len() > block.pieces.len() {
                    let added = text[block.pieces.len()..].to_owned();
                    block.pieces = text.to_owned();
                    let message_id = message_id.to_owned();
                    let part = self.part("text", added.into());
                    self.chunk(&message_id, vec![part], false, out);
                }
            }
            "data" => {
                if let Some(value) = event.get("value") {
                    block.fields.insert("value".to_owned(), value.clone());
                }
            }
            _ => {
                for name in ["url", "mime_type"] {
                    if let Some(text) = get_str(event, name) {
                        block.fields.insert(name.to_owned(), text.into());
                    }
                }
                if let Some(data) = get_str(event, "data") {
                    block.pieces = data.to_owned();
                }
            }
        }
    }

    fn end_block(&mut self, block: Block, out: &mut Vec<Event>) {
        match block.kind {
            "data" => {
                let value = block.fields.get("value").cloned().unwrap_or(Value::Null);
                if self.v03() && !value.is_object() {
                    // 0.3's data part holds an object.
                    self.lost.push(Loss {
                        what: "data".to_owned(),
                        why: "a2a 0.3 has no place for data that is not an object".to_owned(),
                    });
                    return;
                }
                let part = self.part("data", value);
                self.chunk(&block.message_id, vec![part], false, out);
            }
            "media" => {
                let url = get_str(&block.fields, "url");
                let mime_type = get_str(&block.fields, "mime_type");
                if url.is_none() && block.pieces.is_empty() {
                    return;
                }
                let mut file = Map::new();
                let v03 = self.v03();
                match url {
                    Some(url) => {
                        file.insert((if v03 { "uri" } else { "url" }).to_owned(), url.into())
                    }
                    None => file.insert(
                        (if v03 { "bytes" } else { "raw" }).to_owned(),
                        block.pieces.as_str().into(),
                    ),
                };
                if let Some(mime_type) = mime_type {
                    file.insert(
                        (if v03 { "mimeType" } else { "mediaType" }).to_owned(),
                        mime_type.into(),
                    );
                }
                let part = if v03 {
                    let mut part = Map::new();
                    part.insert("kind".to_owned(), "file".into());
                    part.insert("file".to_owned(), Value::Object(file));
                    part
                } else {
                    file
                };
                self.chunk(&block.message_id, vec![Value::Object(part)], false, out);
            }
            _ => {}
        }
    }

    fn end_message(&mut self, message_id: &str, out: &mut Vec<Event>) {
        let keys: Vec<(String, i64)> = self
            .blocks
            .keys()
            .filter(|(id, _)| id == message_id)
            .cloned()
            .collect();
        for key in keys {
            if let Some(block) = self.blocks.shift_remove(&key) {
                self.end_block(block, out);
            }
        }
        if self.open.shift_remove(message_id).is_some() {
            self.chunk(message_id, Vec::new(), true, out);
        }
    }

    fn end(&mut self, state: &str, text: Option<&str>, out: &mut Vec<Event>) {
        self.ensure_started(out);
        let mut messages: Vec<String> = Vec::new();
        for block in self.blocks.values() {
            if !messages.contains(&block.message_id) {
                messages.push(block.message_id.clone());
            }
        }
        for message_id in messages {
            self.end_message(&message_id, out);
        }
        let open: Vec<String> = self.open.keys().cloned().collect();
        for message_id in open {
            self.end_message(&message_id, out);
        }
        let mut status = Map::new();
        status.insert(
            "state".to_owned(),
            wire::spell_state(state, self.version).into(),
        );
        if let Some(text) = text {
            let mut message = Map::new();
            let task_id = self.task_id.clone().unwrap_or_default();
            message.insert("messageId".to_owned(), format!("{task_id}-{state}").into());
            message.insert(
                "role".to_owned(),
                wire::spell_role("agent", self.version).into(),
            );
            let part = self.part("text", text.into());
            message.insert("parts".to_owned(), Value::Array(vec![part]));
            message.extend(self.ids());
            if self.v03() {
                message.insert("kind".to_owned(), "message".into());
            }
            status.insert("message".to_owned(), Value::Object(message));
        }
        let mut body = self.ids();
        body.insert("status".to_owned(), Value::Object(status));
        if self.v03() {
            body.insert("final".to_owned(), true.into());
        }
        self.respond("status-update", body, out);
        self.finished = true;
    }
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.finished
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    /// Its own events its decoder passed through (unreadable, after the
    /// stream's end, an artifact without an id) are none a2a-sdk reads.
    fn keeps_own_event(&self, _passthrough: &Event) -> bool {
        false
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        let kind = get_str(event, "type");
        if kind.is_some_and(|kind| kind != "passthrough") {
            // The task exists once the stream says anything of its own.
            if kind == Some("run_started") {
                if self.task_id.as_deref().is_none_or(str::is_empty) {
                    self.task_id = get_str(event, "run_id").map(str::to_owned);
                }
                if self.context_id.as_deref().is_none_or(str::is_empty) {
                    self.context_id = get_str(event, "thread_id").map(str::to_owned);
                }
            }
            self.ensure_started(out);
        }
        match kind.unwrap_or("") {
            "message_started" => {
                if let Some(message_id) = get_str(event, "message_id") {
                    let other = matches!(
                        get_str(event, "role"),
                        Some("user" | "system" | "developer" | "tool")
                    );
                    if other || get_str(event, "kind") == Some("tool_result") {
                        self.skipped.insert(message_id.to_owned());
                    } else {
                        self.skipped.remove(message_id);
                    }
                }
            }
            "block_started" => self.block_started(event),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => {
                let (Some(message_id), Some(index)) =
                    (get_str(event, "message_id"), as_int(event.get("index")))
                else {
                    return;
                };
                if let Some(block) = self.blocks.shift_remove(&(message_id.to_owned(), index)) {
                    self.end_block(block, out);
                }
            }
            "message_finished" => {
                // A task has no usage.
                self.lost.extend(Loss::usage(TARGET, event));
                if let Some(message_id) = get_str(event, "message_id") {
                    let message_id = message_id.to_owned();
                    self.end_message(&message_id, out);
                }
            }
            "run_finished" => {
                let status = get_str(event, "status").filter(|status| !status.is_empty());
                let state = end_state(status.unwrap_or("completed"));
                let carried = neutral_status(state).unwrap_or("completed");
                self.lost.extend(Loss::status(TARGET, status, carried));
                // A task has no usage.
                self.lost.extend(Loss::usage(TARGET, event));
                self.end(state, None, out);
            }
            "run_failed" => {
                self.lost.extend(Loss::usage(TARGET, event));
                let state = if get_str(event, "code") == Some("rejected") {
                    "rejected"
                } else {
                    "failed"
                };
                // A task's state is all it says of a failure.
                self.lost.extend(Loss::error_code(
                    TARGET,
                    get_str(event, "code"),
                    Some(state),
                ));
                let text = get_str(event, "message").filter(|text| !text.is_empty());
                self.end(state, text, out);
            }
            _ => {}
        }
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_sse(out, None, None, event);
    }
}
