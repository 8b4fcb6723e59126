//! `agentcodec._native.Transcoder`, `NeutralDecoder`, `NeutralEncoder` and
//! `NeutralAssembler`: streams through the neutral vocabulary.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString};

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, ToPyErr};
use super::errors::{
    agentscope_error, agentscope_event_error, agui_error, agui_event_error, ai_sdk_error,
    ai_sdk_event_error, anthropic_error, anthropic_event_error, chat_error, chat_event_error,
    error_records, langchain_error, langchain_event_error, responses_error, responses_event_error,
    stream_error,
};
use super::guard::Guarded;
use super::json::{from_python, to_python};
use crate::events::Event;
use crate::json::Value;
use crate::stream::Assemble;
use crate::transcode::{self, EncoderOptions, PROTOCOLS};

/// The protocol named by `name`, refused as the pure backend refuses it.
fn protocol(py: Python<'_>, name: &Bound<'_, PyAny>, role: &str) -> PyResult<String> {
    let Ok(text) = name.cast::<PyString>() else {
        let kind = name.get_type().name()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "{role} must be a protocol name (str), not {kind}"
        )));
    };
    let text = text.to_str()?.to_owned();
    if !PROTOCOLS.contains(&text.as_str()) {
        let repr = PyString::new(py, &text).repr()?.to_string();
        return Err(PyValueError::new_err(format!(
            "unknown {role} protocol {repr}; known: {}",
            PROTOCOLS.join(", ")
        )));
    }
    Ok(text)
}

/// How a source protocol's errors are raised: its own exception classes.
fn to_py_err_for(source: &str) -> ToPyErr {
    fn agentscope(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, agentscope_error, agentscope_event_error)
    }
    fn langchain(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, langchain_error, langchain_event_error)
    }
    fn agui(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, agui_error, agui_event_error)
    }
    fn responses(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, responses_error, responses_event_error)
    }
    fn chat(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, chat_error, chat_event_error)
    }
    fn anthropic(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, anthropic_error, anthropic_event_error)
    }
    fn ai_sdk(py: Python<'_>, err: crate::stream::Error) -> PyErr {
        stream_error(py, err, ai_sdk_error, ai_sdk_event_error)
    }
    match source {
        "agentscope" => agentscope,
        "ai-sdk" => ai_sdk,
        "langchain" => langchain,
        "agui" => agui,
        "openai-chat" => chat,
        "anthropic" => anthropic,
        _ => responses,
    }
}

/// The options each encoder takes, in the order the messages list them.
fn option_names(target: &str) -> &'static [&'static str] {
    match target {
        "agentscope" => &["session_id", "response_id", "created_at"],
        "langchain" => &["namespace", "node", "timestamp"],
        "agui" => &["thread_id", "run_id"],
        "anthropic" => &["response_id", "model"],
        "ai-sdk" => &["message_id"],
        _ => &["response_id", "model", "created_at"],
    }
}

fn str_option(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    match value.cast::<PyString>() {
        Ok(text) => Ok(Some(text.to_str()?.to_owned())),
        Err(_) => Err(type_error(name, "str", value)),
    }
}

fn int_option(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if value.is_none() {
        return Ok(None);
    }
    if !value.get_type().is(value.py().get_type::<PyInt>()) {
        return Err(type_error(name, "int", value));
    }
    value
        .extract::<i64>()
        .map(Some)
        .map_err(|_| PyValueError::new_err(format!("{name} does not fit in 64 bits")))
}

fn list_option(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    let is_sequence =
        value.is_instance_of::<PyList>() || value.is_instance_of::<pyo3::types::PyTuple>();
    let parts: Option<Vec<String>> = if is_sequence {
        value
            .try_iter()?
            .map(|part| {
                part.ok()
                    .and_then(|part| part.cast::<PyString>().ok().map(|text| text.to_string()))
            })
            .collect()
    } else {
        None
    };
    parts.ok_or_else(|| type_error(name, "list[str]", value))
}

fn type_error(name: &str, kind: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let given = value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_default();
    PyTypeError::new_err(format!("{name} must be {kind} or None, not {given}"))
}

