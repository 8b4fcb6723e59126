//! Assembling a LangGraph Agent Server stream (langgraph-api's
//! `/runs/stream`, any stream modes) into what the run leaves.
//! `python/agentcodec/_pure/langgraph/assembler.py` mirrors this module
//! rule for rule (its docstring says what the result holds and why).

use super::merge::{add_usage, best_id, Blocks, Content, LC_RUN_PREFIX};
use super::probe::{Adds, TextPiece};
use super::vocabulary::CHUNK_TYPES;
use super::wire::{read, Part};
use crate::article::article;
use crate::events::is_falsy;
use crate::framing::Kind;
use crate::hashing::IndexMap;
use crate::json::{self, kind, to_text, Map, Value};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

static NULL: Value = Value::Null;

/// An AI message being added up from its chunks.
#[derive(Debug, Clone)]
pub struct ChunkedMessage {
    chunks: usize,
    content: Content,
    additional_kwargs: Map<String, Value>,
    response_metadata: Map<String, Value>,
    tool_call_chunks: Blocks,
    usage_metadata: Option<Map<String, Value>>,
    id: Option<String>,
    name: Value,
}

fn object(chunk: &Map<String, Value>, key: &str) -> Map<String, Value> {
    match chunk.get(key) {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    }
}

/// Refuses a chunk whose fields are not of the types langchain-core's are.
fn check(chunk: &Map<String, Value>) -> Result<(), Bad> {
    match chunk.get("content") {
        None | Some(Value::Null | Value::String(_) | Value::Array(_)) => {}
        Some(other) => {
            return bad(format!(
                "has content that is {}, not a string or a list",
                kind(other)
            ))
        }
    }
    for key in ["additional_kwargs", "response_metadata", "usage_metadata"] {
        match chunk.get(key) {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(other) => {
                return bad(format!(
                    "has {} {key} that is {}, not an object",
                    article(key),
                    kind(other)
                ))
            }
        }
    }
    for key in ["tool_call_chunks", "tool_calls", "invalid_tool_calls"] {
        match chunk.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) if items.iter().all(Value::is_object) => {}
            Some(_) => return bad(format!("has {key} that are not a list of objects")),
        }
    }
    Ok(())
}

fn field(item: &Value, key: &str) -> Value {
    item.get(key).cloned().unwrap_or(Value::Null)
}

/// A chunk's tool-call chunks; a chunk with none but whole tool calls has
/// them as chunks, as langchain-core makes them (their arguments as JSON
/// text, no index).
fn tool_call_chunks(chunk: &Map<String, Value>) -> Vec<Value> {
    let made = |item: &Value, args: Value| {
        let mut call = Map::new();
        call.insert("name".to_owned(), field(item, "name"));
        call.insert("args".to_owned(), args);
        call.insert("id".to_owned(), field(item, "id"));
        call.insert("index".to_owned(), Value::Null);
        Value::Object(call)
    };
    if let Some(Value::Array(items)) = chunk.get("tool_call_chunks").filter(|v| !is_falsy(Some(v)))
    {
        return items
            .iter()
            .map(|item| {
                let mut call = Map::new();
                for key in ["name", "args", "id", "index"] {
                    call.insert(key.to_owned(), field(item, key));
                }
                Value::Object(call)
            })
            .collect();
    }
    let mut calls = Vec::new();
    if let Some(Value::Array(items)) = chunk.get("tool_calls") {
        for item in items {
            // (as JSON text, parsed again when the message is made)
            calls.push(made(item, Value::String(to_text(&field(item, "args")))));
        }
    }
    if let Some(Value::Array(items)) = chunk.get("invalid_tool_calls") {
        for item in items {
            calls.push(made(item, field(item, "args")));
        }
    }
    calls
}

/// A call's arguments as langchain-core's `parse_partial_json` reads them:
/// the JSON, or what its prefix holds; None when it holds nothing.
fn arguments(text: &str) -> Option<Value> {
    if let Ok(value) = crate::json::parse(text) {
        return Some(value);
    }
    let mut parser = crate::partial_json::PartialJson::default();
    let mut builder = crate::partial_json::ValueBuilder::default();
    parser.feed(text.as_bytes(), &mut builder).ok()?;
    builder.value(parser.pending())
}

