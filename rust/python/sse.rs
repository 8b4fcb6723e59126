//! `SSEEvent`, `SSEDecoder`, `encode_sse` and `encode_sse_comment`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use std::cell::RefCell;

use jiter::{FloatMode, PartialMode, PythonParse, StringCacheMode};

use super::args::{str_object, LimitArg, StrArg};
use super::bytes::with_bytes;
use super::errors::sse_limit_error;
use super::guard::Guarded;
use super::json::write_python;
use crate::sse::{encode_comment, encode_event, encode_head, Decoder, EncodeError, Event};

static JSON_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// JSON as `json.loads` reads it: `NaN` and `Infinity` allowed, repeated
/// keys keeping the last value, floats as `float`. Short strings are cached,
/// since event fields repeat from one event to the next.
const JSON_PARSER: PythonParse = PythonParse {
    allow_inf_nan: true,
    cache_mode: StringCacheMode::All,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};
static JSON_DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static PURE_FRAME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// One Server-Sent Event.
#[pyclass(frozen, module = "agentcodec", name = "SSEEvent")]
pub struct SSEEvent {
    event: Py<PyString>,
    data: Py<PyString>,
    id: Py<PyString>,
    retry: Option<u64>,
}

#[pymethods]
impl SSEEvent {
    #[new]
    #[pyo3(signature = (event = None, data = None, id = None, retry = None))]
    fn new(
        py: Python<'_>,
        event: Option<Bound<'_, PyAny>>,
        data: Option<Bound<'_, PyAny>>,
        id: Option<Bound<'_, PyAny>>,
        retry: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let or = |value: Option<Bound<'_, PyAny>>, name: &str, default: &str| match value {
            Some(value) => Ok(str_object(&value, name, "str")?.clone().unbind()),
            None => Ok::<_, PyErr>(PyString::new(py, default).unbind()),
        };
        Ok(SSEEvent {
            event: or(event, "SSEEvent event", "message")?,
            data: or(data, "SSEEvent data", "")?,
            id: or(id, "SSEEvent id", "")?,
            retry: retry_arg(retry.as_ref())?,
        })
    }

    /// The event type: the block's `event` field, or "message".
    #[getter]
    fn event(&self, py: Python<'_>) -> Py<PyString> {
        self.event.clone_ref(py)
    }

    /// The data: the block's `data` values joined by LF.
    #[getter]
    fn data(&self, py: Python<'_>) -> Py<PyString> {
        self.data.clone_ref(py)
    }

    /// The last event ID in effect when the event was dispatched.
    #[getter]
    fn id(&self, py: Python<'_>) -> Py<PyString> {
        self.id.clone_ref(py)
    }

    /// The reconnection time (ms) set in this event's block, if any.
    #[getter]
    fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// The data parsed as JSON, exactly as the standard library's
    /// `json.loads` parses it.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let data = self.data.bind(py);
        // jiter builds the objects straight from the text, several times
        // faster; whatever it refuses (bad JSON, huge integers, lone
        // surrogates, deep nesting) goes to json.loads, which returns what
        // it would have or raises its own JSONDecodeError.
        if let Ok(text) = data.to_str() {
            if let Ok(value) = JSON_PARSER.python_parse(py, text.as_bytes()) {
                return Ok(value);
            }
        }
        let loads = JSON_LOADS.import(py, "json", "loads")?;
        loads.call1((data,))
    }

    fn __eq__(&self, py: Python<'_>, other: PyRef<'_, SSEEvent>) -> PyResult<bool> {
        PyAnyMethods::eq(self.as_tuple(py)?.as_any(), other.as_tuple(py)?)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.as_tuple(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let retry = match self.retry {
            Some(ms) => ms.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "SSEEvent(event={}, data={}, id={}, retry={retry})",
            self.event.bind(py).repr()?,
            self.data.bind(py).repr()?,
            self.id.bind(py).repr()?,
        ))
    }
}

impl SSEEvent {
    fn as_tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            [
                self.event.bind(py).clone().into_any(),
                self.data.bind(py).clone().into_any(),
                self.id.bind(py).clone().into_any(),
                self.retry.into_pyobject(py)?,
            ],
        )
    }
}

