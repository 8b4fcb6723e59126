//! `agentcodec._native.AGUIAssembler`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, AssemblerState};
use super::errors::{agui_error, agui_event_error, error_records, stream_error};
use super::guard::Guarded;
use super::json::{from_python, to_python};
use crate::agui::{Assembler, Error, Options};
use crate::json::{Map, Value};
use crate::stream::Assemble;

/// Assembles an AG-UI stream into the run the AG-UI client holds.
#[pyclass(frozen, module = "agentcodec.agui", name = "Assembler")]
pub struct AGUIAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, agui_error, agui_event_error)
}

#[pymethods]
impl AGUIAssembler {
    #[new]
    #[pyo3(signature = (*, messages = None, state = None, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default), text_signature = "(*, messages=None, state=None, on_error='raise', max_line_bytes=..., max_event_bytes=..., max_errors=1000, max_stream_bytes=268435456, max_messages=100000)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        messages: Option<&Bound<'_, PyAny>>,
        state: Option<&Bound<'_, PyAny>>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        max_stream_bytes: LimitArg,
        max_messages: LimitArg,
    ) -> PyResult<Self> {
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let json = |value: Option<&Bound<'_, PyAny>>, default: Value| match value {
            None => Ok(default),
            Some(value) if value.is_none() => Ok(default),
            Some(value) => from_python(value).map_err(|not_json| {
                PyTypeError::new_err(format!(
                    "messages and state must be JSON-compatible: {}",
                    not_json.0
                ))
            }),
        };
        let messages = match json(messages, Value::Array(Vec::new()))? {
            Value::Array(messages) if messages.iter().all(Value::is_object) => messages,
            _ => {
                return Err(PyTypeError::new_err(
                    "messages must be a list of message dicts",
                ))
            }
        };
        let state = json(state, Value::Object(Map::new()))?;
        let mut inner = Assembler::with_history(Options { on_error, limits }, messages, state);
        inner.set_max_errors(max_errors.max_errors(py)?);
        inner.set_max_stream_bytes(max_stream_bytes.max_stream_bytes(py)?);
        inner.set_max_messages(max_messages.max_messages(py)?);
        Ok(AGUIAssembler {
            state: assemblers::guarded(inner),
        })
    }

    /// Assembles a chunk of the raw SSE stream (any chunking).
    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed(py, &mut state.inner, data, to_py_err)
        })
    }

    /// Like `feed`, and returns the events the chunk completed, decoded.
    fn feed_with_events<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_with_events(py, &mut state.inner, data, to_py_err)
        })
    }

    /// Assembles one event that is already decoded (a dict).
    fn feed_event(&self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, &mut state.inner, event, to_py_err)
        })
    }

    /// Ends the stream and returns the run.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| {
            assemblers::close(py, &mut state.inner, to_py_err)?;
            to_python(py, &state.inner.run())
        })
    }

    /// The run so far: a new dict on every access.
    #[getter]
    fn run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state
            .with(py, |state| to_python(py, &state.inner.run()))
    }

    /// The messages as the AG-UI client holds them.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| assemblers::to_list(py, state.inner.messages()))
    }

    /// Every tool call of every message, its arguments parsed as they stream.
    #[getter]
    fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
    }

    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state
            .with(py, |state| to_python(py, state.inner.state()))
    }

    #[getter]
    fn status(&self, py: Python<'_>) -> PyResult<String> {
        self.state
            .with(py, |state| Ok(state.inner.status().to_owned()))
    }

    /// Errors the stream reported (RUN_ERROR) or, with `on_error="skip"`,
    /// events skipped.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| error_records(py, state.inner.errors()))
    }

    /// A new connection carries the stream on (a client resuming with
    /// `Last-Event-ID`): the event the old one left unterminated is
    /// discarded, since the server sends it again; nothing assembled is lost.
    fn reconnect(&self, py: Python<'_>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::reconnect(py, &mut state.inner, to_py_err)
        })
    }

    /// The stream's last event ID, to send as `Last-Event-ID` on reconnecting.
    #[getter]
    fn last_event_id(&self, py: Python<'_>) -> PyResult<String> {
        self.state
            .with(py, |state| Ok(state.inner.last_event_id().to_owned()))
    }

    /// The reconnection time in milliseconds the stream set, if any.
    #[getter]
    fn retry(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        self.state.with(py, |state| Ok(state.inner.retry()))
    }

    #[getter]
    fn event_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.state.with(py, |state| Ok(state.inner.event_count()))
    }

    /// Every error recorded, including those past `max_errors` not kept.
    #[getter]
    fn error_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.state.with(py, |state| Ok(state.inner.error_count()))
    }
}
