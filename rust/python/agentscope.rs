//! `agentcodec._native.AgentScopeAssembler`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::{rendered_list, to_python};
use crate::agentscope::{Assembler, DataMerge, Options};
use crate::stream::Assemble;

/// Assembles an AgentScope Agent API (`/process`) stream into its AgentResponse.
#[pyclass(frozen, module = "agentcodec.agentscope", name = "Assembler")]
pub struct AgentScopeAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(agentscope, "AgentScopeError", "AgentScopeEventError");

assert_python_aligned!(AgentScopeAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.agentscope.Assembler.
    m.add(
        "AgentScopeAssembler",
        m.py().get_type::<AgentScopeAssembler>(),
    )
}

assembler_methods!(
    AgentScopeAssembler,
    unit = "event",
    item = event,
    errors = "Errors the stream reported or, with `on_error=\"skip\"`, frames skipped.",
    result = response,
    {
        #[new]
        #[pyo3(signature = (*, data_merge = StrArg::Default("merge"), on_error = StrArg::Default("raise"), strict = false, max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(*, data_merge='merge', on_error='raise', strict=False, max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
        #[allow(clippy::too_many_arguments)] // one per Python argument
        fn new(
            py: Python<'_>,
            data_merge: StrArg,
            on_error: StrArg,
            strict: bool,
            max_line_bytes: LimitArg,
            max_event_bytes: LimitArg,
            max_errors: LimitArg,
            max_stream_bytes: LimitArg,
            max_messages: LimitArg,
            max_blocks: LimitArg,
        ) -> PyResult<Self> {
            let data_merge = match data_merge.get(py, "data_merge")?.as_str() {
                "merge" => DataMerge::Merge,
                "upstream" => DataMerge::Upstream,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "data_merge must be 'merge' or 'upstream', not {}",
                        py_repr(py, other)
                    )))
                }
            };
            let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
            let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
            let mut inner = Assembler::new(Options {
                data_merge,
                on_error,
                strict,
                limits,
            });
            assemblers::set_limits(
                py,
                &mut inner,
                &max_errors,
                &max_stream_bytes,
                &max_messages,
                &max_blocks,
            )?;
            Ok(AgentScopeAssembler {
                state: assemblers::guarded(inner),
            })
        }

        /// Ends the stream and returns the final response.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                response(py, &state.inner)
            })
        }

        /// The AgentResponse assembled so far: a new dict on every access.
        #[getter]
        fn response<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| response(py, &state.inner))
        }

        /// Every message assembled, in order of first appearance.
        #[getter]
        fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state.with(py, |state| {
                rendered_list(py, state.inner.rendered_messages())
            })
        }

        /// Every tool call, its arguments parsed as they stream.
        #[getter]
        fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
        }
    }
);

/// The AgentResponse as a dict, the messages in its output read from their
/// text where they are kept as text.
fn response<'py>(py: Python<'py>, inner: &Assembler) -> PyResult<Bound<'py, PyAny>> {
    let (response, messages) = inner.rendered_response();
    let response = to_python(py, &response)?;
    if let Some(messages) = messages {
        response.set_item("output", rendered_list(py, messages)?)?;
    }
    Ok(response)
}

fn py_repr(py: Python<'_>, text: &str) -> String {
    pyo3::types::PyString::new(py, text)
        .repr()
        .map(|repr| repr.to_string())
        .unwrap_or_else(|_| format!("'{text}'"))
}
