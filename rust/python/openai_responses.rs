//! `agentcodec._native.OpenAIResponsesAssembler`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::openai_responses::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles an OpenAI Responses stream into its final Response.
#[pyclass(frozen, module = "agentcodec.openai_responses", name = "Assembler")]
pub struct OpenAIResponsesAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(
    openai_responses,
    "OpenAIResponsesError",
    "OpenAIResponsesEventError"
);

assert_python_aligned!(OpenAIResponsesAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.openai_responses.Assembler.
    m.add(
        "OpenAIResponsesAssembler",
        m.py().get_type::<OpenAIResponsesAssembler>(),
    )
}

assembler_methods!(
    OpenAIResponsesAssembler,
    unit = "event",
    item = event, errors = "Errors the stream reported (`error`, `response.failed`) or, with `on_error=\"skip\"`, events skipped.",
    result = response,
    new = limits_only,
    {
        /// Ends the stream and returns the Response.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.response())
            })
        }

        /// The Response so far: a new dict on every access.
        #[getter]
        fn response<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.response()))
        }

        /// The text of every `output_text` part of every message, joined.
        #[getter]
        fn output_text(&self, py: Python<'_>) -> PyResult<String> {
            self.state.with(py, |state| Ok(state.inner.output_text()))
        }

        /// Every function and MCP call, its arguments parsed as they stream.
        #[getter]
        fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
        }

        /// The function calls among `tool_calls`, without their `type`. Read
        /// through the same parsers, so the two views may be read in turn.
        #[getter]
        fn function_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state.with(py, |state| {
                let calls = state.reader.read(py, state.inner.tool_calls())?;
                let functions = PyList::empty(py);
                for call in calls.iter() {
                    let call = call.cast_into::<PyDict>()?;
                    let is_function = match call.get_item("type")? {
                        Some(kind) => kind.eq("function_call")?,
                        None => false,
                    };
                    if is_function {
                        call.del_item("type")?;
                        functions.append(call)?;
                    }
                }
                Ok(functions)
            })
        }

        /// Events kept without being assembled: `error` events and unknown types.
        #[getter]
        fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| assemblers::to_list(py, state.inner.events()))
        }

        /// The Response's status, as the server last said.
        #[getter]
        fn status(&self, py: Python<'_>) -> PyResult<Option<String>> {
            self.state
                .with(py, |state| Ok(state.inner.status().map(str::to_owned)))
        }

    }
);
