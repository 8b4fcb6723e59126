//! Assembling a Bedrock ConverseStream into the response Converse gives the
//! same request. `python/agentcodec/_pure/bedrock/assembler.py` mirrors
//! this module rule for rule.
//!
//! Each event is one member of `ConverseStreamOutput`, as botocore gives it
//! (`{"contentBlockDelta": {...}}`). `messageStart` gives the message's
//! role; `contentBlockStart` a tool use's id and name; `contentBlockDelta`
//! appends text, a tool use's input, reasoning text, or sets a reasoning
//! signature or redacted content (any other delta kind is kept as it came,
//! a list extending the one held); `contentBlockStop` parses a tool use's
//! input (kept as it came when it is not JSON: until then it is `{}`, as
//! Converse's start gives it); `messageStop` and `metadata` give the
//! response's other fields (the `p` field the service pads every event
//! with is no part of them). The content is the blocks in the order of their
//! index. An exception (`throttlingException`, ...) or an error message is
//! the run's error: kept in the response under its name and recorded, with
//! what came before it intact.

use std::collections::BTreeMap;

use super::probe;
use super::EVENTS;
use crate::framing::Kind;
use crate::hashing::IndexMap;
use crate::json::{self, kind, Map, Value};
use crate::json_probe::{Obj, Scalar};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

/// Fields in the order they first came.
type Fields = IndexMap<String, Value>;

/// The field the service pads each event's JSON with: no part of the event.
pub const PADDING: &str = "p";

/// The events about one content block, by its `contentBlockIndex`.
const BLOCK_EVENTS: [&str; 3] = ["contentBlockStart", "contentBlockDelta", "contentBlockStop"];

/// Assembles a Bedrock ConverseStream into the response Converse gives.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Bedrock>,
}

#[derive(Debug, Clone, Default)]
pub struct Bedrock {
    /// The response's fields in the order the events first gave them
    /// (`output` holds null: the message is below).
    response: Fields,
    role: Option<Value>,
    blocks: BTreeMap<i64, Block>,
}

/// A content block so far: its fields, and a tool use's input while it streams.
#[derive(Debug, Clone, Default)]
struct Block {
    fields: Fields,
    input: Option<String>,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.response()
    }
}

crate::stream::assemble_with_driver!(Assembler, Bedrock);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                Bedrock::default(),
                options.limits,
                options.on_error,
                super::PROTOCOL.subject,
            ),
        }
    }

    /// The response so far.
    pub fn response(&self) -> Value {
        let state = &self.driver.protocol;
        let mut response = Map::new();
        for (key, value) in &state.response {
            if key != "output" {
                response.insert(key.clone(), value.clone());
                continue;
            }
            let mut message = Map::new();
            if let Some(role) = &state.role {
                message.insert("role".to_owned(), role.clone());
            }
            let content = state.blocks.values().map(Block::render).collect();
            message.insert("content".to_owned(), Value::Array(content));
            let mut output = Map::new();
            output.insert("message".to_owned(), Value::Object(message));
            response.insert(key.clone(), Value::Object(output));
        }
        Value::Object(response)
    }
}

impl Block {
    fn render(&self) -> Value {
        let mut out: Map<String, Value> = self
            .fields
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if self.input.is_some() {
            // Still streaming: the input is what the start gave.
            if let Some(Value::Object(tool)) = out.get_mut("toolUse") {
                tool.insert("input".to_owned(), Value::Object(Map::new()));
            }
        }
        Value::Object(out)
    }

    fn start(&mut self, start: Map<String, Value>) {
        for (kind, value) in start {
            match (kind.as_str(), value) {
                ("toolUse", Value::Object(given)) => {
                    let tool = object_at(&mut self.fields, "toolUse");
                    for (key, item) in given {
                        tool.insert(key, item);
                    }
                    if !tool.contains_key("input") {
                        tool.insert("input".to_owned(), Value::Object(Map::new()));
                    }
                }
                (_, value) => {
                    self.fields.insert(kind, value);
                }
            }
        }
    }

