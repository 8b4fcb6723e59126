//! Assembling an Anthropic Messages stream into its Message.
//! `python/agentcodec/_pure/anthropic/assembler.py` mirrors this module rule for rule.
//!
//! The state is the message of `message_start` and its content blocks, each
//! addressed by its `index` (the SDK addresses them by list position, which
//! only agrees while a server numbers them from 0 without gaps). Deltas
//! follow anthropic-sdk-python's `accumulate_event`: text and thinking
//! append, `signature_delta` sets the signature, `citations_delta` adds a
//! citation, `message_delta` sets the stop reason and overwrites the
//! cumulative usage. A tool block's `input_json_delta` fragments are kept
//! and parsed once, when the block stops (the SDK re-parses the whole input
//! on every fragment, which is quadratic); until then its `input` is what
//! `content_block_start` gave. Where the SDK drops a delta silently (a
//! `text_delta` to a thinking block, a delta to a block that never
//! started), this is an event error.

use super::probe;
use super::TOOL_BLOCKS;
use crate::events::or_null;
use crate::hashing::HashMap;
use crate::json::{self, Map, Value};
use crate::stream::{bad, Assemble, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};
use crate::tool_calls::{Arguments, ToolCall, ToolCalls};

/// The message's fields set by every `message_delta`, as the SDK sets them.
const STOP_FIELDS: [&str; 3] = ["stop_reason", "stop_sequence", "stop_details"];

/// Assembles an Anthropic Messages stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Messages>,
}

#[derive(Debug, Clone)]
struct Block {
    index: i64,
    value: Map<String, Value>,
    stopped: bool,
    /// A tool block's input fragments, until they parse.
    input: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Messages {
    /// The message's fields; `None` before `message_start`.
    message: Option<Map<String, Value>>,
    blocks: Vec<Block>,
    /// Block index -> position.
    at: HashMap<i64, usize>,
    kept: Vec<Value>,
    /// `message_stop` came: the stream is over.
    done: bool,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.message()
    }
}

crate::stream::assemble_with_driver!(Assembler, Messages);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                Messages::default(),
                options.limits,
                options.on_error,
                "Anthropic Messages event",
            ),
        }
    }

    /// The Message so far: the fields of `message_start`, updated by
    /// `message_delta`, with its content blocks.
    pub fn message(&self) -> Value {
        let state = &self.driver.protocol;
        let mut content: Vec<Value> = state
            .blocks
            .iter()
            .map(|block| Value::Object(block.value.clone()))
            .collect();
        let mut message = Map::new();
        match &state.message {
            Some(fields) => {
                for (key, value) in fields {
                    if key == "content" {
                        let content = std::mem::take(&mut content);
                        message.insert(key.clone(), Value::Array(content));
                    } else {
                        message.insert(key.clone(), value.clone());
                    }
                }
            }
            None => {
                message.insert("type".to_owned(), "message".into());
                message.insert("role".to_owned(), "assistant".into());
                message.insert("content".to_owned(), Value::Array(content));
            }
        }
        Value::Object(message)
    }

    /// Every tool block (`tool_use`, `server_tool_use`, `mcp_tool_use`):
    /// `index`, `id`, `type` and `name`, and its `input`: the JSON text of
    /// its `input_json_delta` fragments, or, before the first and once it
    /// parsed at the stop, the value. A block is finished once it stopped
    /// or the stream ended.
    pub fn tool_calls(&self) -> ToolCalls<'_> {
        let ended = self.driver.protocol.done || self.is_closed();
        let mut calls = Vec::new();
        for (position, block) in self.driver.protocol.blocks.iter().enumerate() {
            let Some(kind) = block.value.get("type").and_then(Value::as_str) else {
                continue;
            };
            if !TOOL_BLOCKS.contains(&kind) {
                continue;
            }
            let mut fields = Map::new();
            fields.insert("index".to_owned(), block.index.into());
            fields.insert("id".to_owned(), or_null(block.value.get("id")));
            fields.insert("type".to_owned(), kind.into());
            fields.insert("name".to_owned(), or_null(block.value.get("name")));
            let arguments = match (&block.input, block.value.get("input")) {
                (Some(raw), _) => Some(Arguments::Text(raw)),
                (None, None) => None,
                (None, Some(value)) => Some(Arguments::Value(value)),
            };
            calls.push(ToolCall {
                key: position.to_string().into(),
                fields,
                field: "input",
                arguments,
                finished: ended || block.stopped,
            });
        }
        ToolCalls { calls, rewrites: 0 }
    }

    /// Events kept without being assembled: the server's `error` events and
    /// events of types this version does not know.
    pub fn events(&self) -> &[Value] {
        &self.driver.protocol.kept
    }
}

