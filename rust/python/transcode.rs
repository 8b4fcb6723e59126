//! `agentcodec._native.Transcoder`, `NeutralDecoder`, `NeutralEncoder` and
//! `NeutralAssembler`: streams through the neutral vocabulary.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, ToPyErr};
use super::errors::error_records;
use super::guard::Guarded;
use super::json::{from_python, to_python};
use crate::events::{Event, Loss};
use crate::json::Value;
use crate::registry::{self, Descriptor, EncoderOptions, OptionError, OptionKind, OptionValue};
use crate::stream::Assemble;
use crate::transcode;

/// The protocol named by `name`, refused as the pure backend refuses it.
fn protocol(py: Python<'_>, name: &Bound<'_, PyAny>, role: &str) -> PyResult<&'static Descriptor> {
    let Ok(text) = name.cast::<PyString>() else {
        let kind = name.get_type().name()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "{role} must be a protocol name (str), not {kind}"
        )));
    };
    let text = text.to_str()?;
    registry::find(text).ok_or_else(|| {
        let repr = PyString::new(py, text)
            .repr()
            .map(|repr| repr.to_string())
            .unwrap_or_default();
        let known: Vec<&str> = registry::names().collect();
        PyValueError::new_err(format!(
            "unknown {role} protocol {repr}; known: {}",
            known.join(", ")
        ))
    })
}

macro_rules! raisers {
    ($($module:ident),* $(,)?) => {
        /// Each protocol's name and how its errors are raised (its own
        /// exception classes, which its binding module defines).
        const RAISERS: &[(&str, ToPyErr)] = &[$((crate::$module::PROTOCOL.name, super::$module::to_py_err)),*];
    };
}

with_protocols!(raisers);

/// How a source protocol's errors are raised.
fn to_py_err_for(source: &Descriptor) -> ToPyErr {
    RAISERS
        .iter()
        .find(|(name, _)| *name == source.name)
        .map(|(_, raise)| *raise)
        .expect("RAISERS and PROTOCOLS are generated from one list")
}

/// An option's value as the core checks it: a value of the kind the option
/// takes, or the name of its type (a Python `bool` is no `int`, a `tuple`
/// of str is a list).
fn option_value(kind: OptionKind, value: &Bound<'_, PyAny>) -> PyResult<OptionValue> {
    if value.is_none() {
        return Ok(OptionValue::None);
    }
    let fitting = match kind {
        OptionKind::Str | OptionKind::Choice(_) => value
            .cast::<PyString>()
            .ok()
            .map(|text| text.to_str().map(|text| OptionValue::Str(text.to_owned())))
            .transpose()?,
        OptionKind::Int if value.get_type().is(value.py().get_type::<PyInt>()) => Some(
            value
                .extract::<i64>()
                .map_or(OptionValue::IntTooBig, OptionValue::Int),
        ),
        OptionKind::Int => None,
        OptionKind::Bool => value
            .cast::<PyBool>()
            .ok()
            .map(|flag| OptionValue::Bool(flag.is_true())),
        OptionKind::StrList
            if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() =>
        {
            value
                .try_iter()?
                .map(|part| {
                    part.ok()
                        .and_then(|part| part.cast::<PyString>().ok().map(|text| text.to_string()))
                })
                .collect::<Option<Vec<String>>>()
                .map(OptionValue::StrList)
        }
        OptionKind::StrList => None,
    };
    match fitting {
        Some(value) => Ok(value),
        None => Ok(OptionValue::Other(value.get_type().name()?.to_string())),
    }
}

/// Whether `executed_tool_calls` says to leave out the tool calls the agent
/// ran (`"omit"`) rather than write them (`"write"`).
fn omits_executed_tool_calls(py: Python<'_>, value: StrArg) -> PyResult<bool> {
    let value = value.get(py, "executed_tool_calls")?;
    Ok(assemblers::choice(py, "executed_tool_calls", &value, ["write", "omit"])? == "omit")
}

