//! Raising the exceptions defined in `agentcodec._errors`, so that both
//! backends raise the very same classes with the very same messages.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};

use crate::sse::LimitError;

static SSE_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `SSELimitError(limit, max_bytes, offset, events)`: `events` are those
/// completed by the call that failed, before the offending line.
pub fn sse_limit_error(py: Python<'_>, err: &LimitError, events: Bound<'_, PyList>) -> PyErr {
    let class = match SSE_LIMIT_ERROR.import(py, "agentcodec._errors", "SSELimitError") {
        Ok(class) => class,
        Err(import_error) => return import_error,
    };
    match class.call1((err.kind.setting(), err.max_bytes, err.offset, events)) {
        Ok(instance) => PyErr::from_value(instance),
        Err(call_error) => call_error,
    }
}
