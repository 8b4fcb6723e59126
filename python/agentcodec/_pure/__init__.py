"""The pure-Python backend: the same API as ``agentcodec._native``, module
for module, used where the native extension is unavailable or when
``AGENTCODEC_BACKEND=python``."""

from .._version import __version__
from . import (
    agentscope,
    agui,
    ai_sdk,
    anthropic,
    langchain,
    openai_chat,
    openai_responses,
    partial_json,
    sse_decoder,
    transcode,
)
from ._guard import serialized
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEEvent
from .sse_encoder import encode_sse, encode_sse_comment, frame_json_string

# What the package exports is safe to share between threads: one call at a
# time per object (see _guard). SSEEvent is immutable.
AgentScopeAssembler = serialized(agentscope.Assembler)
AGUIAssembler = serialized(agui.Assembler)
AISDKAssembler = serialized(ai_sdk.Assembler)
AnthropicAssembler = serialized(anthropic.Assembler)
LangChainAssembler = serialized(langchain.Assembler)
OpenAIChatAssembler = serialized(openai_chat.Assembler)
OpenAIResponsesAssembler = serialized(openai_responses.Assembler)
PartialJSON = serialized(partial_json.PartialJSON)
SSEDecoder = serialized(sse_decoder.SSEDecoder)
NeutralAssembler = serialized(transcode.Assembler, "NeutralAssembler")
NeutralDecoder = serialized(transcode.Decoder, "NeutralDecoder")
NeutralEncoder = serialized(transcode.Encoder, "NeutralEncoder")
Transcoder = serialized(transcode.Transcoder)

__all__ = [
    "AGUIAssembler",
    "AISDKAssembler",
    "AgentScopeAssembler",
    "AnthropicAssembler",
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "LangChainAssembler",
    "NeutralAssembler",
    "NeutralDecoder",
    "NeutralEncoder",
    "OpenAIChatAssembler",
    "OpenAIResponsesAssembler",
    "PartialJSON",
    "SSEDecoder",
    "SSEEvent",
    "Transcoder",
    "__version__",
    "encode_sse",
    "encode_sse_comment",
    "frame_json_string",
]
