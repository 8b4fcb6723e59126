//! Raising the exceptions defined in `agentcodec._errors`, so that both
//! backends raise the very same classes with the very same messages.

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};

use crate::sse::LimitError;

static SSE_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGENTSCOPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGENTSCOPE_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LANGCHAIN_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LANGCHAIN_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Instantiates the named exception class of `agentcodec._errors`.
fn raise<'py>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyType>>,
    name: &str,
    args: impl PyCallArgs<'py>,
) -> PyErr {
    let class = match cell.import(py, "agentcodec._errors", name) {
        Ok(class) => class,
        Err(import_error) => return import_error,
    };
    match class.call1(args) {
        Ok(instance) => PyErr::from_value(instance),
        Err(call_error) => call_error,
    }
}

/// `AgentScopeError(message)`.
pub fn agentscope_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &AGENTSCOPE_ERROR, "AgentScopeError", (message,))
}

/// `AgentScopeEventError(event, problem)`.
pub fn agentscope_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(
        py,
        &AGENTSCOPE_EVENT_ERROR,
        "AgentScopeEventError",
        (event, problem),
    )
}

/// `SSELimitError(limit, max_bytes, offset, events)`: `events` are those
/// completed by the call that failed, before the offending line.
pub fn sse_limit_error(py: Python<'_>, err: &LimitError, events: Bound<'_, PyList>) -> PyErr {
    raise(
        py,
        &SSE_LIMIT_ERROR,
        "SSELimitError",
        (err.kind.setting(), err.max_bytes, err.offset, events),
    )
}

/// `LangChainError(message)`.
pub fn langchain_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &LANGCHAIN_ERROR, "LangChainError", (message,))
}

/// `LangChainEventError(event, problem)`.
pub fn langchain_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(
        py,
        &LANGCHAIN_EVENT_ERROR,
        "LangChainEventError",
        (event, problem),
    )
}