/// A target's encoder options from keyword arguments, checked by the core
/// as the pure backend checks them.
fn encoder_options(
    py: Python<'_>,
    target: &'static Descriptor,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<EncoderOptions> {
    let mut given: Vec<(String, OptionValue)> = Vec::new();
    if let Some(options) = options {
        for (key, value) in options.iter() {
            let name = key.extract::<String>()?;
            let value = match target.options.iter().find(|option| option.name == name) {
                Some(option) => option_value(option.kind, &value)?,
                // Refused by its name before its value is looked at.
                None => OptionValue::None,
            };
            given.push((name, value));
        }
    }
    EncoderOptions::parse(target, given).map_err(|err| {
        let message = err.message(|name| {
            PyString::new(py, name)
                .repr()
                .map(|repr| repr.to_string())
                .unwrap_or_default()
        });
        match err {
            OptionError::TooBig { .. } | OptionError::Choice { .. } => {
                PyValueError::new_err(message)
            }
            _ => PyTypeError::new_err(message),
        }
    })
}

fn to_events<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for event in events {
        list.append(to_python(py, &Value::Object(event.clone()))?)?;
    }
    Ok(list)
}

/// Writes a class's `#[pymethods]`: its own methods, then the reads and
/// `reconnect` that the three stream classes here have alike (their state
/// an `Assemble`, their errors turned into exceptions by `self.to_py_err`).
macro_rules! stream_methods {
    ($class:ident, { $($own:tt)* }) => {
        #[pymethods]
        impl $class {
            $($own)*

            /// The errors recorded (at most `max_errors` of them are kept).
            #[getter]
            fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
                self.state
                    .with(py, |state| error_records(py, state.errors()))
            }

            /// A new connection carries the stream on (a client resuming with
            /// `Last-Event-ID`): the event the old one left unterminated is
            /// discarded, since the server sends it again; nothing assembled is lost.
            fn reconnect(&self, py: Python<'_>) -> PyResult<()> {
                self.state
                    .with(py, |state| assemblers::reconnect(py, state, self.to_py_err))
            }

            /// The stream's last event ID, to send as `Last-Event-ID` on reconnecting.
            #[getter]
            fn last_event_id(&self, py: Python<'_>) -> PyResult<String> {
                self.state
                    .with(py, |state| Ok(state.last_event_id().to_owned()))
            }

            /// The reconnection time in milliseconds the stream set, if any.
            #[getter]
            fn retry(&self, py: Python<'_>) -> PyResult<Option<u64>> {
                self.state.with(py, |state| Ok(state.retry()))
            }

            /// The events seen so far (from the stream, and passed to `feed_event`).
            #[getter]
            fn event_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.event_count()))
            }

            /// Every error recorded, including those past `max_errors` not kept.
            #[getter]
            fn error_count(&self, py: Python<'_>) -> PyResult<u64> {
                self.state.with(py, |state| Ok(state.error_count()))
            }
        }
    };
}

/// Converts a stream of one protocol into another, as it streams.
#[pyclass(frozen, module = "agentcodec", name = "Transcoder")]
pub struct Transcoder {
    state: Guarded<transcode::Transcoder>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: &'static str,
    #[pyo3(get)]
    target: &'static str,
}

