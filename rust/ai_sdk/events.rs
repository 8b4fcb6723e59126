//! The Vercel AI SDK UI message stream to and from the neutral vocabulary.
//! `python/agentcodec/_pure/ai_sdk/events.py` mirrors this module rule for
//! rule (and says what each direction does).

use std::borrow::Cow;

use super::probe::{self, Target};
use super::providers;
use super::vocabulary::{FINISH_REASONS, STOP_REASON_WORDS};
use crate::events::{
    block_delta, block_fields, block_finished, block_key, block_replaced, block_started, frame_sse,
    get_str, has_annotations, media_kind, message_finished, message_started, nonempty, passthrough,
    run_failed, run_finished, run_started, BlockRef, Decode, Encode, Event, Loss, Quick,
};
use crate::hashing::{HashMap, HashSet, IndexMap};
use crate::json::{self, write_string, Map, Value};
use crate::stop_reasons::{self, StopWords};

pub const DONE: &[u8] = b"data: [DONE]\n\n";

/// Why a message stopped, in the AI SDK's words.
const STOP_WORDS: StopWords = StopWords::new(&FINISH_REASONS, &STOP_REASON_WORDS);

/// Chunks kept whole as a data block's value, and written back as they are.
const WHOLE_PARTS: [&str; 4] = ["source-url", "source-document", "custom", "reasoning-file"];

fn to_neutral_reason(reason: &str) -> &str {
    match reason {
        "tool-calls" => "tool_calls",
        "content-filter" => "content_filter",
        other => other,
    }
}

fn is_whole_part(value: &Value) -> bool {
    match value.get("type").and_then(Value::as_str) {
        Some(kind) => kind.starts_with("data-") || WHOLE_PARTS.contains(&kind),
        None => false,
    }
}

fn chunk(kind: &str, fields: Vec<(&str, Value)>) -> Event {
    let mut out = Map::with_capacity(fields.len() + 1);
    out.insert("type".to_owned(), kind.into());
    for (key, value) in fields {
        out.insert(key.to_owned(), value);
    }
    out
}

#[derive(Debug, Clone)]
struct Call {
    message_id: String,
    index: i64,
    name: String,
    tool: &'static str,
    open: bool,
    /// An input fragment came.
    streamed: bool,
}

/// AI SDK UI message chunks to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    /// The run started.
    run_id: Option<String>,
    ended: bool,
    /// The assistant message being written.
    message_id: Option<String>,
    /// Assistant messages started.
    messages: u64,
    /// Assistant messages not finished, in order.
    unfinished: Vec<String>,
    /// A tool result came since the message started.
    after_result: bool,
    /// The next block index.
    next: i64,
    /// Part id -> its block.
    texts: HashMap<String, (String, i64)>,
    reasonings: HashMap<String, (String, i64)>,
    /// The signature last given for each block: a provider may repeat it
    /// (OpenAI's at the part's start and end, Google's on every delta),
    /// given once.
    signatures: HashMap<(String, i64), String>,
    /// A text part's signature its start brought, given after the text
    /// that follows it (its first delta, or its end), as the part it came
    /// with holds it.
    held_signatures: HashMap<(String, i64), Signature>,
    calls: HashMap<String, Call>,
    /// The calls whose input is streaming.
    open_calls: HashSet<String>,
    /// Message id -> its blocks still open: whether a message can finish is
    /// one look, however many blocks came before.
    open_blocks: HashMap<String, u64>,
    /// Tool result messages.
    results: u64,
}

