//! Gemini to and from the neutral vocabulary.
//! `python/agentcodec/_pure/gemini/events.py` mirrors this module rule for
//! rule.
//!
//! Decoding: the first record starts the run (`responseId`, `modelVersion`,
//! `createTime` as Unix seconds); each candidate is an assistant message,
//! the first named by the `responseId` and the others by it and their
//! index, as Chat's choices are. Parts become blocks: text runs in one
//! block (reasoning for `thought` parts) until a part of another kind comes
//! or a `thoughtSignature` ends it (the signature is the block's
//! `encrypted`, `encrypted_by: gemini`); a `functionCall` is a tool call
//! block, its `args` the argument text, or Vertex AI's `partialArgs`
//! written into it as they stream ([`ArgsWriter`]) until the call stops
//! saying `willContinue`; `inlineData` and `fileData` are media blocks. A
//! candidate's `finishReason` finishes its message; `MAX_TOKENS` or a
//! filter's reason (`SAFETY`) makes the run incomplete. The stream has no
//! end event: the run finishes when it ends, with the last
//! `usageMetadata` (a running count) as usage. An error record fails the
//! run. Whatever else a record or a candidate holds
//! (safety ratings, citations, grounding, prompt feedback, other parts)
//! passes through as a record of its own.
//!
//! Encoding: `GenerateContentResponse` records as the server streams them
//! (`alt=sse`), each holding the newest piece of a candidate: text and
//! thought parts as they stream, a signature as an empty text part carrying
//! it (where the server sends one), a function call whole when its block
//! finishes, its `args` an object, with the signature that came with it;
//! media as `inlineData` (or `fileData` for a URL). An assistant message
//! is the candidate its `choice` says (0 unless told: an agent's messages,
//! one after another, make one candidate); each candidate's `finishReason`
//! is written when the run finishes, the last record with the usage. A
//! failed run is an `{"error": ...}` record.

use std::borrow::Cow;

use super::args::{parse_path, partial_value, ArgsWriter};
use super::vocabulary::{
    ERROR_CODE_WORDS, ERROR_HTTP_CODES, ERROR_STATUSES, FINISH_REASONS, STOP_REASON_WORDS,
};
use crate::error_codes::ErrorCodes;
use crate::events::{
    as_int, block_delta, block_finished, block_replaced, block_started, get_str, has_annotations,
    media_kind, message_finished, message_place, message_started, passthrough, run_failed,
    run_finished, run_started, BlockRef, Decode, Encode, Event, Loss, Place,
};
use crate::framing::Kind;
use crate::hashing::{HashMap, IndexMap};
use crate::joined_text::JoinedText;
use crate::json::{to_text, write_object, Map, Value};
use crate::json_prefix::JsonPrefix;
use crate::stop_reasons::{self, StopWords};
use crate::words;

/// Why a candidate finished, in Gemini's words.
const STOP_WORDS: StopWords = StopWords::new(&FINISH_REASONS, &STOP_REASON_WORDS);

/// A failed run's status, in Gemini's words.
const ERROR_CODES: ErrorCodes = ErrorCodes::new(&ERROR_STATUSES, &ERROR_CODE_WORDS, "INTERNAL");

/// Who made the signatures the decoder reads (`encrypted_by`).
const BY: &str = "gemini";
/// A candidate's fields the decoder reads; the others pass through.
const READ: [&str; 3] = ["content", "index", "finishReason"];
/// A record's fields the decoder reads; the others pass through.
const READ_RECORD: [&str; 5] = [
    "candidates",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "createTime",
];
/// The part fields of text the decoder reads.
const TEXT: [&str; 3] = ["text", "thought", "thoughtSignature"];
/// Neutral usage keys from Gemini's counts (output: the candidates' and the
/// thoughts' tokens together, as the other protocols count them).
const USAGE: [(&str, &str); 4] = [
    ("input_tokens", "promptTokenCount"),
    ("cached_input_tokens", "cachedContentTokenCount"),
    ("reasoning_tokens", "thoughtsTokenCount"),
    ("total_tokens", "totalTokenCount"),
];

/// Appends a record as the server writes it with `alt=sse`.
pub fn frame_record(record: &Event, out: &mut Vec<u8>) {
    out.extend_from_slice(b"data: ");
    write_object(out, record);
    out.extend_from_slice(b"\r\n\r\n");
}

