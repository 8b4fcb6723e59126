//! Assembling an A2A stream into its Task.
//! `python/agentcodec/_pure/a2a/assembler.py` mirrors this module rule for rule.
//!
//! The rules are a2a-sdk's `TaskManager` (what a server holds, and answers
//! `tasks/get` with), both majors: a Task event is the task whole and
//! replaces what is held; a status update moves the message of the status
//! held into the history, merges its metadata into the task's, and becomes
//! the status; an artifact update adds the artifact, or with `append` adds
//! its parts (and merges its metadata, as 1.x does) to the artifact of that
//! `artifactId`, and without it replaces that artifact. Appended text
//! chunks stay separate parts, as the SDK keeps them. An update before any
//! Task makes one (`submitted`), as the server does.
//!
//! A Message answers a request that made no task: it is the result when no
//! task came. A JSON-RPC error is the run's error: recorded, and the task
//! held fails, as the server records it. The stream ends on a status update
//! that is `final` (0.3) or in a final or interrupted state (1.0), a
//! Message, or an error; what comes after is an event error, as is what the
//! SDK drops with a warning (`append` to an artifact that never started) or
//! refuses (an update of another task). The spec version is the first
//! event's; an event of the other version is an event error.

use super::probe::{self, PartRef, TextParts};
use super::vocabulary::{FINAL_STATES, INTERRUPTED_STATES};
use super::wire::{self, What};
use crate::hashing::HashMap;
use crate::json::{self, quote, Map, Value};
use crate::stream::{bad, Bad, Driver, Log, Protocol};
pub use crate::stream::{Error, ErrorRecord, EventError, OnError, Options};

/// The task as held, for a reader that renders it itself without a copy
/// (the Python binding): its fields (their `artifacts` and `history`
/// stand for the lists below), each artifact with the text parts the
/// quick path appended after those of its `parts`, and the history.
#[derive(Debug, Clone, Copy)]
pub struct TaskView<'a> {
    pub fields: &'a Map<String, Value>,
    pub artifacts: &'a [Map<String, Value>],
    pub appended: &'a [TextParts],
    pub history: &'a [Value],
}

/// Assembles an A2A stream.
#[derive(Debug, Clone)]
pub struct Assembler {
    driver: Driver<Tasks>,
}

#[derive(Debug, Clone, Default)]
pub struct Tasks {
    version: Option<&'static str>,
    /// The task's fields; its `artifacts` and `history` are held apart.
    task: Option<Map<String, Value>>,
    artifacts: Vec<Map<String, Value>>,
    /// `artifactId` -> position.
    artifact_at: HashMap<String, usize>,
    /// The text parts the quick path appended to each artifact (by
    /// position) after those of its `parts`: kept as text until the task
    /// is read, or the full path touches the artifact.
    appended: Vec<TextParts>,
    history: Vec<Value>,
    message: Option<Map<String, Value>>,
    error: Option<Map<String, Value>>,
    ended: bool,
    kept: Vec<Value>,
    /// The parts of the artifacts held: the blocks.
    parts: usize,
}

impl crate::stream::Assembled for Assembler {
    fn result(&self) -> Value {
        self.result()
    }
}

crate::stream::assemble_with_driver!(Assembler, Tasks);

impl Default for Assembler {
    fn default() -> Self {
        Assembler::new(Options::default())
    }
}

impl Assembler {
    pub fn new(options: Options) -> Self {
        Assembler {
            driver: Driver::new(
                Tasks::default(),
                options.limits,
                options.on_error,
                "A2A event",
            ),
        }
    }

    /// Reads the stream as `version`'s (one of [`super::VERSIONS`]) from the first
    /// event: an event of the other version is an event error, and what the
    /// assembler spells itself (a task an update makes, a failed state) is
    /// spelled as `version` spells it. Without it, the first event that
    /// says its version decides.
    pub fn with_version(mut self, version: &'static str) -> Self {
        self.driver.protocol.version = Some(version);
        self
    }

    /// The Task, or the Message when the agent answered without a task;
    /// null before either.
    pub fn result(&self) -> Value {
        let state = &self.driver.protocol;
        if state.task.is_some() {
            return self.task();
        }
        state.message.clone().map_or(Value::Null, Value::Object)
    }

