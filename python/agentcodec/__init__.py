"""agentcodec: a fast, conformant codec for AI-agent streaming protocols.

It frames Server-Sent Events, decodes their JSON events and assembles the
deltas they carry, in Rust, with a pure-Python fallback that behaves the same.
``Transcoder(source, target)`` converts a stream of one protocol into another
as it streams, through the neutral vocabulary of ``agentcodec.events``;
``PartialJSON`` parses tool arguments as they stream, each byte once.
``agentcodec.backend`` says which one is in use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._backend import backend
from ._errors import (
    AgentCodecError,
    ConversionLossError,
    EventStreamError,
    PartialJSONError,
    SSEError,
    SSELimitError,
    StreamLimitError,
)
from ._pure.a2a.errors import A2AError, A2AEventError
from ._pure.agentscope.errors import AgentScopeError, AgentScopeEventError
from ._pure.agui.errors import AGUIError, AGUIEventError
from ._pure.ai_sdk.errors import AISDKError, AISDKEventError
from ._pure.anthropic.errors import AnthropicError, AnthropicEventError
from ._pure.bedrock.errors import BedrockError, BedrockEventError
from ._pure.gemini.errors import GeminiError, GeminiEventError
from ._pure.langchain.errors import LangChainError, LangChainEventError, ResumeGapError
from ._pure.langgraph.errors import LangGraphError, LangGraphEventError
from ._pure.ollama.errors import OllamaError, OllamaEventError
from ._pure.openai_chat.errors import OpenAIChatError, OpenAIChatEventError
from ._pure.openai_responses.errors import OpenAIResponsesError, OpenAIResponsesEventError
from ._version import __version__

if TYPE_CHECKING:
    # Both backends provide the same names; type checkers read the stubs of
    # the native one.
    from ._native import (
        DEFAULT_MAX_EVENT_BYTES,
        DEFAULT_MAX_LINE_BYTES,
        EventStreamDecoder,
        JSONArrayDecoder,
        NDJSONDecoder,
        PartialJSON,
        SSEDecoder,
        SSEEvent,
        Transcoder,
        encode_sse,
        encode_sse_comment,
    )
else:
    from ._backend import impl as _impl

    DEFAULT_MAX_EVENT_BYTES = _impl.DEFAULT_MAX_EVENT_BYTES
    DEFAULT_MAX_LINE_BYTES = _impl.DEFAULT_MAX_LINE_BYTES
    EventStreamDecoder = _impl.EventStreamDecoder
    JSONArrayDecoder = _impl.JSONArrayDecoder
    NDJSONDecoder = _impl.NDJSONDecoder
    PartialJSON = _impl.PartialJSON
    SSEDecoder = _impl.SSEDecoder
    SSEEvent = _impl.SSEEvent
    Transcoder = _impl.Transcoder
    encode_sse = _impl.encode_sse
    encode_sse_comment = _impl.encode_sse_comment
    del _impl  # the backend's module is no name of the package's

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "AGUIError",
    "AGUIEventError",
    "AISDKError",
    "AISDKEventError",
    "AgentCodecError",
    "AgentScopeError",
    "AgentScopeEventError",
    "A2AError",
    "A2AEventError",
    "AnthropicError",
    "AnthropicEventError",
    "LangChainError",
    "LangChainEventError",
    "EventStreamDecoder",
    "JSONArrayDecoder",
    "NDJSONDecoder",
    "BedrockError",
    "BedrockEventError",
    "EventStreamError",
    "GeminiError",
    "GeminiEventError",
    "LangGraphError",
    "LangGraphEventError",
    "OllamaError",
    "OllamaEventError",
    "OpenAIChatError",
    "OpenAIChatEventError",
    "OpenAIResponsesError",
    "OpenAIResponsesEventError",
    "PartialJSON",
    "PartialJSONError",
    "ResumeGapError",
    "SSEDecoder",
    "SSEError",
    "SSEEvent",
    "SSELimitError",
    "ConversionLossError",
    "StreamLimitError",
    "Transcoder",
    "__version__",
    "backend",
    "encode_sse",
    "encode_sse_comment",
]
