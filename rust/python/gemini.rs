//! `agentcodec._native.GeminiAssembler`.

use pyo3::prelude::*;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::gemini::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles a Gemini stream into the response `generateContent` gives.
#[pyclass(frozen, module = "agentcodec.gemini", name = "Assembler")]
pub struct GeminiAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(gemini, "GeminiError", "GeminiEventError");

assert_python_aligned!(GeminiAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.gemini.Assembler.
    m.add("GeminiAssembler", m.py().get_type::<GeminiAssembler>())
}

assembler_methods!(
    GeminiAssembler,
    unit = "record",
    item = event,
    errors = "Errors the server sent or, with `on_error=\"skip\"`, records skipped.",
    result = response,
    new = limits_only,
    {
        /// Ends the stream and returns the response.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.response())
            })
        }

        /// The response so far: a new dict on every access.
        #[getter]
        fn response<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.response()))
        }
    }
);