    /// The Task so far (null before any task event).
    pub fn task(&self) -> Value {
        let state = &self.driver.protocol;
        let Some(fields) = &state.task else {
            return Value::Null;
        };
        let mut task = Map::with_capacity(fields.len());
        for (key, value) in fields {
            let value = match key.as_str() {
                "artifacts" => Value::Array(
                    state
                        .artifacts
                        .iter()
                        .zip(&state.appended)
                        .map(|(artifact, appended)| {
                            let mut artifact = artifact.clone();
                            if let Some(Value::Array(parts)) = artifact.get_mut("parts") {
                                parts.extend(appended.iter().map(PartRef::to_value));
                            }
                            Value::Object(artifact)
                        })
                        .collect(),
                ),
                "history" => Value::Array(state.history.clone()),
                _ => value.clone(),
            };
            task.insert(key.clone(), value);
        }
        Value::Object(task)
    }

    /// The task as held (None before any task event), to be rendered by
    /// the reader: see [`TaskView`].
    pub fn task_view(&self) -> Option<TaskView<'_>> {
        let state = &self.driver.protocol;
        Some(TaskView {
            fields: state.task.as_ref()?,
            artifacts: &state.artifacts,
            appended: &state.appended,
            history: &state.history,
        })
    }

    /// The Message that answered the request, when it made no task.
    pub fn message(&self) -> Value {
        let state = &self.driver.protocol;
        state.message.clone().map_or(Value::Null, Value::Object)
    }

    /// The JSON-RPC error that ended the stream, if one did.
    pub fn error(&self) -> Value {
        let state = &self.driver.protocol;
        state.error.clone().map_or(Value::Null, Value::Object)
    }

    /// The stream's spec version, once an event said it.
    pub fn version(&self) -> Option<&'static str> {
        self.driver.protocol.version
    }

    /// Events kept without being assembled: the JSON-RPC errors.
    pub fn events(&self) -> &[Value] {
        &self.driver.protocol.kept
    }
}

impl Protocol for Tasks {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        super::recognizes(event)
    }

    /// Most events of a stream append text to an artifact: they take the
    /// quick path, once the task holds the artifact.
    fn apply_quickly(&mut self, text: &str) -> bool {
        if self.ended || self.task.is_none() {
            return false;
        }
        let Some(version) = self.version else {
            return false;
        };
        let Some(append) = probe::Append::read(text, version) else {
            return false;
        };
        if self.task_id() != Some(&*append.task_id) {
            return false;
        }
        let Some(&position) = self.artifact_at.get(&*append.artifact_id) else {
            return false;
        };
        if !matches!(
            json::field(&self.artifacts[position], "parts"),
            Some(Value::Array(_))
        ) {
            return false;
        }
        self.parts += append.count();
        for part in append.into_parts() {
            self.appended[position].push(part);
        }
        true
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        let applied = self.apply(log, event);
        log.report(applied)
    }

    fn message_count(&self) -> usize {
        self.history.len() + self.artifacts.len()
    }

    fn block_count(&self) -> usize {
        self.parts
    }

    fn finish(&mut self) {}
}

/// A field that is a list of objects (absent or null: none), or why not.
fn objects<'v>(holder: &'v Map<String, Value>, key: &str, what: &str) -> Result<&'v [Value], Bad> {
    match holder.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) if items.iter().all(Value::is_object) => Ok(items),
        Some(_) => bad(format!("has {what} whose {key} is not a list of objects")),
    }
}

fn artifact_id(artifact: &Map<String, Value>) -> Result<String, Bad> {
    match artifact.get("artifactId") {
        Some(Value::String(id)) => Ok(id.clone()),
        None | Some(Value::Null) => bad("has an artifact without an artifactId"),
        Some(_) => bad("has an artifact whose artifactId is not a string"),
    }
}

