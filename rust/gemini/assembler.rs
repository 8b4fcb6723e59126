//! Assembling a Gemini `streamGenerateContent` stream into the
//! `GenerateContentResponse` that `generateContent` answers the same request
//! with. `python/agentcodec/_pure/gemini/assembler.py` mirrors this module
//! rule for rule.
//!
//! Each record is a whole `GenerateContentResponse` holding the newest
//! piece of each candidate. Records merge as the server merges them into
//! its answer:
//! - a record's own fields (`usageMetadata`, a cumulative count,
//!   `modelVersion`, `responseId`, `promptFeedback`, ...) take the latest
//!   value; candidates are kept by their `index` (0 where none is given), in
//!   the order they first came;
//! - a candidate's fields take the latest value but `content`, whose parts
//!   are gathered, and `citationMetadata`, whose citations are;
//! - a text part joins the part before it when both are text of the same
//!   kind (`thought` or not) and that one has no `thoughtSignature` yet: the
//!   signature a stream sends on an empty last text part lands on the text,
//!   as the answer has it; an empty text part that joins nothing is dropped;
//! - a `functionCall` part that names no function while the call before it
//!   said `willContinue` carries that call on (Vertex AI's streamed
//!   arguments): its `partialArgs` are written into the call's `args`
//!   ([`ArgsWriter`]), and the answer's call has `args` and no
//!   `partialArgs` or `willContinue`; any other part is kept as it came.
//!
//! An `{"error": ...}` record is the run's error: kept as `error` and
//! recorded, with what was assembled before it intact.

use super::args::{parse_path, partial_value, ArgsWriter};
use super::probe::Record;
use crate::framing::Kind;
use crate::hashing::IndexMap;
use crate::json::{self, kind, Map, Value};
use crate::json_probe::{Obj, Scalar};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

/// Fields in the order they first came.
type Fields = IndexMap<String, Value>;

/// The fields of a part that is text alone.
const TEXT_KEYS: [&str; 3] = ["text", "thought", "thoughtSignature"];

/// Assembles a Gemini stream into the response `generateContent` gives.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Gemini>,
}

#[derive(Debug, Clone, Default)]
pub struct Gemini {
    /// The response's fields in the order the records first gave them
    /// (`candidates` holds null: the candidates are below).
    answer: Fields,
    candidates: IndexMap<i64, Candidate>,
}

/// A candidate so far: its fields in the order they first came (`content`
/// holds null), its content's (`parts` holds null), its parts; and whether
/// its last part is a function call that said `willContinue`.
#[derive(Debug, Clone, Default)]
struct Candidate {
    fields: Fields,
    content: Fields,
    parts: Vec<Part>,
    carrying_call: bool,
}

/// A part so far: its fields (`functionCall` holds null when `call` is
/// there), and the function call it holds.
#[derive(Debug, Clone, Default)]
struct Part {
    fields: Fields,
    call: Option<Call>,
}

/// A function call: its fields (`args` holds null when `writer` is there),
/// and its streamed arguments' writer.
#[derive(Debug, Clone, Default)]
struct Call {
    fields: Fields,
    writer: Option<ArgsWriter>,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.response()
    }
}

crate::stream::assemble_with_driver!(Assembler, Gemini);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                Gemini::default(),
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
        for (key, value) in &state.answer {
            let value = if key == "candidates" {
                Value::Array(state.candidates.values().map(Candidate::render).collect())
            } else {
                value.clone()
            };
            response.insert(key.clone(), value);
        }
        Value::Object(response)
    }
}

impl Candidate {
    fn render(&self) -> Value {
        let mut out = Map::new();
        for (key, value) in &self.fields {
            if key != "content" {
                out.insert(key.clone(), value.clone());
                continue;
            }
            let mut content = Map::new();
            for (field, item) in &self.content {
                let item = if field == "parts" {
                    Value::Array(self.parts.iter().map(Part::render).collect())
                } else {
                    item.clone()
                };
                content.insert(field.clone(), item);
            }
            out.insert(key.clone(), Value::Object(content));
        }
        Value::Object(out)
    }
}

