//! `agentcodec._native.LangChainAssembler`.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::args::{LimitArg, StrArg};
use super::assemblers::{self, assembler_methods, AssemblerState};
use super::bytes::with_bytes;
use super::errors::{error_records, protocol_errors};
use super::guard::Guarded;
use super::json::rendered_list;
use crate::langchain::{Assembler, Options, ToolArgs};
use crate::stream::Assemble;

/// Assembles the messages of a LangChain Agent Streaming Protocol stream.
#[pyclass(frozen, module = "agentcodec.langchain", name = "Assembler")]
pub struct LangChainAssembler {
    state: Guarded<AssemblerState<Assembler>>,
}

protocol_errors!(langchain, "LangChainError", "LangChainEventError");

assert_python_aligned!(LangChainAssembler);

/// Adds the protocol's classes to `agentcodec._native`.
pub(super) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Exposed to users as agentcodec.langchain.Assembler.
    m.add(
        "LangChainAssembler",
        m.py().get_type::<LangChainAssembler>(),
    )
}

assembler_methods!(
    LangChainAssembler,
    unit = "message",
    item = envelope,
    errors = "Messages skipped with `on_error=\"skip\"`.",
    result = messages,
    {
        #[new]
        #[pyo3(signature = (*, tool_args = StrArg::Default("strict"), on_error = StrArg::Default("raise"), max_line_bytes = LimitArg::Default, max_event_bytes = LimitArg::Default, max_errors = LimitArg::Default, max_stream_bytes = LimitArg::Default, max_messages = LimitArg::Default, max_blocks = LimitArg::Default), text_signature = "(*, tool_args='strict', on_error='raise', max_line_bytes=67108864, max_event_bytes=67108864, max_errors=1000, max_stream_bytes=268435456, max_messages=100000, max_blocks=500000)")]
        #[allow(clippy::too_many_arguments)] // one per Python argument
        fn new(
            py: Python<'_>,
            tool_args: StrArg,
            on_error: StrArg,
            max_line_bytes: LimitArg,
            max_event_bytes: LimitArg,
            max_errors: LimitArg,
            max_stream_bytes: LimitArg,
            max_messages: LimitArg,
            max_blocks: LimitArg,
        ) -> PyResult<Self> {
            let tool_args = match assemblers::choice(
                py,
                "tool_args",
                &tool_args.get(py, "tool_args")?,
                ["strict", "auto"],
            )? {
                "auto" => ToolArgs::Auto,
                _ => ToolArgs::Strict,
            };
            let on_error = assemblers::on_error(py, &on_error.get(py, "on_error")?)?;
            let limits = LimitArg::limits(py, &max_line_bytes, &max_event_bytes)?;
            let mut inner = Assembler::new(Options {
                tool_args,
                on_error,
                limits,
            });
            assemblers::set_limits(
                py,
                &mut inner,
                &max_errors,
                &max_stream_bytes,
                &max_messages,
                &max_blocks,
            )?;
            Ok(LangChainAssembler {
                state: assemblers::guarded(inner),
            })
        }

        /// Assembles one WebSocket text frame (one JSON message).
        fn feed_frame(&self, py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<()> {
            self.state.with(py, |state| {
                let text = if let Ok(text) = frame.cast::<PyString>() {
                    text.to_string_lossy().into_owned()
                } else {
                    with_bytes(frame, "Assembler.feed_frame()", |bytes| {
                        String::from_utf8_lossy(bytes).into_owned()
                    })?
                };
                state
                    .inner
                    .feed_frame(&text)
                    .map_err(|err| to_py_err(py, err))
            })
        }

        /// Ends the stream and returns the messages.
        fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state.with(py, |state| {
                assemblers::close(py, &mut state.inner, to_py_err)?;
                rendered_list(py, state.inner.rendered_messages())
            })
        }

        /// Every message so far, in the order they started.
        #[getter]
        fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state.with(py, |state| {
                rendered_list(py, state.inner.rendered_messages())
            })
        }

        /// Every tool-call block of every message, its args parsed as they stream.
        #[getter]
        fn tool_calls<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
            self.state
                .with(py, |state| state.reader.read(py, state.inner.tool_calls()))
        }

        #[getter]
        fn duplicate_count(&self, py: Python<'_>) -> PyResult<u64> {
            self.state
                .with(py, |state| Ok(state.inner.duplicate_count()))
        }
    }
);