/// A signature read from a chunk: the encrypted value, whether it is
/// redacted reasoning, and whose it is.
type Signature = (String, bool, &'static str);

/// The signature a chunk's `providerMetadata` carries for a block of `kind`.
fn read_signature(event: &Event, kind: &str) -> Option<Signature> {
    let metadata = event.get("providerMetadata")?;
    let (encrypted, redacted, by) = providers::signature(metadata, kind)?;
    Some((encrypted.to_owned(), redacted, by))
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode_text<'t>(&mut self, text: &'t str, _out: &mut Vec<Event>) -> Quick<'t> {
        if self.ended {
            return Quick::No;
        }
        let append = probe::Chunk::parse(text).and_then(probe::Chunk::into_append);
        let Some((target, id, piece)) = append else {
            return Quick::No;
        };
        let (message_id, index) = match target {
            Target::Text => match self.texts.get(&*id) {
                // (a signature its start brought follows its first text: the full path)
                Some(block) if !self.held_signatures.contains_key(block) => {
                    (block.0.clone(), block.1)
                }
                _ => return Quick::No,
            },
            Target::Reasoning => match self.reasonings.get(&*id) {
                Some(block) => (block.0.clone(), block.1),
                None => return Quick::No,
            },
            Target::ToolInput => match self.calls.get_mut(&*id) {
                Some(call) if call.open => {
                    if !piece.is_empty() {
                        call.streamed = true;
                    }
                    (call.message_id.clone(), call.index)
                }
                _ => return Quick::No,
            },
        };
        if piece.is_empty() {
            return Quick::Events;
        }
        Quick::Delta {
            message_id: Cow::Owned(message_id),
            index,
            delta: piece,
        }
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        let kind = match get_str(event, "type") {
            Some(kind) if !self.ended => kind,
            _ => {
                out.push(passthrough("ai-sdk", event));
                return;
            }
        };
        match kind {
            "start" if self.run_id.is_none() => self.start(event, out),
            "error" => {
                self.ensure_started(out);
                self.finish_messages(None, out);
                let message = get_str(event, "errorText").map_or(Value::Null, Value::from);
                out.push(run_failed("error".into(), message, Value::Null));
                self.ended = true;
            }
            "abort" => {
                self.ensure_started(out);
                self.finish_messages(None, out);
                out.push(run_finished("cancelled", Value::Null, Value::Null));
                self.ended = true;
            }
            "finish" => {
                self.ensure_started(out);
                let reason = get_str(event, "finishReason");
                let neutral = nonempty(reason).map(to_neutral_reason);
                self.finish_messages(neutral, out);
                let status = if reason.is_some_and(stop_reasons::cuts_short) {
                    "incomplete"
                } else {
                    "completed"
                };
                let mut finished = run_finished(status, Value::Null, Value::Null);
                if let Some(metadata) = event.get("messageMetadata").filter(|v| !v.is_null()) {
                    finished.insert("metadata".to_owned(), metadata.clone());
                }
                out.push(finished);
                self.ended = true;
            }
            "text-start" | "reasoning-start" => self.part_start(event, kind, out),
            "text-delta" | "reasoning-delta" => self.part_delta(event, kind, out),
            "text-end" | "reasoning-end" => self.part_end(event, kind, out),
            "tool-input-start" => {
                if self.tool_start(event, out).is_none() {
                    out.push(passthrough("ai-sdk", event));
                }
            }
            "tool-input-delta" => self.tool_input_delta(event, out),
            "tool-input-available" => self.tool_input_available(event, out),
            "tool-output-available" | "tool-output-error" => self.tool_output(event, kind, out),
            "file" => self.file(event, out),
            "source-url" | "source-document" | "reasoning-file" | "custom" => {
                self.whole(event, out)
            }
            _ if kind.starts_with("data-")
                && event.get("transient") != Some(&Value::Bool(true)) =>
            {
                self.whole(event, out)
            }
            _ => out.push(passthrough("ai-sdk", event)),
        }
    }

    fn done(&mut self, out: &mut Vec<Event>) {
        if self.run_id.is_some() && !self.ended {
            self.finish_messages(None, out);
            out.push(run_finished("completed", Value::Null, Value::Null));
            self.ended = true;
        }
    }
}

