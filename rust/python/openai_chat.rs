//! `agentcodec._native.OpenAIChatAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::openai_chat::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles an OpenAI Chat Completions stream into its final ChatCompletion.
#[pyclass(frozen, module = "agentcodec.openai_chat", name = "Assembler")]
pub struct OpenAIChatAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(openai_chat, "OpenAIChatError", "OpenAIChatEventError");

assert_python_aligned!(OpenAIChatAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.openai_chat.Assembler.
    m.add(
        "OpenAIChatAssembler",
        m.py().get_type::<OpenAIChatAssembler>(),
    )
}

assembler_methods!(
    OpenAIChatAssembler,
    unit = "chunk",
    item = event,
    errors = "Errors the server sent or, with `on_error=\"skip\"`, chunks skipped.",
    result = completion,
    new = limits_only,
    {
        /// Ends the stream and returns the ChatCompletion.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.completion())
            })
        }

        /// The ChatCompletion so far: a new dict on every access.
        #[getter]
        fn completion<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.completion()))
        }

        /// Every tool call of every choice, its arguments parsed so far.
        #[getter]
        fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
        }

        /// Chunks kept without being assembled: server errors and content-filter
        /// annotations.
        #[getter]
        fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| assemblers::to_list(py, state.inner.events()))
        }
    }
);