/// Merges an object field of `from` into that of `into` (made when it is
/// not an object), as `dict.update` does.
fn merge_metadata(into: &mut Map<String, Value>, from: Option<&Value>) {
    let Some(Value::Object(metadata)) = from else {
        return;
    };
    if metadata.is_empty() {
        return;
    }
    if !matches!(into.get("metadata"), Some(Value::Object(_))) {
        into.insert("metadata".to_owned(), Value::Object(Map::new()));
    }
    if let Some(Value::Object(held)) = into.get_mut("metadata") {
        for (key, value) in metadata {
            held.insert(key.clone(), value.clone());
        }
    }
}

impl Tasks {
    fn apply(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Bad> {
        let read = wire::read(&event).map_err(|problem| Bad(problem.to_owned()))?;
        if self.ended {
            return bad("comes after the stream's end (a final status, a message or an error)");
        }
        if let Some(version) = read.version {
            match self.version {
                None => self.version = Some(version),
                Some(held) if held != version => {
                    return bad(format!("is an A2A {version} event in a {held} stream"))
                }
                Some(_) => {}
            }
        }
        match read.what {
            What::Error => {
                let error = wire::body(&event, read.at).clone();
                self.fail_run(log, event, error);
                Ok(())
            }
            What::Task => self.replace_task(wire::take_body(event, read.at)),
            What::Message => {
                self.message = Some(wire::take_body(event, read.at));
                self.ended = true;
                Ok(())
            }
            What::Status => self.status_update(wire::take_body(event, read.at)),
            What::Artifact => self.artifact_update(wire::take_body(event, read.at)),
        }
    }

    fn fail_run(&mut self, log: &mut Log, event: Map<String, Value>, error: Map<String, Value>) {
        log.record(ErrorRecord {
            event: log.events,
            code: wire::error_code(error.get("code")),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
        self.kept.push(Value::Object(event));
        self.error = Some(error);
        self.ended = true;
        if self.task.is_some() {
            // As the server records a run that failed so: the status held
            // goes to the history, and the task has failed.
            let mut status = Map::new();
            let state = wire::spell_state("failed", self.version.unwrap_or("1.0"));
            status.insert("state".to_owned(), state.into());
            self.set_status(status);
        }
    }

    fn replace_task(&mut self, mut task: Map<String, Value>) -> Result<(), Bad> {
        let task_id = match task.get("id") {
            Some(Value::String(id)) => id.clone(),
            None | Some(Value::Null) => return bad("has a task without an id"),
            Some(_) => return bad("has a task id that is not a string"),
        };
        if let Some(held) = self.task_id() {
            if held != task_id {
                return bad(format!(
                    "is task {}, not {}, the stream's task",
                    quote(&task_id),
                    quote(held)
                ));
            }
        }
        let artifacts = objects(&task, "artifacts", "a task")?;
        if !matches!(
            task.get("history"),
            None | Some(Value::Null | Value::Array(_))
        ) {
            return bad("has a task whose history is not a list");
        }
        let mut at = HashMap::default();
        let mut parts = 0;
        for (position, artifact) in artifacts.iter().enumerate() {
            let Value::Object(artifact) = artifact else {
                unreachable!("checked");
            };
            at.insert(artifact_id(artifact)?, position);
            parts += objects(artifact, "parts", "an artifact")?.len();
        }
        let artifacts = match task.get_mut("artifacts") {
            Some(Value::Array(artifacts)) => std::mem::take(artifacts),
            _ => Vec::new(),
        };
        let history = match task.get_mut("history") {
            Some(Value::Array(history)) => std::mem::take(history),
            _ => Vec::new(),
        };
        self.artifacts = artifacts
            .into_iter()
            .map(|artifact| match artifact {
                Value::Object(artifact) => artifact,
                _ => unreachable!("checked"),
            })
            .collect();
        self.appended = vec![TextParts::default(); self.artifacts.len()];
        self.artifact_at = at;
        self.history = history;
        self.parts = parts;
        self.task = Some(task);
        Ok(())
    }

    /// The quick path's parts of the artifact at `position`, made parts of
    /// its `parts` (before the full path touches it).
    fn settle(&mut self, position: usize) {
        let appended = std::mem::take(&mut self.appended[position]);
        if appended.is_empty() {
            return;
        }
        if let Some(Value::Array(parts)) = self.artifacts[position].get_mut("parts") {
            parts.extend(appended.iter().map(PartRef::to_value));
        }
    }

    fn task_id(&self) -> Option<&str> {
        self.task
            .as_ref()
            .and_then(|task| json::field(task, "id"))
            .and_then(Value::as_str)
    }

    /// The task an update is for: the one held, or one made for it.
    fn ensure_task(&mut self, update: &Map<String, Value>) -> Result<(), Bad> {
        let task_id = match update.get("taskId") {
            Some(Value::String(id)) => id,
            None | Some(Value::Null) => return bad("has no taskId"),
            Some(_) => return bad("has a taskId that is not a string"),
        };
        if let Some(held) = self.task_id() {
            if held != task_id {
                return bad(format!(
                    "is for task {}, not {}, the stream's task",
                    quote(task_id),
                    quote(held)
                ));
            }
            return Ok(());
        }
        // An update before any Task: the task it updates, as the server makes it.
        let version = self.version.unwrap_or("1.0");
        let context = match update.get("contextId") {
            Some(value) if !crate::events::is_falsy(Some(value)) => value.clone(),
            _ => Value::from(""),
        };
        let mut task = Map::new();
        task.insert("id".to_owned(), task_id.clone().into());
        task.insert("contextId".to_owned(), context);
        let mut status = Map::new();
        status.insert(
            "state".to_owned(),
            wire::spell_state("submitted", version).into(),
        );
        task.insert("status".to_owned(), Value::Object(status));
        if version == "0.3" {
            task.insert("kind".to_owned(), "task".into());
        }
        self.task = Some(task);
        Ok(())
    }

    fn status_update(&mut self, mut update: Map<String, Value>) -> Result<(), Bad> {
        let status = match update.shift_remove("status") {
            Some(Value::Object(status)) => status,
            _ => return bad("has a status that is not an object"),
        };
        let Some(state) = status.get("state").and_then(Value::as_str) else {
            return bad("has a status without a state");
        };
        let state = wire::state_name(state);
        self.ensure_task(&update)?;
        let task = self.task.as_mut().expect("ensured");
        merge_metadata(task, update.get("metadata"));
        self.set_status(status);
        self.ended = if self.version == Some("0.3") {
            matches!(update.get("final"), Some(Value::Bool(true)))
        } else {
            FINAL_STATES.contains(&state.as_str()) || INTERRUPTED_STATES.contains(&state.as_str())
        };
        Ok(())
    }

    fn set_status(&mut self, status: Map<String, Value>) {
        let task = self.task.as_mut().expect("a task is held");
        let held = task
            .get_mut("status")
            .and_then(Value::as_object_mut)
            .and_then(|held| held.get("message"))
            .filter(|message| !crate::events::is_falsy(Some(message)))
            .cloned();
        if let Some(message) = held {
            if !task.contains_key("history") {
                task.insert("history".to_owned(), Value::Null);
            }
            self.history.push(message);
        }
        task.insert("status".to_owned(), Value::Object(status));
    }

    fn artifact_update(&mut self, mut update: Map<String, Value>) -> Result<(), Bad> {
        let mut artifact = match update.shift_remove("artifact") {
            Some(Value::Object(artifact)) => artifact,
            _ => return bad("has an artifact that is not an object"),
        };
        let id = artifact_id(&artifact)?;
        let count = objects(&artifact, "parts", "an artifact")?.len();
        self.ensure_task(&update)?;
        let position = self.artifact_at.get(&id).copied();
        if matches!(update.get("append"), Some(Value::Bool(true))) {
            let Some(position) = position else {
                return bad(format!(
                    "appends to artifact {}, which has not started",
                    quote(&id)
                ));
            };
            let parts = match artifact.shift_remove("parts") {
                Some(Value::Array(parts)) => parts,
                _ => Vec::new(),
            };
            self.settle(position);
            let held = &mut self.artifacts[position];
            match held.get_mut("parts") {
                Some(Value::Array(held_parts)) => held_parts.extend(parts),
                _ => {
                    held.insert("parts".to_owned(), Value::Array(parts));
                }
            }
            merge_metadata(held, artifact.get("metadata"));
            self.parts += count;
            return Ok(());
        }
        let task = self.task.as_mut().expect("ensured");
        if !task.contains_key("artifacts") {
            task.insert("artifacts".to_owned(), Value::Null);
        }
        match position {
            None => {
                self.artifact_at.insert(id, self.artifacts.len());
                self.artifacts.push(artifact);
                self.appended.push(TextParts::default());
            }
            Some(position) => {
                let replaced = std::mem::replace(&mut self.artifacts[position], artifact);
                self.parts -= objects(&replaced, "parts", "").map_or(0, <[Value]>::len);
                self.parts -= std::mem::take(&mut self.appended[position]).len();
            }
        }
        self.parts += count;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::VERSIONS;
    use super::*;
    use crate::stream::Assemble;

    const TASK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}}"#;

    fn chunk(text: &str, append: bool) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"artifactUpdate":{{"taskId":"t","contextId":"c","append":{append},"artifact":{{"artifactId":"a","parts":[{{"text":"{text}"}}]}}}}}}}}"#
        )
    }

    fn feed(assembler: &mut Assembler, events: &[&str]) -> Result<(), Error> {
        for event in events {
            assembler.feed(format!("data: {event}\n\n").as_bytes())?;
        }
        Ok(())
    }

    #[test]
    fn appended_chunks_stay_separate_parts_as_the_sdk_keeps_them() {
        let mut assembler = Assembler::default();
        feed(
            &mut assembler,
            &[TASK, &chunk("a", false), &chunk("b", true)],
        )
        .unwrap();
        let task = assembler.task();
        assert_eq!(
            task["artifacts"][0]["parts"].to_string(),
            r#"[{"text":"a"},{"text":"b"}]"#
        );
        assert_eq!(assembler.version(), Some("1.0"));
    }

    #[test]
    fn an_update_before_any_task_makes_one_submitted() {
        let mut assembler = Assembler::default();
        feed(&mut assembler, &[&chunk("a", false)]).unwrap();
        assert_eq!(
            assembler.task()["status"].to_string(),
            r#"{"state":"TASK_STATE_SUBMITTED"}"#
        );
    }

    #[test]
    fn a_json_rpc_error_fails_the_task_and_ends_the_stream() {
        let mut assembler = Assembler::default();
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}"#;
        feed(&mut assembler, &[TASK, error]).unwrap();
        assert_eq!(assembler.task()["status"]["state"], "TASK_STATE_FAILED");
        assert_eq!(assembler.error()["code"], -32603);
        let Err(Error::Event(after)) = feed(&mut assembler, &[&chunk("a", false)]) else {
            panic!("an event after the error is refused");
        };
        assert_eq!(after.event, 3);
        // What was assembled stays.
        assert_eq!(assembler.task()["status"]["state"], "TASK_STATE_FAILED");
    }

    #[test]
    fn a_version_chosen_refuses_the_others_events_and_spells_what_it_makes() {
        let mut assembler = Assembler::default().with_version(VERSIONS[1]);
        let update = r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}}}"#;
        feed(&mut assembler, &[update]).unwrap();
        assert_eq!(
            assembler.task()["status"].to_string(),
            r#"{"state":"submitted"}"#
        );
        let Err(Error::Event(error)) = feed(&mut assembler, &[&chunk("b", false)]) else {
            panic!("a 1.0 event in a 0.3 stream is refused");
        };
        assert_eq!(
            error.to_string(),
            "A2A event 2 is an A2A 1.0 event in a 0.3 stream"
        );
    }

    #[test]
    fn append_to_an_artifact_that_never_started_is_an_event_error() {
        let mut assembler = Assembler::default();
        let Err(Error::Event(error)) = feed(&mut assembler, &[TASK, &chunk("a", true)]) else {
            panic!("append to an unknown artifact is refused");
        };
        assert_eq!(error.event, 2);
        assert!(error.to_string().starts_with("A2A event 2 "), "{error}");
        assert!(assembler.task()["artifacts"].is_null());
    }
}