fn usage_from_gemini(metadata: Option<&Value>) -> Value {
    let Some(Value::Object(metadata)) = metadata else {
        return Value::Null;
    };
    let mut usage = Map::new();
    for (neutral, key) in USAGE {
        if let Some(count) = as_int(metadata.get(key)) {
            usage.insert(neutral.to_owned(), count.into());
        }
    }
    let candidates = as_int(metadata.get("candidatesTokenCount"));
    let thoughts = as_int(metadata.get("thoughtsTokenCount"));
    if candidates.is_some() || thoughts.is_some() {
        if let Some(output) = candidates.unwrap_or(0).checked_add(thoughts.unwrap_or(0)) {
            usage.insert("output_tokens".to_owned(), output.into());
        }
    }
    if usage.is_empty() {
        Value::Null
    } else {
        Value::Object(usage)
    }
}

/// One key-value record.
fn object(fields: Vec<(&str, Value)>) -> Map<String, Value> {
    fields
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

/// A record holding one candidate's field(s) (`{"candidates": [...]}`).
fn candidate_record(candidate: Map<String, Value>) -> Event {
    object(vec![(
        "candidates",
        Value::Array(vec![Value::Object(candidate)]),
    )])
}

#[derive(Debug)]
struct DecodedCandidate {
    message_id: String,
    /// The next block's index.
    blocks: i64,
    /// The open text-like block: its kind and index.
    open: Option<(&'static str, i64)>,
    /// The function call carried on: its block and arguments' writer.
    call: Option<(i64, ArgsWriter)>,
    finished: bool,
}

/// Decodes Gemini records into neutral events.
#[derive(Debug, Default)]
pub struct Decoder {
    started: bool,
    ended: bool,
    run_id: Option<String>,
    candidates: IndexMap<i64, DecodedCandidate>,
    usage: Option<Value>,
    incomplete: bool,
    calls: usize,
}

impl Decode for Decoder {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Array)
    }

    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, record: &Event, out: &mut Vec<Event>) {
        if self.ended {
            out.push(passthrough(BY, record));
            return;
        }
        if let Some(error) = record.get("error").filter(|error| !error.is_null()) {
            self.close_all(out);
            let (code, message) = super::error_message(error);
            out.push(run_failed(code.into(), message.into(), Value::Null));
            self.ended = true;
            return;
        }
        if !self.started {
            self.started = true;
            self.run_id = get_str(record, "responseId")
                .filter(|id| !id.is_empty())
                .map(str::to_owned);
            let created = get_str(record, "createTime")
                .and_then(crate::rfc3339::unix_seconds)
                .map_or(Value::Null, Value::from);
            let model = record.get("modelVersion").cloned().unwrap_or(Value::Null);
            let run_id = self.run_id.clone().map_or(Value::Null, Value::from);
            out.push(run_started(run_id, Value::Null, model, created));
        }
        if let Some(usage) = record.get("usageMetadata") {
            self.usage = Some(usage.clone());
        }
        if let Some(Value::Array(candidates)) = record.get("candidates") {
            for candidate in candidates {
                if let Value::Object(candidate) = candidate {
                    self.candidate(candidate, out);
                }
            }
        }
        let rest: Map<String, Value> = record
            .iter()
            .filter(|(key, _)| !READ_RECORD.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !rest.is_empty() {
            out.push(passthrough(BY, &rest));
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        // The stream has no end event: it ended when every candidate
        // finished. A stream cut short leaves what was open open, as in the
        // other protocols.
        let finished = self.candidates.values().all(|held| held.finished);
        if self.started && !self.ended && finished {
            let status = if self.incomplete {
                "incomplete"
            } else {
                "completed"
            };
            out.push(run_finished(
                status,
                usage_from_gemini(self.usage.as_ref()),
                Value::Null,
            ));
            self.ended = true;
        }
    }
}

impl Decoder {
    fn candidate(&mut self, candidate: &Map<String, Value>, out: &mut Vec<Event>) {
        let index = as_int(candidate.get("index")).unwrap_or(0);
        let calls = &mut self.calls;
        // (`held` borrows the candidates; the call count is apart.)
        let held = {
            if !self.candidates.contains_key(&index) {
                let base = self.run_id.as_deref().unwrap_or("gemini");
                let message_id = if index == 0 {
                    base.to_owned()
                } else {
                    format!("{base}-{index}")
                };
                let mut started = message_started(&message_id, "assistant", Some("message"));
                if index != 0 {
                    started.insert("choice".to_owned(), index.into());
                }
                out.push(started);
                self.candidates.insert(
                    index,
                    DecodedCandidate {
                        message_id,
                        blocks: 0,
                        open: None,
                        call: None,
                        finished: false,
                    },
                );
            }
            self.candidates.get_mut(&index).expect("just made")
        };
        if held.finished {
            out.push(passthrough(BY, &candidate_record(candidate.clone())));
            return;
        }
        if let Some(Value::Object(content)) = candidate.get("content") {
            if let Some(Value::Array(parts)) = content.get("parts") {
                for part in parts {
                    if let Value::Object(part) = part {
                        held.part(part, index, calls, out);
                    }
                }
            }
        }
        let mut rest = Map::new();
        for (key, value) in candidate {
            if !READ.contains(&key.as_str()) {
                rest.insert(key.clone(), value.clone());
            }
        }
        if !rest.is_empty() {
            let mut indexed = object(vec![("index", index.into())]);
            indexed.extend(rest);
            out.push(passthrough(BY, &candidate_record(indexed)));
        }
        if let Some(reason) = candidate
            .get("finishReason")
            .filter(|reason| !reason.is_null())
        {
            held.finish_call(out);
            held.close(out);
            // In the words the other protocols use (`stop`, `max_tokens`).
            let said = match reason {
                Value::String(reason) if reason.is_ascii() => reason.to_ascii_lowercase().into(),
                other => other.clone(),
            };
            out.push(message_finished(&held.message_id, Value::Null, said));
            held.finished = true;
            self.incomplete |= reason.as_str().is_some_and(stop_reasons::cuts_short);
        }
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        for held in self.candidates.values_mut() {
            if held.finished {
                continue;
            }
            held.finish_call(out);
            held.close(out);
            out.push(message_finished(&held.message_id, Value::Null, Value::Null));
            held.finished = true;
        }
    }
}

impl DecodedCandidate {
    fn part(
        &mut self,
        part: &Map<String, Value>,
        index: i64,
        calls: &mut usize,
        out: &mut Vec<Event>,
    ) {
        let call = match part.get("functionCall") {
            Some(Value::Object(call)) => Some(call),
            _ => None,
        };
        let signature = get_str(part, "thoughtSignature").filter(|signature| !signature.is_empty());
        if let (Some(call), true) = (call, self.call.is_some()) {
            if !call.contains_key("name") {
                let (block, mut writer) = self.call.take().expect("a call is carried on");
                self.write_args(block, &mut writer, call, out);
                self.call = Some((block, writer));
                self.sign(block, signature, out);
                if call.get("willContinue") != Some(&Value::Bool(true)) {
                    self.finish_call(out);
                }
                return;
            }
        }
        self.finish_call(out);
        if let Some(Value::String(text)) = part.get("text") {
            if part.keys().all(|key| TEXT.contains(&key.as_str())) {
                let kind = if part.get("thought") == Some(&Value::Bool(true)) {
                    "reasoning"
                } else {
                    "text"
                };
                if self.open.is_none_or(|(open, _)| open != kind) {
                    self.close(out);
                    if text.is_empty() && signature.is_none() {
                        return;
                    }
                    let block = self.open_block(kind, &[], out);
                    self.open = Some((kind, block));
                }
                let block = self.open.expect("just opened").1;
                if !text.is_empty() {
                    out.push(block_delta(&self.message_id, block, text));
                }
                if signature.is_some() {
                    self.sign(block, signature, out);
                    self.close(out);
                }
                return;
            }
        }
        self.close(out);
        if let Some(call) = call {
            self.start_call(call, signature, calls, out);
            return;
        }
        if let Some((fields, data)) = media(part) {
            let block = self.open_block("media", &fields, out);
            if !data.is_empty() {
                out.push(block_delta(&self.message_id, block, &data));
            }
            self.sign(block, signature, out);
            out.push(block_finished(&self.message_id, block));
            return;
        }
        let content = object(vec![(
            "parts",
            Value::Array(vec![Value::Object(part.clone())]),
        )]);
        let candidate = object(vec![
            ("index", index.into()),
            ("content", Value::Object(content)),
        ]);
        out.push(passthrough(BY, &candidate_record(candidate)));
    }

    fn start_call(
        &mut self,
        call: &Map<String, Value>,
        signature: Option<&str>,
        calls: &mut usize,
        out: &mut Vec<Event>,
    ) {
        // The Gemini API gives its calls no id: one is made up, as the other
        // protocols need one to answer the call by.
        let call_id = match get_str(call, "id").filter(|id| !id.is_empty()) {
            Some(id) => id.to_owned(),
            None => format!("call_{calls}"),
        };
        *calls += 1;
        let name = call.get("name").cloned().unwrap_or(Value::Null);
        let fields = [
            ("call_id", call_id.into()),
            ("name", name),
            ("tool", "function".into()),
        ];
        let block = self.open_block("tool_call", &fields, out);
        let more = call.get("willContinue") == Some(&Value::Bool(true));
        if call.contains_key("partialArgs") || more {
            let mut writer = ArgsWriter::default();
            self.write_args(block, &mut writer, call, out);
            self.call = Some((block, writer));
            self.sign(block, signature, out);
            if !more {
                self.finish_call(out);
            }
            return;
        }
        if let Some(args) = call.get("args") {
            out.push(block_delta(&self.message_id, block, &to_text(args)));
        }
        self.sign(block, signature, out);
        out.push(block_finished(&self.message_id, block));
    }

    fn write_args(
        &self,
        block: i64,
        writer: &mut ArgsWriter,
        call: &Map<String, Value>,
        out: &mut Vec<Event>,
    ) {
        let Some(Value::Array(partial)) = call.get("partialArgs") else {
            return;
        };
        for arg in partial {
            let Value::Object(arg) = arg else { continue };
            let Some(path) = get_str(arg, "jsonPath") else {
                continue;
            };
            let Some(value) = partial_value(arg) else {
                continue;
            };
            let more = arg.get("willContinue") == Some(&Value::Bool(true));
            match parse_path(path).and_then(|keys| writer.write(keys, &value, more)) {
                Ok(text) => {
                    if !text.is_empty() {
                        out.push(block_delta(&self.message_id, block, &text));
                    }
                }
                Err(_) => {
                    let kept = object(vec![(
                        "partialArgs",
                        Value::Array(vec![Value::Object(arg.clone())]),
                    )]);
                    out.push(passthrough(BY, &kept));
                }
            }
        }
    }

    fn finish_call(&mut self, out: &mut Vec<Event>) {
        if let Some((block, mut writer)) = self.call.take() {
            let closing = writer.finish();
            if !closing.is_empty() {
                out.push(block_delta(&self.message_id, block, &closing));
            }
            out.push(block_finished(&self.message_id, block));
        }
    }

    fn sign(&self, block: i64, signature: Option<&str>, out: &mut Vec<Event>) {
        if let Some(signature) = signature {
            out.push(block_replaced(
                &self.message_id,
                block,
                vec![("encrypted", signature.into()), ("encrypted_by", BY.into())],
            ));
        }
    }

    fn open_block(&mut self, kind: &str, fields: &[(&str, Value)], out: &mut Vec<Event>) -> i64 {
        let index = self.blocks;
        self.blocks += 1;
        out.push(block_started(&self.message_id, index, kind, fields));
        index
    }

    fn close(&mut self, out: &mut Vec<Event>) {
        if let Some((_, index)) = self.open.take() {
            out.push(block_finished(&self.message_id, index));
        }
    }
}

/// A media part's block fields and data: `inlineData` (base64) or
/// `fileData` (a URI).
fn media(part: &Map<String, Value>) -> Option<(Vec<(&'static str, Value)>, String)> {
    let fields = |mime: &str, url: Value| {
        vec![
            ("media_type", media_kind(mime).into()),
            (
                "mime_type",
                if mime.is_empty() {
                    Value::Null
                } else {
                    mime.into()
                },
            ),
            ("url", url),
        ]
    };
    if let Some(Value::Object(inline)) = part.get("inlineData") {
        if let Some(Value::String(data)) = inline.get("data") {
            let mime = get_str(inline, "mimeType").unwrap_or("");
            return Some((fields(mime, Value::Null), data.clone()));
        }
    }
    if let Some(Value::Object(file)) = part.get("fileData") {
        if let Some(Value::String(uri)) = file.get("fileUri") {
            let mime = get_str(file, "mimeType").unwrap_or("");
            return Some((fields(mime, uri.clone().into()), String::new()));
        }
    }
    None
}

/// What a block being encoded is.
#[derive(Debug)]
enum Streamed {
    Text,
    Reasoning,
    /// A tool call, written whole when it finishes.
    Call(Box<Call>),
    /// Media, written whole when it finishes.
    Media(Box<Media>),
}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    arguments: JsonPrefix,
    /// The arguments' text up to its last clean point.
    clean: String,
    signature: Option<String>,
}

#[derive(Debug)]
struct Media {
    mime_type: String,
    url: Option<String>,
    data: String,
    signature: Option<String>,
}

/// Encodes neutral events into Gemini records.
#[derive(Debug)]
pub struct Encoder {
    model: Option<String>,
    response_id: Option<String>,
    started: bool,
    finished: bool,
    /// Messages of another role than the assistant's: no place here.
    others: std::collections::HashSet<String>,
    /// The assistant messages' candidates (their `choice`, 0 for most: one
    /// after another, an agent's messages make one candidate).
    candidates: IndexMap<String, i64>,
    /// The assistant messages started and not finished -> their place
    /// (namespace and node).
    open_in: HashMap<String, Place>,
    blocks: IndexMap<(String, i64), Streamed>,
    /// The finish reason of each candidate whose message finished (None
    /// where the message gave none: the run's stands for it), written when
    /// the run finishes, with the usage.
    reasons: IndexMap<i64, Option<&'static str>>,
    lost: Vec<Loss>,
    /// Where a candidate's text runs on from another message's.
    joined: JoinedText,
}

/// Whether an option or field holds something (Python's truthiness of a str).
fn given(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|text| !text.is_empty())
}

