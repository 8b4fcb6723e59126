//! `agentcodec._native.AgentScopeAssembler`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::LimitArg;
use super::bytes::with_bytes;
use super::errors::{agentscope_error, agentscope_event_error, error_records, stream_error};
use super::json::{from_python, to_python};
use crate::agentscope::{Assembler, DataMerge, Error, OnError, Options};

/// Assembles an AgentScope Agent API (`/process`) stream into its AgentResponse.
#[pyclass(module = "agentcodec.agentscope", name = "Assembler")]
pub struct AgentScopeAssembler {
    inner: Assembler,
}

fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    stream_error(py, err, agentscope_error, agentscope_event_error)
}

#[pymethods]
impl AgentScopeAssembler {
    #[new]
    #[pyo3(signature = (*, data_merge = "merge", on_error = "raise", strict = false, max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default))]
    fn new(
        py: Python<'_>,
        data_merge: &str,
        on_error: &str,
        strict: bool,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
    ) -> PyResult<Self> {
        let data_merge = match data_merge {
            "merge" => DataMerge::Merge,
            "upstream" => DataMerge::Upstream,
            other => {
                return Err(PyValueError::new_err(format!(
                    "data_merge must be 'merge' or 'upstream', not {}",
                    py_repr(py, other)
                )))
            }
        };
        let on_error = match on_error {
            "raise" => OnError::Raise,
            "skip" => OnError::Skip,
            other => {
                return Err(PyValueError::new_err(format!(
                    "on_error must be 'raise' or 'skip', not {}",
                    py_repr(py, other)
                )))
            }
        };
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        Ok(AgentScopeAssembler {
            inner: Assembler::new(Options {
                data_merge,
                on_error,
                strict,
                limits,
            }),
        })
    }

    /// Assembles a chunk of the raw SSE stream (any chunking).
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let inner = &mut self.inner;
        with_bytes(data, "Assembler.feed()", |bytes| inner.feed(bytes))?
            .map_err(|err| to_py_err(py, err))
    }

    /// Like `feed`, and returns the events the chunk completed, decoded.
    fn feed_with_events<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let events = PyList::empty(py);
        let mut failure: Option<PyErr> = None;
        let inner = &mut self.inner;
        let result = with_bytes(data, "Assembler.feed_with_events()", |bytes| {
            inner.feed_observed(bytes, |event| {
                if failure.is_none() {
                    if let Err(err) = to_python(py, event).and_then(|event| events.append(event)) {
                        failure = Some(err);
                    }
                }
            })
        })?;
        if let Some(err) = failure {
            return Err(err);
        }
        result.map_err(|err| to_py_err(py, err))?;
        Ok(events)
    }

    /// Assembles one event that is already decoded (a dict).
    fn feed_event(&mut self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = match from_python(event) {
            Ok(value) => value,
            Err(not_json) => {
                // Counted and reported like an event that is not JSON.
                let problem = format!("is not JSON-compatible: {}", not_json.0);
                return self
                    .inner
                    .feed_invalid_event(problem)
                    .map_err(|err| to_py_err(py, err));
            }
        };
        self.inner
            .feed_event(value)
            .map_err(|err| to_py_err(py, err))
    }

    /// Ends the stream and returns the final response.
    fn close<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.close().map_err(|err| to_py_err(py, err))?;
        self.response(py)
    }

    /// The AgentResponse assembled so far: a new dict on every access.
    #[getter]
    fn response<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.response())
    }

    /// Every message assembled, in order of first appearance.
    #[getter]
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for message in self.inner.messages() {
            list.append(to_python(py, &message)?)?;
        }
        Ok(list)
    }

    /// Errors the stream reported or, with `on_error="skip"`, frames skipped.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        error_records(py, self.inner.errors())
    }

    /// Events seen so far (SSE events, and events passed to `feed_event`).
    #[getter]
    fn event_count(&self) -> u64 {
        self.inner.event_count()
    }
}

fn py_repr(py: Python<'_>, text: &str) -> String {
    pyo3::types::PyString::new(py, text)
        .repr()
        .map(|repr| repr.to_string())
        .unwrap_or_else(|_| format!("'{text}'"))
}
