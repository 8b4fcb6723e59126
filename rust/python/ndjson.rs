//! `NDJSONDecoder`: newline-delimited JSON's lines, in any chunking.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::args::LimitArg;
use super::bytes::with_bytes;
use super::errors::sse_limit_error;
use super::guard::Guarded;
use crate::ndjson::Decoder;
use crate::sse::{LimitError, DEFAULT_MAX_LINE_BYTES};

/// Splits newline-delimited JSON (NDJSON, JSON Lines) into its lines, in any
/// chunking: at LF alone (never at U+0085 or U+2028, which a JSON text may
/// hold), a CR before it and a BOM opening the stream dropped, lines of white
/// space skipped, the last line needing no LF.
#[pyclass(frozen, module = "agentcodec", name = "NDJSONDecoder")]
pub struct NDJSONDecoder {
    state: Guarded<(Decoder, Option<usize>)>,
}

#[pymethods]
impl NDJSONDecoder {
    #[new]
    #[pyo3(signature = (*, max_line_bytes = LimitArg::Default), text_signature = "(*, max_line_bytes=67108864)")]
    fn new(py: Python<'_>, max_line_bytes: LimitArg) -> PyResult<Self> {
        let max = max_line_bytes.resolve(py, "max_line_bytes", Some(DEFAULT_MAX_LINE_BYTES))?;
        let limits = crate::sse::Limits {
            max_line_bytes: max,
            max_event_bytes: None,
        };
        Ok(NDJSONDecoder {
            state: Guarded::new("NDJSONDecoder", (Decoder::new(limits), max)),
        })
    }

    /// Decodes one chunk and returns the lines it completed, as text.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| {
            lines(py, |on_line| {
                with_bytes(data, "NDJSONDecoder.feed()", |bytes| {
                    decoder.feed(bytes, on_line)
                })
            })
        })
    }

    /// Ends the stream: a last line without its LF is a line too.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| {
            lines(py, |on_line| Ok(decoder.close(on_line)))
        })
    }

    #[getter]
    fn max_line_bytes(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.state.with(py, |(_, max)| Ok(*max))
    }
}

/// Runs one decoder step, collecting its lines; a limit error becomes
/// `SSELimitError` carrying the lines completed before it.
pub(super) fn lines<'py, F>(py: Python<'py>, step: F) -> PyResult<Bound<'py, PyList>>
where
    F: FnOnce(&mut dyn FnMut(&str)) -> PyResult<Result<(), LimitError>>,
{
    let list = PyList::empty(py);
    let mut failure: Option<PyErr> = None;
    let outcome = step(&mut |line| {
        if failure.is_none() {
            if let Err(err) = list.append(PyString::new(py, line)) {
                failure = Some(err);
            }
        }
    })?;
    if let Some(err) = failure {
        return Err(err);
    }
    match outcome {
        Ok(()) => Ok(list),
        Err(limit) => Err(sse_limit_error(py, &limit, list)),
    }
}