stream_methods!(Transcoder, {
    #[new]
    #[pyo3(signature = (source, target, *, on_error = StrArg::Default("raise"), on_loss = StrArg::Default("record"), executed_tool_calls = StrArg::Default("write"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, **options), text_signature = "(source, target, *, on_error='raise', on_loss='record', executed_tool_calls='write', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, **options)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        on_error: StrArg,
        on_loss: StrArg,
        executed_tool_calls: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let target = protocol(py, target, "target")?;
        let source = protocol(py, source, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let on_loss = on_loss.get(py, "on_loss")?;
        let fail_on_loss =
            assemblers::choice(py, "on_loss", &on_loss, ["record", "error"])? == "error";
        let omit_executed = omits_executed_tool_calls(py, executed_tool_calls)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let options = encoder_options(py, target, options)?;
        let mut inner = transcode::Transcoder::new(source, options, limits, on_error);
        inner.set_max_errors(max_errors.max_errors(py)?);
        inner.fail_on_loss(fail_on_loss);
        if omit_executed {
            inner.omit_executed_tool_calls();
        }
        Ok(Transcoder {
            state: Guarded::new("Transcoder", inner),
            to_py_err: to_py_err_for(source),
            source: source.name,
            target: target.name,
        })
    }

    /// Converts a chunk of the source's SSE stream; returns the target's SSE
    /// bytes for the events it completed. After an error, what was converted
    /// before it comes with the next call.
    fn feed<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "Transcoder.feed()", self.to_py_err)?;
            Ok(PyBytes::new(py, &state.take_bytes()))
        })
    }

    /// Converts one source event already decoded from JSON; returns the
    /// target's events.
    fn feed_event<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)?;
            to_events(py, &state.take_events())
        })
    }

    /// Ends the source stream; returns the target's last SSE bytes.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            Ok(PyBytes::new(py, &state.take_bytes()))
        })
    }

    /// What the target could not carry so far, in order: ``event`` (the
    /// source's event that brought it), ``what`` and ``why``; the first
    /// 1,000, then one ``what: "losses"`` entry saying the rest are not
    /// listed.
    #[getter]
    fn losses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| loss_records(py, state.losses()))
    }
});

/// Decodes a protocol's stream into neutral events.
#[pyclass(frozen, module = "agentcodec", name = "NeutralDecoder")]
pub struct NeutralDecoder {
    state: Guarded<transcode::Decoder>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: &'static str,
}

stream_methods!(NeutralDecoder, {
    #[new]
    #[pyo3(signature = (source, *, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default), text_signature = "(source, *, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000)")]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
    ) -> PyResult<Self> {
        let source = protocol(py, source, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner = transcode::Decoder::new(source, limits, on_error);
        inner.set_max_errors(max_errors.max_errors(py)?);
        Ok(NeutralDecoder {
            state: Guarded::new("NeutralDecoder", inner),
            to_py_err: to_py_err_for(source),
            source: source.name,
        })
    }

    /// Decodes a chunk of the raw SSE stream; returns the neutral events it
    /// completed.
    fn feed<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "events.Decoder.feed()", self.to_py_err)?;
            to_events(py, &state.take())
        })
    }

    /// Decodes one event that is already decoded from JSON.
    fn feed_event<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)?;
            to_events(py, &state.take())
        })
    }

    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            to_events(py, &state.take())
        })
    }
});

/// Losses as Python's records: `{event, what, why}` dicts.
fn loss_records<'py>(py: Python<'py>, losses: &[(u64, Loss)]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (event, loss) in losses {
        let record = PyDict::new(py);
        record.set_item("event", event)?;
        record.set_item("what", loss.what.as_str())?;
        record.set_item("why", loss.why.as_str())?;
        list.append(record)?;
    }
    Ok(list)
}

/// Encodes neutral events into a protocol's events and SSE bytes.
#[pyclass(frozen, module = "agentcodec", name = "NeutralEncoder")]
pub struct NeutralEncoder {
    state: Guarded<transcode::Encoder>,
    #[pyo3(get)]
    target: &'static str,
}

/// A neutral event given by Python, refused as the pure backend refuses it.
fn neutral_event(event: &Bound<'_, PyAny>) -> PyResult<Event> {
    match from_python(event) {
        Ok(Value::Object(event)) => match crate::events::check_type(&event) {
            Ok(()) => Ok(event),
            Err(why) => Err(PyValueError::new_err(why)),
        },
        Ok(_) => {
            let kind = event.get_type().name()?.to_string();
            Err(PyTypeError::new_err(format!(
                "a neutral event is a dict, not {kind}"
            )))
        }
        Err(not_json) => Err(PyTypeError::new_err(format!(
            "a neutral event must be JSON-compatible: {}",
            not_json.0
        ))),
    }
}