impl ChunkedMessage {
    fn new(chunk: &Map<String, Value>) -> Result<ChunkedMessage, Bad> {
        check(chunk)?;
        let content = match chunk.get("content") {
            Some(Value::Array(items)) => Content::new(Value::Array(items.clone())),
            Some(Value::String(text)) => Content::Text(text.clone()),
            _ => Content::Text(String::new()),
        };
        let mut message = ChunkedMessage {
            chunks: 1,
            content,
            additional_kwargs: object(chunk, "additional_kwargs"),
            response_metadata: object(chunk, "response_metadata"),
            tool_call_chunks: Blocks::default(),
            usage_metadata: None,
            id: chunk
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map(str::to_owned),
            name: Value::Null,
        };
        message.name = chunk.get("name").cloned().unwrap_or(Value::Null);
        // (one chunk's tool-call chunks are kept as they are: only adding merges)
        message.tool_call_chunks = Blocks::from_items(tool_call_chunks(chunk));
        if let Some(Value::Object(usage)) = chunk.get("usage_metadata") {
            if !usage.is_empty() {
                message.usage_metadata = Some(usage.clone());
            }
        }
        Ok(message)
    }

    fn add(&mut self, chunk: &Map<String, Value>) -> Result<(), Bad> {
        check(chunk)?;
        self.chunks += 1;
        let content = match chunk.get("content") {
            None | Some(Value::Null) => Value::String(String::new()),
            Some(value) => value.clone(),
        };
        self.content.merge(content).map_err(Bad)?;
        super::merge::merge_dicts(
            &mut self.additional_kwargs,
            object(chunk, "additional_kwargs"),
        )
        .map_err(Bad)?;
        super::merge::merge_dicts(
            &mut self.response_metadata,
            object(chunk, "response_metadata"),
        )
        .map_err(Bad)?;
        self.tool_call_chunks
            .merge(tool_call_chunks(chunk))
            .map_err(Bad)?;
        add_usage(&mut self.usage_metadata, chunk.get("usage_metadata")).map_err(Bad)?;
        best_id(&mut self.id, chunk.get("id").and_then(Value::as_str));
        Ok(())
    }

    /// A message of one chunk (an encoder's own, which it checks).
    pub fn from_chunk(chunk: &Map<String, Value>) -> Result<ChunkedMessage, String> {
        ChunkedMessage::new(chunk).map_err(|Bad(problem)| problem)
    }

    /// Adds a chunk (an encoder's own).
    pub fn add_chunk(&mut self, chunk: &Map<String, Value>) -> Result<(), String> {
        self.add(chunk).map_err(|Bad(problem)| problem)
    }

    /// The quick path's chunk: a piece of text and nothing else (its
    /// provider's name, if any, the one held), added as `add` would; false,
    /// having changed nothing, for anything `add` would do more with.
    fn add_piece(&mut self, id: &str, adds: &Adds<'_>, provider: Option<&str>) -> bool {
        if let Some(provider) = provider {
            if json::field(&self.response_metadata, "model_provider").and_then(Value::as_str)
                != Some(provider)
            {
                return false;
            }
        }
        // The string it goes to (the full path's merge_content / merge_dicts
        // appends to it, leaving the index alike: an element of that index
        // with no id is the first of its index).
        let (held, text) = match (adds, &mut self.content) {
            (Adds::Text(text), Content::Text(held)) => (held, text),
            (Adds::Block(index, key, text), Content::List(blocks)) => {
                match blocks
                    .first_of(*index)
                    .and_then(|block| json::field_mut(block, key.as_ref()))
                {
                    Some(Value::String(held)) => (held, text),
                    _ => return false,
                }
            }
            (Adds::Args(index, text), _) => {
                match self
                    .tool_call_chunks
                    .first_of(*index)
                    .and_then(|call| json::field_mut(call, "args"))
                {
                    Some(Value::String(held)) => (held, text),
                    _ => return false,
                }
            }
            _ => return false,
        };
        held.push_str(text);
        self.chunks += 1;
        best_id(&mut self.id, Some(id));
        true
    }

    /// The content blocks and tool-call chunks it holds (`max_blocks`).
    fn blocks(&self) -> usize {
        self.content.blocks() + self.tool_call_chunks.items.len()
    }

