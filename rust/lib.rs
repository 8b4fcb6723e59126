//! agentcodec: a fast, conformant codec for AI-agent streaming protocols.
//!
//! The core modules are plain Rust: they are tested, benchmarked and fuzzed
//! without Python. The PyO3 binding lives in `python`, behind the `python`
//! feature.
//!
//! Only the binding may use `unsafe` (for the CPython API): the core is safe
//! Rust, which is why its fuzz targets run without a sanitizer.
#![deny(unsafe_code)]

/// `pub mod vocabulary` in a protocol's `mod.rs`: its vocabulary (event
/// types, finish reasons, error codes), written once for both backends in
/// `python/agentcodec/<name>/vocabulary.txt`, whose constants build.rs makes.
macro_rules! vocabulary {
    ($name:literal) => {
        /// The protocol's vocabulary, as its package's `vocabulary.txt`
        /// holds it for both backends (build.rs makes its constants).
        pub mod vocabulary {
            include!(concat!(env!("OUT_DIR"), "/vocabulary/", $name, ".rs"));
        }
    };
}

pub mod accumulate;
pub mod article;
pub mod bound;
pub mod error_codes;
pub mod events;
pub mod eventstream;
pub mod executed_calls;
pub mod framing;
pub mod frozen;
pub mod hashing;
pub mod joined_text;
pub mod json;
pub mod json_array;
pub mod json_patch;
pub mod json_prefix;
pub mod json_probe;
pub mod ndjson;
pub mod partial_json;
pub mod recent;
pub mod registry;
pub mod rfc3339;
pub mod sse;
pub mod stop_reasons;
pub mod stream;
pub mod tool_calls;
pub mod transcode;
pub mod words;

/// Calls `$then!` with every protocol's module, in the order the CLI and
/// the docs list them: the one list of protocols. A protocol's module
/// declares its `PROTOCOL` ([`registry::Descriptor`]); what enumerates
/// protocols (the descriptors here, the binding's dispatch) is generated
/// from this list, so a protocol is added by adding its module here.
macro_rules! with_protocols {
    ($then:ident) => {
        $then!(
            agentscope,
            langchain,
            agui,
            openai_responses,
            openai_chat,
            anthropic,
            ai_sdk,
            a2a,
            ollama,
            gemini,
            bedrock,
            langgraph,
        );
    };
}

macro_rules! declare_protocols {
    ($($module:ident),* $(,)?) => {
        /// Every protocol's descriptor, in the order the CLI lists them.
        pub const PROTOCOLS: &[&registry::Descriptor] = &[$(&$module::PROTOCOL),*];
    };
}

// The protocols' modules, declared as modules are (rustfmt and editors
// follow no `mod` a macro makes); `with_protocols!` above is the list the
// registry is generated from, and naming there a module not declared here
// does not compile.
pub mod a2a;
pub mod agentscope;
pub mod agui;
pub mod ai_sdk;
pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod langchain;
pub mod langgraph;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;

with_protocols!(declare_protocols);

#[cfg(feature = "python")]
#[allow(unsafe_code)]
mod python;
