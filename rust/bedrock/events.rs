//! Bedrock's ConverseStream to and from the neutral vocabulary.
//! `python/agentcodec/_pure/bedrock/events.py` mirrors this module rule for
//! rule.
//!
//! Decoding: `messageStart` starts the run and its one message;
//! `contentBlockStart` a tool call's block (its `toolUseId` and name); a
//! delta's text, reasoning text or tool input streams into the block of its
//! index, started where the stream does not start it (text and reasoning
//! have no start); a reasoning signature is the block's `encrypted`
//! (`encrypted_by: bedrock`), and redacted reasoning (`redactedContent`)
//! the block's `encrypted` with `redacted`; `contentBlockStop` finishes the
//! block; `messageStop` finishes the message (its `stopReason`, `max_tokens`
//! or a filter's making the run incomplete); `metadata` finishes the run
//! with its usage.
//! An exception or an error message fails the run. What has no neutral
//! place (citations, metrics, trace) passes through.
//!
//! Encoding: the events Bedrock streams, each an event stream message
//! (headers `:event-type`, `:content-type`, `:message-type`; the event's
//! JSON as its payload): `messageStart`, a tool call's `contentBlockStart`,
//! each delta, `contentBlockStop`, `messageStop` and `metadata` with the
//! usage; a failed run is an exception message. Signatures and redacted
//! reasoning are written only where Bedrock made them, redacted reasoning
//! only as a block of its own (a block holds text or redacted content).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::vocabulary::{ERROR_CODE_WORDS, EVENTS, EXCEPTIONS, STOP_REASONS, STOP_REASON_WORDS};
use crate::error_codes::ErrorCodes;
use crate::events::{
    as_int, block_delta, block_finished, block_replaced, block_started, get_str, has_annotations,
    message_finished, message_started, nonempty, passthrough, run_failed, run_finished,
    run_started, BlockRef, Decode, Encode, Event, Loss,
};
use crate::eventstream::{encode, HeaderValue};
use crate::framing::Kind;
use crate::hashing::{HashSet, IndexMap};
use crate::json::{write_object, Map, Value};
use crate::stop_reasons::{self, StopWords};

/// Why a message stopped, in Converse's words.
const STOP_WORDS: StopWords = StopWords::new(&STOP_REASONS, &STOP_REASON_WORDS);

/// The exception a failed run ends with, in Converse's words.
const ERROR_CODES: ErrorCodes =
    ErrorCodes::new(&EXCEPTIONS, &ERROR_CODE_WORDS, "internalServerException");

/// Who made the signatures the decoder reads (`encrypted_by`).
const BY: &str = "bedrock";
/// The one message of a Converse stream, as the decoder names it.
pub const MESSAGE_ID: &str = "bedrock-message";
/// Neutral usage keys from Bedrock's.
const USAGE: [(&str, &str); 4] = [
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("cached_input_tokens", "cacheReadInputTokens"),
];

/// Appends an event as event stream messages: its members' names in the
/// headers (an exception's as an exception message), their values the
/// payloads.
pub fn frame_event(event: &Event, out: &mut Vec<u8>) {
    for (key, value) in event {
        let mut payload = Vec::new();
        match value {
            Value::Object(map) => write_object(&mut payload, map),
            other => payload.extend_from_slice(crate::json::to_text(other).as_bytes()),
        }
        let string = |text| HeaderValue::String(Cow::Borrowed(text));
        let (name, kind) = if EXCEPTIONS.contains(&key.as_str()) {
            (":exception-type", "exception")
        } else {
            (":event-type", "event")
        };
        let headers = [
            (name, string(key.as_str())),
            (":content-type", string("application/json")),
            (":message-type", string(kind)),
        ];
        // (a name of a member is short, a payload well under 4 GiB)
        let _ = encode(&headers, &payload, out);
    }
}

fn usage_from_bedrock(usage: Option<&Value>) -> Value {
    let Some(Value::Object(usage)) = usage else {
        return Value::Null;
    };
    let mut out = Map::new();
    for (neutral, key) in USAGE {
        if let Some(count) = as_int(usage.get(key)) {
            out.insert(neutral.to_owned(), count.into());
        }
    }
    if out.is_empty() {
        Value::Null
    } else {
        Value::Object(out)
    }
}

fn one(key: &str, value: Value) -> Event {
    let mut event = Map::new();
    event.insert(key.to_owned(), value);
    event
}

