//! The PyO3 binding: `agentcodec._native`. The only place that knows Python.

/// Python allocates an object with 16-byte alignment, so what a class holds
/// must need no more: a 32-byte-aligned AVX2 searcher once kept in the SSE
/// decoder crashed on the first instance that landed off a 32-byte line.
macro_rules! assert_python_aligned {
    ($($class:ty),* $(,)?) => {
        const _: () = {
            $(assert!(std::mem::align_of::<$class>() <= 16);)*
        };
    };
}

macro_rules! protocol_bindings {
    ($($module:ident),* $(,)?) => {
        // Declared here, from the one list, so that a protocol's binding
        // is its own file alone. `cargo fmt` does not follow a `mod` made
        // by a macro: scripts/test.sh checks every tracked file with
        // rustfmt, which formats them (docs/contributing.md).
        $(mod $module;)*

        /// Adds each protocol's classes to the module.
        fn add_protocols(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $($module::add_to(m)?;)*
            Ok(())
        }
    };
}

with_protocols!(protocol_bindings);

mod args;
mod assemblers;
mod bound;
mod bytes;
mod errors;
mod eventstream;
mod guard;
mod json;
mod json_array;
mod ndjson;
mod partial_json;
mod sse;
mod tool_calls;
mod transcode;

use pyo3::prelude::*;

use crate::sse::{DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};

assert_python_aligned!(
    sse::SSEEvent,
    sse::SSEDecoder,
    ndjson::NDJSONDecoder,
    json_array::JSONArrayDecoder,
    eventstream::EventStreamDecoder,
    partial_json::PartialJSON,
    transcode::Transcoder,
    transcode::NeutralDecoder,
    transcode::NeutralEncoder,
    transcode::NeutralAssembler,
    bound::StrictValidationBound,
);

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES)?;
    m.add("DEFAULT_MAX_EVENT_BYTES", DEFAULT_MAX_EVENT_BYTES)?;
    m.add_class::<sse::SSEEvent>()?;
    m.add_class::<sse::SSEDecoder>()?;
    m.add_class::<ndjson::NDJSONDecoder>()?;
    m.add_class::<json_array::JSONArrayDecoder>()?;
    m.add_class::<eventstream::EventStreamDecoder>()?;
    m.add_function(wrap_pyfunction!(eventstream::encode_event_message, m)?)?;
    add_protocols(m)?;
    // Exposed to users as agentcodec.Transcoder and the neutral classes.
    m.add_class::<transcode::Transcoder>()?;
    m.add_class::<transcode::NeutralDecoder>()?;
    m.add_class::<transcode::NeutralEncoder>()?;
    m.add_class::<transcode::NeutralAssembler>()?;
    m.add_class::<partial_json::PartialJSON>()?;
    m.add_function(wrap_pyfunction!(sse::encode_sse, m)?)?;
    m.add_function(wrap_pyfunction!(sse::encode_sse_comment, m)?)?;
    m.add_function(wrap_pyfunction!(sse::frame_json_string, m)?)?;
    // For benches/report.py alone: an attribute, not in `__all__`.
    m.setattr(
        "_StrictValidation",
        m.py().get_type::<bound::StrictValidationBound>(),
    )?;
    Ok(())
}
