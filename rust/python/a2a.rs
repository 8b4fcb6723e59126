//! `agentcodec._native.A2AAssembler`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::to_python;
use crate::a2a::{Assembler, Options, PartRef, TaskView, TextParts, VERSIONS};
use crate::json::{Map, Value};
use crate::registry::OptionError;
use crate::stream::Assemble;

/// Assembles an A2A stream into its Task.
#[pyclass(frozen, module = "agentcodec.a2a", name = "Assembler")]
pub struct A2AAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(a2a, "A2AError", "A2AEventError");

assert_python_aligned!(A2AAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.a2a.Assembler.
    m.add("A2AAssembler", m.py().get_type::<A2AAssembler>())
}

/// The `version` argument: one of the spec versions, checked as the
/// encoder's option of that name is, with its messages.
fn spec_version(value: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    let Ok(text) = value.cast::<PyString>() else {
        let given = value.get_type().name()?.to_string();
        let error = OptionError::Type {
            name: "version",
            expected: "str",
            given,
        };
        return Err(PyTypeError::new_err(error.message(str::to_owned)));
    };
    let text = text.to_cow()?;
    if let Some(version) = VERSIONS.iter().find(|version| **version == text) {
        return Ok(version);
    }
    let error = OptionError::Choice {
        name: "version",
        choices: &VERSIONS,
        given: text.into_owned(),
    };
    let py = value.py();
    Err(PyValueError::new_err(error.message(|text| {
        PyString::new(py, text)
            .repr()
            .map(|repr| repr.to_string())
            .unwrap_or_default()
    })))
}

/// The task as Python objects, made from what the assembler holds without
/// a copy of it first: a task holds one part a chunk (a hundred thousand in
/// a long answer), and copying each before making its dict cost as much
/// again, in fresh memory.
fn task_to_python<'py>(py: Python<'py>, view: TaskView<'_>) -> PyResult<Bound<'py, PyAny>> {
    let task = PyDict::new(py);
    for (key, value) in view.fields {
        let item = match key.as_str() {
            "artifacts" => {
                let list = PyList::empty(py);
                for (artifact, appended) in view.artifacts.iter().zip(view.appended) {
                    list.append(artifact_to_python(py, artifact, appended)?)?;
                }
                list.into_any()
            }
            "history" => {
                let list = PyList::empty(py);
                for message in view.history {
                    list.append(to_python(py, message)?)?;
                }
                list.into_any()
            }
            _ => to_python(py, value)?,
        };
        task.set_item(PyString::new(py, key), item)?;
    }
    Ok(task.into_any())
}

fn artifact_to_python<'py>(
    py: Python<'py>,
    artifact: &Map<String, Value>,
    appended: &TextParts,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in artifact {
        let item = match value {
            Value::Array(parts) if key == "parts" => {
                let list = PyList::empty(py);
                for part in parts {
                    list.append(to_python(py, part)?)?;
                }
                for part in appended.iter() {
                    list.append(text_part_to_python(py, part)?)?;
                }
                list.into_any()
            }
            _ => to_python(py, value)?,
        };
        dict.set_item(PyString::new(py, key), item)?;
    }
    Ok(dict)
}

fn text_part_to_python<'py>(py: Python<'py>, part: PartRef<'_>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    // (short texts, a token each, repeat: cached as jiter caches the strings it parses)
    let text = jiter::cached_py_string(py, part.text);
    match part.kind {
        None => dict.set_item(intern!(py, "text"), text)?,
        Some(kind) => {
            let kind = if kind == "text" {
                intern!(py, "text").clone()
            } else {
                PyString::new(py, kind)
            };
            if part.kind_first {
                dict.set_item(intern!(py, "kind"), kind)?;
                dict.set_item(intern!(py, "text"), text)?;
            } else {
                dict.set_item(intern!(py, "text"), text)?;
                dict.set_item(intern!(py, "kind"), kind)?;
            }
        }
    }
    Ok(dict)
}

impl A2AAssembler {
    /// The Task, or the Message when the agent answered without a task: a
    /// new dict on every access.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| match state.inner.task_view() {
            Some(view) => task_to_python(py, view),
            None => to_python(py, &state.inner.result()),
        })
    }
}

assembler_methods!(
    A2AAssembler,
    unit = "event",
    item = event,
    errors = "JSON-RPC errors the server sent or, with `on_error=\"skip\"`, events skipped.",
    result = outcome,
    {
        #[new]
        #[pyo3(signature = (*, version = None, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(*, version=None, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
        #[allow(clippy::too_many_arguments)] // one per Python argument
        fn new(
            py: Python<'_>,
            version: Option<&Bound<'_, PyAny>>,
            on_error: StrArg,
            max_line_bytes: LimitArg,
            max_event_bytes: LimitArg,
            max_errors: LimitArg,
            max_stream_bytes: LimitArg,
            max_messages: LimitArg,
            max_blocks: LimitArg,
        ) -> PyResult<Self> {
            let version = match version {
                Some(version) if !version.is_none() => Some(spec_version(version)?),
                _ => None,
            };
            let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
            let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
            let mut inner = Assembler::new(Options { on_error, limits });
            if let Some(version) = version {
                inner = inner.with_version(version);
            }
            assemblers::set_limits(
                py,
                &mut inner,
                &max_errors,
                &max_stream_bytes,
                &max_messages,
                &max_blocks,
            )?;
            Ok(A2AAssembler {
                state: assemblers::guarded(inner),
            })
        }

        /// Ends the stream and returns the Task (or the Message that
        /// answered without one).
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)
            })?;
            self.outcome(py)
        }

        /// The Task so far (None before any task event).
        #[getter]
        fn task<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state.with(py, |state| match state.inner.task_view() {
                Some(view) => task_to_python(py, view),
                None => Ok(py.None().into_bound(py)),
            })
        }

        /// The Message that answered the request, when it made no task.
        #[getter]
        fn message<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.message()))
        }

        /// The JSON-RPC error that ended the stream, if one did.
        #[getter]
        fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.state
                .with(py, |state| to_python(py, &state.inner.error()))
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
