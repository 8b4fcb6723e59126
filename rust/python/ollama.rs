//! `agentcodec._native.OllamaAssembler`.

use pyo3::prelude::*;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::ollama::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles an Ollama stream into the answer the server gives without
/// streaming.
#[pyclass(frozen, module = "agentcodec.ollama", name = "Assembler")]
pub struct OllamaAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(ollama, "OllamaError", "OllamaEventError");

assert_python_aligned!(OllamaAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.ollama.Assembler.
    m.add("OllamaAssembler", m.py().get_type::<OllamaAssembler>())
}

assembler_methods!(
    OllamaAssembler,
    unit = "line",
    item = event,
    errors = "Errors the server sent or, with `on_error=\"skip\"`, lines skipped.",
    result = answer,
    new = limits_only,
    {
        /// Ends the stream and returns the answer.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.answer())
            })
        }

        /// The answer so far: a new dict on every access.
        #[getter]
        fn answer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.answer()))
        }

        /// Whether the done line came.
        #[getter]
        fn done(&self, py: Python<'_>) -> PyResult<bool> {
            self.state.with(py, |state| Ok(state.inner.done()))
        }
    }
);