/// Decodes Bedrock events into neutral events.
#[derive(Debug, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    /// The message started and did not finish.
    message: bool,
    /// contentBlockIndex -> the neutral block's index, while open.
    open: BTreeMap<i64, i64>,
    blocks: i64,
    incomplete: bool,
}

impl Decode for Decoder {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::EventStream)
    }

    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        for (key, value) in event {
            if self.ended {
                out.push(passthrough(BY, &one(key, value.clone())));
                continue;
            }
            if let Some((code, message)) = super::error_of(key, value) {
                self.finish_message(Value::Null, out);
                out.push(run_failed(code.into(), message.into(), Value::Null));
                self.ended = true;
                continue;
            }
            let Value::Object(value) = value else {
                out.push(passthrough(BY, &one(key, value.clone())));
                continue;
            };
            if !EVENTS.contains(&key.as_str()) {
                out.push(passthrough(BY, &one(key, Value::Object(value.clone()))));
                continue;
            }
            if !self.started {
                self.started = true;
                out.push(run_started(
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ));
            }
            match key.as_str() {
                "messageStart" => self.start_message(value.get("role"), out),
                "contentBlockStart" => self.block_start(value, out),
                "contentBlockDelta" => self.block_delta(value, out),
                "contentBlockStop" => {
                    let index = as_int(value.get("contentBlockIndex"));
                    if let Some(block) = index.and_then(|index| self.open.remove(&index)) {
                        out.push(block_finished(MESSAGE_ID, block));
                    }
                }
                "messageStop" => {
                    let reason = value.get("stopReason").cloned().unwrap_or(Value::Null);
                    self.incomplete |= reason.as_str().is_some_and(stop_reasons::cuts_short);
                    self.finish_message(reason, out);
                    let rest: Map<String, Value> = value
                        .iter()
                        .filter(|(field, _)| *field != "stopReason" && *field != super::PADDING)
                        .map(|(field, item)| (field.clone(), item.clone()))
                        .collect();
                    if !rest.is_empty() {
                        out.push(passthrough(BY, &one("messageStop", Value::Object(rest))));
                    }
                }
                _ => {
                    // metadata
                    self.finish_message(Value::Null, out);
                    let status = if self.incomplete {
                        "incomplete"
                    } else {
                        "completed"
                    };
                    let rest: Map<String, Value> = value
                        .iter()
                        .filter(|(field, _)| *field != "usage" && *field != super::PADDING)
                        .map(|(field, item)| (field.clone(), item.clone()))
                        .collect();
                    if !rest.is_empty() {
                        out.push(passthrough(BY, &one("metadata", Value::Object(rest))));
                    }
                    out.push(run_finished(
                        status,
                        usage_from_bedrock(value.get("usage")),
                        Value::Null,
                    ));
                    self.ended = true;
                }
            }
        }
    }
}

impl Decoder {
    fn start_message(&mut self, role: Option<&Value>, out: &mut Vec<Event>) {
        if !self.message {
            self.message = true;
            let role = role.and_then(Value::as_str).unwrap_or("assistant");
            out.push(message_started(MESSAGE_ID, role, Some("message")));
        }
    }

    /// The neutral block of a contentBlockIndex, started as `kind` if it is
    /// not open.
    fn block(
        &mut self,
        index: Option<&Value>,
        kind: &str,
        fields: &[(&str, Value)],
        out: &mut Vec<Event>,
    ) -> Option<i64> {
        let index = as_int(index)?;
        self.start_message(None, out);
        if let Some(block) = self.open.get(&index) {
            return Some(*block);
        }
        let block = self.blocks;
        self.blocks += 1;
        self.open.insert(index, block);
        out.push(block_started(MESSAGE_ID, block, kind, fields));
        Some(block)
    }

    fn block_start(&mut self, value: &Map<String, Value>, out: &mut Vec<Event>) {
        let tool = match value.get("start") {
            Some(Value::Object(start)) => match start.get("toolUse") {
                Some(Value::Object(tool)) => Some(tool),
                _ => None,
            },
            _ => None,
        };
        let Some(tool) = tool else {
            out.push(passthrough(
                BY,
                &one("contentBlockStart", Value::Object(value.clone())),
            ));
            return;
        };
        let fields = [
            (
                "call_id",
                tool.get("toolUseId").cloned().unwrap_or(Value::Null),
            ),
            ("name", tool.get("name").cloned().unwrap_or(Value::Null)),
            ("tool", "function".into()),
        ];
        self.block(value.get("contentBlockIndex"), "tool_call", &fields, out);
    }