    /// The message, as the server serializes the one the graph keeps.
    pub fn message(&self) -> Value {
        let mut tool_calls = Vec::new();
        let mut invalid = Vec::new();
        for chunk in &self.tool_call_chunks.items {
            let args = field(chunk, "args");
            let parsed = match &args {
                Value::String(text) if !text.is_empty() => arguments(text),
                _ if is_falsy(Some(&args)) => Some(Value::Object(Map::new())),
                _ => None,
            };
            let name = field(chunk, "name");
            let id = field(chunk, "id");
            let mut call = Map::new();
            match parsed {
                Some(Value::Object(parsed)) => {
                    let name = if is_falsy(Some(&name)) {
                        Value::String(String::new())
                    } else {
                        name
                    };
                    call.insert("name".to_owned(), name);
                    call.insert("args".to_owned(), Value::Object(parsed));
                    call.insert("id".to_owned(), id);
                    call.insert("type".to_owned(), "tool_call".into());
                    tool_calls.push(Value::Object(call));
                }
                _ => {
                    call.insert("name".to_owned(), name);
                    call.insert("args".to_owned(), args);
                    call.insert("id".to_owned(), id);
                    call.insert("error".to_owned(), Value::Null);
                    call.insert("type".to_owned(), "invalid_tool_call".into());
                    invalid.push(Value::Object(call));
                }
            }
        }
        let mut message = Map::new();
        message.insert("content".to_owned(), self.content.value());
        message.insert(
            "additional_kwargs".to_owned(),
            Value::Object(self.additional_kwargs.clone()),
        );
        message.insert(
            "response_metadata".to_owned(),
            Value::Object(self.response_metadata.clone()),
        );
        message.insert("type".to_owned(), "ai".into());
        // (adding chunks keeps no name: a message of one chunk has its own)
        let name = if self.chunks == 1 {
            self.name.clone()
        } else {
            Value::Null
        };
        message.insert("name".to_owned(), name);
        message.insert(
            "id".to_owned(),
            self.id.clone().map_or(Value::Null, Value::String),
        );
        message.insert("tool_calls".to_owned(), Value::Array(tool_calls));
        message.insert("invalid_tool_calls".to_owned(), Value::Array(invalid));
        message.insert(
            "usage_metadata".to_owned(),
            self.usage_metadata
                .clone()
                .map_or(Value::Null, Value::Object),
        );
        Value::Object(message)
    }
}

/// The empty message langchain-core ends another with (its run's id).
pub(super) fn empty_end(message: &Map<String, Value>) -> bool {
    is_falsy(message.get("content"))
        && message
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with(LC_RUN_PREFIX))
        && is_falsy(message.get("tool_call_chunks"))
        && is_falsy(message.get("tool_calls"))
        && is_falsy(message.get("invalid_tool_calls"))
}

/// A message as held: added up from chunks, or whole.
#[derive(Debug, Clone)]
enum Held {
    Chunked(Box<ChunkedMessage>),
    Whole(Value),
}

impl Held {
    /// The blocks it holds (`max_blocks`): its content's, and its tool calls.
    fn blocks(&self) -> usize {
        match self {
            Held::Chunked(message) => message.blocks(),
            Held::Whole(message) => whole_blocks(message),
        }
    }
}

fn whole_blocks(message: &Value) -> usize {
    ["content", "tool_calls", "invalid_tool_calls"]
        .iter()
        .map(|key| {
            message
                .get(*key)
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum()
}

#[derive(Debug, Clone, Default)]
struct Namespace {
    values: Option<Value>,
    interrupts: Vec<Value>,
    /// Each message by id, in the order first seen.
    messages: IndexMap<String, Held>,
    /// The id of the message streamed last.
    last: Option<String>,
}

impl Namespace {
    fn result(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert(
            "values".to_owned(),
            self.values.clone().unwrap_or(Value::Null),
        );
        out.insert("messages".to_owned(), Value::Array(self.messages()));
        out.insert(
            "interrupts".to_owned(),
            Value::Array(self.interrupts.clone()),
        );
        out
    }

    fn messages(&self) -> Vec<Value> {
        self.messages
            .values()
            .map(|held| match held {
                Held::Chunked(message) => message.message(),
                Held::Whole(message) => message.clone(),
            })
            .collect()
    }
}

/// Assembles a LangGraph Agent Server stream into what the run leaves.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<LangGraph>,
}

#[derive(Debug, Clone)]
pub struct LangGraph {
    run_id: Option<String>,
    error: Option<Value>,
    /// The root graph's (`""`) and each subgraph's, in the order they came.
    namespaces: IndexMap<String, Namespace>,
    message_total: usize,
    blocks: usize,
    /// The run's metadata as the last quick `messages` event gave it, which
    /// the next most likely repeats byte for byte (empty until one did).
    metadata: String,
}

impl Default for LangGraph {
    fn default() -> Self {
        let mut namespaces = IndexMap::default();
        namespaces.insert(String::new(), Namespace::default());
        LangGraph {
            run_id: None,
            error: None,
            namespaces,
            message_total: 0,
            blocks: 0,
            metadata: String::new(),
        }
    }
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.result()
    }
}

