//! `JSONArrayDecoder`: a streamed JSON array's elements, in any chunking.

use pyo3::prelude::*;
use pyo3::types::PyList;

use super::args::LimitArg;
use super::bytes::with_bytes;
use super::guard::Guarded;
use super::ndjson::lines;
use crate::json_array::Decoder;
use crate::sse::DEFAULT_MAX_EVENT_BYTES;

/// Splits a streamed JSON array (`[{...},\r\n{...}]`, as an API answers
/// that streams one array's elements) into its elements' texts, in any chunking, each handed
/// out as soon as it is whole. A JSON text outside any array is an element
/// too; white space and commas between elements are skipped.
#[pyclass(frozen, module = "agentcodec", name = "JSONArrayDecoder")]
pub struct JSONArrayDecoder {
    state: Guarded<(Decoder, Option<usize>)>,
}

#[pymethods]
impl JSONArrayDecoder {
    #[new]
    #[pyo3(signature = (*, max_event_bytes = LimitArg::Default), text_signature = "(*, max_event_bytes=67108864)")]
    fn new(py: Python<'_>, max_event_bytes: LimitArg) -> PyResult<Self> {
        let max = max_event_bytes.resolve(py, "max_event_bytes", Some(DEFAULT_MAX_EVENT_BYTES))?;
        let limits = crate::sse::Limits {
            max_line_bytes: None,
            max_event_bytes: max,
        };
        Ok(JSONArrayDecoder {
            state: Guarded::new("JSONArrayDecoder", (Decoder::new(limits), max)),
        })
    }

    /// Decodes one chunk and returns the elements it completed, as text.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| {
            lines(py, |on_element| {
                with_bytes(data, "JSONArrayDecoder.feed()", |bytes| {
                    decoder.feed(bytes, on_element)
                })
            })
        })
    }

    /// Ends the stream: an element cut off by the end is handed out as it
    /// came.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| {
            lines(py, |on_element| Ok(decoder.close(on_element)))
        })
    }

    #[getter]
    fn max_event_bytes(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.state.with(py, |(_, max)| Ok(*max))
    }
}
