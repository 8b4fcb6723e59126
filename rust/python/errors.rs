//! Raising the exceptions defined in Python (the shared ones in
//! `agentcodec._errors`, each protocol's in its `agentcodec._pure.<name>.errors`),
//! so that both backends raise the very same classes with the very same
//! messages.

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyType};

use crate::sse::LimitError;
use crate::stream::{Error, ErrorRecord, Exceeded};

static SSE_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static STREAM_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARTIAL_JSON_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static CONVERSION_LOSS_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static EVENT_STREAM_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Defines a protocol binding's `to_py_err`: the protocol's errors raised as
/// its own exception classes, `$base(message)` and `$event(event, problem)`
/// of `agentcodec._pure.$module.errors`.
macro_rules! protocol_errors {
    ($module:ident, $base:literal, $event:literal) => {
        /// Raises the protocol's errors as its own exception classes.
        pub(super) fn to_py_err(py: Python<'_>, err: crate::stream::Error) -> PyErr {
            use pyo3::sync::PyOnceLock;
            use pyo3::types::PyType;
            static BASE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
            static EVENT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
            const MODULE: &str = concat!("agentcodec._pure.", stringify!($module), ".errors");
            super::errors::stream_error(
                py,
                err,
                |py: Python<'_>, message: &str| {
                    super::errors::raise_from(py, &BASE, MODULE, $base, (message,))
                },
                |py: Python<'_>, event: u64, problem: &str| {
                    super::errors::raise_from(py, &EVENT, MODULE, $event, (event, problem))
                },
            )
        }
    };
}

pub(super) use protocol_errors;

/// Instantiates the named exception class of `agentcodec._errors`.
pub(super) fn raise<'py>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyType>>,
    name: &str,
    args: impl PyCallArgs<'py>,
) -> PyErr {
    raise_from(py, cell, "agentcodec._errors", name, args)
}

/// Instantiates the named exception class of `module`.
pub(super) fn raise_from<'py>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyType>>,
    module: &str,
    name: &str,
    args: impl PyCallArgs<'py>,
) -> PyErr {
    let class = match cell.import(py, module, name) {
        Ok(class) => class,
        Err(import_error) => return import_error,
    };
    match class.call1(args) {
        Ok(instance) => PyErr::from_value(instance),
        Err(call_error) => call_error,
    }
}

/// `PartialJSONError(offset, reason)`.
pub fn partial_json_error(py: Python<'_>, offset: usize, reason: &str) -> PyErr {
    raise(
        py,
        &PARTIAL_JSON_ERROR,
        "PartialJSONError",
        (offset, reason),
    )
}

/// `EventStreamError(offset, reason, messages)`: `messages` are those
/// completed by the call that failed, before the bad one.
pub fn event_stream_error(
    py: Python<'_>,
    offset: u64,
    reason: &str,
    messages: Bound<'_, PyList>,
) -> PyErr {
    raise(
        py,
        &EVENT_STREAM_ERROR,
        "EventStreamError",
        (offset, reason, messages),
    )
}

/// `SSELimitError(limit, max_bytes, offset, events, subject)`: `events` are
/// those completed by the call that failed, before the offending line.
pub fn sse_limit_error(py: Python<'_>, err: &LimitError, events: Bound<'_, PyList>) -> PyErr {
    raise(
        py,
        &SSE_LIMIT_ERROR,
        "SSELimitError",
        (
            err.kind.setting(),
            err.max_bytes,
            err.offset,
            events,
            err.kind.subject(),
        ),
    )
}

/// `StreamLimitError(subject, event, limit, maximum, detail)`.
fn stream_limit_error(py: Python<'_>, err: &Exceeded) -> PyErr {
    raise(
        py,
        &STREAM_LIMIT_ERROR,
        "StreamLimitError",
        (
            err.subject,
            err.event,
            err.limit,
            err.maximum,
            err.detail.as_str(),
        ),
    )
}

/// The exception for an assembler's error: `SSELimitError`,
/// `StreamLimitError`, the protocol's event error, its base error for a
/// closed assembler, or `ConversionLossError` for a Transcoder told to fail
/// on a loss.
pub fn stream_error(
    py: Python<'_>,
    err: Error,
    base: fn(Python<'_>, &str) -> PyErr,
    event: fn(Python<'_>, u64, &str) -> PyErr,
) -> PyErr {
    match err {
        Error::Limit(limit) => sse_limit_error(py, &limit, PyList::empty(py)),
        Error::Frame(frame) => {
            event_stream_error(py, frame.offset, &frame.reason, PyList::empty(py))
        }
        Error::Exceeded(exceeded) => stream_limit_error(py, &exceeded),
        Error::Event(error) => event(py, error.event, &error.problem),
        Error::Closed(what) => base(py, &format!("the {what} is closed")),
        Error::Unrecognized(unrecognized) => base(py, &unrecognized.to_string()),
        Error::Loss(event, loss) => raise(
            py,
            &CONVERSION_LOSS_ERROR,
            "ConversionLossError",
            (event, loss.what.as_str(), loss.why.as_str()),
        ),
    }
}

/// An assembler's error records as a list of dicts: event, code, message.
pub fn error_records<'py>(
    py: Python<'py>,
    records: &[ErrorRecord],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for record in records {
        let dict = PyDict::new(py);
        dict.set_item("event", record.event)?;
        dict.set_item("code", &record.code)?;
        dict.set_item("message", &record.message)?;
        list.append(dict)?;
    }
    Ok(list)
}