impl Protocol for Messages {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some((index, kind, piece)) =
            probe::Event::read(text).and_then(probe::Event::into_append)
        else {
            return false;
        };
        self.append_quickly(index, kind, &piece)
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, event);
        log.report(applied)
    }

    /// One message a stream.
    fn message_count(&self) -> usize {
        1
    }

    fn block_count(&self) -> usize {
        self.blocks.len()
    }

    fn finish(&mut self) {
        // A stream cut short: the input of a tool block that never stopped
        // stands if it is complete.
        for block in &mut self.blocks {
            if block.stopped {
                continue;
            }
            let Some(raw) = &block.input else {
                continue;
            };
            if let Ok(value) = json::parse(raw) {
                block.value.insert("input".to_owned(), value);
                block.input = None;
            }
        }
    }
}

/// Appends a text-like delta's string to a block's field: a missing or null
/// field starts as "", any other value that is not a string is left alone.
fn append(block: &mut Map<String, Value>, field: &str, piece: &str) {
    match json::field_mut(block, field) {
        Some(Value::String(text)) => text.push_str(piece),
        None | Some(Value::Null) => {
            block.insert(field.to_owned(), piece.into());
        }
        Some(_) => {}
    }
}

/// Whether a delta type applies to a block type; `None` for a delta type
/// this version does not know.
fn fits(delta: &str, block: &str) -> Option<bool> {
    Some(match delta {
        "text_delta" | "citations_delta" => block == "text",
        "thinking_delta" | "signature_delta" => block == "thinking",
        "input_json_delta" => TOOL_BLOCKS.contains(&block),
        _ => return None,
    })
}

/// The field a delta type carries.
fn delta_field(delta: &str) -> &'static str {
    match delta {
        "text_delta" => "text",
        "thinking_delta" => "thinking",
        "signature_delta" => "signature",
        "citations_delta" => "citation",
        _ => "partial_json",
    }
}

/// The word with its indefinite article.
fn article(word: &str) -> String {
    let an = word.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {word}", if an { "an" } else { "a" })
}

fn index_of(event: &Map<String, Value>) -> Result<i64, Bad> {
    match event.get("index") {
        None | Some(Value::Null) => bad("has no index"),
        Some(value) => match value.as_i64() {
            Some(index) if !value.is_boolean() => Ok(index),
            _ => bad("has an index that is not a 64-bit integer"),
        },
    }
}

impl Messages {
    /// A text, thinking or input fragment for an open block it fits, from a
    /// probe: what the full path does for it. Returns false, having changed
    /// nothing, for anything else.
    fn append_quickly(&mut self, index: i64, kind: &str, piece: &str) -> bool {
        if self.message.is_none() || self.done {
            return false;
        }
        let Some(&position) = self.at.get(&index) else {
            return false;
        };
        let block = &mut self.blocks[position];
        if block.stopped {
            return false;
        }
        let Some(block_type) = json::field(&block.value, "type").and_then(Value::as_str) else {
            return false;
        };
        if fits(kind, block_type) != Some(true) {
            return false;
        }
        if kind == "input_json_delta" {
            if !piece.is_empty() {
                block.input.get_or_insert_with(String::new).push_str(piece);
            }
        } else {
            append(&mut block.value, delta_field(kind), piece);
        }
        true
    }

    fn open_block(&mut self, index: i64, verb: &str) -> Result<usize, Bad> {
        let Some(&position) = self.at.get(&index) else {
            return bad(format!("{verb} block {index}, which has not started"));
        };
        if self.blocks[position].stopped {
            return bad(format!("{verb} block {index}, which has stopped"));
        }
        Ok(position)
    }

