//! OpenAI Responses to and from the neutral vocabulary.
//! `python/agentcodec/_pure/openai_responses/events.py` mirrors this module
//! rule for rule (and says what each direction does).

use std::collections::BTreeMap;

use crate::events::{
    appended_field, as_int, block_finished, block_key, block_replaced, block_started, either,
    frame_sse, get, get_str, is_falsy, message_finished, message_started, nonempty, now, or_null,
    passthrough, run_failed, run_finished, run_started, sse_field, BlockRef, Decode, Encode, Event,
    Held, Loss,
};
use crate::hashing::{HashMap, IndexMap};

use super::vocabulary::{
    ANNOTATION_TYPES, ERROR_CODE_WORDS, INCOMPLETE_REASONS, RESPONSE_ERROR_CODES, STOP_REASON_WORDS,
};
use crate::error_codes::ErrorCodes;
use crate::json::{to_text, write_int, write_string, write_value, Map, Value};
use crate::stop_reasons::{self, StopWords};

const PROTOCOL: &str = "openai-responses";

fn tool_item(item_type: &str) -> Option<(&'static str, &'static str)> {
    match item_type {
        "function_call" => Some(("function", "arguments")),
        "custom_tool_call" => Some(("custom", "input")),
        "mcp_call" => Some(("mcp", "arguments")),
        _ => None,
    }
}

/// Tool -> its item type, the field holding its input, and its events' prefix.
fn tool_item_type(tool: &str) -> Option<(&'static str, &'static str, &'static str)> {
    match tool {
        "function" => Some((
            "function_call",
            "arguments",
            "response.function_call_arguments",
        )),
        "custom" => Some((
            "custom_tool_call",
            "input",
            "response.custom_tool_call_input",
        )),
        "mcp" => Some(("mcp_call", "arguments", "response.mcp_call_arguments")),
        _ => None,
    }
}

/// A content part's type -> the neutral block kind.
fn part_kind(part_type: &str) -> Option<&'static str> {
    match part_type {
        "output_text" => Some("text"),
        "refusal" => Some("refusal"),
        "reasoning_text" | "summary_text" => Some("reasoning"),
        _ => None,
    }
}

/// Where an item's blocks come from: its content parts, its summary parts,
/// or the item itself (a tool call's input, a tool's output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Where {
    Content,
    Summary,
    Item,
}

impl Where {
    fn index_key(self) -> &'static str {
        match self {
            Where::Content => "content_index",
            Where::Summary => "summary_index",
            Where::Item => "output_index",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Where::Content => "content",
            Where::Summary => "summary",
            Where::Item => "item",
        }
    }
}

/// A delta event: where it appends, and the part it opens when its added
/// event was skipped.
fn delta_event(kind: &str) -> Option<(Where, Option<&'static str>)> {
    match kind {
        "response.output_text.delta" => Some((Where::Content, Some("output_text"))),
        "response.refusal.delta" => Some((Where::Content, Some("refusal"))),
        "response.reasoning_text.delta" => Some((Where::Content, Some("reasoning_text"))),
        "response.reasoning_summary_text.delta" => Some((Where::Summary, Some("summary_text"))),
        "response.function_call_arguments.delta"
        | "response.custom_tool_call_input.delta"
        | "response.mcp_call_arguments.delta" => Some((Where::Item, None)),
        _ => None,
    }
}

/// A done event: where, the key holding the whole value, and the part it
/// opens when its added event was skipped.
fn done_event(kind: &str) -> Option<(Where, &'static str, Option<&'static str>)> {
    match kind {
        "response.output_text.done" => Some((Where::Content, "text", Some("output_text"))),
        "response.refusal.done" => Some((Where::Content, "refusal", Some("refusal"))),
        "response.reasoning_text.done" => Some((Where::Content, "text", Some("reasoning_text"))),
        "response.reasoning_summary_text.done" => {
            Some((Where::Summary, "text", Some("summary_text")))
        }
        "response.function_call_arguments.done" | "response.mcp_call_arguments.done" => {
            Some((Where::Item, "arguments", None))
        }
        "response.custom_tool_call_input.done" => Some((Where::Item, "input", None)),
        _ => None,
    }
}

// --- decoding ------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct DecodedBlock {
    index: i64,
    held: Held,
    open: bool,
    annotations: Vec<Value>,
}

/// An output item being decoded: the neutral message it is.
#[derive(Debug, Clone)]
struct DecodedItem {
    message_id: String,
    /// The neutral message kind, or None for an item passed through.
    kind: Option<&'static str>,
    blocks: HashMap<(Where, i64), DecodedBlock>,
    next: i64,
    open: bool,
    tool_field: &'static str,
}

impl DecodedItem {
    fn new(message_id: String, kind: Option<&'static str>) -> Self {
        DecodedItem {
            message_id,
            kind,
            blocks: HashMap::default(),
            next: 0,
            open: true,
            tool_field: "arguments",
        }
    }
}

/// OpenAI Responses events to neutral events.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    started: bool,
    items: HashMap<i64, DecodedItem>,
    by_id: HashMap<String, i64>,
}

/// A part of an item as the event that adds it: `{"part", "<where>_index"}`.
fn part_event(part: &Value, place: Where, position: usize) -> Event {
    let mut event = Map::new();
    event.insert("part".to_owned(), part.clone());
    event.insert(place.index_key().to_owned(), position.into());
    event
}

impl Decode for Decoder {
    fn recognizes(&self, event: &Event) -> bool {
        super::recognizes(event)
    }

