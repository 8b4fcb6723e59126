"""The pure-Python backend: the same API as ``agentcodec._native``, module
for module, used where the native extension is unavailable or when
``AGENTCODEC_BACKEND=python``."""

from .._version import __version__
from .agentscope import Assembler as AgentScopeAssembler
from .agui import Assembler as AGUIAssembler
from .ai_sdk import Assembler as AISDKAssembler
from .anthropic import Assembler as AnthropicAssembler
from .langchain import Assembler as LangChainAssembler
from .openai_chat import Assembler as OpenAIChatAssembler
from .openai_responses import Assembler as OpenAIResponsesAssembler
from .partial_json import PartialJSON
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEDecoder, SSEEvent
from .sse_encoder import encode_sse, encode_sse_comment, frame_json_string
from .transcode import Assembler as NeutralAssembler
from .transcode import Decoder as NeutralDecoder
from .transcode import Encoder as NeutralEncoder
from .transcode import Transcoder

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
