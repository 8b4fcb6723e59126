//! What every assembler's binding does with its input, once for all of them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::args::LimitArg;
use super::bytes::{with_bytes, with_bytes_detached};
use super::guard::Guarded;
use super::json::{from_python, to_python};
use super::tool_calls::ToolCallReader;
use crate::stream::{Assemble, Error, OnError};

/// What an assembler binding holds: the protocol's assembler, and the parsers
/// of its tool calls' arguments.
pub struct AssemblerState<A> {
    pub inner: A,
    pub reader: ToolCallReader,
}

/// An assembler's state, used by one call at a time (every protocol's
/// class is named `Assembler` in Python).
pub fn guarded<A: Send>(inner: A) -> Guarded<AssemblerState<A>> {
    Guarded::new(
        "Assembler",
        AssemblerState {
            inner,
            reader: ToolCallReader::default(),
        },
    )
}

/// Sets the limits every assembler takes beyond the SSE framing's, from
/// its arguments.
pub fn set_limits<A: Assemble>(
    py: Python<'_>,
    inner: &mut A,
    max_errors: &LimitArg,
    max_stream_bytes: &LimitArg,
    max_messages: &LimitArg,
    max_blocks: &LimitArg,
) -> PyResult<()> {
    inner.set_max_errors(max_errors.max_errors(py)?);
    inner.set_max_stream_bytes(max_stream_bytes.max_stream_bytes(py)?);
    inner.set_max_messages(max_messages.max_messages(py)?);
    inner.set_max_blocks(max_blocks.max_blocks(py)?);
    Ok(())
}