    fn decode(&mut self, event: &Event, out: &mut Vec<Event>) {
        let kind = get_str(event, "type").unwrap_or("");
        let response = event.get("response");
        match kind {
            "response.created" | "response.queued" | "response.in_progress" => {
                if let (false, Some(Value::Object(response))) = (self.started, response) {
                    self.started = true;
                    out.push(run_started(
                        or_null(response.get("id")),
                        Value::Null,
                        or_null(response.get("model")),
                        or_null(response.get("created_at")),
                    ));
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let empty = Map::new();
                let response = match response {
                    Some(Value::Object(response)) => response,
                    _ => &empty,
                };
                if kind == "response.failed" {
                    let error = match response.get("error") {
                        Some(Value::Object(error)) => error,
                        _ => &empty,
                    };
                    out.push(run_failed(
                        or_null(error.get("code")),
                        or_null(error.get("message")),
                        or_null(response.get("usage")),
                    ));
                } else {
                    let status = if get_str(response, "status") == Some("cancelled") {
                        "cancelled"
                    } else if kind == "response.completed" {
                        "completed"
                    } else {
                        "incomplete"
                    };
                    let mut finished =
                        run_finished(status, or_null(response.get("usage")), Value::Null);
                    if let Some(Value::Object(details)) = response.get("incomplete_details") {
                        if let Some(reason) = get_str(details, "reason") {
                            finished.insert("stop_reason".to_owned(), reason.into());
                        }
                    }
                    out.push(finished);
                }
            }
            "error" => out.push(run_failed(
                or_null(event.get("code")),
                or_null(event.get("message")),
                Value::Null,
            )),
            "response.output_item.added" => self.item_added(event, out),
            "response.output_item.done" => self.item_done(event, out),
            "response.content_part.added" => self.part(event, Where::Content, false, out, None),
            "response.reasoning_summary_part.added" => {
                self.part(event, Where::Summary, false, out, None);
            }
            "response.content_part.done" => self.part(event, Where::Content, true, out, None),
            "response.reasoning_summary_part.done" => {
                self.part(event, Where::Summary, true, out, None);
            }
            "response.output_text.annotation.added" => self.annotation(event, out),
            _ => {
                if let Some((place, new_part)) = delta_event(kind) {
                    self.delta(event, place, new_part, out);
                } else if let Some((place, key, new_part)) = done_event(kind) {
                    self.done(event, place, key, new_part, out);
                } else {
                    out.push(passthrough(PROTOCOL, event));
                }
            }
        }
    }
}

impl Decoder {
    /// The output index of the item an event addresses.
    fn item_index(&self, event: &Event) -> Option<i64> {
        let mut index = as_int(event.get("output_index")).filter(|i| self.items.contains_key(i));
        if let Some(item_id) = get_str(event, "item_id") {
            let differs = index.is_none_or(|i| self.items[&i].message_id != item_id);
            if differs {
                if let Some(&by_id) = self.by_id.get(item_id) {
                    index = self.items.contains_key(&by_id).then_some(by_id);
                }
            }
        }
        index
    }

    fn item_added(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(index), Some(Value::Object(item))) =
            (as_int(event.get("output_index")), event.get("item"))
        else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        let item_type = get_str(item, "type").unwrap_or("");
        let message_id = nonempty(get_str(item, "id"))
            .or_else(|| nonempty(get_str(item, "call_id")))
            .map_or_else(|| format!("item-{index}"), str::to_owned);
        let tool = tool_item(item_type);
        let kind = match item_type {
            "message" => "message",
            "reasoning" => "reasoning",
            "function_call_output" => "tool_result",
            _ if tool.is_some() => "tool_call",
            _ => {
                self.items.insert(index, DecodedItem::new(message_id, None));
                out.push(passthrough(PROTOCOL, event));
                return;
            }
        };
        let mut decoded = DecodedItem::new(message_id.clone(), Some(kind));
        self.by_id.insert(message_id.clone(), index);
        let role = if kind == "tool_result" {
            "tool"
        } else {
            nonempty(get_str(item, "role")).unwrap_or("assistant")
        };
        out.push(message_started(&message_id, role, Some(kind)));
        let key = (Where::Item, 0);
        if let Some((tool, field)) = tool {
            decoded.tool_field = field;
            let fields = [
                ("call_id", either(item.get("call_id"), item.get("id"))),
                ("name", or_null(item.get("name"))),
                ("tool", tool.into()),
                ("server", or_null(item.get("server_label"))),
            ];
            open(&mut decoded, key, "tool_call", &fields, out);
            extend(&mut decoded, key, field, item.get(field), out);
            self.items.insert(index, decoded);
        } else if kind == "tool_result" {
            let fields = [("call_id", or_null(item.get("call_id")))];
            open(&mut decoded, key, "tool_result", &fields, out);
            extend(&mut decoded, key, "output", item.get("output"), out);
            self.items.insert(index, decoded);
        } else {
            self.items.insert(index, decoded);
            for place in [Where::Summary, Where::Content] {
                if let Some(Value::Array(parts)) = item.get(place.name()) {
                    for (position, part) in parts.iter().enumerate() {
                        let synthetic = part_event(part, place, position);
                        self.part(&synthetic, place, false, out, Some(index));
                    }
                }
            }
        }
    }

    fn part(
        &mut self,
        event: &Event,
        place: Where,
        done: bool,
        out: &mut Vec<Event>,
        item: Option<i64>,
    ) {
        let found = item.or_else(|| self.item_index(event));
        let position = as_int(event.get(place.index_key()));
        let item = found.and_then(|i| self.items.get_mut(&i));
        let (Some(item), Some(position), Some(Value::Object(part))) =
            (item, position, event.get("part"))
        else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        if item.kind.is_none() {
            out.push(passthrough(PROTOCOL, event));
            return;
        }
        let key = (place, position);
        let kind = part_kind(get_str(part, "type").unwrap_or("")).unwrap_or("text");
        if !item.blocks.contains_key(&key) {
            let summary = summary_field(place);
            open(item, key, kind, &[("summary", summary)], out);
        }
        let field = if kind == "refusal" { "refusal" } else { "text" };
        extend(item, key, "text", part.get(field), out);
        let message_id = item.message_id.clone();
        let block = item.blocks.get_mut(&key).expect("the block was opened");
        if let Some(Value::Array(annotations)) = part.get("annotations") {
            if !annotations.is_empty()
                && to_text(&Value::Array(annotations.clone()))
                    != to_text(&Value::Array(block.annotations.clone()))
            {
                block.annotations.clone_from(annotations);
                out.push(block_replaced(
                    &message_id,
                    block.index,
                    vec![("annotations", Value::Array(annotations.clone()))],
                ));
            }
        }
        // A reasoning item's blocks end with the item: its encrypted content
        // comes with output_item.done, and is theirs.
        if done && block.open && item.kind != Some("reasoning") {
            block.open = false;
            out.push(block_finished(&message_id, block.index));
        }
    }

    /// The item, and the block, a delta or done event addresses; a part whose
    /// added event the producer skipped opens here.
    fn block(
        &mut self,
        event: &Event,
        place: Where,
        new_part: Option<&str>,
        out: &mut Vec<Event>,
    ) -> Option<(i64, (Where, i64))> {
        let index = self.item_index(event)?;
        let item = self.items.get_mut(&index)?;
        item.kind?;
        let position = if place == Where::Item {
            0
        } else {
            as_int(event.get(place.index_key()))?
        };
        let key = (place, position);
        if !item.blocks.contains_key(&key) {
            let kind = part_kind(new_part?).expect("a part type");
            open(item, key, kind, &[("summary", summary_field(place))], out);
        }
        Some((index, key))
    }

