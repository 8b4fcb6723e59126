//! `agentcodec._native.LangChainAssembler`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::args::LimitArg;
use super::bytes::with_bytes;
use super::errors::{error_records, langchain_error, langchain_event_error, stream_error};
use super::json::{from_python, to_python};
use crate::langchain::{Assembler, Error, OnError, Options, ToolArgs};

/// Assembles the messages of a LangChain Agent Streaming Protocol stream.
#[pyclass(module = "agentcodec.langchain", name = "Assembler")]
pub struct LangChainAssembler {
    inner: Assembler,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, langchain_error, langchain_event_error)
}

fn choice<'a>(py: Python<'_>, name: &str, value: &'a str, allowed: [&str; 2]) -> PyResult<&'a str> {
    if allowed.contains(&value) {
        return Ok(value);
    }
    let repr = PyString::new(py, value).repr()?.to_string();
    Err(PyValueError::new_err(format!(
        "{name} must be '{}' or '{}', not {repr}",
        allowed[0], allowed[1]
    )))
}

#[pymethods]
impl LangChainAssembler {
    #[new]
    #[pyo3(signature = (*, tool_args = "strict", on_error = "raise", max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default))]
    fn new(
        py: Python<'_>,
        tool_args: &str,
        on_error: &str,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
    ) -> PyResult<Self> {
        let tool_args = match choice(py, "tool_args", tool_args, ["strict", "auto"])? {
            "auto" => ToolArgs::Auto,
            _ => ToolArgs::Strict,
        };
        let on_error = match choice(py, "on_error", on_error, ["raise", "skip"])? {
            "skip" => OnError::Skip,
            _ => OnError::Raise,
        };
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        Ok(LangChainAssembler {
            inner: Assembler::new(Options {
                tool_args,
                on_error,
                limits,
            }),
        })
    }

    /// Assembles a chunk of a raw SSE stream (any chunking).
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let inner = &mut self.inner;
        with_bytes(data, "Assembler.feed()", |bytes| inner.feed(bytes))?
            .map_err(|err| to_py_err(py, err))
    }

    /// Assembles one WebSocket text frame (one JSON message).
    fn feed_frame(&mut self, py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = if let Ok(text) = frame.cast::<PyString>() {
            text.to_string_lossy().into_owned()
        } else {
            with_bytes(frame, "Assembler.feed_frame()", |bytes| {
                String::from_utf8_lossy(bytes).into_owned()
            })?
        };
        self.inner
            .feed_frame(&text)
            .map_err(|err| to_py_err(py, err))
    }

    /// Assembles one message that is already decoded (a dict).
    fn feed_event(&mut self, py: Python<'_>, envelope: &Bound<'_, PyAny>) -> PyResult<()> {
        let result = match from_python(envelope) {
            Ok(value) => self.inner.feed_event(value),
            Err(not_json) => self
                .inner
                .feed_invalid_event(format!("is not JSON-compatible: {}", not_json.0)),
        };
        result.map_err(|err| to_py_err(py, err))
    }

    /// Ends the stream and returns the messages.
    fn close<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.close().map_err(|err| to_py_err(py, err))?;
        self.messages(py)
    }

    /// Every message so far, in the order they started.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for message in self.inner.messages() {
            list.append(to_python(py, &message)?)?;
        }
        Ok(list)
    }

    /// Messages skipped with `on_error="skip"`.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        error_records(py, self.inner.errors())
    }

    #[getter]
    fn event_count(&self) -> u64 {
        self.inner.event_count()
    }

    #[getter]
    fn duplicate_count(&self) -> u64 {
        self.inner.duplicate_count()
    }
}