/// `a == b`, without calling memcmp for two empty strings (most streams
/// send no ids), which cost an eighth of the framing time (measured).
fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Builds Python events, reusing the `str` objects that repeat from one
/// event to the next (the "message" type, an unchanged last event ID).
struct EventFactory<'py> {
    py: Python<'py>,
    message: Bound<'py, PyString>,
    last_id: Option<(String, Py<PyString>)>,
}

impl<'py> EventFactory<'py> {
    fn new(py: Python<'py>, last_id: Option<(String, Py<PyString>)>) -> Self {
        EventFactory {
            py,
            message: pyo3::intern!(py, "message").clone(),
            last_id,
        }
    }

    fn make(&mut self, ev: Event<'_>) -> PyResult<Bound<'py, SSEEvent>> {
        let py = self.py;
        let event = if same_text(ev.event, "message") {
            self.message.clone().unbind()
        } else {
            PyString::new(py, ev.event).unbind()
        };
        let id = match &self.last_id {
            Some((text, object)) if same_text(text, ev.id) => object.clone_ref(py),
            _ => {
                let object = PyString::new(py, ev.id).unbind();
                self.last_id = Some((ev.id.to_owned(), object.clone_ref(py)));
                object
            }
        };
        let event = Bound::new(
            py,
            SSEEvent {
                event,
                data: PyString::new(py, ev.data).unbind(),
                id,
                retry: ev.retry,
            },
        )?;
        // An event holds only strings and an int, so it can never be part of
        // a reference cycle: untracked, the cyclic GC stops visiting every
        // event of a large feed (CPython does the same for tuples of atoms).
        // SAFETY: `event` is a live object of a GC type, and untracking an
        // object that is already untracked (as dealloc does) is a no-op.
        unsafe { pyo3::ffi::PyObject_GC_UnTrack(event.as_ptr().cast()) };
        Ok(event)
    }
}

/// Incremental `text/event-stream` decoder (the WHATWG algorithm).
#[pyclass(frozen, module = "agentcodec", name = "SSEDecoder")]
pub struct SSEDecoder {
    state: Guarded<DecoderState>,
}

struct DecoderState {
    decoder: Decoder,
    /// The last event ID and the Python string made of it, shared by the
    /// events that carry it.
    last_id: Option<(String, Py<PyString>)>,
}

#[pymethods]
impl SSEDecoder {
    #[new]
    #[pyo3(signature = (last_event_id = StrArg::Default(""), *, max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default), text_signature = "(last_event_id='', *, max_line_bytes=67108864, max_event_bytes=67108864)")]
    fn new(
        py: Python<'_>,
        last_event_id: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
    ) -> PyResult<Self> {
        let last_event_id = last_event_id.get(py, "last_event_id")?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        Ok(SSEDecoder {
            state: Guarded::new(
                "SSEDecoder",
                DecoderState {
                    decoder: Decoder::with_last_event_id(limits, &last_event_id),
                    last_id: None,
                },
            ),
        })
    }

    /// Decodes one chunk and returns the events it completed.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            let DecoderState { decoder, last_id } = state;
            run(py, last_id, |on_event| {
                with_bytes(data, "SSEDecoder.feed()", |bytes| {
                    decoder.feed(bytes, on_event)
                })
            })
        })
    }

    /// Ends the stream: an unterminated event is discarded. The decoder may
    /// then be fed a new stream (a reconnection); the last event ID carries
    /// over.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            let DecoderState { decoder, last_id } = state;
            run(py, last_id, |on_event| Ok(decoder.close(on_event)))
        })
    }

    /// The last event ID: what a client sends as `Last-Event-ID` to resume.
    #[getter]
    fn last_event_id(&self, py: Python<'_>) -> PyResult<String> {
        self.state
            .with(py, |state| Ok(state.decoder.last_event_id().to_owned()))
    }

    /// The reconnection time in milliseconds set by the stream, or None.
    #[getter]
    fn retry(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        self.state.with(py, |state| Ok(state.decoder.retry()))
    }

    #[getter]
    fn max_line_bytes(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.state
            .with(py, |state| Ok(state.decoder.limits().max_line_bytes))
    }

    #[getter]
    fn max_event_bytes(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.state
            .with(py, |state| Ok(state.decoder.limits().max_event_bytes))
    }
}