    fn delta(&mut self, event: &Event, place: Where, new_part: Option<&str>, out: &mut Vec<Event>) {
        let found = self.block(event, place, new_part, out);
        let delta = event.get("delta").and_then(Value::as_str);
        let (Some((index, key)), Some(delta)) = (found, delta) else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        let block = self
            .items
            .get_mut(&index)
            .and_then(|item| item.blocks.get_mut(&key))
            .expect("the block exists");
        if block.open {
            block.held.append(delta, out);
        }
    }

    fn done(
        &mut self,
        event: &Event,
        place: Where,
        key: &str,
        new_part: Option<&str>,
        out: &mut Vec<Event>,
    ) {
        let Some((index, block_key)) = self.block(event, place, new_part, out) else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        let item = self.items.get_mut(&index).expect("the item exists");
        let field = if place == Where::Item {
            item.tool_field
        } else {
            "text"
        };
        extend(item, block_key, field, event.get(key), out);
    }

    fn annotation(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some((index, key)) = self.block(event, Where::Content, None, out) else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        let item = self.items.get_mut(&index).expect("the item exists");
        let block = item.blocks.get_mut(&key).expect("the block exists");
        block.annotations.push(or_null(event.get("annotation")));
        out.push(block_replaced(
            &item.message_id,
            block.index,
            vec![("annotations", Value::Array(block.annotations.clone()))],
        ));
    }

    fn item_done(&mut self, event: &Event, out: &mut Vec<Event>) {
        let item_value = event.get("item");
        let item_id = match item_value {
            Some(Value::Object(item)) => get_str(item, "id"),
            _ => None,
        };
        let index = item_id
            .and_then(|id| self.by_id.get(id).copied())
            .or_else(|| as_int(event.get("output_index")));
        let found = index.filter(|index| {
            self.items
                .get(index)
                .is_some_and(|item| item.kind.is_some() && item.open)
        });
        let (Some(index), Some(Value::Object(item_value))) = (found, item_value) else {
            out.push(passthrough(PROTOCOL, event));
            return;
        };
        let item = self.items.get_mut(&index).expect("the item exists");
        // The finished item is a snapshot of all its parts.
        match item.kind {
            Some("tool_call" | "tool_result") => {
                let field = if item.kind == Some("tool_result") {
                    "output"
                } else {
                    item.tool_field
                };
                extend(item, (Where::Item, 0), field, item_value.get(field), out);
            }
            _ => {
                for place in [Where::Summary, Where::Content] {
                    let Some(Value::Array(parts)) = item_value.get(place.name()) else {
                        continue;
                    };
                    for (position, part) in parts.iter().enumerate() {
                        let Value::Object(fields) = part else {
                            continue;
                        };
                        let known = i64::try_from(position)
                            .is_ok_and(|p| self.items[&index].blocks.contains_key(&(place, p)));
                        if known
                            || !is_falsy(fields.get("text"))
                            || !is_falsy(fields.get("refusal"))
                        {
                            let synthetic = part_event(part, place, position);
                            self.part(&synthetic, place, false, out, Some(index));
                        }
                    }
                }
                let item = self.items.get_mut(&index).expect("the item exists");
                if let Some(encrypted) = get_str(item_value, "encrypted_content") {
                    if let Some(last) = item.blocks.values().map(|block| block.index).max() {
                        out.push(block_replaced(
                            &item.message_id,
                            last,
                            vec![
                                ("encrypted", encrypted.into()),
                                ("encrypted_by", "openai".into()),
                            ],
                        ));
                    }
                }
            }
        }
        let item = self.items.get_mut(&index).expect("the item exists");
        let mut blocks: Vec<&mut DecodedBlock> = item.blocks.values_mut().collect();
        blocks.sort_by_key(|block| block.index);
        for block in blocks {
            if block.open {
                block.open = false;
                out.push(block_finished(&item.message_id, block.index));
            }
        }
        item.open = false;
        out.push(message_finished(&item.message_id, Value::Null, Value::Null));
    }
}

fn summary_field(place: Where) -> Value {
    if place == Where::Summary {
        Value::Bool(true)
    } else {
        Value::Null
    }
}

fn open(
    item: &mut DecodedItem,
    key: (Where, i64),
    kind: &str,
    fields: &[(&str, Value)],
    out: &mut Vec<Event>,
) {
    let index = item.next;
    item.next += 1;
    let field = appended_field(kind).expect("a block kind that appends");
    item.blocks.insert(
        key,
        DecodedBlock {
            index,
            held: Held::new(&item.message_id, index, field),
            open: true,
            annotations: Vec::new(),
        },
    );
    out.push(block_started(&item.message_id, index, kind, fields));
}

/// A whole value, as the deltas it adds or a replacement.
fn extend(
    item: &mut DecodedItem,
    key: (Where, i64),
    field: &str,
    value: Option<&Value>,
    out: &mut Vec<Event>,
) {
    let Some(block) = item.blocks.get_mut(&key).filter(|block| block.open) else {
        return;
    };
    match value {
        Some(Value::String(text)) => block.held.snapshot(text, true, out),
        Some(value) if !value.is_null() && field == "output" => out.push(block_replaced(
            &item.message_id,
            block.index,
            vec![("output", value.clone())],
        )),
        _ => {}
    }
}

// --- encoding ------------------------------------------------------------------------------

/// Whether a tool's output is what a `function_call_output` holds besides
/// text: input content parts (or null, left as it is).
fn is_input_content(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(parts) => parts.iter().all(|part| {
            matches!(
                part.get("type").and_then(Value::as_str),
                Some("input_text" | "input_image" | "input_file")
            )
        }),
        _ => false,
    }
}

/// What a part (or a tool block) holds: text as it streamed, or a tool's
/// output replaced whole by something that is not text.
#[derive(Debug, Clone)]
enum PartValue {
    Text(String),
    Whole(Value),
}

#[derive(Debug, Clone)]
struct Part {
    /// text, refusal or reasoning; tool_call, tool_result.
    kind: &'static str,
    summary: bool,
    /// Its content or summary index.
    position: i64,
    value: PartValue,
    /// The annotations written: the API's kinds.
    annotations: Vec<Value>,
    /// How many of the source's annotations were read.
    seen_annotations: usize,
    /// A streamed delta's event as written, but for its sequence number
    /// (at `framing_split`) and the delta: the same for every delta of
    /// the part, so written once (empty until the first).
    framing: Vec<u8>,
    framing_split: usize,
}

impl Part {
    fn new(kind: &'static str, summary: bool, position: i64) -> Self {
        Part {
            kind,
            summary,
            position,
            value: PartValue::Text(String::new()),
            annotations: Vec::new(),
            seen_annotations: 0,
            framing: Vec::new(),
            framing_split: 0,
        }
    }