impl Encoder {
    pub fn new(model: Option<&str>, response_id: Option<&str>) -> Self {
        Encoder {
            model: model.map(str::to_owned),
            response_id: response_id.map(str::to_owned),
            started: false,
            finished: false,
            others: std::collections::HashSet::default(),
            candidates: IndexMap::default(),
            open_in: HashMap::default(),
            blocks: IndexMap::default(),
            reasons: IndexMap::default(),
            lost: Vec::new(),
            joined: JoinedText::default(),
        }
    }

    /// Writes `separator` before a message's text that runs on from another
    /// message's in the one text they share (the `message_separator`
    /// option), where the loss is reported otherwise.
    pub fn with_message_separator(mut self, separator: Option<String>) -> Self {
        self.joined = JoinedText::new(separator);
        self
    }

    /// A record of one candidate's newest parts.
    fn record(&self, message_id: &str, parts: Vec<Value>) -> Event {
        let index = self.candidates.get(message_id).copied().unwrap_or(0);
        self.candidate_record(index, parts, None)
    }

    fn candidate_record(&self, index: i64, parts: Vec<Value>, reason: Option<&str>) -> Event {
        let content = object(vec![
            ("parts", Value::Array(parts)),
            ("role", "model".into()),
        ]);
        let mut candidate = object(vec![("content", Value::Object(content))]);
        if let Some(reason) = reason {
            candidate.insert("finishReason".to_owned(), reason.into());
        }
        candidate.insert("index".to_owned(), index.into());
        self.stamped(candidate_record(candidate))
    }

