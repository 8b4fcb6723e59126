//! `agentcodec._native.A2AAssembler`.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::a2a::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles an A2A stream into its Task.
#[pyclass(frozen, module = "agentcodec.a2a", name = "Assembler")]
pub struct A2AAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!("A2AError", "A2AEventError");

assert_python_aligned!(A2AAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.a2a.Assembler.
    m.add("A2AAssembler", m.py().get_type::<A2AAssembler>())
}

impl A2AAssembler {
    /// The Task, or the Message when the agent answered without a task: a
    /// new dict on every access.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state
            .with(py, |state| to_python(py, &state.inner.result()))
    }
}

assembler_methods!(
    A2AAssembler,
    unit = "event",
    item = event,
    errors = "JSON-RPC errors the server sent or, with `on_error=\"skip\"`, events skipped.",
    result = outcome,
    new = limits_only,
    {
        /// Ends the stream and returns the Task (or the Message that
        /// answered without one).
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.result())
            })
        }

        /// The Task so far (None before any task event).
        #[getter]
        fn task<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| to_python(py, &state.inner.task()))
        }

        /// The Message that answered the request, when it made no task.
        #[getter]
        fn message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| to_python(py, &state.inner.message()))
        }

        /// The JSON-RPC error that ended the stream, if one did.
        #[getter]
        fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| to_python(py, &state.inner.error()))
        }

        /// The stream's spec version, "0.3" or "1.0", once an event said it.
        #[getter]
        fn version(&self, py: Python<'_>) -> PyResult<Option<&'static str>> {
            self.state.with(py, |state| Ok(state.inner.version()))
        }

        /// Events kept without being assembled: the JSON-RPC errors.
        #[getter]
        fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| assemblers::to_list(py, state.inner.events()))
        }
    }
);