    /// Writes [`Part::framing`] for a part of `item`: `false` for a part
    /// whose deltas are not streamed (a tool result, written whole).
    fn write_framing(&mut self, item: &OpenItem) -> bool {
        let (kind, position_key) = match self.kind {
            "tool_call" => {
                let tool = tool_item(item.item_type).expect("a tool item").0;
                match tool {
                    "custom" => ("response.custom_tool_call_input.delta", None),
                    "mcp" => ("response.mcp_call_arguments.delta", None),
                    _ => ("response.function_call_arguments.delta", None),
                }
            }
            "reasoning" if self.summary => (
                "response.reasoning_summary_text.delta",
                Some("summary_index"),
            ),
            "reasoning" => ("response.reasoning_text.delta", Some("content_index")),
            "refusal" => ("response.refusal.delta", Some("content_index")),
            "text" => ("response.output_text.delta", Some("content_index")),
            _ => return false,
        };
        let out = &mut self.framing;
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\ndata: {\"type\":\"");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\",\"sequence_number\":");
        self.framing_split = out.len();
        out.extend_from_slice(b",\"item_id\":");
        write_value(out, item.fields.get("id").unwrap_or(&Value::Null));
        out.extend_from_slice(b",\"output_index\":");
        write_int(out, item.index);
        if let Some(key) = position_key {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            write_int(out, self.position);
        }
        out.extend_from_slice(b",\"delta\":");
        true
    }

    fn text(&self) -> &str {
        match &self.value {
            PartValue::Text(text) => text,
            PartValue::Whole(_) => "",
        }
    }

    fn part(&self) -> Value {
        let mut part = Map::new();
        match self.kind {
            "refusal" => {
                part.insert("type".to_owned(), "refusal".into());
                part.insert("refusal".to_owned(), self.text().into());
            }
            "reasoning" => {
                let kind = if self.summary {
                    "summary_text"
                } else {
                    "reasoning_text"
                };
                part.insert("type".to_owned(), kind.into());
                part.insert("text".to_owned(), self.text().into());
            }
            _ => {
                part.insert("type".to_owned(), "output_text".into());
                part.insert(
                    "annotations".to_owned(),
                    Value::Array(self.annotations.clone()),
                );
                part.insert("logprobs".to_owned(), Value::Array(Vec::new()));
                part.insert("text".to_owned(), self.text().into());
            }
        }
        Value::Object(part)
    }
}

/// An output item being written.
#[derive(Debug, Clone)]
struct OpenItem {
    index: i64,
    item_type: &'static str,
    /// The item's own fields: id, type, status, and a tool's.
    fields: Map<String, Value>,
    content: Vec<usize>,
    summary: Vec<usize>,
}

impl OpenItem {
    fn id(&self) -> Value {
        or_null(self.fields.get("id"))
    }
}

/// Why a response is incomplete, in the API's words (a response that ended
/// as the model meant says no reason).
const STOP_WORDS: StopWords = StopWords::new(&INCOMPLETE_REASONS, &STOP_REASON_WORDS);

/// A failed response's error code, in the API's words.
const ERROR_CODES: ErrorCodes =
    ErrorCodes::new(&RESPONSE_ERROR_CODES, &ERROR_CODE_WORDS, "server_error");

/// The neutral usage counts the Responses API keeps in a detail object:
/// (its field, the detail object, the detail's field).
const USAGE_DETAILS: [(&str, &str, &str); 3] = [
    (
        "cached_input_tokens",
        "input_tokens_details",
        "cached_tokens",
    ),
    (
        "cache_creation_input_tokens",
        "input_tokens_details",
        "cache_write_tokens",
    ),
    (
        "reasoning_tokens",
        "output_tokens_details",
        "reasoning_tokens",
    ),
];

/// A usage as the Responses API writes one, every count openai-python's
/// `ResponseUsage` requires: the total (the sum, where the source gives
/// none) and the detail objects (a count the source does not give is 0, as
/// the API writes none). The source's other fields stay. None for a usage
/// without input and output counts, which the API always gives.
fn usage_to_responses(usage: &Map<String, Value>) -> Option<Map<String, Value>> {
    let input = as_int(usage.get("input_tokens"))?;
    let output = as_int(usage.get("output_tokens"))?;
    let total = match as_int(usage.get("total_tokens")) {
        Some(total) => total,
        None => input.checked_add(output)?,
    };
    let mut written: Map<String, Value> = usage
        .iter()
        .filter(|(key, _)| !USAGE_DETAILS.iter().any(|(neutral, _, _)| neutral == key))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    written.insert("total_tokens".to_owned(), total.into());
    for (neutral, details_key, count_key) in USAGE_DETAILS {
        let mut details = match written.get(details_key) {
            Some(Value::Object(details)) => details.clone(),
            _ => Map::new(),
        };
        if as_int(details.get(count_key)).is_none() {
            let count = as_int(usage.get(neutral)).unwrap_or(0);
            details.insert(count_key.to_owned(), count.into());
        }
        written.insert(details_key.to_owned(), Value::Object(details));
    }
    Some(written)
}

/// Neutral events to OpenAI Responses events: the lifecycle strict clients
/// need, `sequence_number` counting from 0.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// What could not be carried since the last `take_losses`.
    lost: Vec<Loss>,
    response_id: Option<String>,
    model: Option<String>,
    created_at: Option<Value>,
    sequence: i64,
    started: bool,
    finished: bool,
    /// The stop reason of the last finished message.
    stop_reason: Option<String>,
    /// Finished items by output index.
    output: BTreeMap<i64, Value>,
    next_index: i64,
    /// Every item and part written: the open ones are named by index.
    items: Vec<OpenItem>,
    parts: Vec<Part>,
    /// Neutral message -> its open message and reasoning items.
    open: IndexMap<String, IndexMap<&'static str, usize>>,
    used_ids: HashMap<String, u64>,
    /// (neutral message, block) -> (item, part).
    blocks: IndexMap<(String, i64), (usize, usize)>,
}

fn response_event(kind: &str, sequence: i64, fields: Vec<(&str, Value)>) -> Event {
    let mut event = Map::with_capacity(fields.len() + 2);
    event.insert("type".to_owned(), kind.into());
    event.insert("sequence_number".to_owned(), sequence.into());
    for (key, value) in fields {
        event.insert(key.to_owned(), value);
    }
    event
}

impl Encoder {
    pub fn new(
        response_id: Option<String>,
        model: Option<String>,
        created_at: Option<Value>,
    ) -> Self {
        Encoder {
            response_id,
            model,
            created_at: created_at.filter(|value| !value.is_null()),
            ..Encoder::default()
        }
    }