impl Decoder {
    fn start(&mut self, event: &Event, out: &mut Vec<Event>) {
        let run_id = nonempty(get_str(event, "messageId"))
            .unwrap_or("msg")
            .to_owned();
        let mut started = run_started(
            run_id.as_str().into(),
            Value::Null,
            Value::Null,
            Value::Null,
        );
        if let Some(metadata) = event.get("messageMetadata").filter(|v| !v.is_null()) {
            started.insert("metadata".to_owned(), metadata.clone());
        }
        out.push(started);
        self.run_id = Some(run_id);
        self.assistant(out);
    }

    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.run_id.is_none() {
            self.start(&Map::new(), out);
        }
    }

    /// The assistant message content goes to: after a tool result, a new
    /// one (the model's next step), as the other protocols have it.
    fn assistant(&mut self, out: &mut Vec<Event>) -> String {
        self.ensure_started(out);
        if self.message_id.is_none() || self.after_result {
            if let Some(current) = self.message_id.clone() {
                if !self.has_open(&current) {
                    self.unfinished.retain(|held| *held != current);
                    out.push(message_finished(&current, Value::Null, Value::Null));
                }
            }
            let run_id = self.run_id.as_deref().expect("started");
            let message_id = if self.messages == 0 {
                run_id.to_owned()
            } else {
                format!("{run_id}-{}", self.messages)
            };
            self.messages += 1;
            self.unfinished.push(message_id.clone());
            self.after_result = false;
            out.push(message_started(&message_id, "assistant", Some("message")));
            self.message_id = Some(message_id);
        }
        self.message_id.clone().expect("just set")
    }

    fn has_open(&self, message_id: &str) -> bool {
        self.open_blocks
            .get(message_id)
            .is_some_and(|count| *count > 0)
    }

    fn opened(&mut self, message_id: &str) {
        *self.open_blocks.entry(message_id.to_owned()).or_default() += 1;
    }

    fn closed(&mut self, message_id: &str, index: i64, out: &mut Vec<Event>) {
        if !self.signatures.is_empty() || !self.held_signatures.is_empty() {
            let key = (message_id.to_owned(), index);
            self.signatures.remove(&key);
            self.held_signatures.remove(&key);
        }
        if let Some(count) = self.open_blocks.get_mut(message_id) {
            *count = count.saturating_sub(1);
        }
        out.push(block_finished(message_id, index));
    }

    fn open(
        &mut self,
        kind: &str,
        fields: &[(&str, Value)],
        out: &mut Vec<Event>,
    ) -> (String, i64) {
        let message_id = self.assistant(out);
        let index = self.next;
        self.next += 1;
        out.push(block_started(&message_id, index, kind, fields));
        (message_id, index)
    }

    fn finish_messages(&mut self, reason: Option<&str>, out: &mut Vec<Event>) {
        let mut open: Vec<(String, i64)> = self
            .texts
            .values()
            .chain(self.reasonings.values())
            .cloned()
            .chain(self.open_calls.iter().map(|call_id| {
                let call = &self.calls[call_id];
                (call.message_id.clone(), call.index)
            }))
            .collect();
        open.sort_by_key(|block| block.1);
        for (message_id, index) in open {
            out.push(block_finished(&message_id, index));
        }
        self.texts.clear();
        self.reasonings.clear();
        self.signatures.clear();
        self.held_signatures.clear();
        for call_id in std::mem::take(&mut self.open_calls) {
            if let Some(call) = self.calls.get_mut(&call_id) {
                call.open = false;
            }
        }
        self.open_blocks.clear();
        for message_id in std::mem::take(&mut self.unfinished) {
            let reason = match reason {
                Some(reason) if self.message_id.as_deref() == Some(message_id.as_str()) => {
                    Value::from(reason)
                }
                _ => Value::Null,
            };
            out.push(message_finished(&message_id, Value::Null, reason));
        }
    }

    fn active(&mut self, kind: &str) -> &mut HashMap<String, (String, i64)> {
        if kind.starts_with("text") {
            &mut self.texts
        } else {
            &mut self.reasonings
        }
    }

    fn part_start(&mut self, event: &Event, kind: &str, out: &mut Vec<Event>) {
        let Some(part_id) = get_str(event, "id") else {
            out.push(passthrough("ai-sdk", event));
            return;
        };
        if let Some((message_id, index)) = self.active(kind).remove(part_id) {
            self.closed(&message_id, index, out);
        }
        let block_kind = if kind == "text-start" {
            "text"
        } else {
            "reasoning"
        };
        let block = self.open(block_kind, &[], out);
        if let Some(started) = out.last_mut() {
            started.insert("part_id".to_owned(), part_id.into());
        }
        self.opened(&block.0);
        if block_kind == "reasoning" {
            self.signature(&block, event, block_kind, out);
        } else if let Some(signature) = read_signature(event, block_kind) {
            self.held_signatures.insert(block.clone(), signature);
        }
        self.active(kind).insert(part_id.to_owned(), block);
    }

    /// The signature a part's `providerMetadata` carries for a block of
    /// `kind` (or, for a text part, the one its start brought), as a
    /// `block_replaced`, unless it was given already.
    fn signature(
        &mut self,
        block: &(String, i64),
        event: &Event,
        kind: &str,
        out: &mut Vec<Event>,
    ) {
        let held = if self.held_signatures.is_empty() {
            None // (most streams: no hashing of the block's key for it)
        } else {
            self.held_signatures.remove(block)
        };
        let Some((encrypted, redacted, by)) = read_signature(event, kind).or(held) else {
            return;
        };
        if self
            .signatures
            .get(block)
            .is_some_and(|given| *given == encrypted)
        {
            return;
        }
        let mut fields = vec![("encrypted", Value::from(encrypted.as_str()))];
        if redacted {
            fields.push(("redacted", true.into()));
        }
        fields.push(("encrypted_by", by.into()));
        out.push(block_replaced(&block.0, block.1, fields));
        self.signatures.insert(block.clone(), encrypted);
    }

    fn part_delta(&mut self, event: &Event, kind: &str, out: &mut Vec<Event>) {
        let part_id = get_str(event, "id").unwrap_or("");
        let block = self.active(kind).get(part_id).cloned();
        match (block, event.get("delta").and_then(Value::as_str)) {
            (Some(block), Some(delta)) => {
                if !delta.is_empty() {
                    out.push(block_delta(&block.0, block.1, delta));
                }
                let block_kind = if kind == "text-delta" {
                    "text"
                } else {
                    "reasoning"
                };
                self.signature(&block, event, block_kind, out);
            }
            _ => out.push(passthrough("ai-sdk", event)),
        }
    }

    fn part_end(&mut self, event: &Event, kind: &str, out: &mut Vec<Event>) {
        let part_id = get_str(event, "id").unwrap_or("");
        match self.active(kind).remove(part_id) {
            Some(block) => {
                let block_kind = if kind == "text-end" {
                    "text"
                } else {
                    "reasoning"
                };
                self.signature(&block, event, block_kind, out);
                self.closed(&block.0, block.1, out);
            }
            None => out.push(passthrough("ai-sdk", event)),
        }
    }

    fn tool_start(&mut self, event: &Event, out: &mut Vec<Event>) -> Option<String> {
        let call_id = get_str(event, "toolCallId")?;
        let name = get_str(event, "toolName")?;
        if self.calls.contains_key(call_id) {
            return None;
        }
        let tool = if event.get("providerExecuted") == Some(&Value::Bool(true)) {
            "server"
        } else {
            "function"
        };
        let fields = [
            ("call_id", Value::from(call_id)),
            ("name", Value::from(name)),
            ("tool", Value::from(tool)),
        ];
        let (message_id, index) = self.open("tool_call", &fields, out);
        self.opened(&message_id);
        self.signature(&(message_id.clone(), index), event, "tool_call", out);
        let call = Call {
            message_id,
            index,
            name: name.to_owned(),
            tool,
            open: true,
            streamed: false,
        };
        self.calls.insert(call_id.to_owned(), call);
        self.open_calls.insert(call_id.to_owned());
        Some(call_id.to_owned())
    }

    fn tool_input_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let call_id = get_str(event, "toolCallId").unwrap_or("");
        let piece = event.get("inputTextDelta").and_then(Value::as_str);
        match (self.calls.get_mut(call_id), piece) {
            (Some(call), Some(piece)) if call.open => {
                if !piece.is_empty() {
                    call.streamed = true;
                    out.push(block_delta(&call.message_id, call.index, piece));
                }
            }
            _ => out.push(passthrough("ai-sdk", event)),
        }
    }

    fn tool_input_available(&mut self, event: &Event, out: &mut Vec<Event>) {
        let mut call_id = get_str(event, "toolCallId")
            .filter(|call_id| self.calls.contains_key(*call_id))
            .map(str::to_owned);
        if call_id.is_none() {
            call_id = self.tool_start(event, out);
        }
        let Some(call_id) = call_id else {
            out.push(passthrough("ai-sdk", event));
            return;
        };
        let Some(call) = self.calls.get_mut(&call_id).filter(|call| call.open) else {
            out.push(passthrough("ai-sdk", event));
            return;
        };
        if !call.streamed {
            if let Some(input) = event.get("input") {
                out.push(block_delta(
                    &call.message_id,
                    call.index,
                    &json::to_text(input),
                ));
            }
        }
        call.open = false;
        let block = (call.message_id.clone(), call.index);
        self.open_calls.remove(&call_id);
        // (the part's `callProviderMetadata`, as the SDK's reader keeps it)
        self.signature(&block, event, "tool_call", out);
        self.closed(&block.0, block.1, out);
    }

    fn tool_output(&mut self, event: &Event, kind: &str, out: &mut Vec<Event>) {
        let failed = kind == "tool-output-error";
        let output = event.get(if failed { "errorText" } else { "output" });
        let call_id = get_str(event, "toolCallId");
        let usable = match call_id {
            None => false,
            Some(_) => {
                event.get("preliminary") != Some(&Value::Bool(true))
                    && (!failed || output.is_some_and(Value::is_string))
            }
        };
        if !usable {
            out.push(passthrough("ai-sdk", event));
            return;
        }
        let call_id = call_id.expect("checked");
        self.ensure_started(out);
        let mut was_open = None;
        let (name, tool) = match self.calls.get_mut(call_id) {
            Some(call) => {
                if call.open {
                    call.open = false;
                    was_open = Some((call.message_id.clone(), call.index));
                }
                (Value::from(call.name.as_str()), call.tool)
            }
            None => (Value::Null, "function"),
        };
        if let Some((message_id, index)) = was_open {
            self.open_calls.remove(call_id);
            self.closed(&message_id, index, out);
        }
        self.results += 1;
        let run_id = self.run_id.as_deref().expect("started");
        let result_id = format!("{run_id}-result-{}", self.results);
        out.push(message_started(&result_id, "tool", Some("tool_result")));
        let fields = [
            ("call_id", Value::from(call_id)),
            ("name", name),
            ("tool", Value::from(tool)),
        ];
        let mut started = block_started(&result_id, 0, "tool_result", &fields);
        if failed {
            started.insert("is_error".to_owned(), true.into());
        }
        out.push(started);
        match output {
            Some(Value::String(text)) if !text.is_empty() => {
                out.push(block_delta(&result_id, 0, text));
            }
            Some(Value::String(_)) => {}
            Some(value) if !failed => {
                out.push(block_replaced(
                    &result_id,
                    0,
                    vec![("output", value.clone())],
                ));
            }
            _ => {}
        }
        out.push(block_finished(&result_id, 0));
        out.push(message_finished(&result_id, Value::Null, Value::Null));
        self.after_result = true;
    }

    fn file(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(url), Some(mime_type)) = (get_str(event, "url"), get_str(event, "mediaType"))
        else {
            out.push(passthrough("ai-sdk", event));
            return;
        };
        let fields = [
            ("media_type", Value::from(media_kind(mime_type))),
            ("mime_type", Value::from(mime_type)),
            ("url", Value::from(url)),
        ];
        let (message_id, index) = self.open("media", &fields, out);
        out.push(block_finished(&message_id, index));
    }

    fn whole(&mut self, event: &Event, out: &mut Vec<Event>) {
        let value = [("value", Value::Object(event.clone()))];
        let (message_id, index) = self.open("data", &value, out);
        out.push(block_finished(&message_id, index));
    }
}