/// A target's encoder options from keyword arguments, checked as the pure
/// backend checks them.
fn encoder_options(
    py: Python<'_>,
    target: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<EncoderOptions> {
    let allowed = option_names(target);
    let mut given: Vec<(String, Bound<'_, PyAny>)> = Vec::new();
    if let Some(options) = options {
        for (key, value) in options.iter() {
            given.push((key.extract::<String>()?, value));
        }
    }
    let mut unknown: Vec<&str> = given
        .iter()
        .map(|(key, _)| key.as_str())
        .filter(|key| !allowed.contains(key))
        .collect();
    unknown.sort_unstable();
    if let Some(first) = unknown.first() {
        let repr = PyString::new(py, first).repr()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "the {target} encoder takes no option {repr} (it takes {})",
            allowed.join(", ")
        )));
    }
    let mut options = EncoderOptions::defaults(target).expect("a known protocol");
    for (key, value) in &given {
        match (&mut options, key.as_str()) {
            (EncoderOptions::AgentScope { session_id, .. }, "session_id") => {
                *session_id = str_option(key, value)?;
            }
            (EncoderOptions::AgentScope { response_id, .. }, "response_id") => {
                *response_id = str_option(key, value)?;
            }
            (EncoderOptions::AgentScope { created_at, .. }, "created_at") => {
                *created_at = int_option(key, value)?;
            }
            (EncoderOptions::LangChain { namespace, .. }, "namespace") => {
                *namespace = list_option(key, value)?;
            }
            (EncoderOptions::LangChain { node, .. }, "node") => *node = str_option(key, value)?,
            (EncoderOptions::LangChain { timestamp, .. }, "timestamp") => {
                *timestamp = int_option(key, value)?;
            }
            (EncoderOptions::Agui { thread_id, .. }, "thread_id") => {
                *thread_id = str_option(key, value)?;
            }
            (EncoderOptions::Agui { run_id, .. }, "run_id") => *run_id = str_option(key, value)?,
            (
                EncoderOptions::OpenAIResponses { response_id, .. }
                | EncoderOptions::OpenAIChat { response_id, .. }
                | EncoderOptions::Anthropic { response_id, .. },
                "response_id",
            ) => {
                *response_id = str_option(key, value)?;
            }
            (
                EncoderOptions::OpenAIResponses { model, .. }
                | EncoderOptions::OpenAIChat { model, .. }
                | EncoderOptions::Anthropic { model, .. },
                "model",
            ) => {
                *model = str_option(key, value)?;
            }
            (
                EncoderOptions::OpenAIResponses { created_at, .. }
                | EncoderOptions::OpenAIChat { created_at, .. },
                "created_at",
            ) => {
                *created_at = int_option(key, value)?;
            }
            (EncoderOptions::AISdk { message_id }, "message_id") => {
                *message_id = str_option(key, value)?;
            }
            _ => unreachable!("options were checked against the allowed names"),
        }
    }
    Ok(options)
}

fn to_events<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for event in events {
        list.append(to_python(py, &Value::Object(event.clone()))?)?;
    }
    Ok(list)
}

/// Writes a class's `#[pymethods]`: its own methods, then the reads and
/// `reconnect` that the three stream classes here have alike (their state
/// an `Assemble`, their errors turned into exceptions by `self.to_py_err`).
macro_rules! stream_methods {
    ($class:ident, { $($own:tt)* }) => {
        #[pymethods]
        impl $class {
            $($own)*

            /// The errors recorded (at most `max_errors` of them are kept).
            #[getter]
            fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
                self.state
                    .with(py, |state| error_records(py, state.errors()))
            }

            /// A new connection carries the stream on (a client resuming with
            /// `Last-Event-ID`): the event the old one left unterminated is
            /// discarded, since the server sends it again; nothing assembled is lost.
            fn reconnect(&self, py: Python<'_>) -> PyResult<()> {
                self.state
                    .with(py, |state| assemblers::reconnect(py, state, self.to_py_err))
            }

            /// The stream's last event ID, to send as `Last-Event-ID` on reconnecting.
            #[getter]
            fn last_event_id(&self, py: Python<'_>) -> PyResult<String> {
                self.state
                    .with(py, |state| Ok(state.last_event_id().to_owned()))
            }

            /// The reconnection time in milliseconds the stream set, if any.
            #[getter]
            fn retry(&self, py: Python<'_>) -> PyResult<Option<u64>> {
                self.state.with(py, |state| Ok(state.retry()))
            }

            /// The events seen so far (from the stream, and passed to `feed_event`).
            #[getter]
            fn event_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.event_count()))
            }

            /// Every error recorded, including those past `max_errors` not kept.
            #[getter]
            fn error_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.error_count()))
            }
        }
    };
}

/// Converts a stream of one protocol into another, as it streams.
#[pyclass(frozen, module = "agentcodec", name = "Transcoder")]
pub struct Transcoder {
    state: Guarded<transcode::Transcoder>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: String,
    #[pyo3(get)]
    target: String,
}

stream_methods!(Transcoder, {
    #[new]
    #[pyo3(signature = (source, target, *, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, **options), text_signature = "(source, target, *, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, **options)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let target = protocol(py, target, "target")?;
        let source = protocol(py, source, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let options = encoder_options(py, &target, options)?;
        let mut inner = transcode::Transcoder::new(&source, options, limits, on_error)
            .expect("a known protocol");
        inner.set_max_errors(max_errors.max_errors(py)?);
        Ok(Transcoder {
            state: Guarded::new("Transcoder", inner),
            to_py_err: to_py_err_for(&source),
            source,
            target,
        })
    }

    /// Converts a chunk of the source's SSE stream; returns the target's SSE
    /// bytes for the events it completed. After an error, what was converted
    /// before it comes with the next call.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "Transcoder.feed()", self.to_py_err)?;
            Ok(PyBytes::new(py, &state.take_bytes()))
        })
    }

    /// Converts one source event already decoded from JSON; returns the
    /// target's events.
    fn feed_event<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)?;
            to_events(py, &state.take_events())
        })
    }

    /// Ends the source stream; returns the target's last SSE bytes.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            Ok(PyBytes::new(py, &state.take_bytes()))
        })
    }
});