#[pymethods]
impl NeutralEncoder {
    #[new]
    #[pyo3(signature = (target, *, executed_tool_calls = StrArg::Default("write"), **options), text_signature = "(target, *, executed_tool_calls='write', **options)")]
    fn new(
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        executed_tool_calls: StrArg,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let target = protocol(py, target, "target")?;
        let omit_executed = omits_executed_tool_calls(py, executed_tool_calls)?;
        let options = encoder_options(py, target, options)?;
        let mut inner = transcode::Encoder::new(options);
        if omit_executed {
            inner.omit_executed_tool_calls();
        }
        Ok(NeutralEncoder {
            state: Guarded::new("NeutralEncoder", inner),
            target: target.name,
        })
    }

    /// The SSE bytes of what one neutral event becomes. An event whose
    /// ``type`` is none of the neutral vocabulary's is a ValueError.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.state.with(py, |state| {
            let event = neutral_event(event)?;
            Ok(PyBytes::new(py, &state.encode(&event)))
        })
    }

    /// What one neutral event becomes, as the target's events (refused
    /// as ``encode`` refuses it).
    fn encode_events<'py>(
        &self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            let event = neutral_event(event)?;
            to_events(py, &state.encode_events(&event))
        })
    }

    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.state
            .with(py, |state| Ok(PyBytes::new(py, &state.close())))
    }

    /// What the target could not carry so far, in order: ``event`` (the
    /// neutral event that brought it, counted from 1), ``what`` and ``why``;
    /// the first 1,000, then one ``what: "losses"`` entry saying the rest
    /// are not listed.
    #[getter]
    fn losses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.state
            .with(py, |state| loss_records(py, state.losses()))
    }
}

/// Assembles any protocol's stream into one protocol-neutral view.
#[pyclass(frozen, module = "agentcodec", name = "NeutralAssembler")]
pub struct NeutralAssembler {
    state: Guarded<transcode::Assembler>,
    to_py_err: ToPyErr,
    #[pyo3(get)]
    source: &'static str,
}

stream_methods!(NeutralAssembler, {
    #[new]
    #[pyo3(signature = (protocol, *, on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(protocol, *, on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
    #[allow(clippy::too_many_arguments)] // one per Python argument
    fn new(
        py: Python<'_>,
        protocol: &Bound<'_, PyAny>,
        on_error: StrArg,
        max_line_bytes: LimitArg,
        max_event_bytes: LimitArg,
        max_errors: LimitArg,
        max_stream_bytes: LimitArg,
        max_messages: LimitArg,
        max_blocks: LimitArg,
    ) -> PyResult<Self> {
        let name = self::protocol(py, protocol, "source")?;
        let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
        let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
        let mut inner = transcode::Assembler::new(name, limits, on_error);
        assemblers::set_limits(
            py,
            &mut inner,
            &max_errors,
            &max_stream_bytes,
            &max_messages,
            &max_blocks,
        )?;
        Ok(NeutralAssembler {
            state: Guarded::new("NeutralAssembler", inner),
            to_py_err: to_py_err_for(name),
            source: name.name,
        })
    }

    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed(py, state, data, "events.Assembler.feed()", self.to_py_err)
        })
    }

    fn feed_event(&self, py: Python<'_>, event: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |state| {
            assemblers::feed_event(py, state, event, self.to_py_err)
        })
    }

    /// Like `feed`, and returns the source protocol's events the data
    /// completed, decoded (what a client iterating the stream reads).
    fn feed_with_events<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.state.with(py, |state| {
            assemblers::feed_with_events(
                py,
                state,
                data,
                "events.Assembler.feed_with_events()",
                self.to_py_err,
            )
        })
    }

    /// Ends the stream and returns the view.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| {
            assemblers::close(py, state, self.to_py_err)?;
            to_python(py, &state.view())
        })
    }

    /// The result so far, what `close()` returns once the stream ends: `view`.
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.view(py)
    }

    /// The view so far: a new dict on every access.
    #[getter]
    fn view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.state.with(py, |state| to_python(py, &state.view()))
    }
});