/// A neutral block being written: its part id or call, and what its deltas
/// carried, for the chunk written when it finishes.
#[derive(Debug, Clone)]
struct Block {
    kind: String,
    part_id: String,
    fields: Map<String, Value>,
    text: String,
    /// A tool result given whole.
    output: Option<Value>,
    is_error: bool,
    /// A tool call's id; a tool result's call, when it names one.
    call_id: Option<String>,
    /// A tool call's signature, in its provider's metadata: written with
    /// its input.
    metadata: Option<Value>,
}

/// Neutral events to AI SDK UI message chunks.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    message_id: Option<String>,
    started: bool,
    finished: bool,
    /// The run ended: `[DONE]` follows.
    completed: bool,
    /// The source writes its own steps.
    explicit_steps: bool,
    in_step: bool,
    blocks: IndexMap<(String, i64), Block>,
    /// Tool calls written.
    calls: HashSet<String>,
    /// Messages with no place here.
    skipped: HashSet<String>,
    reason: Option<&'static str>,
    /// Whether the assistant's last block is a tool call: a run that ends
    /// on one finished its step for its tool calls (`tool-calls`).
    ends_on_tool_call: bool,
}

impl Encoder {
    pub fn new(message_id: Option<String>) -> Self {
        Encoder {
            message_id,
            ..Encoder::default()
        }
    }
}