    fn event(&mut self, kind: &str, fields: Vec<(&str, Value)>) -> Event {
        let event = response_event(kind, self.sequence, fields);
        self.sequence += 1;
        event
    }

    fn response(
        &self,
        status: &str,
        output: bool,
        error: Value,
        incomplete_details: Value,
        usage: Value,
    ) -> Value {
        let mut response = Map::new();
        let mut put = |key: &str, value: Value| {
            response.insert(key.to_owned(), value);
        };
        put(
            "id",
            self.response_id.clone().map_or(Value::Null, Value::from),
        );
        put("object", "response".into());
        put("created_at", self.created_at.clone().unwrap_or(Value::Null));
        put("status", status.into());
        put("error", error);
        put("incomplete_details", incomplete_details);
        put(
            "model",
            nonempty(self.model.as_deref()).unwrap_or("").into(),
        );
        let items = if output {
            self.output.values().cloned().collect()
        } else {
            Vec::new()
        };
        put("output", Value::Array(items));
        put("parallel_tool_calls", true.into());
        put("tool_choice", "auto".into());
        put("tools", Value::Array(Vec::new()));
        put("usage", usage);
        Value::Object(response)
    }

    fn ensure_started(&mut self, out: &mut Vec<Event>) {
        if self.started {
            return;
        }
        self.started = true;
        if self.response_id.as_deref().is_none_or(str::is_empty) {
            self.response_id = Some("resp".to_owned());
        }
        if self.created_at.is_none() {
            self.created_at = Some(now().into());
        }
        for kind in ["response.created", "response.in_progress"] {
            let response =
                self.response("in_progress", false, Value::Null, Value::Null, Value::Null);
            let event = self.event(kind, vec![("response", response)]);
            out.push(event);
        }
    }

    fn item_id(&mut self, message_id: &str) -> String {
        let uses = self.used_ids.entry(message_id.to_owned()).or_insert(0);
        let id = if *uses == 0 {
            message_id.to_owned()
        } else {
            format!("{message_id}_{uses}")
        };
        *uses += 1;
        id
    }

    fn new_item(
        &mut self,
        index: i64,
        item_type: &'static str,
        fields: Map<String, Value>,
    ) -> usize {
        self.items.push(OpenItem {
            index,
            item_type,
            fields,
            content: Vec::new(),
            summary: Vec::new(),
        });
        self.items.len() - 1
    }