    /// A record for each finished candidate, with its finish reason and the
    /// empty text part the server ends with.
    fn finish_records(&mut self) -> Vec<Event> {
        let reasons = std::mem::take(&mut self.reasons);
        reasons
            .into_iter()
            .map(|(index, reason)| {
                let empty = Value::Object(object(vec![("text", "".into())]));
                self.candidate_record(index, vec![empty], Some(reason.unwrap_or("STOP")))
            })
            .collect()
    }

    fn stamped(&self, mut record: Event) -> Event {
        if let Some(model) = self.model.as_deref().filter(|model| !model.is_empty()) {
            record.insert("modelVersion".to_owned(), model.into());
        }
        if let Some(id) = self.response_id.as_deref().filter(|id| !id.is_empty()) {
            record.insert("responseId".to_owned(), id.into());
        }
        record
    }

    fn message_started(&mut self, event: &Event) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        let role = get_str(event, "role");
        if matches!(role, Some("user" | "system" | "developer" | "tool")) {
            self.others.insert(message_id.to_owned());
        } else {
            let place = message_place(event);
            let choice = as_int(event.get("choice"))
                .filter(|&choice| choice >= 0)
                .unwrap_or_else(|| self.free_candidate(message_id, &place));
            self.candidates.insert(message_id.to_owned(), choice);
            self.open_in.insert(message_id.to_owned(), place);
        }
    }

    /// The first candidate that no open message of another place (namespace
    /// and node) holds: a subgraph's or a node's message that streams beside
    /// another's is a candidate of its own, where the two would interleave in
    /// one.
    fn free_candidate(&self, message_id: &str, place: &Place) -> i64 {
        let taken: std::collections::BTreeSet<i64> = self
            .open_in
            .iter()
            .filter(|(other, held)| other.as_str() != message_id && *held != place)
            .filter_map(|(other, _)| self.candidates.get(other).copied())
            .collect();
        let mut choice = 0;
        while taken.contains(&choice) {
            choice += 1;
        }
        choice
    }

    fn message_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(message_id) = get_str(event, "message_id") else {
            return;
        };
        if self.others.contains(message_id) {
            return;
        }
        self.open_in.remove(message_id);
        // A candidate has no counts of its own: only the response.
        self.lost.extend(Loss::usage("gemini", event));
        self.flush(out, Some(message_id));
        let (word, lost) = STOP_WORDS.translate("gemini", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        let index = self.candidates.get(message_id).copied().unwrap_or(0);
        self.reasons.insert(index, word);
    }

    fn block_started(&mut self, event: &Event) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        if self.others.contains(message_id) {
            self.lost.push(Loss::other_role("gemini", kind));
            return;
        }
        self.lost.extend(Loss::server("gemini", event));
        self.lost.extend(Loss::tool_kind("gemini", event, &[]));
        let streamed = match kind {
            "text" => Streamed::Text,
            "reasoning" => Streamed::Reasoning,
            "refusal" => {
                self.lost.push(Loss::refusal("gemini"));
                Streamed::Text
            }
            "tool_call" => Streamed::Call(Box::new(Call {
                id: get_str(event, "call_id").unwrap_or("").to_owned(),
                name: get_str(event, "name").unwrap_or("").to_owned(),
                arguments: JsonPrefix::new(true),
                clean: String::new(),
                signature: None,
            })),
            "media" => Streamed::Media(Box::new(Media {
                mime_type: get_str(event, "mime_type").unwrap_or("").to_owned(),
                url: get_str(event, "url").map(str::to_owned),
                data: String::new(),
                signature: None,
            })),
            other => {
                self.lost.push(Loss::block("gemini", other));
                return;
            }
        };
        if matches!(streamed, Streamed::Text | Streamed::Reasoning) {
            self.joined.started(message_id, index);
        }
        self.blocks.insert((message_id.to_owned(), index), streamed);
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index), Some(delta)) = (
            get_str(event, "message_id"),
            as_int(event.get("index")),
            get_str(event, "delta"),
        ) else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        let thought = match self.blocks.get_mut(&BlockRef(message_id, index)) {
            Some(Streamed::Text) => false,
            Some(Streamed::Reasoning) => true,
            Some(Streamed::Call(call)) => {
                call.arguments.feed(delta, &mut call.clean);
                return;
            }
            Some(Streamed::Media(media)) => {
                media.data.push_str(delta);
                return;
            }
            None => return,
        };
        let mut text = Cow::Borrowed(delta);
        if self.joined.is_fresh(message_id, index) {
            let candidate = self.candidates.get(message_id).copied().unwrap_or(0);
            let kind = if thought { "reasoning" } else { "text" };
            let lost;
            (text, lost) = self
                .joined
                .writes("gemini", candidate, kind, message_id, index, delta);
            self.lost.extend(lost);
        }
        let mut part = object(vec![("text", text.as_ref().into())]);
        if thought {
            part.insert("thought".to_owned(), true.into());
        }
        let record = self.record(message_id, vec![Value::Object(part)]);
        out.push(record);
    }

    fn block_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        self.joined.finished(message_id, index);
        if let Some(streamed) = self.blocks.shift_remove(&BlockRef(message_id, index)) {
            self.write(message_id, streamed, out);
        }
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let Some(found) = self.blocks.get_mut(&BlockRef(message_id, index)) else {
            return;
        };
        let text_kind = match found {
            Streamed::Text => Some("text"),
            Streamed::Reasoning => Some("reasoning"),
            _ => None,
        };
        if let (Some(kind), Some(_)) = (text_kind, get_str(event, "text")) {
            self.lost.push(Loss::correction("gemini", kind));
        }
        if has_annotations(event) {
            self.lost.push(Loss::annotations("gemini"));
        }
        let Some(signature) = get_str(event, "encrypted").filter(|text| !text.is_empty()) else {
            return;
        };
        if get_str(event, "encrypted_by") != Some(BY) {
            // Another provider's: the API would refuse it.
            self.lost.push(Loss::signature("gemini"));
            return;
        }
        match found {
            Streamed::Call(call) => call.signature = Some(signature.to_owned()),
            Streamed::Media(media) => media.signature = Some(signature.to_owned()),
            Streamed::Text | Streamed::Reasoning => {
                // Where the server sends one: an empty part of the block's
                // kind, which joins the text before it.
                let mut part = object(vec![
                    ("text", "".into()),
                    ("thoughtSignature", signature.into()),
                ]);
                if text_kind == Some("reasoning") {
                    part.insert("thought".to_owned(), true.into());
                }
                let record = self.record(message_id, vec![Value::Object(part)]);
                out.push(record);
            }
        }
    }

    /// Writes a tool call or a media part whole.
    fn write(&mut self, message_id: &str, streamed: Streamed, out: &mut Vec<Event>) {
        let (mut part, signature) = match streamed {
            Streamed::Text | Streamed::Reasoning => return,
            Streamed::Media(media) => {
                let Media {
                    mime_type,
                    url,
                    data,
                    signature,
                } = *media;
                let part = match url {
                    Some(url) if data.is_empty() => object(vec![(
                        "fileData",
                        Value::Object(object(vec![
                            ("mimeType", mime_type.into()),
                            ("fileUri", url.into()),
                        ])),
                    )]),
                    _ => object(vec![(
                        "inlineData",
                        Value::Object(object(vec![
                            ("mimeType", mime_type.into()),
                            ("data", data.into()),
                        ])),
                    )]),
                };
                (part, signature)
            }
            Streamed::Call(call) => {
                let Call {
                    id,
                    name,
                    arguments,
                    mut clean,
                    signature,
                } = *call;
                if !arguments.is_whole() {
                    self.lost.push(Loss::broken_arguments("gemini"));
                }
                clean.push_str(&arguments.finish());
                let args = match crate::json::parse(&clean) {
                    Ok(value @ Value::Object(_)) => value,
                    _ => Value::Object(Map::new()),
                };
                let mut function = Map::new();
                if !id.is_empty() {
                    function.insert("id".to_owned(), id.into());
                }
                function.insert("name".to_owned(), name.into());
                function.insert("args".to_owned(), args);
                (
                    object(vec![("functionCall", Value::Object(function))]),
                    signature,
                )
            }
        };
        if let Some(signature) = signature {
            part.insert("thoughtSignature".to_owned(), signature.into());
        }
        let record = self.record(message_id, vec![Value::Object(part)]);
        out.push(record);
    }

    /// Writes the calls and media whose blocks never finished (of one
    /// message, or of all), as far as they came.
    fn flush(&mut self, out: &mut Vec<Event>, message_id: Option<&str>) {
        let keys: Vec<(String, i64)> = self
            .blocks
            .keys()
            .filter(|(id, _)| message_id.is_none_or(|wanted| id == wanted))
            .cloned()
            .collect();
        for key in keys {
            if let Some(streamed) = self.blocks.shift_remove(&key) {
                self.write(&key.0, streamed, out);
            }
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.flush(out, None);
        let status = get_str(event, "status");
        // The run's reason stands for a candidate that gave none.
        let (said, lost) = STOP_WORDS.translate("gemini", get_str(event, "stop_reason"));
        self.lost.extend(lost);
        let unsaid = match said {
            Some(said) => said,
            None if status == Some("incomplete") => "MAX_TOKENS",
            None => "STOP",
        };
        // Every candidate finishes with the run, as the reader ends a run.
        let mut indexes: Vec<i64> = self.candidates.values().copied().collect();
        if indexes.is_empty() {
            indexes.push(0);
        }
        for index in indexes {
            self.reasons.entry(index).or_insert(None);
        }
        for reason in self.reasons.values_mut() {
            reason.get_or_insert(unsaid);
        }
        // What reads back: a candidate cut short (written so below).
        let cut = self.reasons.values().flatten().any(|reason| {
            stop_reasons::cuts_short(reason)
                || (status == Some("incomplete") && stop_reasons::is_ordinary(reason))
        });
        let carried = if cut { "incomplete" } else { "completed" };
        self.lost.extend(Loss::status("gemini", status, carried));
        let mut records = self.finish_records();
        let mut record = records.pop().unwrap_or_else(|| self.stamped(Map::new()));
        if status == Some("incomplete") {
            // Gemini says a candidate was cut short by its finish reason (but
            // for one that said why otherwise: a filter).
            for held in records.iter_mut().chain(std::iter::once(&mut record)) {
                if let Some(Value::Array(candidates)) = held.get_mut("candidates") {
                    for candidate in candidates {
                        if let Value::Object(candidate) = candidate {
                            let said = candidate.get("finishReason").and_then(Value::as_str);
                            if said.is_none_or(stop_reasons::is_ordinary) {
                                candidate.insert("finishReason".to_owned(), "MAX_TOKENS".into());
                            }
                        }
                    }
                }
            }
        }
        out.extend(records);
        if let Some(Value::Object(usage)) = event.get("usage") {
            if !usage.is_empty() {
                record.insert("usageMetadata".to_owned(), usage_to_gemini(usage));
                // The server writes the usage before the model's version.
                for key in ["modelVersion", "responseId"] {
                    if let Some(value) = record.shift_remove(key) {
                        record.insert(key.to_owned(), value);
                    }
                }
            }
        }
        let candidates =
            matches!(record.get("candidates"), Some(Value::Array(list)) if !list.is_empty());
        if candidates || record.contains_key("usageMetadata") {
            out.push(record);
        }
        self.finished = true;
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        // An error record has no counts.
        self.lost.extend(Loss::usage("gemini", event));
        // A status is one of google.rpc.Code's names: another protocol's
        // code is its status of that kind (a throttle is
        // `RESOURCE_EXHAUSTED`), or else an internal error.
        let (status, lost) = ERROR_CODES.write("gemini", get_str(event, "code"));
        self.lost.extend(lost);
        let error = object(vec![
            ("code", http_code(status).into()),
            ("message", get_str(event, "message").unwrap_or("").into()),
            ("status", status.into()),
        ]);
        out.push(object(vec![("error", Value::Object(error))]));
        self.finished = true;
    }
}