impl Encode for Encoder {
    fn has_ended_before(&self, _kind: &str) -> bool {
        self.finished
    }

    fn take_losses(&mut self) -> Vec<Loss> {
        std::mem::take(&mut self.lost)
    }

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        match get_str(event, "type").unwrap_or("") {
            "run_started" => {
                let metadata = event.get("metadata").filter(|value| !value.is_null());
                self.ensure_started(out, get_str(event, "run_id"), metadata);
            }
            "passthrough" => self.passthrough(event, out),
            "message_started" => {
                let role = get_str(event, "role").unwrap_or("");
                if let (Some(message_id), true) = (
                    get_str(event, "message_id"),
                    ["user", "system", "developer"].contains(&role),
                ) {
                    self.skipped.insert(message_id.to_owned());
                }
            }
            "message_finished" => {
                // The UI stream has no usage.
                self.lost.extend(Loss::usage("ai-sdk", event));
                let skipped = get_str(event, "message_id")
                    .is_some_and(|message_id| self.skipped.contains(message_id));
                let reason = get_str(event, "stop_reason").filter(|reason| !reason.is_empty());
                if let (Some(reason), false) = (reason, skipped) {
                    // One it has no word for is `other`, as the SDK says it.
                    let (word, lost) = STOP_WORDS.translate("ai-sdk", Some(reason));
                    self.lost.extend(lost);
                    self.reason = Some(word.unwrap_or("other"));
                }
            }
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => {
                if let Some(block) = block_key(event).and_then(|key| self.blocks.shift_remove(&key))
                {
                    self.end_block(block, out);
                }
            }
            "run_finished" => self.run_finished(event, out),
            "run_failed" => {
                self.lost.extend(Loss::usage("ai-sdk", event));
                self.ensure_started(out, None, None);
                self.close_all(out, true);
                let message = nonempty(get_str(event, "message")).unwrap_or("the run failed");
                // An error chunk has only its text: its reader's code is
                // its type.
                self.lost.extend(Loss::error_code(
                    "ai-sdk",
                    get_str(event, "code"),
                    Some("error"),
                ));
                out.push(chunk("error", vec![("errorText", message.into())]));
                self.finished = true;
                self.completed = true;
            }
            _ => {}
        }
    }

    /// A stream that ends without ending its run: its text and reasoning
    /// parts end, so that a client settles them; a tool call that was
    /// streaming stays so (its input may be cut short, and an available
    /// input makes the client run the tool); no `finish`, since the run
    /// never said it was over.
    fn finish(&mut self, out: &mut Vec<Event>) {
        if self.started && !self.finished {
            self.close_all(out, true);
        }
    }

    fn carries_stop_reasons(&self) -> bool {
        true
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
        if self.finished || delta.is_empty() {
            return true; // nothing follows the end; an empty delta says nothing
        }
        let Some(block) = self.blocks.get_mut(&BlockRef(message_id, index)) else {
            return true;
        };
        // What frame() writes for the chunk block_delta() builds.
        let (kind, id_key, id, field): (&[u8], &[u8], &str, &[u8]) = match block.kind.as_str() {
            "text" | "refusal" => (b"text-delta", b"id", &block.part_id, b"delta"),
            "reasoning" => (b"reasoning-delta", b"id", &block.part_id, b"delta"),
            "tool_call" => {
                block.text.push_str(delta);
                let call_id = block.call_id.as_deref().unwrap_or("");
                (
                    b"tool-input-delta",
                    b"toolCallId",
                    call_id,
                    b"inputTextDelta",
                )
            }
            _ => {
                block.text.push_str(delta);
                return true;
            }
        };
        out.extend_from_slice(b"data: {\"type\":\"");
        out.extend_from_slice(kind);
        out.extend_from_slice(b"\",\"");
        out.extend_from_slice(id_key);
        out.extend_from_slice(b"\":");
        write_string(out, id);
        out.extend_from_slice(b",\"");
        out.extend_from_slice(field);
        out.extend_from_slice(b"\":");
        write_string(out, delta);
        out.extend_from_slice(b"}\n\n");
        true
    }

    fn trailer(&mut self, out: &mut Vec<u8>) {
        if self.completed {
            self.completed = false;
            out.extend_from_slice(DONE);
        }
    }
}

