//! `EventStreamDecoder` and `encode_event_message`: the AWS event stream's
//! messages, in any chunking, both CRCs checked.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyType};

use super::args::LimitArg;
use super::bytes::with_bytes;
use super::errors::event_stream_error;
use super::guard::Guarded;
use crate::article::article;
use crate::eventstream::{encode, Decoder, FrameError, HeaderValue, Message};
use crate::sse::DEFAULT_MAX_EVENT_BYTES;

/// `agentcodec._eventstream_message.EventStreamMessage`, which both
/// backends give.
static MESSAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Splits an AWS event stream into its messages, in any chunking, each as
/// soon as it is whole, both CRCs checked.
#[pyclass(frozen, module = "agentcodec", name = "EventStreamDecoder")]
pub struct EventStreamDecoder {
    state: Guarded<(Decoder, Option<usize>)>,
}

#[pymethods]
impl EventStreamDecoder {
    #[new]
    #[pyo3(signature = (*, max_message_bytes = LimitArg::Default), text_signature = "(*, max_message_bytes=67108864)")]
    fn new(py: Python<'_>, max_message_bytes: LimitArg) -> PyResult<Self> {
        let max =
            max_message_bytes.resolve(py, "max_message_bytes", Some(DEFAULT_MAX_EVENT_BYTES))?;
        Ok(EventStreamDecoder {
            state: Guarded::new("EventStreamDecoder", (Decoder::new(max), max)),
        })
    }

    /// Decodes one chunk and returns the messages it completed.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| {
            let list = PyList::empty(py);
            let mut failure: Option<PyErr> = None;
            let outcome = with_bytes(data, "EventStreamDecoder.feed()", |bytes| {
                decoder.feed(bytes, |message| {
                    if failure.is_none() {
                        if let Err(err) = message_object(py, message).and_then(|m| list.append(m)) {
                            failure = Some(err);
                        }
                    }
                })
            })?;
            if let Some(err) = failure {
                return Err(err);
            }
            match outcome {
                Ok(()) => Ok(list),
                Err(FrameError { offset, reason }) => {
                    Err(event_stream_error(py, offset, &reason, list))
                }
            }
        })
    }

    /// Ends the stream: one that ends inside a message is an error.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |(decoder, _)| match decoder.close() {
            Ok(()) => Ok(PyList::empty(py)),
            Err(FrameError { offset, reason }) => {
                Err(event_stream_error(py, offset, &reason, PyList::empty(py)))
            }
        })
    }

    #[getter]
    fn max_message_bytes(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.state.with(py, |(_, max)| Ok(*max))
    }
}

/// A message as the Python class both backends give: headers as botocore
/// reads them (timestamps as ints, UUIDs as 16 bytes).
fn message_object<'py>(py: Python<'py>, message: &Message<'_>) -> PyResult<Bound<'py, PyAny>> {
    let headers = PyDict::new(py);
    for (name, value) in &message.headers {
        let value: Bound<'py, PyAny> = match value {
            HeaderValue::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
            HeaderValue::Byte(number) => number.into_pyobject(py)?.into_any(),
            HeaderValue::Short(number) => number.into_pyobject(py)?.into_any(),
            HeaderValue::Int(number) => number.into_pyobject(py)?.into_any(),
            HeaderValue::Long(number) | HeaderValue::Timestamp(number) => {
                number.into_pyobject(py)?.into_any()
            }
            HeaderValue::Bytes(data) => PyBytes::new(py, data).into_any(),
            HeaderValue::String(text) => PyString::new(py, text).into_any(),
            HeaderValue::Uuid(raw) => PyBytes::new(py, raw).into_any(),
        };
        headers.set_item(name, value)?;
    }
    let class = MESSAGE.import(py, "agentcodec._eventstream_message", "EventStreamMessage")?;
    class.call1((headers, PyBytes::new(py, message.payload)))
}

/// One message: its prelude, headers, payload and CRCs. A `bool` is a
/// boolean header, an `int` a 32-bit one (64-bit past that range), a `str`
/// a string, `bytes` a byte array.
#[pyfunction]
#[pyo3(signature = (headers, payload = None))]
pub fn encode_event_message<'py>(
    py: Python<'py>,
    headers: &Bound<'py, PyDict>,
    payload: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut typed = Vec::with_capacity(headers.len());
    for (name, value) in headers.iter() {
        let name: String = name.extract()?;
        let quoted = crate::json::to_text(&crate::json::Value::String(name.clone()));
        if name.is_empty() || name.len() > 255 {
            return Err(PyValueError::new_err(format!(
                "header name {quoted} is not 1 to 255 bytes long"
            )));
        }
        let typed_value = if let Ok(flag) = value.cast::<PyBool>() {
            HeaderValue::Bool(flag.is_true())
        } else if value.is_instance_of::<PyInt>() {
            match value.extract::<i64>() {
                Ok(number) => match i32::try_from(number) {
                    Ok(small) => HeaderValue::Int(small),
                    Err(_) => HeaderValue::Long(number),
                },
                Err(_) => {
                    return Err(PyValueError::new_err(format!(
                        "header {quoted} is an integer past 64 bits"
                    )))
                }
            }
        } else if let Ok(text) = value.cast::<PyString>() {
            HeaderValue::String(text.to_str()?.to_owned().into())
        } else if let Ok(data) = with_bytes(&value, "a header", <[u8]>::to_vec) {
            HeaderValue::Bytes(data.into())
        } else {
            let kind = value.get_type().name()?.to_string();
            return Err(PyTypeError::new_err(format!(
                "header {quoted} cannot be {} {kind}",
                article(&kind)
            )));
        };
        typed.push((name, typed_value));
    }
    let mut out = Vec::new();
    let written = match payload {
        None => encode(&typed, b"", &mut out),
        Some(payload) => with_bytes(payload, "encode_event_message()", |bytes| {
            encode(&typed, bytes, &mut out)
        })?,
    };
    written.map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &out))
}
