//! `agentcodec._native.AISDKAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
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

assembler_methods!(AISDKAssembler, unit = "chunk", item = event, {
    #[new]
    #[pyo3(signature = (*, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(*, on_error='raise', max_line_bytes=..., max_event_bytes=..., max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        max_stream_bytes: LimitArg,
        max_messages: LimitArg,
        max_blocks: LimitArg,
    ) -> PyResult<Self> {
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner = Assembler::new(Options { on_error, limits });
        assemblers::set_limits(
            py,
            &mut inner,
            &max_errors,
            &max_stream_bytes,
            &max_messages,
            &max_blocks,
        )?;
        Ok(AISDKAssembler {
            state: assemblers::guarded(inner),
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
});