    fn add_item(
        &mut self,
        item_type: &'static str,
        fields: Map<String, Value>,
        out: &mut Vec<Event>,
    ) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        let item = self.new_item(index, item_type, fields);
        let body = self.item_body(item, false);
        let event = self.event(
            "response.output_item.added",
            vec![("output_index", index.into()), ("item", body)],
        );
        out.push(event);
        item
    }

    fn item_body(&self, item: usize, done: bool) -> Value {
        let item = &self.items[item];
        let mut body = item.fields.clone();
        if done && body.contains_key("status") {
            body.insert("status".to_owned(), "completed".into());
        }
        let parts = |positions: &[usize]| -> Value {
            Value::Array(
                positions
                    .iter()
                    .map(|&part| self.parts[part].part())
                    .collect(),
            )
        };
        if item.item_type == "message" {
            let content = if done {
                parts(&item.content)
            } else {
                Value::Array(Vec::new())
            };
            body.insert("content".to_owned(), content);
        } else if item.item_type == "reasoning" {
            let summary = if done {
                parts(&item.summary)
            } else {
                Value::Array(Vec::new())
            };
            body.insert("summary".to_owned(), summary);
            if done && !item.content.is_empty() {
                body.insert("content".to_owned(), parts(&item.content));
            }
        }
        Value::Object(body)
    }

    fn block_started(&mut self, event: &Event, out: &mut Vec<Event>) {
        let (Some(message_id), Some(index)) =
            (get_str(event, "message_id"), as_int(event.get("index")))
        else {
            return;
        };
        let kind = get_str(event, "kind").unwrap_or("");
        match kind {
            "text" | "refusal" | "reasoning" => {
                let item_type = if kind == "reasoning" {
                    "reasoning"
                } else {
                    "message"
                };
                let mut existing = self
                    .open
                    .get(message_id)
                    .and_then(|items| items.get(item_type))
                    .copied();
                if let Some(signed) = existing.filter(|item| self.is_signed_and_whole(*item)) {
                    // One encrypted content an item: the next reasoning
                    // (a second signed thinking block) is another item.
                    self.item_done(signed, out);
                    if let Some(items) = self.open.get_mut(message_id) {
                        items.shift_remove(item_type);
                    }
                    existing = None;
                }
                let item = match existing {
                    Some(item) => item,
                    None => {
                        self.open.entry(message_id.to_owned()).or_default();
                        let mut fields = Map::new();
                        fields.insert("id".to_owned(), self.item_id(message_id).into());
                        fields.insert("type".to_owned(), item_type.into());
                        if item_type == "message" {
                            fields.insert("status".to_owned(), "in_progress".into());
                            fields.insert("role".to_owned(), "assistant".into());
                        }
                        let item = self.add_item(item_type, fields, out);
                        self.open[message_id].insert(item_type, item);
                        item
                    }
                };
                let summary = kind == "reasoning" && !is_falsy(event.get("summary"));
                let kind = match kind {
                    "reasoning" => "reasoning",
                    "refusal" => "refusal",
                    _ => "text",
                };
                let positions = if summary {
                    &self.items[item].summary
                } else {
                    &self.items[item].content
                };
                let position = i64::try_from(positions.len()).unwrap_or(i64::MAX);
                self.parts.push(Part::new(kind, summary, position));
                let part = self.parts.len() - 1;
                if summary {
                    self.items[item].summary.push(part);
                } else {
                    self.items[item].content.push(part);
                }
                let (item_id, output_index) = (self.items[item].id(), self.items[item].index);
                let body = self.parts[part].part();
                let added = if summary {
                    self.event(
                        "response.reasoning_summary_part.added",
                        vec![
                            ("item_id", item_id),
                            ("output_index", output_index.into()),
                            ("summary_index", position.into()),
                            ("part", body),
                        ],
                    )
                } else {
                    self.event(
                        "response.content_part.added",
                        vec![
                            ("item_id", item_id),
                            ("output_index", output_index.into()),
                            ("content_index", position.into()),
                            ("part", body),
                        ],
                    )
                };
                out.push(added);
                self.blocks
                    .insert((message_id.to_owned(), index), (item, part));
            }
            "tool_call" => {
                self.lost
                    .extend(Loss::tool_kind(PROTOCOL, event, &["custom", "mcp"]));
                let tool = get_str(event, "tool").filter(|tool| tool_item_type(tool).is_some());
                let (item_type, field, _) =
                    tool_item_type(tool.unwrap_or("function")).expect("a known tool");
                let given = nonempty(get_str(event, "call_id"));
                let call_id = given.map_or_else(|| format!("{message_id}-{index}"), str::to_owned);
                // An MCP call's item id is its call id: it has no other.
                let id = match given {
                    Some(given) if item_type == "mcp_call" => self.item_id(given),
                    _ => self.item_id(message_id),
                };
                let mut fields = Map::new();
                fields.insert("id".to_owned(), id.into());
                fields.insert("type".to_owned(), item_type.into());
                fields.insert("status".to_owned(), "in_progress".into());
                fields.insert(field.to_owned(), "".into());
                if item_type != "mcp_call" {
                    fields.insert("call_id".to_owned(), call_id.into());
                }
                let name = if is_falsy(event.get("name")) {
                    Value::from("")
                } else {
                    event["name"].clone()
                };
                fields.insert("name".to_owned(), name);
                if item_type == "mcp_call" {
                    // The API names an MCP call's server: empty where the
                    // source did not say which.
                    let server = nonempty(get_str(event, "server")).unwrap_or("");
                    fields.insert("server_label".to_owned(), server.into());
                }
                let item = self.add_item(item_type, fields, out);
                self.parts.push(Part::new("tool_call", false, 0));
                let part = self.parts.len() - 1;
                self.blocks
                    .insert((message_id.to_owned(), index), (item, part));
            }
            "tool_result" => {
                let mut fields = Map::new();
                fields.insert("id".to_owned(), self.item_id(message_id).into());
                fields.insert("type".to_owned(), "function_call_output".into());
                let call_id = nonempty(get_str(event, "call_id")).unwrap_or("");
                fields.insert("call_id".to_owned(), call_id.into());
                fields.insert("output".to_owned(), "".into());
                fields.insert("status".to_owned(), "in_progress".into());
                // Added when it finishes, whole.
                let item = self.new_item(-1, "function_call_output", fields);
                self.parts.push(Part::new("tool_result", false, 0));
                let part = self.parts.len() - 1;
                self.blocks
                    .insert((message_id.to_owned(), index), (item, part));
            }
            // Media and data have no place in a Response.
            other => self.lost.push(Loss::block(PROTOCOL, other)),
        }
    }

    fn block_delta(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(&(item, part)) = block_key(event).and_then(|key| self.blocks.get(&key)) else {
            return;
        };
        let Some(delta) = event
            .get("delta")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        else {
            return;
        };
        match &mut self.parts[part].value {
            PartValue::Text(text) => text.push_str(delta),
            PartValue::Whole(_) => return, // a tool output replaced by content parts: written whole
        }
        let (item_id, output_index) = (self.items[item].id(), self.items[item].index);
        let part = &self.parts[part];
        let position = part.position;
        let emitted = match part.kind {
            "tool_call" => {
                let tool = tool_item(self.items[item].item_type)
                    .expect("a tool item")
                    .0;
                let prefix = tool_item_type(tool).expect("a known tool").2;
                self.event(
                    &format!("{prefix}.delta"),
                    vec![
                        ("item_id", item_id),
                        ("output_index", output_index.into()),
                        ("delta", delta.into()),
                    ],
                )
            }
            "reasoning" if part.summary => self.event(
                "response.reasoning_summary_text.delta",
                vec![
                    ("item_id", item_id),
                    ("output_index", output_index.into()),
                    ("summary_index", position.into()),
                    ("delta", delta.into()),
                ],
            ),
            "text" | "refusal" | "reasoning" => {
                let kind = match part.kind {
                    "text" => "response.output_text.delta",
                    "refusal" => "response.refusal.delta",
                    _ => "response.reasoning_text.delta",
                };
                let mut fields = vec![
                    ("item_id", item_id),
                    ("output_index", output_index.into()),
                    ("content_index", position.into()),
                    ("delta", delta.into()),
                ];
                if part.kind == "text" {
                    fields.push(("logprobs", Value::Array(Vec::new())));
                }
                self.event(kind, fields)
            }
            _ => return,
        };
        out.push(emitted);
    }

    fn block_replaced(&mut self, event: &Event, out: &mut Vec<Event>) {
        let Some(&(item, part)) = block_key(event).and_then(|key| self.blocks.get(&key)) else {
            return;
        };
        let kind = self.parts[part].kind;
        if let Some(field) = appended_field(kind) {
            match event.get(field) {
                Some(Value::String(text)) => self.parts[part].value = PartValue::Text(text.clone()),
                Some(value @ (Value::Null | Value::Array(_)))
                    if kind == "tool_result" && is_input_content(value) =>
                {
                    // Content parts: written whole.
                    self.parts[part].value = PartValue::Whole(value.clone());
                }
                // A tool's output is text or input content parts: any other value as its JSON.
                Some(value) if kind == "tool_result" => {
                    let text = to_text(value);
                    // Once a block: the same value again is the same text.
                    if !matches!(&self.parts[part].value, PartValue::Text(written) if *written == text)
                    {
                        self.lost.push(Loss::result_as_json(PROTOCOL));
                    }
                    self.parts[part].value = PartValue::Text(text);
                }
                _ => {}
            }
        }
        if let (Some(Value::Array(annotations)), "text") = (get(event, "annotations"), kind) {
            let (item_id, output_index) = (self.items[item].id(), self.items[item].index);
            // The API's kinds of annotation are written; another protocol's
            // (a citation of a document's characters, say) has no place.
            let seen = self.parts[part].seen_annotations;
            let mut foreign = false;
            for annotation in annotations.iter().skip(seen) {
                let kind = annotation.get("type").and_then(Value::as_str);
                if !kind.is_some_and(|kind| ANNOTATION_TYPES.contains(&kind)) {
                    foreign = true;
                    continue;
                }
                self.parts[part].annotations.push(annotation.clone());
                let position = self.parts[part].position;
                let annotation_index = self.parts[part].annotations.len() - 1;
                let added = self.event(
                    "response.output_text.annotation.added",
                    vec![
                        ("item_id", item_id.clone()),
                        ("output_index", output_index.into()),
                        ("content_index", position.into()),
                        ("annotation_index", annotation_index.into()),
                        ("annotation", annotation.clone()),
                    ],
                );
                out.push(added);
            }
            if foreign {
                self.lost.push(Loss::annotations(PROTOCOL));
            }
            let part = &mut self.parts[part];
            part.seen_annotations = part.seen_annotations.max(annotations.len());
        }
        if let Some(encrypted) = get_str(event, "encrypted") {
            let reasoning = self.items[item].item_type == "reasoning";
            let fields = &mut self.items[item].fields;
            // Only a reasoning item has encrypted content, and one: a text's
            // or a tool call's signature, or a second one of the item's
            // reasoning (its blocks still open), has no place.
            let carried = reasoning
                && fields
                    .get("encrypted_content")
                    .is_none_or(|kept| kept.as_str() == Some(encrypted));
            if carried {
                fields.insert("encrypted_content".to_owned(), encrypted.into());
            } else if reasoning {
                self.lost.push(Loss::signature(PROTOCOL));
            } else {
                self.lost.push(Loss::block_signature(PROTOCOL, kind));
            }
        }
    }

    /// Whether a reasoning item has its encrypted content and no block
    /// still open: nothing more can be written to it.
    fn is_signed_and_whole(&self, item: usize) -> bool {
        self.items[item].item_type == "reasoning"
            && self.items[item].fields.contains_key("encrypted_content")
            && !self.blocks.values().any(|(open, _)| *open == item)
    }

    fn block_finished(&mut self, key: &(String, i64), out: &mut Vec<Event>) {
        let Some((item, part)) = self.blocks.shift_remove(key) else {
            return;
        };
        let (item_id, output_index) = (self.items[item].id(), self.items[item].index);
        let part = self.parts[part].clone();
        let position = part.position;
        match part.kind {
            "tool_call" => {
                let (tool, field) = tool_item(self.items[item].item_type).expect("a tool item");
                let prefix = tool_item_type(tool).expect("a known tool").2;
                let value = part.text().to_owned();
                self.items[item]
                    .fields
                    .insert(field.to_owned(), value.as_str().into());
                let done = self.event(
                    &format!("{prefix}.done"),
                    vec![
                        ("item_id", item_id),
                        ("output_index", output_index.into()),
                        (field, value.into()),
                    ],
                );
                out.push(done);
                self.item_done(item, out);
            }
            "tool_result" => {
                let output = match part.value {
                    PartValue::Text(text) => Value::String(text),
                    PartValue::Whole(value) => value,
                };
                self.items[item].fields.insert("output".to_owned(), output);
                let index = self.next_index;
                self.next_index += 1;
                self.items[item].index = index;
                let body = Value::Object(self.items[item].fields.clone());
                let added = self.event(
                    "response.output_item.added",
                    vec![("output_index", index.into()), ("item", body)],
                );
                out.push(added);
                self.item_done(item, out);
            }
            "reasoning" if part.summary => {
                let done = self.event(
                    "response.reasoning_summary_text.done",
                    vec![
                        ("item_id", item_id.clone()),
                        ("output_index", output_index.into()),
                        ("summary_index", position.into()),
                        ("text", part.text().into()),
                    ],
                );
                out.push(done);
                let done = self.event(
                    "response.reasoning_summary_part.done",
                    vec![
                        ("item_id", item_id),
                        ("output_index", output_index.into()),
                        ("summary_index", position.into()),
                        ("part", part.part()),
                    ],
                );
                out.push(done);
            }
            kind => {
                let mut fields = vec![
                    ("item_id", item_id.clone()),
                    ("output_index", output_index.into()),
                    ("content_index", position.into()),
                ];
                let done_kind = match kind {
                    "refusal" => {
                        fields.push(("refusal", part.text().into()));
                        "response.refusal.done"
                    }
                    "reasoning" => {
                        fields.push(("text", part.text().into()));
                        "response.reasoning_text.done"
                    }
                    _ => {
                        fields.push(("text", part.text().into()));
                        fields.push(("logprobs", Value::Array(Vec::new())));
                        "response.output_text.done"
                    }
                };
                let done = self.event(done_kind, fields);
                out.push(done);
                let done = self.event(
                    "response.content_part.done",
                    vec![
                        ("item_id", item_id),
                        ("output_index", output_index.into()),
                        ("content_index", position.into()),
                        ("part", part.part()),
                    ],
                );
                out.push(done);
            }
        }
    }

    fn item_done(&mut self, item: usize, out: &mut Vec<Event>) {
        let body = self.item_body(item, true);
        let index = self.items[item].index;
        self.output.insert(index, body.clone());
        let done = self.event(
            "response.output_item.done",
            vec![("output_index", index.into()), ("item", body)],
        );
        out.push(done);
    }

    fn close_message(&mut self, message_id: &str, out: &mut Vec<Event>) {
        let keys: Vec<(String, i64)> = self
            .blocks
            .keys()
            .filter(|key| key.0 == message_id)
            .cloned()
            .collect();
        for key in keys {
            self.block_finished(&key, out);
        }
        if let Some(items) = self.open.shift_remove(message_id) {
            for item in items.into_values() {
                self.item_done(item, out);
            }
        }
    }

    fn close_all(&mut self, out: &mut Vec<Event>) {
        let mut message_ids: IndexMap<String, ()> = IndexMap::default();
        for key in self.blocks.keys() {
            message_ids.entry(key.0.clone()).or_default();
        }
        for message_id in self.open.keys() {
            message_ids.entry(message_id.clone()).or_default();
        }
        for message_id in message_ids.keys() {
            self.close_message(message_id, out);
        }
    }

    /// The run's usage as the API writes one; a usage it cannot be is a loss.
    fn usage(&mut self, event: &Event) -> Value {
        match get(event, "usage") {
            Some(Value::Object(usage)) => match usage_to_responses(usage) {
                Some(written) => Value::Object(written),
                None => {
                    if !usage.is_empty() {
                        self.lost.push(Loss::partial_usage(
                            PROTOCOL,
                            "input_tokens and output_tokens",
                        ));
                    }
                    Value::Null
                }
            },
            _ => Value::Null,
        }
    }

    fn run_finished(&mut self, event: &Event, out: &mut Vec<Event>) {
        self.close_all(out);
        let usage = self.usage(event);
        // Why the run stopped, where the API has a word for it: the run's
        // reason, else its last message's.
        let held = self.stop_reason.take();
        let run_reason = get_str(event, "stop_reason");
        let (said, lost) = STOP_WORDS.translate(PROTOCOL, run_reason);
        self.lost.extend(lost);
        let reason = said.or_else(|| held.as_deref().and_then(|held| STOP_WORDS.word(held)));
        let status = event.get("status");
        let stopped = match status {
            Some(Value::String(status)) => {
                ["incomplete", "cancelled", "interrupted"].contains(&status.as_str())
            }
            _ => false,
        };
        let finished = if stopped {
            let status = get_str(event, "status").expect("a status");
            let shown = if status == "cancelled" {
                "cancelled"
            } else {
                "incomplete"
            };
            self.lost
                .extend(Loss::status(PROTOCOL, Some(status), shown));
            // Why, where the API has a word for it (a cancelled response has
            // none): the run's reason, else its last message's.
            let details = if shown == "cancelled" {
                Value::Null
            } else {
                let mut details = Map::new();
                details.insert("reason".to_owned(), reason.map_or(Value::Null, Value::from));
                Value::Object(details)
            };
            let response = self.response(shown, true, Value::Null, details, usage);
            self.event("response.incomplete", vec![("response", response)])
        } else {
            let response = self.response("completed", true, Value::Null, Value::Null, usage);
            self.event("response.completed", vec![("response", response)])
        };
        out.push(finished);
        self.finished = true;
        // What the response does not say: any reason, where it is not
        // incomplete; the message's beside the run's own.
        let says_why = stopped && status.and_then(Value::as_str) != Some("cancelled");
        let held_unsaid = !says_why
            || (said.is_some() && held.as_deref().and_then(|held| STOP_WORDS.word(held)) != said);
        if held_unsaid {
            self.lost
                .extend(stop_reasons::loss(PROTOCOL, held.as_deref()));
        }
        if !says_why && said.is_some() {
            self.lost.extend(stop_reasons::loss(PROTOCOL, run_reason));
        }
    }

    /// The items a failed run left open, as far as they got, in its
    /// output with status `incomplete`: a client reading only the failed
    /// response keeps the partial text and arguments.
    fn keep_unfinished(&mut self) {
        let mut unfinished: Vec<(i64, Value)> = Vec::new();
        for items in self.open.values() {
            for &item in items.values() {
                let mut body = self.item_body(item, true);
                if let Value::Object(fields) = &mut body {
                    if fields.contains_key("status") {
                        fields.insert("status".to_owned(), "incomplete".into());
                    }
                }
                unfinished.push((self.items[item].index, body));
            }
        }
        for &(item, part) in self.blocks.values() {
            let (item, part) = (&self.items[item], &self.parts[part]);
            if part.kind != "tool_call" {
                continue;
            }
            let (_, field) = tool_item(item.item_type).expect("a tool item");
            let mut fields = item.fields.clone();
            fields.insert(field.to_owned(), part.text().into());
            fields.insert("status".to_owned(), "incomplete".into());
            unfinished.push((item.index, Value::Object(fields)));
        }
        self.output.extend(unfinished);
    }

    fn run_failed(&mut self, event: &Event, out: &mut Vec<Event>) {
        let mut error = Map::new();
        // A response's error code is one of the API's own: another's is its
        // code of that kind (a throttle is `rate_limit_exceeded`), or else a
        // server error.
        let (code, lost) = ERROR_CODES.write(PROTOCOL, get_str(event, "code"));
        self.lost.extend(lost);
        error.insert("code".to_owned(), code.into());
        let message = get_str(event, "message").unwrap_or("");
        error.insert("message".to_owned(), message.into());
        let usage = self.usage(event);
        self.keep_unfinished();
        let response = self.response("failed", true, Value::Object(error), Value::Null, usage);
        let failed = self.event("response.failed", vec![("response", response)]);
        out.push(failed);
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

    fn encode(&mut self, event: &Event, out: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        let kind = get_str(event, "type").unwrap_or("");
        if kind == "run_started" && !self.started {
            if self.response_id.as_deref().is_none_or(str::is_empty) {
                self.response_id = get_str(event, "run_id").map(str::to_owned);
            }
            if self.model.as_deref().is_none_or(str::is_empty) {
                self.model = get_str(event, "model").map(str::to_owned);
            }
            if self.created_at.is_none() {
                self.created_at = get(event, "created_at").cloned();
            }
        }
        self.ensure_started(out);
        match kind {
            "message_finished" => {
                // An item has no usage: only the response.
                self.lost.extend(Loss::usage(PROTOCOL, event));
                // The response says why of its last message only (and only
                // when it is incomplete): an earlier message's reason has no
                // place.
                let held = self.stop_reason.take();
                self.lost
                    .extend(stop_reasons::loss(PROTOCOL, held.as_deref()));
                let reason = get_str(event, "stop_reason");
                let (word, lost) = STOP_WORDS.translate(PROTOCOL, reason);
                self.lost.extend(lost);
                self.stop_reason = word.and(reason).map(str::to_owned);
                if let Some(message_id) = get_str(event, "message_id") {
                    self.close_message(message_id, out);
                }
            }
            "block_started" => self.block_started(event, out),
            "block_delta" => self.block_delta(event, out),
            "block_replaced" => self.block_replaced(event, out),
            "block_finished" => {
                if let Some(key) = block_key(event) {
                    self.block_finished(&key, out);
                }
            }
            "run_finished" => self.run_finished(event, out),
            "run_failed" => self.run_failed(event, out),
            "passthrough" => {
                if let (Some(PROTOCOL), Some(Value::Object(inner))) =
                    (get_str(event, "protocol"), event.get("event"))
                {
                    let mut copy = inner.clone();
                    copy.insert("sequence_number".to_owned(), self.sequence.into());
                    self.sequence += 1;
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
        frame_sse(out, sse_field(event.get("type")), None, event);
    }

    fn write_delta(
        &mut self,
        message_id: &str,
        index: i64,
        delta: &str,
        out: &mut Vec<u8>,
    ) -> bool {
        if self.finished {
            return true; // nothing follows the end
        }
        if !self.started {
            return false; // response.created comes first
        }
        if delta.is_empty() {
            return true; // an empty delta says nothing
        }
        let Some(&(item, part)) = self.blocks.get(&BlockRef(message_id, index)) else {
            return true;
        };
        let (part, item) = (&mut self.parts[part], &self.items[item]);
        match &mut part.value {
            PartValue::Text(text) => text.push_str(delta),
            PartValue::Whole(_) => return true,
        }
        if part.framing.is_empty() && !part.write_framing(item) {
            return true; // a tool result is written whole, when it finishes
        }
        // What frame() writes for the event block_delta() builds: the part's
        // framing around the two values that change.
        let (head, tail) = part.framing.split_at(part.framing_split);
        out.reserve(part.framing.len() + delta.len() + 40);
        out.extend_from_slice(head);
        write_int(out, self.sequence);
        out.extend_from_slice(tail);
        write_string(out, delta);
        if part.kind == "text" {
            out.extend_from_slice(b",\"logprobs\":[]}\n\n");
        } else {
            out.extend_from_slice(b"}\n\n");
        }
        self.sequence += 1;
        true
    }
}