    fn apply(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Bad> {
        let kind = match event.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            None | Some(Value::Null) => return bad("has no type"),
            Some(_) => return bad("has a type that is not a string"),
        };
        match kind.as_str() {
            "ping" => return Ok(()),
            "error" => {
                let (code, message) = super::error_fields(&event);
                log.record(ErrorRecord {
                    event: log.events,
                    code: code.to_owned(),
                    message: message.map(str::to_owned),
                });
                self.kept.push(Value::Object(event));
                return Ok(());
            }
            _ => {}
        }
        if self.message.is_none() {
            if kind != "message_start" {
                return bad("comes before message_start");
            }
            return self.start(event);
        }
        if self.done {
            return bad("comes after message_stop");
        }
        match kind.as_str() {
            "content_block_start" => self.block_start(event),
            "content_block_delta" => self.block_delta(&event),
            "content_block_stop" => self.block_stop(&event),
            "message_delta" => self.message_delta(event),
            "message_stop" => {
                self.done = true;
                Ok(())
            }
            "message_start" => bad("is a second message_start"),
            _ => {
                self.kept.push(Value::Object(event));
                Ok(())
            }
        }
    }

    fn start(&mut self, mut event: Map<String, Value>) -> Result<(), Bad> {
        let Some(Value::Object(message)) = event.get_mut("message") else {
            return bad("has a message that is not an object");
        };
        let content = match message.get_mut("content") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(content)) if content.iter().all(Value::is_object) => {
                std::mem::take(content)
            }
            Some(_) => return bad("has content that is not a list of objects"),
        };
        let mut fields = std::mem::take(message);
        fields.insert("content".to_owned(), Value::Null);
        self.message = Some(fields);
        for (position, block) in content.into_iter().enumerate() {
            let Value::Object(value) = block else {
                unreachable!("checked");
            };
            let index = position as i64;
            self.at.insert(index, position);
            self.blocks.push(Block {
                index,
                value,
                stopped: true,
                input: None,
            });
        }
        Ok(())
    }

    fn block_start(&mut self, mut event: Map<String, Value>) -> Result<(), Bad> {
        let index = index_of(&event)?;
        if self.at.contains_key(&index) {
            return bad(format!("starts block {index}, which has started already"));
        }
        let Some(Value::Object(block)) = event.get_mut("content_block") else {
            return bad(format!(
                "has a content_block (block {index}) that is not an object"
            ));
        };
        if !matches!(block.get("type"), Some(Value::String(_))) {
            return bad(format!(
                "has a content_block (block {index}) without a type"
            ));
        }
        self.at.insert(index, self.blocks.len());
        self.blocks.push(Block {
            index,
            value: std::mem::take(block),
            stopped: false,
            input: None,
        });
        Ok(())
    }

    fn block_delta(&mut self, event: &Map<String, Value>) -> Result<(), Bad> {
        let index = index_of(event)?;
        let position = self.open_block(index, "has a delta for")?;
        let Some(Value::Object(delta)) = event.get("delta") else {
            return bad(format!("has a delta (block {index}) that is not an object"));
        };
        let Some(kind) = delta.get("type").and_then(Value::as_str) else {
            return bad(format!("has a delta (block {index}) without a type"));
        };
        let block = &mut self.blocks[position];
        // The type was checked when the block started.
        let block_type = block
            .value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(fitting) = fits(kind, block_type) else {
            return Ok(()); // a delta this version does not know, as the SDK does
        };
        let field = delta_field(kind);
        let value = delta.get(field);
        let piece = value.and_then(Value::as_str);
        if kind != "citations_delta" && piece.is_none() {
            return bad(format!(
                "has {} (block {index}) whose {field} is not a string",
                article(kind)
            ));
        }
        if !fitting {
            return bad(format!(
                "has {} for block {index}, {} block",
                article(kind),
                article(block_type)
            ));
        }
        let piece = piece.unwrap_or("");
        match kind {
            "input_json_delta" => {
                if !piece.is_empty() {
                    block.input.get_or_insert_with(String::new).push_str(piece);
                }
            }
            "signature_delta" => {
                block.value.insert("signature".to_owned(), piece.into());
            }
            "citations_delta" => {
                let citation = or_null(value);
                match block.value.get_mut("citations") {
                    Some(Value::Array(citations)) if !citations.is_empty() => {
                        citations.push(citation)
                    }
                    _ => {
                        block
                            .value
                            .insert("citations".to_owned(), Value::Array(vec![citation]));
                    }
                }
            }
            _ => append(&mut block.value, field, piece),
        }
        Ok(())
    }

    fn block_stop(&mut self, event: &Map<String, Value>) -> Result<(), Bad> {
        let index = index_of(event)?;
        let position = self.open_block(index, "stops")?;
        let block = &mut self.blocks[position];
        if let Some(raw) = &block.input {
            let Ok(value) = json::parse(raw) else {
                return bad(format!(
                    "stops block {index}, whose input is not valid JSON"
                ));
            };
            block.value.insert("input".to_owned(), value);
            block.input = None;
        }
        block.stopped = true;
        Ok(())
    }

    fn message_delta(&mut self, mut event: Map<String, Value>) -> Result<(), Bad> {
        let delta = match event.shift_remove("delta") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(delta)) => delta,
            Some(_) => return bad("has a delta that is not an object"),
        };
        let usage = match event.shift_remove("usage") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(usage)) => usage,
            Some(_) => return bad("has usage that is not an object"),
        };
        let message = self.message.as_mut().expect("started");
        // Set by every message_delta, as the SDK does; the rest only when given.
        for key in STOP_FIELDS {
            message.insert(key.to_owned(), or_null(delta.get(key)));
        }
        for (key, value) in delta {
            if !value.is_null() && !STOP_FIELDS.contains(&key.as_str()) {
                message.insert(key, value);
            }
        }
        if !usage.is_empty() {
            // Cumulative counts: they overwrite; one left out keeps its value.
            if !matches!(message.get("usage"), Some(Value::Object(_))) {
                message.insert("usage".to_owned(), Value::Object(Map::new()));
            }
            let Some(Value::Object(held)) = message.get_mut("usage") else {
                unreachable!("just made");
            };
            for (key, value) in usage {
                if !value.is_null() {
                    held.insert(key, value);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(assembler: &mut Assembler, events: &[&str]) {
        for event in events {
            assembler
                .feed(format!("data: {event}\n\n").as_bytes())
                .unwrap();
        }
    }

    #[test]
    fn a_block_past_max_blocks_ends_the_stream_and_what_came_before_stays() {
        let mut assembler = Assembler::default();
        assembler.set_max_blocks(Some(2));
        let start =
            r#"{"type":"message_start","message":{"id":"m","role":"assistant","content":[]}}"#;
        let block = |index: usize| {
            format!(
                r#"data: {{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":"x"}}}}

"#
            )
        };
        feed(&mut assembler, &[start]);
        assembler.feed(block(0).as_bytes()).unwrap();
        assembler.feed(block(1).as_bytes()).unwrap();
        let Err(Error::Exceeded(exceeded)) = assembler.feed(block(2).as_bytes()) else {
            panic!("the third block is past the limit");
        };
        assert_eq!(
            (exceeded.limit, exceeded.maximum, exceeded.event),
            ("max_blocks", 2, 4)
        );
        assert_eq!(exceeded.detail, "it brings the stream's blocks to 3");
        // No more input, whatever it is; what was assembled stays.
        assert!(matches!(
            assembler.feed(b"data: {\"type\":\"ping\"}\n\n"),
            Err(Error::Exceeded(_))
        ));
        assembler.close().unwrap();
        assert_eq!(
            assembler.message()["content"].as_array().map(Vec::len),
            Some(3)
        );
    }

    #[test]
    fn assembles_text_and_tool_input_parsed_at_the_stop() {
        let mut assembler = Assembler::default();
        feed(
            &mut assembler,
            &[
                r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}"#,
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"He"}}"#,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"llo"}}"#,
                r#"{"type":"content_block_stop","index":0}"#,
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}"#,
            ],
        );
        assert_eq!(
            assembler.message()["content"][1]["input"],
            Value::Object(Map::new())
        );
        feed(
            &mut assembler,
            &[
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":":1}"}}"#,
                r#"{"type":"content_block_stop","index":1}"#,
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
                r#"{"type":"message_stop"}"#,
            ],
        );
        assembler.close().unwrap();
        let message = assembler.message();
        assert_eq!(message["content"][0]["text"], "Hello");
        assert_eq!(message["content"][1]["input"]["a"], 1);
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(message["usage"]["input_tokens"], 3);
        assert_eq!(message["usage"]["output_tokens"], 9);
    }

    #[test]
    fn a_delta_the_block_cannot_take_is_an_error() {
        let mut assembler = Assembler::new(Options {
            on_error: OnError::Skip,
            ..Options::default()
        });
        feed(
            &mut assembler,
            &[
                r#"{"type":"message_start","message":{"content":[]}}"#,
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
                r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}"#,
            ],
        );
        let problems: Vec<_> = assembler
            .errors()
            .iter()
            .map(|error| error.message.clone().unwrap())
            .collect();
        assert_eq!(
            problems,
            [
                "Anthropic Messages event 3 has a text_delta for block 0, a thinking block",
                "Anthropic Messages event 4 has a delta for block 3, which has not started",
            ]
        );
    }
}