/// Runs one decoder step, collecting its events into a list; a limit error
/// becomes `SSELimitError` carrying the events completed before it.
fn run<'py, F>(
    py: Python<'py>,
    last_id: &mut Option<(String, Py<PyString>)>,
    step: F,
) -> PyResult<Bound<'py, PyList>>
where
    F: FnOnce(&mut dyn FnMut(Event<'_>)) -> PyResult<Result<(), crate::sse::LimitError>>,
{
    let events = PyList::empty(py);
    let mut factory = EventFactory::new(py, last_id.take());
    let mut failure: Option<PyErr> = None;
    let outcome = step(&mut |ev| {
        if failure.is_some() {
            return;
        }
        match factory.make(ev).and_then(|event| events.append(event)) {
            Ok(()) => {}
            Err(err) => failure = Some(err),
        }
    });
    *last_id = factory.last_id;
    if let Some(err) = failure {
        return Err(err);
    }
    match outcome? {
        Ok(()) => Ok(events),
        Err(limit) => Err(sse_limit_error(py, &limit, events)),
    }
}

thread_local! {
    /// What events are written into before they become `bytes`: kept, so
    /// that writing one allocates nothing but its `bytes` (a buffer of its
    /// own, made and freed each time, cost a tenth of writing a builder's
    /// event).
    static EVENT_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer kept larger than this after an event is let go, so that one
/// huge event does not hold its size for the thread's life.
const KEPT_BUFFER: usize = 1 << 16;

/// An event whose data is a value of the types events are made of, its
/// JSON written here (the stdlib's writer took ten times as long); `None`
/// for what the writer leaves to `agentcodec._json.dumps` (other types, and
/// values whose errors are the stdlib's to word).
fn json_event<'py>(
    data: &Bound<'py, PyAny>,
    event: Option<&str>,
    id: Option<&str>,
    retry: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let py = data.py();
    EVENT_BUFFER.with(|buffer| {
        // Nothing a write runs calls back into this (see `write_python`);
        // were it to, the inner call gets a buffer of its own.
        let mut own = Vec::new();
        let mut kept = buffer.try_borrow_mut();
        let out = match kept.as_deref_mut() {
            Ok(kept) => kept,
            Err(_) => &mut own,
        };
        out.clear();
        let written = write_json_event(out, data, event, id, retry)?;
        let bytes = written.then(|| PyBytes::new(py, out));
        if out.capacity() > KEPT_BUFFER {
            *out = Vec::new();
        }
        Ok(bytes)
    })
}

/// Writes the event into `out`; false when the value is left to Python.
fn write_json_event(
    out: &mut Vec<u8>,
    data: &Bound<'_, PyAny>,
    event: Option<&str>,
    id: Option<&str>,
    retry: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    if event.is_none() && id.is_none() && retry.is_none() {
        // The usual call: the JSON written in place, after its field name.
        out.extend_from_slice(b"data: ");
        if write_python(out, data, 0).is_err() {
            return Ok(false);
        }
    } else {
        let mut json = Vec::with_capacity(256);
        if write_python(&mut json, data, 0).is_err() {
            return Ok(false);
        }
        // The fields checked after the value, so that a bad value is
        // reported before a bad field, as the pure backend reports it.
        encode_head(out, event, id, retry_arg(retry)?)
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(&json);
    }
    out.extend_from_slice(b"\n\n");
    Ok(true)
}

/// Whether `data` is sent as text (see [`data_text`]), not as JSON.
fn is_text(data: &Bound<'_, PyAny>) -> bool {
    data.is_instance_of::<PyString>()
        || data.is_instance_of::<PyBytes>()
        || data.is_instance_of::<pyo3::types::PyByteArray>()
        || data.is_instance_of::<pyo3::types::PyMemoryView>()
}

/// Text to send: `str` as is, bytes-like checked to be UTF-8, anything else
/// serialised by `agentcodec._json.dumps` (compact, non-ASCII kept). Not yet
/// UTF-8: a lone surrogate in it is reported after the fields are checked.
fn data_text<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(text.clone());
    }
    if data.is_instance_of::<PyBytes>()
        || data.is_instance_of::<pyo3::types::PyByteArray>()
        || data.is_instance_of::<pyo3::types::PyMemoryView>()
    {
        let text = with_bytes(data, "encode_sse()", |bytes| {
            std::str::from_utf8(bytes)
                .map(str::to_owned)
                .map_err(|err| err.valid_up_to())
        })?;
        return match text {
            Ok(text) => Ok(PyString::new(data.py(), &text)),
            Err(at) => Err(PyValueError::new_err(format!(
                "SSE data is not valid UTF-8 (at byte {at})"
            ))),
        };
    }
    let dumps = JSON_DUMPS.import(data.py(), "agentcodec._json", "dumps")?;
    Ok(dumps.call1((data,))?.cast_into::<PyString>()?)
}