/// Turns an assembler's error into the protocol's exception.
pub type ToPyErr = fn(Python<'_>, Error) -> PyErr;

/// `Assembler.feed(data)`: a chunk of the raw SSE stream, any chunking.
/// A long chunk of `bytes` is assembled with the GIL released (the core
/// touches no Python object), so that streams on other threads go on.
/// `method` names the method for a wrong argument's error.
pub fn feed<A: Assemble + Send>(
    py: Python<'_>,
    inner: &mut A,
    data: &Bound<'_, PyAny>,
    method: &'static str,
    to_py_err: ToPyErr,
) -> PyResult<()> {
    with_bytes_detached(data, method, |bytes| inner.feed(bytes))?.map_err(|err| to_py_err(py, err))
}

/// `Assembler.feed_with_events(data)`: like `feed`, returning the events the
/// chunk completed, decoded.
pub fn feed_with_events<'py, A: Assemble>(
    py: Python<'py>,
    inner: &mut A,
    data: &Bound<'py, PyAny>,
    method: &'static str,
    to_py_err: ToPyErr,
) -> PyResult<Bound<'py, PyList>> {
    let events = PyList::empty(py);
    let mut failure: Option<PyErr> = None;
    let result = with_bytes(data, method, |bytes| {
        inner.feed_observed(bytes, &mut |event| {
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

/// `Assembler.feed_event(event)`: one event already decoded; a value that
/// is not JSON-compatible counts as an event that cannot be used.
pub fn feed_event<A: Assemble>(
    py: Python<'_>,
    inner: &mut A,
    event: &Bound<'_, PyAny>,
    to_py_err: ToPyErr,
) -> PyResult<()> {
    let result = match from_python(event) {
        Ok(value) => inner.feed_event(value),
        Err(not_json) => {
            inner.feed_invalid_event(format!("is not JSON-compatible: {}", not_json.0))
        }
    };
    result.map_err(|err| to_py_err(py, err))
}

/// `Assembler.reconnect()`: a new connection carries the stream on; the
/// event the old one left unterminated is discarded.
pub fn reconnect<A: Assemble>(py: Python<'_>, inner: &mut A, to_py_err: ToPyErr) -> PyResult<()> {
    inner.reconnect().map_err(|err| to_py_err(py, err))
}

/// `Assembler.close()`, before the binding returns what it assembled.
pub fn close<A: Assemble>(py: Python<'_>, inner: &mut A, to_py_err: ToPyErr) -> PyResult<()> {
    inner.close().map_err(|err| to_py_err(py, err))
}

/// A list of JSON values as Python objects.
pub fn to_list<'py>(
    py: Python<'py>,
    values: &[crate::json::Value],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for value in values {
        list.append(to_python(py, value)?)?;
    }
    Ok(list)
}

/// One of two string choices, refused as the pure backend refuses it.
pub fn choice<'a>(
    py: Python<'_>,
    name: &str,
    value: &'a str,
    allowed: [&str; 2],
) -> PyResult<&'a str> {
    if allowed.contains(&value) {
        return Ok(value);
    }
    let repr = PyString::new(py, value).repr()?.to_string();
    Err(PyValueError::new_err(format!(
        "{name} must be '{}' or '{}', not {repr}",
        allowed[0], allowed[1]
    )))
}

/// The `on_error` argument.
pub fn on_error(py: Python<'_>, value: &str) -> PyResult<OnError> {
    Ok(match choice(py, "on_error", value, ["raise", "skip"])? {
        "skip" => OnError::Skip,
        _ => OnError::Raise,
    })
}

/// Writes an assembler class's `#[pymethods]`: its own methods (`new`,
/// `close`, its reads), then what every assembler class has alike, written
/// once here. `$unit` is what the protocol calls one decoded item (event,
/// chunk, message), `$item` the name of `feed_event`'s argument and
/// `$errors` the docstring of `errors` (what the protocol records),
/// `$result` the getter `result` reads (the protocol's final object); the
/// methods use the class module's `to_py_err` and `error_records`.
///
/// With `new = limits_only`, it writes the constructor too, for a protocol
/// whose `Options` are only `on_error` and the SSE limits: its `Assembler`
/// and `Options` are the ones in scope where it is used. (A constructor
/// cannot come from a macro of its own inside the class's methods:
/// `#[pymethods]` sees them before any macro in them is expanded.)
macro_rules! assembler_methods {
    ($class:ident, unit = $unit:literal, item = $item:ident, errors = $errors:literal, result = $result:ident, new = limits_only, { $($own:tt)* }) => {
        assembler_methods!($class, unit = $unit, item = $item, errors = $errors, result = $result, {
            #[new]
            #[pyo3(signature = (*, on_error = $crate::python::args::StrArg::Default("raise"), max_line_bytes = $crate::python::args::LimitArg::Default, max_event_bytes = $crate::python::args::LimitArg::Default, max_errors = $crate::python::args::LimitArg::Default, max_stream_bytes = $crate::python::args::LimitArg::Default, max_messages = $crate::python::args::LimitArg::Default, max_blocks = $crate::python::args::LimitArg::Default), text_signature = "(*, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
            #[allow(clippy::too_many_arguments)] // one per Python argument
            fn new(
                py: Python<'_>,
                on_error: $crate::python::args::StrArg,
                max_line_bytes: $crate::python::args::LimitArg,
                max_event_bytes: $crate::python::args::LimitArg,
                max_errors: $crate::python::args::LimitArg,
                max_stream_bytes: $crate::python::args::LimitArg,
                max_messages: $crate::python::args::LimitArg,
                max_blocks: $crate::python::args::LimitArg,
            ) -> PyResult<Self> {
                let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
                let limits = $crate::python::args::LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
                let mut inner = Assembler::new(Options { on_error, limits });
                assemblers::set_limits(
                    py,
                    &mut inner,
                    &max_errors,
                    &max_stream_bytes,
                    &max_messages,
                    &max_blocks,
                )?;
                Ok($class {
                    state: assemblers::guarded(inner),
                })
            }

            $($own)*
        });
    };
    ($class:ident, unit = $unit:literal, item = $item:ident, errors = $errors:literal, result = $result:ident, { $($own:tt)* }) => {
        #[pymethods]
        impl $class {
            $($own)*

            #[doc = concat!("The result so far, what `close()` returns once the stream ends: `", stringify!($result), "`.")]
            #[getter]
            fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.$result(py).map(Bound::into_any)
            }

            /// Assembles a chunk of the raw SSE stream (any chunking).
            fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
                self.state.with(py, |state| {
                    assemblers::feed(py, &mut state.inner, data, "Assembler.feed()", to_py_err)
                })
            }

            #[doc = concat!("Like `feed`, and returns the ", $unit, "s the data completed, decoded.")]
            fn feed_with_events<'py>(
                &self,
                py: Python<'py>,
                data: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, ::pyo3::types::PyList>> {
                self.state.with(py, |state| {
                    assemblers::feed_with_events(
                        py,
                        &mut state.inner,
                        data,
                        "Assembler.feed_with_events()",
                        to_py_err,
                    )
                })
            }

            #[doc = concat!("Assembles one ", $unit, " that is already decoded (a dict).")]
            fn feed_event(&self, py: Python<'_>, $item: &Bound<'_, PyAny>) -> PyResult<()> {
                self.state.with(py, |state| {
                    assemblers::feed_event(py, &mut state.inner, $item, to_py_err)
                })
            }

            /// A new connection carries the stream on (a client resuming with
            /// `Last-Event-ID`): the event the old one left unterminated is
            /// discarded, since the server sends it again; nothing assembled is lost.
            fn reconnect(&self, py: Python<'_>) -> PyResult<()> {
                self.state.with(py, |state| {
                    assemblers::reconnect(py, &mut state.inner, to_py_err)
                })
            }

            /// The stream's last event ID, to send as `Last-Event-ID` on reconnecting.
            #[getter]
            fn last_event_id(&self, py: Python<'_>) -> PyResult<String> {
                self.state
                    .with(py, |state| Ok(state.inner.last_event_id().to_owned()))
            }

            /// The reconnection time in milliseconds the stream set, if any.
            #[getter]
            fn retry(&self, py: Python<'_>) -> PyResult<Option<u64>> {
                self.state.with(py, |state| Ok(state.inner.retry()))
            }

            #[doc = concat!("The ", $unit, "s seen so far (from the stream, and passed to `feed_event`).")]
            #[getter]
            fn event_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.inner.event_count()))
            }

            #[doc = $errors]
            #[getter]
            fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, ::pyo3::types::PyList>> {
                self.state
                    .with(py, |state| error_records(py, state.inner.errors()))
            }

            /// Every error recorded, including those past `max_errors` not kept.
            #[getter]
            fn error_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.inner.error_count()))
            }
        }
    };
}

pub(crate) use assembler_methods;