impl Encoder {
    fn ensure_started(
        &mut self,
        out: &mut Vec<Event>,
        run_id: Option<&str>,
        metadata: Option<&Value>,
    ) {
        if self.started {
            return;
        }
        self.started = true;
        if nonempty(self.message_id.as_deref()).is_none() {
            self.message_id = run_id.map(str::to_owned);
        }
        let mut start = chunk("start", vec![]);
        if let Some(message_id) = nonempty(self.message_id.as_deref()) {
            start.insert("messageId".to_owned(), message_id.into());
        }
        if let Some(metadata) = metadata {
            start.insert("messageMetadata".to_owned(), metadata.clone());
        }
        out.push(start);
    }

    fn ensure_step(&mut self, out: &mut Vec<Event>) {
        self.ensure_started(out, None, None);
        if !self.explicit_steps && !self.in_step {
            self.in_step = true;
            out.push(chunk("start-step", vec![]));
        }
    }

    fn passthrough(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(Value::Object(inner)) = event.get("event") else {
            return;
        };
        if get_str(event, "protocol") != Some("ai-sdk") {
            return;
        }
        let kind = get_str(inner, "type").unwrap_or("");
        if ["start-step", "finish-step", "reset-step"].contains(&kind) && !self.in_step {
            self.explicit_steps = true;
        }
        if kind == "start-step" {
            self.in_step = true;
        } else if kind == "finish-step" {
            self.in_step = false;
        }
        if kind != "start" {
            self.ensure_started(out, None, None);
        }
        out.push(inner.clone());
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let Some(kind) = get_str(event, "kind") else {
            return;
        };
        if self.blocks.contains_key(&key) || self.skipped.contains(&key.0) {
            return;
        }
        let part_id = match nonempty(get_str(event, "part_id")) {
            Some(part_id) => part_id.to_owned(),
            None => format!("{}-{}", key.0, key.1),
        };
        let mut fields = Map::new();
        for name in block_fields(kind) {
            let value = event.get(*name).cloned().unwrap_or(Value::Null);
            fields.insert((*name).to_owned(), value);
        }
        let mut block = Block {
            kind: kind.to_owned(),
            part_id,
            fields,
            text: String::new(),
            output: None,
            is_error: false,
            call_id: None,
            metadata: None,
        };
        match kind {
            "text" | "refusal" | "reasoning" => {
                self.ends_on_tool_call = false;
                if kind == "refusal" {
                    self.lost.push(Loss::refusal("ai-sdk"));
                }
                self.ensure_step(out);
                let chunk_type = if kind == "reasoning" {
                    "reasoning-start"
                } else {
                    "text-start"
                };
                out.push(chunk(
                    chunk_type,
                    vec![("id", block.part_id.as_str().into())],
                ));
            }
            "tool_call" => {
                self.ends_on_tool_call = true;
                self.lost.extend(Loss::server("ai-sdk", event));
                self.lost
                    .extend(Loss::tool_kind("ai-sdk", event, &["server"]));
                self.ensure_step(out);
                let call_id = nonempty(block.fields.get("call_id").and_then(Value::as_str))
                    .unwrap_or(&block.part_id)
                    .to_owned();
                let name =
                    nonempty(block.fields.get("name").and_then(Value::as_str)).unwrap_or("tool");
                let mut start = chunk(
                    "tool-input-start",
                    vec![
                        ("toolCallId", call_id.as_str().into()),
                        ("toolName", name.into()),
                    ],
                );
                if block.fields.get("tool").and_then(Value::as_str) == Some("server") {
                    start.insert("providerExecuted".to_owned(), true.into());
                }
                out.push(start);
                self.calls.insert(call_id.clone());
                block.call_id = Some(call_id);
            }
            "tool_result" => {
                block.call_id = block
                    .fields
                    .get("call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                block.is_error = event.get("is_error") == Some(&Value::Bool(true));
            }
            "data" => {
                self.ensure_step(out);
                let value = block.fields.get("value").cloned().unwrap_or(Value::Null);
                match value {
                    Value::Object(whole) if is_whole_part(&Value::Object(whole.clone())) => {
                        out.push(whole)
                    }
                    value => out.push(chunk("data-value", vec![("data", value)])),
                }
                return;
            }
            "media" => {}
            _ => return,
        }
        self.blocks.insert(key, block);
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&key) else {
            return;
        };
        let delta = match get_str(event, "delta") {
            Some(delta) if !delta.is_empty() => delta,
            _ => return,
        };
        match block.kind.as_str() {
            "text" | "refusal" | "reasoning" => {
                let chunk_type = if block.kind == "reasoning" {
                    "reasoning-delta"
                } else {
                    "text-delta"
                };
                out.push(chunk(
                    chunk_type,
                    vec![
                        ("id", block.part_id.as_str().into()),
                        ("delta", delta.into()),
                    ],
                ));
                return;
            }
            "tool_call" => out.push(chunk(
                "tool-input-delta",
                vec![
                    ("toolCallId", block.call_id.as_deref().unwrap_or("").into()),
                    ("inputTextDelta", delta.into()),
                ],
            )),
            _ => {}
        }
        block.text.push_str(delta);
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(key) = block_key(event) else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&key) else {
            return;
        };
        if let Some(encrypted) = nonempty(get_str(event, "encrypted")) {
            // A signature belongs in its provider's metadata, on the kinds
            // of part its package puts one: where the provider is not
            // known, or has no place for it on this kind, it has none.
            let redacted = event.get("redacted") == Some(&Value::Bool(true));
            let metadata = get_str(event, "encrypted_by")
                .and_then(|by| providers::metadata(by, &block.kind, encrypted, redacted, &key.0));
            match (metadata, block.kind.as_str()) {
                (Some(metadata), "tool_call") => block.metadata = Some(metadata),
                (Some(metadata), kind) => out.push(chunk(
                    // (an empty delta carrying it, as the packages write one)
                    if kind == "reasoning" {
                        "reasoning-delta"
                    } else {
                        "text-delta"
                    },
                    vec![
                        ("id", block.part_id.as_str().into()),
                        ("delta", "".into()),
                        ("providerMetadata", metadata),
                    ],
                )),
                (None, _) => self.lost.push(Loss::signature("ai-sdk")),
            }
        }
        // A text part only grows: a correction of streamed text has no place.
        if matches!(block.kind.as_str(), "text" | "refusal" | "reasoning")
            && get_str(event, "text").is_some()
        {
            self.lost.push(Loss::correction("ai-sdk", &block.kind));
        }
        if has_annotations(event) {
            self.lost.push(Loss::annotations("ai-sdk"));
        }
        if block.kind == "tool_call" {
            if let Some(arguments) = get_str(event, "arguments") {
                block.text = arguments.to_owned(); // the input snapshot, written at the end
            }
        } else if block.kind == "tool_result" {
            if let Some(output) = event.get("output") {
                block.text.clear();
                block.output = Some(output.clone()).filter(|value| !value.is_null());
            }
        } else if block.kind == "media" {
            for name in ["url", "mime_type"] {
                if let Some(value) = get_str(event, name) {
                    block.fields.insert(name.to_owned(), value.into());
                }
            }
            if let Some(data) = get_str(event, "data") {
                block.text = data.to_owned();
            }
        }
    }

    fn end_block(&mut self, block: Block, out: &mut Vec<Event>) {
        match block.kind.as_str() {
            "text" | "refusal" | "reasoning" => {
                let chunk_type = if block.kind == "reasoning" {
                    "reasoning-end"
                } else {
                    "text-end"
                };
                out.push(chunk(chunk_type, vec![("id", block.part_id.into())]));
            }
            "tool_call" => {
                let call_id = block.call_id.unwrap_or_default();
                let name =
                    nonempty(block.fields.get("name").and_then(Value::as_str)).unwrap_or("tool");
                let parsed = if block.text.is_empty() {
                    Ok(Value::Object(Map::new()))
                } else {
                    json::parse(&block.text)
                };
                let mut written = match parsed {
                    Ok(input) => chunk(
                        "tool-input-available",
                        vec![
                            ("toolCallId", call_id.into()),
                            ("toolName", name.into()),
                            ("input", input),
                        ],
                    ),
                    Err(_) => chunk(
                        "tool-input-error",
                        vec![
                            ("toolCallId", call_id.into()),
                            ("toolName", name.into()),
                            ("input", block.text.into()),
                            (
                                "errorText",
                                "the tool call's input is not valid JSON".into(),
                            ),
                        ],
                    ),
                };
                if let Some(metadata) = block.metadata {
                    written.insert("providerMetadata".to_owned(), metadata);
                }
                out.push(written);
            }
            "tool_result" => {
                let Some(call_id) = block.call_id.filter(|call_id| self.calls.contains(call_id))
                else {
                    return; // a call this stream never wrote: the client would throw on it
                };
                self.ensure_step(out);
                if block.is_error {
                    let error_text = match &block.output {
                        None => block.text,
                        Some(output) => json::to_text(output),
                    };
                    out.push(chunk(
                        "tool-output-error",
                        vec![
                            ("toolCallId", call_id.into()),
                            ("errorText", error_text.into()),
                        ],
                    ));
                } else {
                    let output = block.output.unwrap_or(Value::String(block.text));
                    out.push(chunk(
                        "tool-output-available",
                        vec![("toolCallId", call_id.into()), ("output", output)],
                    ));
                }
            }
            _ => {
                let mime_type =
                    match nonempty(block.fields.get("mime_type").and_then(Value::as_str)) {
                        Some(mime_type) => mime_type.to_owned(),
                        // The kind alone: a media range, which is what a frontend
                        // looks at (`image/` shows an image).
                        None => match block.fields.get("media_type").and_then(Value::as_str) {
                            Some(kind @ ("image" | "audio" | "video")) => format!("{kind}/*"),
                            _ => "application/octet-stream".to_owned(),
                        },
                    };
                let url = match block.fields.get("url").and_then(Value::as_str) {
                    Some(url) => url.to_owned(),
                    None if block.text.is_empty() => return,
                    None => format!("data:{mime_type};base64,{}", block.text),
                };
                self.ensure_step(out);
                out.push(chunk(
                    "file",
                    vec![("url", url.into()), ("mediaType", mime_type.into())],
                ));
            }
        }
    }

    /// Ends the open blocks; in a run cut short or failed, only text and
    /// reasoning (see `finish`).
    fn close_all(&mut self, out: &mut Vec<Event>, cut: bool) {
        let blocks = std::mem::take(&mut self.blocks);
        for (_, block) in blocks {
            if !cut || ["text", "refusal", "reasoning"].contains(&block.kind.as_str()) {
                self.end_block(block, out);
            }
        }
        if self.in_step && !self.explicit_steps {
            self.in_step = false;
            out.push(chunk("finish-step", vec![]));
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.ensure_started(out, None, None);
        self.close_all(out, false);
        self.finished = true;
        self.completed = true;
        // The UI stream has no usage.
        self.lost.extend(Loss::usage("ai-sdk", event));
        let status = get_str(event, "status");
        if status == Some("cancelled") {
            out.push(chunk("abort", vec![]));
            return;
        }
        // The run's reason stands for a message that gave none.
        let (said, lost) = STOP_WORDS.translate("ai-sdk", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        if self.reason.is_none() {
            self.reason = said;
        }
        let finish_reason = match &self.reason {
            Some(reason) => reason,
            None if get_str(event, "status") == Some("incomplete") => "length",
            None if self.ends_on_tool_call => "tool-calls",
            None => "stop",
        };
        // The finish reason reads back as incomplete (cut short) or
        // completed: an interrupted run has no word.
        let carried = if stop_reasons::cuts_short(finish_reason) {
            "incomplete"
        } else {
            "completed"
        };
        self.lost.extend(Loss::status("ai-sdk", status, carried));
        let mut finish = chunk("finish", vec![("finishReason", finish_reason.into())]);
        if let Some(metadata) = event.get("metadata").filter(|value| !value.is_null()) {
            finish.insert("messageMetadata".to_owned(), metadata.clone());
        }
        out.push(finish);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Event {
        match json::parse(text).unwrap() {
            Value::Object(event) => event,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_tool_call_round_trips() {
        let mut decoder = Decoder::default();
        let mut neutral = Vec::new();
        for text in [
            r#"{"type":"start","messageId":"m"}"#,
            r#"{"type":"tool-input-start","toolCallId":"c","toolName":"f"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{\"a\":1}"}"#,
            r#"{"type":"tool-input-available","toolCallId":"c","toolName":"f","input":{"a":1}}"#,
            r#"{"type":"tool-output-available","toolCallId":"c","output":{"b":2}}"#,
            r#"{"type":"finish","finishReason":"tool-calls"}"#,
        ] {
            decoder.decode(&parse(text), &mut neutral);
        }
        let mut encoder = Encoder::default();
        let mut chunks = Vec::new();
        for event in &neutral {
            encoder.encode(event, &mut chunks);
        }
        let types: Vec<&str> = chunks.iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "start",
                "start-step",
                "tool-input-start",
                "tool-input-delta",
                "tool-input-available",
                "tool-output-available",
                "finish-step",
                "finish"
            ]
        );
        assert_eq!(chunks[4]["input"]["a"], 1);
        assert_eq!(chunks[5]["output"]["b"], 2);
        assert_eq!(chunks[7]["finishReason"], "tool-calls");
        assert_eq!(neutral[2]["index"], 0);
    }
}