fn retry_arg(retry: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(retry) = retry else { return Ok(None) };
    if retry.is_instance_of::<PyBool>() || !retry.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(
            "SSE retry must be an int (milliseconds)",
        ));
    }
    match retry.extract::<u64>() {
        Ok(ms) => Ok(Some(ms)),
        Err(_) if retry.lt(0)? => Err(PyValueError::new_err("SSE retry must not be negative")),
        Err(_) => Err(PyValueError::new_err("SSE retry does not fit in 64 bits")),
    }
}

/// Encodes one event as `text/event-stream` bytes.
#[pyfunction]
#[pyo3(signature = (data, event = None, id = None, retry = None))]
pub fn encode_sse<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    event: Option<StrArg>,
    id: Option<StrArg>,
    retry: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let event = StrArg::optional(event.as_ref(), py, "event")?;
    let id = StrArg::optional(id.as_ref(), py, "id")?;
    let (event, id) = (event.as_deref(), id.as_deref());
    // A dict, the usual event, is told from text by one exact type check
    // (text's four checks include two subtype walks).
    if data.is_exact_instance_of::<PyDict>() || !is_text(data) {
        if let Some(bytes) = json_event(data, event, id, retry)? {
            return Ok(bytes);
        }
    }
    let text = data_text(data)?;
    let retry = retry_arg(retry)?;
    let field_error = |err: EncodeError| PyValueError::new_err(err.to_string());
    // The fields are checked before the text becomes UTF-8, in the pure
    // backend's order: its error (a lone surrogate) is the last one met.
    encode_head(&mut Vec::new(), event, id, retry).map_err(field_error)?;
    let text: PyBackedStr = text.try_into()?;
    let mut out = Vec::new();
    encode_event(&mut out, &text, event, id, retry).map_err(field_error)?;
    Ok(PyBytes::new(py, &out))
}

/// Encodes a comment, which decoders ignore: a keep-alive.
#[pyfunction]
#[pyo3(signature = (text = StrArg::Default("")), text_signature = "(text='')")]
pub fn encode_sse_comment<'py>(py: Python<'py>, text: StrArg) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    encode_comment(&mut out, &text.get(py, "text")?);
    Ok(PyBytes::new(py, &out))
}

/// `prefix`, `text` as a JSON string (as `json.dumps(text,
/// ensure_ascii=False)` writes it) and `suffix`, as UTF-8: the bytes of a
/// streamed token whose event is the same but for its text.
#[pyfunction]
pub fn frame_json_string<'py>(
    py: Python<'py>,
    prefix: &Bound<'py, PyString>,
    text: &Bound<'py, PyString>,
    suffix: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (Ok(head), Ok(body), Ok(tail)) = (prefix.to_str(), text.to_str(), suffix.to_str()) else {
        // A lone surrogate has no UTF-8: the pure version raises the very
        // error Python's own encoding does.
        let pure = PURE_FRAME.import(py, "agentcodec._pure.sse_encoder", "frame_json_string")?;
        return pure
            .call1((prefix, text, suffix))?
            .cast_into::<PyBytes>()
            .map_err(Into::into);
    };
    let mut out = Vec::with_capacity(head.len() + body.len() + tail.len() + 2);
    out.extend_from_slice(head.as_bytes());
    crate::json::write_string(&mut out, body);
    out.extend_from_slice(tail.as_bytes());
    Ok(PyBytes::new(py, &out))
}