    fn delta(&mut self, delta: Map<String, Value>) {
        for (kind, value) in delta {
            match (kind.as_str(), value) {
                ("text", Value::String(piece)) => append(&mut self.fields, "text", &piece),
                ("toolUse", Value::Object(given)) => {
                    let tool = object_at(&mut self.fields, "toolUse");
                    if let Some(Value::String(piece)) = given.get("input") {
                        if !tool.contains_key("input") {
                            tool.insert("input".to_owned(), Value::Null);
                        }
                        self.input.get_or_insert_with(String::new).push_str(piece);
                    }
                }
                ("reasoningContent", Value::Object(given)) => {
                    let reasoning = object_at(&mut self.fields, "reasoningContent");
                    for (field, item) in given {
                        match (field.as_str(), item) {
                            ("text", Value::String(piece)) => {
                                let text = object_in(reasoning, "reasoningText");
                                match text.get_mut("text") {
                                    Some(Value::String(held)) => held.push_str(&piece),
                                    _ => {
                                        text.insert("text".to_owned(), Value::String(piece));
                                    }
                                }
                            }
                            ("signature", item) => {
                                object_in(reasoning, "reasoningText").insert(field, item);
                            }
                            (_, item) => {
                                reasoning.insert(field, item);
                            }
                        }
                    }
                }
                (_, value) => match (self.fields.get_mut(&kind), value) {
                    (Some(Value::Array(held)), Value::Array(items)) => held.extend(items),
                    (_, value) => {
                        self.fields.insert(kind, value);
                    }
                },
            }
        }
    }

    /// Parses a tool use's input once, when its block stops.
    fn stop(&mut self) {
        let Some(text) = self.input.take() else {
            return;
        };
        let value = crate::json::parse(&text).unwrap_or(Value::String(text));
        if let Some(Value::Object(tool)) = self.fields.get_mut("toolUse") {
            tool.insert("input".to_owned(), value);
        }
    }
}

/// The object held at `key`, made (or made over) where none is.
fn object_at<'a>(fields: &'a mut Fields, key: &str) -> &'a mut Map<String, Value> {
    let held = fields.entry(key.to_owned()).or_insert(Value::Null);
    if !held.is_object() {
        *held = Value::Object(Map::new());
    }
    match held {
        Value::Object(map) => map,
        _ => unreachable!("just made an object"),
    }
}

fn object_in<'a>(fields: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let held = fields.entry(key.to_owned()).or_insert(Value::Null);
    if !held.is_object() {
        *held = Value::Object(Map::new());
    }
    match held {
        Value::Object(map) => map,
        _ => unreachable!("just made an object"),
    }
}

fn append(fields: &mut Fields, key: &str, piece: &str) {
    match fields.get_mut(key) {
        Some(Value::String(held)) => held.push_str(piece),
        _ => {
            fields.insert(key.to_owned(), Value::String(piece.to_owned()));
        }
    }
}

impl Protocol for Bedrock {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::EventStream)
    }

    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    /// The quick path: a piece of text for a text block held, applied from a
    /// probe, without a `Value` tree. False, having changed nothing, for any
    /// other event (the full path gives the same for it).
    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some(event) = probe::Event::parse(text) else {
            return false;
        };
        let Some(Obj(Some(delta))) = &event.delta else {
            return false;
        };
        let Some(Obj(Some(piece))) = &delta.delta else {
            return false;
        };
        let Some(index) = delta.index.as_ref().and_then(Scalar::as_i64) else {
            return false;
        };
        if index < 0
            || event.other
            || delta.other
            || piece.other
            || json::field(&self.response, "output").is_none()
        {
            return false;
        }
        let Some(block) = self.blocks.get_mut(&index) else {
            return false;
        };
        // One kind of piece, in a block that holds it already.
        let (Ok(reasoning), Ok(tool)) = (
            sole_text(&piece.reasoning, |inner| (&inner.text, &inner.input)),
            sole_text(&piece.tool, |inner| (&inner.input, &inner.text)),
        ) else {
            return false;
        };
        let held = match (&piece.text, reasoning, tool) {
            (Some(Scalar::Str(text)), None, None) => {
                match json::field_mut(&mut block.fields, "text") {
                    Some(Value::String(held)) => Some((held, text.clone())),
                    _ => None,
                }
            }
            (None, Some(text), None) => {
                match json::field_mut(&mut block.fields, "reasoningContent") {
                    Some(Value::Object(reasoning)) => {
                        match json::field_mut(reasoning, "reasoningText") {
                            Some(Value::Object(said)) => match json::field_mut(said, "text") {
                                Some(Value::String(held)) => Some((held, text)),
                                _ => None,
                            },
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            (None, None, Some(input)) => block.input.as_mut().map(|held| (held, input)),
            _ => None,
        };
        match held {
            Some((held, text)) => {
                held.push_str(&text);
                true
            }
            None => false,
        }
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, event);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        usize::from(self.response.contains_key("output"))
    }

    fn block_count(&self) -> usize {
        self.blocks.len()
    }

    fn finish(&mut self) {
        // A stream cut short: the input of a tool use that never stopped is
        // what came of it, parsed where it can be.
        for block in self.blocks.values_mut() {
            block.stop();
        }
    }
}

/// The one string a probed `reasoningContent` or `toolUse` holds (`Ok(None)`
/// when the delta has none): `pick` gives the field wanted and the one that
/// must be absent. `Err` for any other shape, which the full path takes.
fn sole_text<'a, 'p>(
    given: &'p Option<Obj<probe::Inner<'a>>>,
    pick: impl Fn(&'p probe::Inner<'a>) -> (&'p Option<Scalar<'a>>, &'p Option<Scalar<'a>>),
) -> Result<Option<std::borrow::Cow<'a, str>>, ()> {
    match given {
        None => Ok(None),
        Some(Obj(Some(inner))) if !inner.other => match pick(inner) {
            (Some(Scalar::Str(text)), None) => Ok(Some(text.clone())),
            _ => Err(()),
        },
        _ => Err(()),
    }
}

