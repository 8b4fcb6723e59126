//! `agentcodec._native.AISDKAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, AssemblerState};
use super::errors::{ai_sdk_error, ai_sdk_event_error, error_records, stream_error};
use super::guard::Guarded;
use super::json::to_python;
use crate::ai_sdk::{Assembler, Error, Options};
use crate::stream::Assemble;

/// Assembles a Vercel AI SDK UI message stream into its UIMessage.
#[pyclass(frozen, module = "agentcodec.ai_sdk", name = "Assembler")]
pub struct AISDKAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, ai_sdk_error, ai_sdk_event_error)
}

#[pymethods]
impl AISDKAssembler {
    #[new]
    #[pyo3(signature = (*, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default), text_signature = "(*, on_error='raise', max_line_bytes=..., max_event_bytes=..., max_errors=1000, max_stream_bytes=268435456, max_messages=100000)")]
    fn new(
        py: Python<'_>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        max_stream_bytes: LimitArg,
        max_messages: LimitArg,
    ) -> PyResult<Self> {
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner = Assembler::new(Options { on_error, limits });
        inner.set_max_errors(max_errors.max_errors(py)?);
        inner.set_max_stream_bytes(max_stream_bytes.max_stream_bytes(py)?);
        inner.set_max_messages(max_messages.max_messages(py)?);
        Ok(AISDKAssembler {
            state: assemblers::guarded(inner),
        })
    }

    /// Assembles a chunk of the raw SSE stream (any chunking).
    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed(py, &mut state.inner, data, to_py_err)
        })
    }

    /// Like `feed`, and returns the chunks the data completed, decoded.
    fn feed_with_events<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_with_events(py, &mut state.inner, data, to_py_err)
        })
    }

    /// Assembles one chunk that is already decoded (a dict).
    fn feed_event(&self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, &mut state.inner, event, to_py_err)
        })
    }

    /// Ends the stream and returns the UIMessage.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| {
            assemblers::close(py, &mut state.inner, to_py_err)?;
            to_python(py, &state.inner.message())
        })
    }

    /// The UIMessage so far: a new dict on every access.
    #[getter]
    fn message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state
            .with(py, |state| to_python(py, &state.inner.message()))
    }

    /// Every tool part, its input parsed as it streams.
    #[getter]
    fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
    }

    /// What the `finish` chunk said, or None.
    #[getter]
    fn finish_reason(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.state.with(py, |state| {
            Ok(state.inner.finish_reason().map(str::to_owned))
        })
    }

    /// Chunks kept without being assembled: `error` and `abort` chunks and
    /// chunks of types this version does not know.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| assemblers::to_list(py, state.inner.events()))
    }

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
