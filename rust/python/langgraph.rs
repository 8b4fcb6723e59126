//! `agentcodec._native.LangGraphAssembler`.

use pyo3::prelude::*;

use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::langgraph::{Assembler, Options};
use crate::stream::Assemble;

/// Assembles a LangGraph Agent Server stream into what the run leaves.
#[pyclass(frozen, module = "agentcodec.langgraph", name = "Assembler")]
pub struct LangGraphAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(langgraph, "LangGraphError", "LangGraphEventError");

assert_python_aligned!(LangGraphAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.langgraph.Assembler.
    m.add(
        "LangGraphAssembler",
        m.py().get_type::<LangGraphAssembler>(),
    )
}

assembler_methods!(
    LangGraphAssembler,
    unit = "event",
    item = event,
    errors = "The run's error event, and, with `on_error=\"skip\"`, events skipped.",
    result = run,
    new = limits_only,
    {
        /// Ends the stream and returns what the run left.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                to_python(py, &state.inner.result())
            })
        }

        /// What the run left so far: a new dict on every access.
        #[getter]
        fn run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.result()))
        }

        /// The root graph's last values: the thread's state (None before any).
        #[getter]
        fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.values()))
        }

        /// The root graph's messages so far: a new list on every access.
        #[getter]
        fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.messages()))
        }

        /// The root graph's interrupts: what the run waits for.
        #[getter]
        fn interrupts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.interrupts()))
        }

        /// The run's id (the metadata event's).
        #[getter]
        fn run_id(&self, py: Python<'_>) -> PyResult<Option<String>> {
            self.state
                .with(py, |state| Ok(state.inner.run_id().map(str::to_owned)))
        }

        /// The error event's data, if the run failed.
        #[getter]
        fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.error()))
        }
    }
);
