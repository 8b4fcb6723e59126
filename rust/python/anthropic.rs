//! `agentcodec._native.AnthropicAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::anthropic::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles an Anthropic Messages stream into its final Message.
#[pyclass(frozen, module = "agentcodec.anthropic", name = "Assembler")]
pub struct AnthropicAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(anthropic, "AnthropicError", "AnthropicEventError");

assert_python_aligned!(AnthropicAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.anthropic.Assembler.
    m.add(
        "AnthropicAssembler",
        m.py().get_type::<AnthropicAssembler>(),
    )
}

assembler_methods!(
    AnthropicAssembler,
    unit = "event",
    item = event,
    errors = "Errors the server sent or, with `on_error=\"skip\"`, events skipped.",
    result = message,
    new = limits_only,
    {
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
    }
);