impl Part {
    fn render(&self) -> Value {
        let mut out = Map::new();
        for (key, value) in &self.fields {
            let value = match (&self.call, key.as_str()) {
                (Some(call), "functionCall") => call.render(),
                _ => value.clone(),
            };
            out.insert(key.clone(), value);
        }
        Value::Object(out)
    }

    /// Whether it is text alone (with its kind and signature).
    fn is_text(&self) -> bool {
        is_text(self.fields.iter().map(|(key, value)| (key.as_str(), value)))
    }

    fn thought(&self) -> bool {
        json::field(&self.fields, "thought") == Some(&Value::Bool(true))
    }
}

impl Call {
    fn render(&self) -> Value {
        let mut out = Map::new();
        for (key, value) in &self.fields {
            let value = match (&self.writer, key.as_str()) {
                (Some(writer), "args") => writer.value(),
                _ => value.clone(),
            };
            out.insert(key.clone(), value);
        }
        Value::Object(out)
    }
}

fn is_text<'a>(mut fields: impl Iterator<Item = (&'a str, &'a Value)>) -> bool {
    let mut text = false;
    let all_text = fields.all(|(key, value)| {
        text |= key == "text" && value.is_string();
        TEXT_KEYS.contains(&key)
    });
    all_text && text
}

impl Protocol for Gemini {
    fn framing(&self) -> Option<Kind> {
        Some(Kind::Array)
    }

    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    fn apply_quickly(&mut self, text: &str) -> bool {
        let Some(record) = Record::read(text) else {
            return false;
        };
        self.apply_piece(&record)
    }

    fn apply_object(&mut self, log: &mut Log, record: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, record);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        self.candidates.len()
    }

    fn block_count(&self) -> usize {
        // Candidates are few (at most eight).
        self.candidates
            .values()
            .map(|candidate| candidate.parts.len())
            .sum()
    }

    fn finish(&mut self) {}
}

/// A candidate's `index`: 0 where none is given.
fn candidate_index(candidate: &Map<String, Value>, at: &str) -> Result<i64, Bad> {
    match candidate.get("index") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(number)) if number.as_i64().is_some() => {
            Ok(number.as_i64().unwrap_or_default())
        }
        Some(Value::Number(number)) if is_integer(&number.to_string()) => {
            bad(format!("its {at}.index is out of range"))
        }
        Some(other) => bad(format!("its {at}.index is {}, not an integer", kind(other))),
    }
}

/// Whether a number's text is an integer's (one too large for an `i64`).
fn is_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit())
}

fn check_part(part: &Value, at: &str) -> Result<(), Bad> {
    let Value::Object(part) = part else {
        return bad(format!("its {at} is {}, not an object", kind(part)));
    };
    match part.get("text") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(other) => return bad(format!("its {at}.text is {}, not a string", kind(other))),
    }
    let call = match part.get("functionCall") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(call)) => call,
        Some(other) => {
            return bad(format!(
                "its {at}.functionCall is {}, not an object",
                kind(other)
            ))
        }
    };
    let partial = match call.get("partialArgs") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(partial)) => partial,
        Some(other) => {
            return bad(format!(
                "its {at}.functionCall.partialArgs is {}, not a list",
                kind(other)
            ))
        }
    };
    for (number, arg) in partial.iter().enumerate() {
        let at = format!("{at}.functionCall.partialArgs[{number}]");
        let Value::Object(arg) = arg else {
            return bad(format!("its {at} is {}, not an object", kind(arg)));
        };
        match arg.get("jsonPath") {
            Some(Value::String(path)) => {
                if let Err(err) = parse_path(path) {
                    return bad(format!("its {at}: {err}"));
                }
            }
            other => {
                let kind = other.map_or("JSON null", kind);
                return bad(format!("its {at}.jsonPath is {kind}, not a string"));
            }
        }
    }
    Ok(())
}

