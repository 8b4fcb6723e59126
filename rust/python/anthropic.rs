//! `agentcodec._native.AnthropicAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{anthropic_error, anthropic_event_error, error_records, stream_error};
use super::guard::Guarded;
use super::json::to_python;
use crate::anthropic::{Assembler, Error, Options};
use crate::stream::Assemble;

/// Assembles an Anthropic Messages stream into its final Message.
#[pyclass(frozen, module = "agentcodec.anthropic", name = "Assembler")]
pub struct AnthropicAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, anthropic_error, anthropic_event_error)
}

assembler_methods!(AnthropicAssembler, unit = "event", item = event, {
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
        Ok(AnthropicAssembler {
            state: assemblers::guarded(inner),
        })
    }

    /// Ends the stream and returns the Message.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| {
            assemblers::close(py, &mut state.inner, to_py_err)?;
            to_python(py, &state.inner.message())
        })
    }

    /// The Message so far: a new dict on every access.
    #[getter]
    fn message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state
            .with(py, |state| to_python(py, &state.inner.message()))
    }

    /// Every tool block, its input parsed as it streams.
    #[getter]
    fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
    }

    /// Events kept without being assembled: the server's `error` events and
    /// events of types this version does not know.
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
