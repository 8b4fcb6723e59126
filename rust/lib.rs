//! agentcodec: a fast, conformant codec for AI-agent streaming protocols.
//!
//! The core modules are plain Rust: they are tested, benchmarked and fuzzed
//! without Python. The PyO3 binding lives in `python`, behind the `python`
//! feature.
//!
//! Only the binding may use `unsafe` (for the CPython API): the core is safe
//! Rust, which is why its fuzz targets run without a sanitizer.
#![deny(unsafe_code)]

pub mod accumulate;
pub mod agentscope;
pub mod agui;
pub mod ai_sdk;
pub mod anthropic;
pub mod events;
pub mod frozen;
pub mod json;
pub mod json_patch;
pub mod json_prefix;
pub mod json_probe;
pub mod langchain;
pub mod openai_chat;
pub mod openai_responses;
pub mod partial_json;
pub mod recent;
pub mod sse;
pub mod stream;
pub mod tool_calls;
pub mod transcode;

#[cfg(feature = "python")]
#[allow(unsafe_code)]
mod python;