crate::stream::assemble_with_driver!(Assembler, LangGraph);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                LangGraph::default(),
                options.limits,
                options.on_error,
                super::PROTOCOL.subject,
            ),
        }
    }

    fn root(&self) -> &Namespace {
        &self.driver.protocol.namespaces[0]
    }

    /// What the run left: see the Python mirror's docstring.
    pub fn result(&self) -> Value {
        let state = &self.driver.protocol;
        let mut out = Map::new();
        out.insert(
            "run_id".to_owned(),
            state.run_id.clone().map_or(Value::Null, Value::String),
        );
        out.extend(self.root().result());
        out.insert(
            "error".to_owned(),
            state.error.clone().unwrap_or(Value::Null),
        );
        let namespaces = state
            .namespaces
            .iter()
            .skip(1)
            .map(|(name, namespace)| (name.clone(), Value::Object(namespace.result())))
            .collect();
        out.insert("namespaces".to_owned(), Value::Object(namespaces));
        Value::Object(out)
    }

    /// The root graph's last values (None before any).
    pub fn values(&self) -> Value {
        self.root().values.clone().unwrap_or(Value::Null)
    }

    /// The root graph's messages so far.
    pub fn messages(&self) -> Value {
        Value::Array(self.root().messages())
    }

    /// The root graph's interrupts.
    pub fn interrupts(&self) -> Value {
        Value::Array(self.root().interrupts.clone())
    }

    pub fn run_id(&self) -> Option<&str> {
        self.driver.protocol.run_id.as_deref()
    }

    /// The `error` event's data, if the run failed.
    pub fn error(&self) -> Value {
        self.driver.protocol.error.clone().unwrap_or(Value::Null)
    }
}

impl Protocol for LangGraph {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Named)
    }

    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some((piece, fresh)) = TextPiece::read(text, &self.metadata) else {
            return false;
        };
        if let Some(fresh) = fresh {
            self.metadata.clear();
            self.metadata.push_str(fresh);
        }
        let Some(namespace) = self.namespaces.get_mut(piece.namespace) else {
            return false;
        };
        let Some(Held::Chunked(message)) = namespace.messages.get_mut(piece.id.as_ref()) else {
            return false;
        };
        if !message.add_piece(&piece.id, &piece.adds, piece.provider.as_deref()) {
            return false;
        }
        if namespace.last.as_deref() != Some(piece.id.as_ref()) {
            namespace.last = Some(piece.id.into_owned());
        }
        true
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, &event);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        self.message_total
    }

    fn block_count(&self) -> usize {
        self.blocks
    }

    fn finish(&mut self) {}
}