/// Refuses a record whose candidates, content or parts are of another type.
fn check(record: &Map<String, Value>) -> Result<(), Bad> {
    let candidates = match record.get("candidates") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(candidates)) => candidates,
        Some(other) => return bad(format!("its candidates is {}, not a list", kind(other))),
    };
    for (number, candidate) in candidates.iter().enumerate() {
        let at = format!("candidates[{number}]");
        let Value::Object(candidate) = candidate else {
            return bad(format!("its {at} is {}, not an object", kind(candidate)));
        };
        candidate_index(candidate, &at)?;
        let content = match candidate.get("content") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(content)) => content,
            Some(other) => {
                return bad(format!(
                    "its {at}.content is {}, not an object",
                    kind(other)
                ))
            }
        };
        let parts = match content.get("parts") {
            None | Some(Value::Null) => continue,
            Some(Value::Array(parts)) => parts,
            Some(other) => {
                return bad(format!(
                    "its {at}.content.parts is {}, not a list",
                    kind(other)
                ))
            }
        };
        for (part_number, part) in parts.iter().enumerate() {
            check_part(part, &format!("{at}.content.parts[{part_number}]"))?;
        }
    }
    Ok(())
}

/// Sets a held field to a scalar the record gives, in place (the field is
/// held already, so that the order the full path keeps stands).
fn set_scalar(held: &mut Fields, key: &str, given: &Option<Scalar<'_>>) {
    let (Some(given), Some(value)) = (given, json::field_mut(held, key)) else {
        return;
    };
    let same = match (given, &*value) {
        (Scalar::Str(text), Value::String(kept)) => text == kept,
        // As written: the number the full path would parse from it.
        (Scalar::Number(text), Value::Number(kept)) => *text == kept.as_str(),
        _ => false,
    };
    if !same {
        if let Some(given) = given.to_value() {
            *value = given;
        }
    }
}

/// Whether the quick path can take a scalar field: absent, or of a kind it
/// sets (a string, or the candidate's integer index) where one is held.
fn takes(held: &Fields, key: &str, given: &Option<Scalar<'_>>) -> bool {
    match given {
        None => true,
        Some(Scalar::Str(_) | Scalar::Number(_)) => json::field(held, key).is_some(),
        Some(_) => false,
    }
}

impl Gemini {
    /// A record that adds a piece of text to a candidate's last text part,
    /// applied from a probe: what the full path does for it, without a
    /// `Value` tree. False, having changed nothing, for any other record:
    /// one with other fields or parts, or that would add a field or a part
    /// the response does not hold yet (the full path keeps the order the
    /// records first gave them in).
    fn apply_piece(&mut self, record: &Record<'_>) -> bool {
        let Some(Obj(Some(candidate))) = &record.candidates else {
            return false;
        };
        let Some(Obj(Some(content))) = &candidate.content else {
            return false;
        };
        let Some(Obj(Some(part))) = &content.parts else {
            return false;
        };
        let Some(Scalar::Str(piece)) = &part.text else {
            return false;
        };
        let index = match &candidate.index {
            None => 0,
            Some(index) => match index.as_i64() {
                Some(index) => index,
                None => return false,
            },
        };
        if record.other || candidate.other || content.other || part.other {
            return false;
        }
        let answer = &self.answer;
        if json::field(answer, "candidates").is_none()
            || !takes(answer, "modelVersion", &record.model_version)
            || !takes(answer, "responseId", &record.response_id)
            || !takes(answer, "createTime", &record.create_time)
            || matches!(record.model_version, Some(Scalar::Number(_)))
            || matches!(record.response_id, Some(Scalar::Number(_)))
            || matches!(record.create_time, Some(Scalar::Number(_)))
            || (record.usage.is_some() && json::field(answer, "usageMetadata").is_none())
        {
            return false;
        }
        let Some(held) = self.candidates.get(&index) else {
            return false;
        };
        if json::field(&held.fields, "content").is_none()
            || !takes(&held.fields, "index", &candidate.index)
            || json::field(&held.content, "parts").is_none()
            || !takes(&held.content, "role", &content.role)
            || matches!(content.role, Some(Scalar::Number(_)))
        {
            return false;
        }
        let thought = part.thought == Some(Scalar::Bool(true));
        let joins = held.parts.last().is_some_and(|last| {
            last.is_text()
                && json::field(&last.fields, "thoughtSignature").is_none()
                && last.thought() == thought
        });
        // (an empty text part that joins nothing is dropped)
        if !joins && !piece.is_empty() {
            return false;
        }
        let usage = match record.usage {
            None => None,
            Some(raw) => match crate::json::parse(raw) {
                Ok(usage) => Some(usage),
                Err(_) => return false,
            },
        };
        set_scalar(&mut self.answer, "modelVersion", &record.model_version);
        set_scalar(&mut self.answer, "responseId", &record.response_id);
        set_scalar(&mut self.answer, "createTime", &record.create_time);
        if let (Some(usage), Some(held)) =
            (usage, json::field_mut(&mut self.answer, "usageMetadata"))
        {
            *held = usage;
        }
        let held = self.candidates.get_mut(&index).expect("looked up above");
        set_scalar(&mut held.fields, "index", &candidate.index);
        set_scalar(&mut held.content, "role", &content.role);
        held.carrying_call = false;
        if joins {
            let last = held.parts.last_mut().expect("a part joins the last");
            if let Some(Value::String(text)) = json::field_mut(&mut last.fields, "text") {
                text.push_str(piece);
            }
        }
        true
    }

