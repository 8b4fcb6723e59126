//! `agentcodec._native.AGUIAssembler`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers;
use super::errors::{agui_error, agui_event_error, error_records, stream_error};
use super::json::{from_python, to_python};
use super::tool_calls::ToolCallReader;
use crate::agui::{Assembler, Error, Options};
use crate::json::{Map, Value};
use crate::stream::Assemble;

/// Assembles an AG-UI stream into the run the AG-UI client holds.
#[pyclass(module = "agentcodec.agui", name = "Assembler")]
pub struct AGUIAssembler {
    inner: Assembler,
    reader: ToolCallReader,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, agui_error, agui_event_error)
}

#[pymethods]
impl AGUIAssembler {
    #[new]
    #[pyo3(signature = (*, messages = None, state = None, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default), text_signature = "(*, messages=None, state=None, on_error='raise', max_line_bytes=..., max_event_bytes=..., max_errors=1000)")]
    fn new(
        py: Python<'_>,
        messages: Option<&Bound<'_, PyAny>>,
        state: Option<&Bound<'_, PyAny>>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
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
        let mut this = AGUIAssembler {
            inner: Assembler::with_history(Options { on_error, limits }, messages, state),
            reader: ToolCallReader::default(),
        };
        this.inner.set_max_errors(max_errors.max_errors(py)?);
        Ok(this)
    }

    /// Assembles a chunk of the raw SSE stream (any chunking).
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        assemblers::feed(py, &mut self.inner, data, to_py_err)
    }

    /// Like `feed`, and returns the events the chunk completed, decoded.
    fn feed_with_events<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        assemblers::feed_with_events(py, &mut self.inner, data, to_py_err)
    }

    /// Assembles one event that is already decoded (a dict).
    fn feed_event(&mut self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        assemblers::feed_event(py, &mut self.inner, event, to_py_err)
    }

    /// Ends the stream and returns the run.
    fn close<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        assemblers::close(py, &mut self.inner, to_py_err)?;
        self.run(py)
    }

    /// The run so far: a new dict on every access.
    #[getter]
    fn run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.run())
    }

    /// The messages as the AG-UI client holds them.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        assemblers::to_list(py, self.inner.messages())
    }

    /// Every tool call of every message, its arguments parsed as they stream.
    #[getter]
    fn tool_calls<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.reader.read(py, self.inner.tool_calls())
    }

    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.inner.state())
    }

    #[getter]
    fn status(&self) -> &str {
        self.inner.status()
    }

    /// Errors the stream reported (RUN_ERROR) or, with `on_error="skip"`,
    /// events skipped.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        error_records(py, self.inner.errors())
    }

    /// A new connection carries the stream on (a client resuming with
    /// `Last-Event-ID`): the event the old one left unterminated is
    /// discarded, since the server sends it again; nothing assembled is lost.
    fn reconnect(&mut self, py: Python<'_>) -> PyResult<()> {
        assemblers::reconnect(py, &mut self.inner, to_py_err)
    }

    /// The stream's last event ID, to send as `Last-Event-ID` on reconnecting.
    #[getter]
    fn last_event_id(&self) -> &str {
        self.inner.last_event_id()
    }

    /// The reconnection time in milliseconds the stream set, if any.
    #[getter]
    fn retry(&self) -> Option<u64> {
        self.inner.retry()
    }

    #[getter]
    fn event_count(&self) -> u64 {
        self.inner.event_count()
    }

    /// Every error recorded, including those past `max_errors` not kept.
    #[getter]
    fn error_count(&self) -> u64 {
        self.inner.error_count()
    }
}