    fn block_delta(&mut self, value: &Map<String, Value>, out: &mut Vec<Event>) {
        let index = value.get("contentBlockIndex");
        let Some(Value::Object(delta)) = value.get("delta") else {
            return;
        };
        for (kind, piece) in delta {
            match (kind.as_str(), piece) {
                ("text", Value::String(text)) => {
                    let block = self.block(index, "text", &[], out);
                    if let (Some(block), false) = (block, text.is_empty()) {
                        out.push(block_delta(MESSAGE_ID, block, text));
                    }
                }
                ("toolUse", Value::Object(tool))
                    if tool.get("input").is_some_and(Value::is_string) =>
                {
                    let input = tool.get("input").and_then(Value::as_str).unwrap_or("");
                    let fields = [("tool", Value::from("function"))];
                    let block = self.block(index, "tool_call", &fields, out);
                    if let (Some(block), false) = (block, input.is_empty()) {
                        out.push(block_delta(MESSAGE_ID, block, input));
                    }
                }
                ("reasoningContent", Value::Object(reasoning)) => {
                    self.reasoning(index, reasoning, out);
                }
                (_, piece) => {
                    let mut kept = Map::new();
                    kept.insert(
                        "contentBlockIndex".to_owned(),
                        index.cloned().unwrap_or(Value::Null),
                    );
                    kept.insert("delta".to_owned(), Value::Object(one(kind, piece.clone())));
                    out.push(passthrough(
                        BY,
                        &one("contentBlockDelta", Value::Object(kept)),
                    ));
                }
            }
        }
    }

    fn reasoning(
        &mut self,
        index: Option<&Value>,
        piece: &Map<String, Value>,
        out: &mut Vec<Event>,
    ) {
        let Some(block) = self.block(index, "reasoning", &[], out) else {
            return;
        };
        for (field, item) in piece {
            match (field.as_str(), item) {
                ("text", Value::String(text)) => {
                    if !text.is_empty() {
                        out.push(block_delta(MESSAGE_ID, block, text));
                    }
                }
                (kind @ ("signature" | "redactedContent"), Value::String(encrypted))
                    if !encrypted.is_empty() =>
                {
                    let mut fields = vec![("encrypted", Value::from(encrypted.as_str()))];
                    if kind == "redactedContent" {
                        fields.push(("redacted", true.into()));
                    }
                    fields.push(("encrypted_by", BY.into()));
                    out.push(block_replaced(MESSAGE_ID, block, fields));
                }
                (_, item) => {
                    let mut kept = Map::new();
                    kept.insert(
                        "contentBlockIndex".to_owned(),
                        index.cloned().unwrap_or(Value::Null),
                    );
                    let reasoning =
                        one("reasoningContent", Value::Object(one(field, item.clone())));
                    kept.insert("delta".to_owned(), Value::Object(reasoning));
                    out.push(passthrough(
                        BY,
                        &one("contentBlockDelta", Value::Object(kept)),
                    ));
                }
            }
        }
    }

    fn finish_message(&mut self, reason: Value, out: &mut Vec<Event>) {
        if !self.message {
            return;
        }
        let mut blocks: Vec<i64> = self.open.values().copied().collect();
        blocks.sort_unstable();
        for block in blocks {
            out.push(block_finished(MESSAGE_ID, block));
        }
        self.open.clear();
        out.push(message_finished(MESSAGE_ID, Value::Null, reason));
        self.message = false;
    }
}

/// A block being encoded: its contentBlockIndex, its kind, and whether the
/// reader knows of it (Bedrock starts no text or reasoning block, so one
/// that brought nothing is not stopped either).
#[derive(Debug)]
struct Block {
    index: i64,
    kind: &'static str,
    written: bool,
}

/// Encodes neutral events into Bedrock events.
#[derive(Debug, Default)]
pub struct Encoder {
    finished: bool,
    /// Messages of another role than the assistant's: no place here.
    others: HashSet<String>,
    /// Messages whose messageStart was written.
    started: HashSet<String>,
    blocks: IndexMap<(String, i64), Block>,
    /// The next contentBlockIndex.
    next: i64,
    reason: Option<String>,
    /// Whether the last block written is a tool use: a stream that ends on
    /// one stops for it (`tool_use`), as a client's tool loop reads it.
    ends_on_tool_use: bool,
    /// What passed through of messageStop and metadata, for the run's end.
    stop: Map<String, Value>,
    metadata: Map<String, Value>,
    lost: Vec<Loss>,
}

