//! `agentcodec._native.BedrockAssembler`.

use pyo3::prelude::*;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::bedrock::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles a Bedrock ConverseStream into the response Converse gives.
#[pyclass(frozen, module = "agentcodec.bedrock", name = "Assembler")]
pub struct BedrockAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(bedrock, "BedrockError", "BedrockEventError");

assert_python_aligned!(BedrockAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.bedrock.Assembler.
    m.add("BedrockAssembler", m.py().get_type::<BedrockAssembler>())
}

assembler_methods!(
    BedrockAssembler,
    unit = "event",
    item = event,
    errors = "Errors the server sent or, with `on_error=\"skip\"`, events skipped.",
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
