//! `agentcodec._native.AISDKAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::ai_sdk::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles a Vercel AI SDK UI message stream into its UIMessage.
#[pyclass(frozen, module = "agentcodec.ai_sdk", name = "Assembler")]
pub struct AISDKAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(ai_sdk, "AISDKError", "AISDKEventError");

assert_python_aligned!(AISDKAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.ai_sdk.Assembler.
    m.add("AISDKAssembler", m.py().get_type::<AISDKAssembler>())
}

assembler_methods!(
    AISDKAssembler,
    unit = "chunk",
    item = event,
    errors =
        "Errors the server sent (`error` chunks) or, with `on_error=\"skip\"`, chunks skipped.",
    result = message,
    new = limits_only,
    {
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
    }
);
