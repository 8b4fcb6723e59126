//! Raising the exceptions defined in `agentcodec._errors`, so that both
//! backends raise the very same classes with the very same messages.

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyType};

use crate::sse::LimitError;
use crate::stream::{Error, ErrorRecord, Exceeded};

static SSE_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static STREAM_LIMIT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGENTSCOPE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGENTSCOPE_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LANGCHAIN_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LANGCHAIN_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGUI_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AGUI_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RESPONSES_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RESPONSES_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static CHAT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static CHAT_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ANTHROPIC_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ANTHROPIC_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AI_SDK_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static AI_SDK_EVENT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PARTIAL_JSON_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

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

/// `PartialJSONError(offset, reason)`.
pub fn partial_json_error(py: Python<'_>, offset: usize, reason: &str) -> PyErr {
    raise(
        py,
        &PARTIAL_JSON_ERROR,
        "PartialJSONError",
        (offset, reason),
    )
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

/// `AGUIError(message)`.
pub fn agui_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &AGUI_ERROR, "AGUIError", (message,))
}

/// `AGUIEventError(event, problem)`.
pub fn agui_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(py, &AGUI_EVENT_ERROR, "AGUIEventError", (event, problem))
}

/// `OpenAIResponsesError(message)`.
pub fn responses_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &RESPONSES_ERROR, "OpenAIResponsesError", (message,))
}

/// `OpenAIResponsesEventError(event, problem)`.
pub fn responses_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(
        py,
        &RESPONSES_EVENT_ERROR,
        "OpenAIResponsesEventError",
        (event, problem),
    )
}

/// `OpenAIChatError(message)`.
pub fn chat_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &CHAT_ERROR, "OpenAIChatError", (message,))
}

/// `OpenAIChatEventError(event, problem)`.
pub fn chat_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(
        py,
        &CHAT_EVENT_ERROR,
        "OpenAIChatEventError",
        (event, problem),
    )
}

/// `AnthropicError(message)`.
pub fn anthropic_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &ANTHROPIC_ERROR, "AnthropicError", (message,))
}

/// `AnthropicEventError(event, problem)`.
pub fn anthropic_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(
        py,
        &ANTHROPIC_EVENT_ERROR,
        "AnthropicEventError",
        (event, problem),
    )
}

/// `AISDKError(message)`.
pub fn ai_sdk_error(py: Python<'_>, message: &str) -> PyErr {
    raise(py, &AI_SDK_ERROR, "AISDKError", (message,))
}

/// `AISDKEventError(event, problem)`.
pub fn ai_sdk_event_error(py: Python<'_>, event: u64, problem: &str) -> PyErr {
    raise(py, &AI_SDK_EVENT_ERROR, "AISDKEventError", (event, problem))
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
/// `StreamLimitError`, the protocol's event error, or its base error for a
/// closed assembler.
pub fn stream_error(
    py: Python<'_>,
    err: Error,
    base: fn(Python<'_>, &str) -> PyErr,
    event: fn(Python<'_>, u64, &str) -> PyErr,
) -> PyErr {
    match err {
        Error::Limit(limit) => sse_limit_error(py, &limit, PyList::empty(py)),
        Error::Exceeded(exceeded) => stream_limit_error(py, &exceeded),
        Error::Event(error) => event(py, error.event, &error.problem),
        Error::Closed(what) => base(py, &format!("the {what} is closed")),
        Error::Unrecognized(unrecognized) => base(py, &unrecognized.to_string()),
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