    fn apply(&mut self, log: &mut Log, record: Map<String, Value>) -> Result<(), Bad> {
        if let Some(error) = record.get("error").filter(|error| !error.is_null()) {
            let (code, message) = super::error_message(error);
            log.record(ErrorRecord {
                event: log.events,
                code,
                message: Some(message),
            });
        }
        check(&record)?;
        for (key, value) in record {
            match (key.as_str(), value) {
                ("candidates", Value::Array(candidates)) => {
                    self.answer.entry(key).or_insert(Value::Null);
                    for candidate in candidates {
                        if let Value::Object(candidate) = candidate {
                            self.candidate(candidate)?;
                        }
                    }
                }
                ("candidates", Value::Null) => {
                    self.answer.entry(key).or_insert(Value::Null);
                }
                (_, value) => {
                    self.answer.insert(key, value);
                }
            }
        }
        Ok(())
    }

    fn candidate(&mut self, given: Map<String, Value>) -> Result<(), Bad> {
        let index = candidate_index(&given, "candidate")?;
        let held = self.candidates.entry(index).or_default();
        for (key, value) in given {
            match (key.as_str(), value) {
                ("content", Value::Object(content)) => {
                    held.fields.entry(key).or_insert(Value::Null);
                    for (field, item) in content {
                        match (field.as_str(), item) {
                            ("parts", Value::Array(parts)) => {
                                held.content.entry(field).or_insert(Value::Null);
                                for part in parts {
                                    if let Value::Object(part) = part {
                                        held.part(part)?;
                                    }
                                }
                            }
                            (_, item) => {
                                held.content.insert(field, item);
                            }
                        }
                    }
                }
                ("citationMetadata", Value::Object(metadata)) => held.cite(metadata),
                (_, value) => {
                    held.fields.insert(key, value);
                }
            }
        }
        Ok(())
    }
}

impl Candidate {
    /// Citations gather; the metadata's other fields take the latest value.
    fn cite(&mut self, given: Map<String, Value>) {
        let kept = self
            .fields
            .entry("citationMetadata".to_owned())
            .or_insert(Value::Null);
        if !kept.is_object() {
            *kept = Value::Object(Map::new());
        }
        let Value::Object(kept) = kept else {
            unreachable!("just made an object")
        };
        for (key, value) in given {
            match (kept.get_mut(&key), value) {
                (Some(Value::Array(existing)), Value::Array(items)) if key == "citations" => {
                    existing.extend(items);
                }
                (_, value) => {
                    kept.insert(key, value);
                }
            }
        }
    }

