//! `agentcodec._native.AGUIAssembler`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::{from_python, to_python};
use crate::agui::{Assembler, Options};
use crate::json::{Map, Value};
use crate::stream::Assemble;

/// Assembles an AG-UI stream into the run the AG-UI client holds.
#[pyclass(frozen, module = "agentcodec.agui", name = "Assembler")]
pub struct AGUIAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(agui, "AGUIError", "AGUIEventError");

assert_python_aligned!(AGUIAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.agui.Assembler.
    m.add("AGUIAssembler", m.py().get_type::<AGUIAssembler>())
}

assembler_methods!(
    AGUIAssembler,
    unit = "event",
    item = event,
    errors = "Errors the stream reported (RUN_ERROR) or, with `on_error=\"skip\"`, events skipped.",
    result = run,
    {
        #[new]
        #[pyo3(signature = (*, messages = None, state = None, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(*, messages=None, state=None, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
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
            max_blocks: LimitArg,
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
            assemblers::set_limits(
                py,
                &mut inner,
                &max_errors,
                &max_stream_bytes,
                &max_messages,
                &max_blocks,
            )?;
            Ok(AGUIAssembler {
                state: assemblers::guarded(inner),
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
    }
);
