//! The PyO3 binding: `agentcodec._native`. The only place that knows Python.

mod agentscope;
mod agui;
mod ai_sdk;
mod anthropic;
mod args;
mod assemblers;
mod bytes;
mod errors;
mod guard;
mod json;
mod langchain;
mod openai_chat;
mod openai_responses;
mod partial_json;
mod sse;
mod tool_calls;
mod transcode;

use pyo3::prelude::*;

use crate::sse::{DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};

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

assert_python_aligned!(
    sse::SSEEvent,
    sse::SSEDecoder,
    agentscope::AgentScopeAssembler,
    langchain::LangChainAssembler,
    agui::AGUIAssembler,
    openai_responses::OpenAIResponsesAssembler,
    openai_chat::OpenAIChatAssembler,
    anthropic::AnthropicAssembler,
    ai_sdk::AISDKAssembler,
    partial_json::PartialJSON,
    transcode::Transcoder,
    transcode::NeutralDecoder,
    transcode::NeutralEncoder,
    transcode::NeutralAssembler,
);

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES)?;
    m.add("DEFAULT_MAX_EVENT_BYTES", DEFAULT_MAX_EVENT_BYTES)?;
    m.add_class::<sse::SSEEvent>()?;
    m.add_class::<sse::SSEDecoder>()?;
    // Exposed to users as agentcodec.ai_sdk.Assembler.
    m.add(
        "AISDKAssembler",
        m.py().get_type::<ai_sdk::AISDKAssembler>(),
    )?;
    // Exposed to users as agentcodec.agentscope.Assembler.
    m.add(
        "AgentScopeAssembler",
        m.py().get_type::<agentscope::AgentScopeAssembler>(),
    )?;
    // Exposed to users as agentcodec.langchain.Assembler.
    m.add(
        "LangChainAssembler",
        m.py().get_type::<langchain::LangChainAssembler>(),
    )?;
    // Exposed to users as agentcodec.agui.Assembler.
    m.add("AGUIAssembler", m.py().get_type::<agui::AGUIAssembler>())?;
    // Exposed to users as agentcodec.openai_responses.Assembler.
    m.add(
        "OpenAIResponsesAssembler",
        m.py()
            .get_type::<openai_responses::OpenAIResponsesAssembler>(),
    )?;
    // Exposed to users as agentcodec.openai_chat.Assembler.
    m.add(
        "OpenAIChatAssembler",
        m.py().get_type::<openai_chat::OpenAIChatAssembler>(),
    )?;
    // Exposed to users as agentcodec.anthropic.Assembler.
    m.add(
        "AnthropicAssembler",
        m.py().get_type::<anthropic::AnthropicAssembler>(),
    )?;
    // Exposed to users as agentcodec.Transcoder and the neutral classes.
    m.add_class::<transcode::Transcoder>()?;
    m.add_class::<transcode::NeutralDecoder>()?;
    m.add_class::<transcode::NeutralEncoder>()?;
    m.add_class::<transcode::NeutralAssembler>()?;
    m.add_class::<partial_json::PartialJSON>()?;
    m.add_function(wrap_pyfunction!(sse::encode_sse, m)?)?;
    m.add_function(wrap_pyfunction!(sse::encode_sse_comment, m)?)?;
    m.add_function(wrap_pyfunction!(sse::frame_json_string, m)?)?;
    Ok(())
}