impl LangGraph {
    fn apply(&mut self, log: &mut Log, event: &Map<String, Value>) -> Result<(), Bad> {
        let Part {
            mode,
            namespace,
            data,
            interrupts,
        } = read(event).map_err(Bad)?;
        let data = data.unwrap_or(&NULL);
        match mode {
            "metadata" => {
                if let Some(run_id) = data.get("run_id").and_then(Value::as_str) {
                    self.run_id = Some(run_id.to_owned());
                }
                return Ok(());
            }
            "error" => {
                self.error = Some(data.clone());
                let (message, code) = match data {
                    Value::Object(map) => (map.get("message").unwrap_or(&NULL), map.get("error")),
                    other => (other, None),
                };
                log.record(ErrorRecord {
                    event: log.events,
                    code: code.and_then(Value::as_str).unwrap_or("error").to_owned(),
                    message: Some(match message {
                        Value::String(text) => text.clone(),
                        other => to_text(other),
                    }),
                });
                return Ok(());
            }
            _ => {}
        }
        let (held, blocks) = (&mut self.message_total, &mut self.blocks);
        let namespace = self.namespaces.entry(namespace).or_default();
        match mode {
            "values" => {
                let Value::Object(values) = data else {
                    return bad(format!(
                        "holds values that are {}, not an object",
                        kind(data)
                    ));
                };
                let mut values = values.clone();
                let found = values.shift_remove("__interrupt__");
                namespace.values = Some(Value::Object(values));
                let found = interrupts.cloned().or(found);
                namespace.interrupts = match found {
                    Some(Value::Array(list)) => list,
                    _ => Vec::new(),
                };
            }
            "updates" => {
                if let Some(Value::Array(list)) = data.get("__interrupt__") {
                    namespace.interrupts = list.clone();
                }
            }
            "messages" => messages_tuple(namespace, held, blocks, data)?,
            "messages/partial" | "messages/complete" => {
                let Value::Array(messages) = data else {
                    return bad(format!("holds {}, not a list of messages", kind(data)));
                };
                for message in messages {
                    whole(namespace, held, blocks, message)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A whole message: it replaces the one of its id.
fn whole(
    namespace: &mut Namespace,
    total: &mut usize,
    blocks: &mut usize,
    message: &Value,
) -> Result<(), Bad> {
    let Some((map, id)) = message
        .as_object()
        .and_then(|map| Some((map, map.get("id")?.as_str()?)))
    else {
        return bad("holds a message that is not an object with an id");
    };
    let replaced = namespace.messages.get(id).map(Held::blocks);
    if replaced.is_none() {
        if empty_end(map) && namespace.last.is_some() {
            return Ok(());
        }
        *total += 1;
    }
    *blocks = *blocks + whole_blocks(message) - replaced.unwrap_or(0);
    namespace
        .messages
        .insert(id.to_owned(), Held::Whole(message.clone()));
    namespace.last = Some(id.to_owned());
    Ok(())
}

fn messages_tuple(
    namespace: &mut Namespace,
    total: &mut usize,
    blocks: &mut usize,
    data: &Value,
) -> Result<(), Bad> {
    let message = match data {
        Value::Array(pair) if pair.len() == 2 && pair[0].is_object() => &pair[0],
        _ => return bad("holds no [message, metadata] pair"),
    };
    let map = message.as_object().expect("checked above");
    let chunk_type = map.get("type").and_then(Value::as_str);
    if !chunk_type.is_some_and(|kind| CHUNK_TYPES.contains(&kind)) {
        return whole(namespace, total, blocks, message);
    }
    let message_id = map
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty());
    let mut key = message_id.map(str::to_owned);
    let mut found = key
        .as_ref()
        .is_some_and(|key| namespace.messages.contains_key(key));
    if !found && map.get("chunk_position").and_then(Value::as_str) == Some("last") && empty_end(map)
    {
        if let Some(last) = &namespace.last {
            if matches!(namespace.messages.get(last), Some(Held::Chunked(_))) {
                // The end of the message streamed before it.
                key = Some(last.clone());
                found = true;
            }
        }
    }
    if found {
        if let Some(Held::Chunked(held)) =
            key.as_ref().and_then(|key| namespace.messages.get_mut(key))
        {
            let before = held.blocks();
            let added = held.add(map);
            *blocks = *blocks + held.blocks() - before;
            added?;
            namespace.last = key;
            return Ok(());
        }
    }
    let chunked = ChunkedMessage::new(map)?;
    let key = key.unwrap_or_else(|| format!("{LC_RUN_PREFIX}{}", namespace.messages.len()));
    let replaced = namespace.messages.get(&key).map(Held::blocks);
    if replaced.is_none() {
        *total += 1;
    }
    *blocks = *blocks + chunked.blocks() - replaced.unwrap_or(0);
    namespace
        .messages
        .insert(key.clone(), Held::Chunked(Box::new(chunked)));
    namespace.last = Some(key);
    Ok(())
}