/// Decodes a protocol's stream into neutral events.
#[pyclass(frozen, module = "agentcodec", name = "NeutralDecoder")]
pub struct NeutralDecoder {
    state: Guarded<transcode::Decoder>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: String,
}

stream_methods!(NeutralDecoder, {
    #[new]
    #[pyo3(signature = (source, *, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default), text_signature = "(source, *, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000)")]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
    ) -> PyResult<Self> {
        let source = protocol(py, source, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner =
            transcode::Decoder::new(&source, limits, on_error).expect("a known protocol");
        inner.set_max_errors(max_errors.max_errors(py)?);
        Ok(NeutralDecoder {
            state: Guarded::new("NeutralDecoder", inner),
            to_py_err: to_py_err_for(&source),
            source,
        })
    }

    /// Decodes a chunk of the raw SSE stream; returns the neutral events it
    /// completed.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "events.Decoder.feed()", self.to_py_err)?;
            to_events(py, &state.take())
        })
    }

    /// Decodes one event that is already decoded from JSON.
    fn feed_event<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)?;
            to_events(py, &state.take())
        })
    }

    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            to_events(py, &state.take())
        })
    }
});

/// Encodes neutral events into a protocol's events and SSE bytes.
#[pyclass(frozen, module = "agentcodec", name = "NeutralEncoder")]
pub struct NeutralEncoder {
    state: Guarded<transcode::Encoder>,
    #[pyo3(get)]
    target: String,
}

/// A neutral event given by Python, refused as the pure backend refuses it.
fn neutral_event(event: &Bound<'_, PyAny>) -> PyResult<Event> {
    match from_python(event) {
        Ok(Value::Object(event)) => Ok(event),
        Ok(_) => {
            let kind = event.get_type().name()?.to_string();
            Err(PyTypeError::new_err(format!(
                "a neutral event is a dict, not {kind}"
            )))
        }
        Err(not_json) => Err(PyTypeError::new_err(format!(
            "a neutral event must be JSON-compatible: {}",
            not_json.0
        ))),
    }
}

#[pymethods]
impl NeutralEncoder {
    #[new]
    #[pyo3(signature = (target, **options))]
    fn new(
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let target = protocol(py, target, "target")?;
        let options = encoder_options(py, &target, options)?;
        Ok(NeutralEncoder {
            state: Guarded::new("NeutralEncoder", transcode::Encoder::new(options)),
            target,
        })
    }

    /// The SSE bytes of what one neutral event becomes.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            let event = neutral_event(event)?;
            Ok(PyBytes::new(py, &state.encode(&event)))
        })
    }

    /// What one neutral event becomes, as the target's events.
    fn encode_events<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            let event = neutral_event(event)?;
            to_events(py, &state.encode_events(&event))
        })
    }

    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.state
            .with(py, |state| Ok(PyBytes::new(py, &state.close())))
    }
}

/// Assembles any protocol's stream into one protocol-neutral view.
#[pyclass(frozen, module = "agentcodec", name = "NeutralAssembler")]
pub struct NeutralAssembler {
    state: Guarded<transcode::Assembler>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: String,
}

stream_methods!(NeutralAssembler, {
    #[new]
    #[pyo3(signature = (protocol, *, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(protocol, *, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        protocol: &Bound<'_, PyAny>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        max_stream_bytes: LimitArg,
        max_messages: LimitArg,
        max_blocks: LimitArg,
    ) -> PyResult<Self> {
        let name = self::protocol(py, protocol, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner =
            transcode::Assembler::new(&name, limits, on_error).expect("a known protocol");
        assemblers::set_limits(
            py,
            &mut inner,
            &max_errors,
            &max_stream_bytes,
            &max_messages,
            &max_blocks,
        )?;
        Ok(NeutralAssembler {
            state: Guarded::new("NeutralAssembler", inner),
            to_py_err: to_py_err_for(&name),
            source: name,
        })
    }

    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "events.Assembler.feed()", self.to_py_err)
        })
    }

    fn feed_event(&self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)
        })
    }

    /// Ends the stream and returns the view.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            to_python(py, &state.view())
        })
    }

    /// The result so far, what `close()` returns once the stream ends: `view`.
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.view(py)
    }

    /// The view so far: a new dict on every access.
    #[getter]
    fn view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| to_python(py, &state.view()))
    }
});