    /// Adds a part, or joins it to the one before.
    fn part(&mut self, part: Map<String, Value>) -> Result<(), Bad> {
        let carried_on = matches!(
            part.get("functionCall"),
            Some(Value::Object(call)) if !call.contains_key("name")
        );
        if self.carrying_call && carried_on {
            return self.carry_call(part);
        }
        self.carrying_call = false;
        let text = is_text(part.iter().map(|(key, value)| (key.as_str(), value)));
        if text {
            let thought = part
                .get("thought")
                .is_some_and(|value| value == &Value::Bool(true));
            if let Some(last) = self.parts.last_mut() {
                if last.is_text()
                    && !last.fields.contains_key("thoughtSignature")
                    && last.thought() == thought
                {
                    let mut part = part;
                    if let (Some(Value::String(held)), Some(Value::String(piece))) =
                        (last.fields.get_mut("text"), part.get("text"))
                    {
                        held.push_str(piece);
                    }
                    if let Some(signature) = part.remove("thoughtSignature") {
                        last.fields.insert("thoughtSignature".to_owned(), signature);
                    }
                    return Ok(());
                }
            }
            let empty = part.get("text").and_then(Value::as_str) == Some("");
            if empty && part.keys().all(|key| key == "text" || key == "thought") {
                // An empty text part that joins nothing (the one a stream's
                // last record may carry) has no place in the answer.
                return Ok(());
            }
        }
        let mut kept = Part::default();
        let mut writing = None;
        for (key, value) in part {
            match (key.as_str(), value) {
                ("functionCall", Value::Object(call)) => {
                    let streamed = call.get("willContinue") == Some(&Value::Bool(true));
                    let partial = call.contains_key("partialArgs");
                    let mut held = Call::default();
                    let mut pieces = None;
                    for (field, item) in call {
                        match field.as_str() {
                            "partialArgs" => pieces = Some(item),
                            "willContinue" => {}
                            _ => {
                                held.fields.insert(field, item);
                            }
                        }
                    }
                    if streamed || partial {
                        held.fields.insert("args".to_owned(), Value::Null);
                        held.writer = Some(ArgsWriter::default());
                        self.carrying_call = streamed;
                        writing = pieces;
                    }
                    kept.fields.insert(key, Value::Null);
                    kept.call = Some(held);
                }
                (_, value) => {
                    kept.fields.insert(key, value);
                }
            }
        }
        self.parts.push(kept);
        match writing {
            Some(pieces) => self.write_args(&pieces),
            None => Ok(()),
        }
    }

    /// A piece of the function call being streamed.
    fn carry_call(&mut self, part: Map<String, Value>) -> Result<(), Bad> {
        let last = self
            .parts
            .last_mut()
            .expect("a call is carried on in a part");
        let mut pieces = None;
        let mut more = false;
        for (key, value) in part {
            match (key.as_str(), value) {
                ("functionCall", Value::Object(call)) => {
                    let held = last.call.as_mut().expect("the part holds the call");
                    for (field, item) in call {
                        match field.as_str() {
                            "partialArgs" => pieces = Some(item),
                            "willContinue" => more = item == Value::Bool(true),
                            _ => {
                                held.fields.insert(field, item);
                            }
                        }
                    }
                }
                (_, value) => {
                    last.fields.insert(key, value);
                }
            }
        }
        if let Some(pieces) = pieces {
            self.write_args(&pieces)?;
        }
        if !more {
            self.carrying_call = false;
        }
        Ok(())
    }

    /// Writes partial arguments into the last part's call.
    fn write_args(&mut self, pieces: &Value) -> Result<(), Bad> {
        let Value::Array(pieces) = pieces else {
            return Ok(());
        };
        let writer = self
            .parts
            .last_mut()
            .and_then(|part| part.call.as_mut())
            .and_then(|call| call.writer.as_mut())
            .expect("the call writes its arguments");
        for (number, arg) in pieces.iter().enumerate() {
            let Value::Object(arg) = arg else { continue };
            let Some(value) = partial_value(arg) else {
                continue;
            };
            let Some(Value::String(path)) = arg.get("jsonPath") else {
                continue;
            };
            let more = arg.get("willContinue") == Some(&Value::Bool(true));
            let written = parse_path(path).and_then(|keys| writer.write(keys, &value, more));
            if let Err(err) = written {
                return bad(format!("its functionCall.partialArgs[{number}]: {err}"));
            }
        }
        Ok(())
    }
}