impl Encoder {
    fn message_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        if matches!(
            get_str(event, "role"),
            Some("user" | "system" | "developer" | "tool")
        ) {
            self.others.insert(message_id.to_owned());
            return;
        }
        if self.started.is_empty() {
            // One message a stream: the assistant's messages one after
            // another make it.
            out.push(self.message_start());
        }
        self.started.insert(message_id.to_owned());
    }

    fn message_start(&self) -> Event {
        one(
            "messageStart",
            Value::Object(one("role", "assistant".into())),
        )
    }

    fn message_finished(&mut self, event: &Event) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        if self.others.contains(message_id) {
            return;
        }
        // A message has no counts of its own: only the run.
        self.lost.extend(Loss::usage("bedrock", event));
        // The last message's reason is the stream's (a later one's stands
        // over an earlier one's); one Converse has no word for leaves it
        // to what the stream says.
        let reason = get_str(event, "stop_reason");
        if nonempty(reason).is_some() {
            let (word, lost) = STOP_WORDS.translate("bedrock", reason);
            self.lost.extend(lost);
            self.reason = word.map(str::to_owned);
        }
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind_name = get_str(event, "kind").unwrap_or("");
        if self.others.contains(message_id) {
            self.lost.push(Loss::other_role("bedrock", kind_name));
            return;
        }
        let kind = match kind_name {
            "refusal" => {
                self.lost.push(Loss::refusal("bedrock"));
                "text"
            }
            "text" => "text",
            "reasoning" => "reasoning",
            "tool_call" => "tool_call",
            other => {
                self.lost.push(Loss::block("bedrock", other));
                return;
            }
        };
        self.ends_on_tool_use = kind == "tool_call";
        if self.started.is_empty() {
            self.started.insert(message_id.to_owned());
            out.push(self.message_start());
        }
        let block = Block {
            index: self.next,
            kind,
            written: kind == "tool_call",
        };
        self.next += 1;
        if kind == "tool_call" {
            self.lost.extend(Loss::server("bedrock", event));
            self.lost.extend(Loss::tool_kind("bedrock", event, &[]));
            let mut tool = Map::new();
            tool.insert(
                "toolUseId".to_owned(),
                get_str(event, "call_id").unwrap_or("").into(),
            );
            tool.insert(
                "name".to_owned(),
                get_str(event, "name").unwrap_or("").into(),
            );
            let mut start = Map::new();
            start.insert(
                "start".to_owned(),
                Value::Object(one("toolUse", Value::Object(tool))),
            );
            start.insert("contentBlockIndex".to_owned(), block.index.into());
            out.push(one("contentBlockStart", Value::Object(start)));
        }
        self.blocks.insert((message_id.to_owned(), index), block);
    }

    fn delta_event(index: i64, piece: Event) -> Event {
        let mut delta = Map::new();
        delta.insert("delta".to_owned(), Value::Object(piece));
        delta.insert("contentBlockIndex".to_owned(), index.into());
        one("contentBlockDelta", Value::Object(delta))
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index), Some(delta)) = (
            get_str(event, "message_id"),
            as_int(event.get("index")),
            get_str(event, "delta"),
        ) else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&BlockRef(message_id, index)) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let piece = match block.kind {
            "text" => one("text", delta.into()),
            "reasoning" => one("reasoningContent", Value::Object(one("text", delta.into()))),
            _ => one("toolUse", Value::Object(one("input", delta.into()))),
        };
        block.written = true;
        out.push(Self::delta_event(block.index, piece));
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let Some(block) = self.blocks.get_mut(&BlockRef(message_id, index)) else {
            return;
        };
        let text_kind = matches!(block.kind, "text" | "reasoning");
        if text_kind && get_str(event, "text").is_some() {
            self.lost.push(Loss::correction("bedrock", block.kind));
        }
        if has_annotations(event) {
            self.lost.push(Loss::annotations("bedrock"));
        }
        let Some(signature) = get_str(event, "encrypted").filter(|text| !text.is_empty()) else {
            return;
        };
        let redacted = event.get("redacted") == Some(&Value::Bool(true));
        if get_str(event, "encrypted_by") != Some(BY)
            || block.kind != "reasoning"
            || (redacted && block.written)
        {
            // Another provider's, which Bedrock would refuse; or redacted
            // reasoning in a block that holds text, where Bedrock keeps it
            // as a block of its own.
            self.lost.push(Loss::signature("bedrock"));
            return;
        }
        let field = if redacted {
            "redactedContent"
        } else {
            "signature"
        };
        let piece = one(
            "reasoningContent",
            Value::Object(one(field, signature.into())),
        );
        block.written = true;
        out.push(Self::delta_event(block.index, piece));
    }

    fn stop_event(index: i64) -> Event {
        one(
            "contentBlockStop",
            Value::Object(one("contentBlockIndex", index.into())),
        )
    }

    fn block_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        if let Some(block) = self.blocks.shift_remove(&BlockRef(message_id, index)) {
            if block.written {
                out.push(Self::stop_event(block.index));
            }
        }
    }

    fn close_blocks(&mut self, out: &mut Vec<Event>) {
        for block in std::mem::take(&mut self.blocks).into_values() {
            if block.written {
                out.push(Self::stop_event(block.index));
            }
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.close_blocks(out);
        let status = get_str(event, "status");
        // The run's reason stands for a message that gave none.
        let (said, lost) = STOP_WORDS.translate("bedrock", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        if self.reason.is_none() {
            self.reason = said.map(str::to_owned);
        }
        // An incomplete run stopped for want of tokens, unless its message
        // said why otherwise (a filter).
        let reason = match self.reason.clone() {
            Some(reason) if status != Some("incomplete") || !stop_reasons::is_ordinary(&reason) => {
                reason
            }
            _ if status == Some("incomplete") => "max_tokens".to_owned(),
            _ if self.ends_on_tool_use => "tool_use".to_owned(),
            _ => "end_turn".to_owned(),
        };
        let carried = if stop_reasons::cuts_short(&reason) {
            "incomplete"
        } else {
            "completed"
        };
        self.lost.extend(Loss::status("bedrock", status, carried));
        if self.started.is_empty() {
            out.push(self.message_start());
        }
        let mut stop = one("stopReason", reason.into());
        stop.extend(std::mem::take(&mut self.stop));
        out.push(one("messageStop", Value::Object(stop)));
        let mut metadata = Map::new();
        if let Some(Value::Object(usage)) = event.get("usage") {
            let mut counts = Map::new();
            for (neutral, key) in USAGE {
                if let Some(count) = as_int(usage.get(neutral)) {
                    counts.insert(key.to_owned(), count.into());
                }
            }
            if !counts.is_empty() {
                metadata.insert("usage".to_owned(), Value::Object(counts));
            }
        }
        metadata.extend(std::mem::take(&mut self.metadata));
        out.push(one("metadata", Value::Object(metadata)));
        self.finished = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // An exception has no counts.
        self.lost.extend(Loss::usage("bedrock", event));
        self.close_blocks(out);
        // One of its exceptions: another protocol's code is its exception of
        // that kind (a rate limit is `throttlingException`), or else a server
        // error.
        let (name, lost) = ERROR_CODES.write("bedrock", get_str(event, "code"));
        self.lost.extend(lost);
        let message = get_str(event, "message").unwrap_or("");
        out.push(one(name, Value::Object(one("message", message.into()))));
        self.finished = true;
    }

    fn passthrough(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(BY), Some(Value::Object(inner))) =
            (get_str(event, "protocol"), event.get("event"))
        else {
            return;
        };
        if !super::recognizes(inner) {
            return;
        }
        // A messageStop's or metadata's other fields go with the run's end.
        if inner.len() == 1 {
            match inner.iter().next() {
                Some((key, Value::Object(fields))) if key == "messageStop" => {
                    self.stop.extend(fields.clone());
                    return;
                }
                Some((key, Value::Object(fields))) if key == "metadata" => {
                    self.metadata.extend(fields.clone());
                    return;
                }
                _ => {}
            }
        }
        out.push(inner.clone());
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
            "message_started" => self.message_started(event, out),
            "message_finished" => self.message_finished(event),
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_finished" => self.block_finished(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "passthrough" => self.passthrough(event, out),
            _ => {}
        }
    }

    /// An event as event stream messages.
    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_event(event, out);
    }
}