/// The HTTP status of an error record, by its status (`RESOURCE_EXHAUSTED`
/// is 429, as google-genai reads it to raise a client error and retry).
fn http_code(status: &str) -> i64 {
    words::lookup(&ERROR_HTTP_CODES, status)
        .and_then(|http| http.parse().ok())
        .unwrap_or(500)
}

/// Neutral usage as `usageMetadata`: the output less the reasoning is the
/// candidates' count.
fn usage_to_gemini(usage: &Map<String, Value>) -> Value {
    let mut metadata = Map::new();
    let output = as_int(usage.get("output_tokens"));
    let reasoning = as_int(usage.get("reasoning_tokens"));
    for (neutral, key) in USAGE {
        let mut count = as_int(usage.get(neutral));
        if neutral == "total_tokens" && count.is_none() {
            if let (Some(prompt), Some(output)) = (as_int(usage.get("input_tokens")), output) {
                count = prompt.checked_add(output);
            }
        }
        if let Some(count) = count {
            metadata.insert(key.to_owned(), count.into());
        }
        if neutral == "input_tokens" {
            if let Some(candidates) =
                output.and_then(|output| output.checked_sub(reasoning.unwrap_or(0)))
            {
                metadata.insert("candidatesTokenCount".to_owned(), candidates.max(0).into());
            }
        }
    }
    Value::Object(metadata)
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
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" && !self.started {
            if !given(&self.model) {
                self.model = get_str(event, "model").map(str::to_owned);
            }
            if !given(&self.response_id) {
                self.response_id = get_str(event, "run_id").map(str::to_owned);
            }
        }
        self.started = true;
        match kind {
            "message_started" => self.message_started(event),
            "message_finished" => self.message_finished(event, out),
            "block_started" => self.block_started(event),
            "block_delta" => self.block_delta(event, out),
            "block_finished" => self.block_finished(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "passthrough" => {
                if let (Some(BY), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    out.push(inner.clone());
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if !self.finished {
            // A run that did not finish says so by candidates that did not:
            // their reasons are not written.
            self.flush(out, None);
        }
    }

    /// A record as `alt=sse` streams it.
    fn carries_stop_reasons(&self) -> bool {
        true
    }

    fn frame(&self, event: &Event, out: &mut Vec<u8>) {
        frame_record(event, out);
    }
}