/// Refuses an event whose parts are of another type than the model's.
fn check(event: &Map<String, Value>) -> Result<(), Bad> {
    for (key, value) in event {
        if !EVENTS.contains(&key.as_str()) {
            continue;
        }
        let Value::Object(value) = value else {
            return bad(format!("its {key} is {}, not an object", kind(value)));
        };
        if BLOCK_EVENTS.contains(&key.as_str()) {
            match value.get("contentBlockIndex") {
                Some(Value::Number(number)) if number.as_i64().is_some_and(|index| index >= 0) => {}
                other => {
                    let kind = other.map_or("JSON null", kind);
                    return bad(format!(
                        "its {key}.contentBlockIndex is {kind}, not an index"
                    ));
                }
            }
        }
        for field in ["start", "delta"] {
            match value.get(field) {
                None | Some(Value::Null | Value::Object(_)) => {}
                Some(other) => {
                    return bad(format!(
                        "its {key}.{field} is {}, not an object",
                        kind(other)
                    ))
                }
            }
        }
        if let Some(Value::Object(delta)) = value.get("delta") {
            check_delta(key, delta)?;
        }
    }
    Ok(())
}

fn check_delta(key: &str, delta: &Map<String, Value>) -> Result<(), Bad> {
    match delta.get("text") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(other) => {
            return bad(format!(
                "its {key}.delta.text is {}, not a string",
                kind(other)
            ))
        }
    }
    for (part_kind, fields) in [
        ("toolUse", &["input"][..]),
        (
            "reasoningContent",
            &["text", "signature", "redactedContent"][..],
        ),
    ] {
        let part = match delta.get(part_kind) {
            None | Some(Value::Null) => continue,
            Some(Value::Object(part)) => part,
            Some(other) => {
                return bad(format!(
                    "its {key}.delta.{part_kind} is {}, not an object",
                    kind(other)
                ))
            }
        };
        for field in fields {
            match part.get(*field) {
                None | Some(Value::Null | Value::String(_)) => {}
                Some(other) => {
                    return bad(format!(
                        "its {key}.delta.{part_kind}.{field} is {}, not a string",
                        kind(other)
                    ))
                }
            }
        }
    }
    Ok(())
}

impl Bedrock {
    fn apply(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Bad> {
        for (key, value) in &event {
            if let Some((code, message)) = super::error_of(key, value) {
                log.record(ErrorRecord {
                    event: log.events,
                    code,
                    message: Some(message),
                });
            }
        }
        check(&event)?;
        for (key, value) in event {
            let is_block = BLOCK_EVENTS.contains(&key.as_str());
            match (key.as_str(), value) {
                ("messageStart", Value::Object(value)) => {
                    self.response
                        .entry("output".to_owned())
                        .or_insert(Value::Null);
                    if let Some(role) = value.get("role") {
                        self.role = (!role.is_null()).then(|| role.clone());
                    }
                }
                (_, Value::Object(mut value)) if is_block => {
                    self.response
                        .entry("output".to_owned())
                        .or_insert(Value::Null);
                    let index = value
                        .get("contentBlockIndex")
                        .and_then(Value::as_i64)
                        .expect("checked above");
                    let block = self.blocks.entry(index).or_default();
                    match key.as_str() {
                        "contentBlockStart" => {
                            if let Some(Value::Object(start)) = value.remove("start") {
                                block.start(start);
                            }
                        }
                        "contentBlockDelta" => {
                            if let Some(Value::Object(delta)) = value.remove("delta") {
                                block.delta(delta);
                            }
                        }
                        _ => block.stop(),
                    }
                }
                ("messageStop" | "metadata", Value::Object(value)) => {
                    for (field, item) in value {
                        if field != PADDING {
                            self.response.insert(field, item);
                        }
                    }
                }
                (_, value) => {
                    self.response.insert(key, value);
                }
            }
        }
        Ok(())
    }
}
