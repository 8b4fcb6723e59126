"""Each protocol by its name: its assembler, how one of its events is written
as SSE, and the response headers its clients look for. What the client and
server helpers need to treat every protocol alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import agentscope, agui, ai_sdk, anthropic, langchain, openai_chat, openai_responses
from ._backend import impl
from .events import PROTOCOLS

__all__ = ["assembler", "check", "encoder", "headers", "media_type"]

_ASSEMBLERS: dict[str, Callable[..., Any]] = {
    "agentscope": agentscope.Assembler,
    "langchain": langchain.Assembler,
    "agui": agui.Assembler,
    "openai-responses": openai_responses.Assembler,
    "openai-chat": openai_chat.Assembler,
    "anthropic": anthropic.Assembler,
    "ai-sdk": ai_sdk.Assembler,
}

_ENCODERS: dict[str, Callable[[Any], bytes]] = {
    # agentscope-runtime and the LangChain protocol's servers write each event
    # as a bare `data:` line.
    "agentscope": impl.encode_sse,
    "langchain": impl.encode_sse,
    "agui": agui.encode,
    "openai-responses": openai_responses.encode,
    "openai-chat": openai_chat.encode,
    "anthropic": anthropic.encode,
    "ai-sdk": ai_sdk.encode,
}

# The AI SDK's client reads a stream only with its version header.
_HEADERS: dict[str, dict[str, str]] = {"ai-sdk": {"x-vercel-ai-ui-message-stream": "v1"}}

# The media type of each protocol's streams; Server-Sent Events unless said.
_MEDIA_TYPES: dict[str, str] = {}


def check(protocol: str) -> str:
    """The protocol's name, or a ValueError listing the known ones."""
    if protocol not in _ASSEMBLERS:
        known = ", ".join(repr(name) for name in PROTOCOLS)
        raise ValueError(f"unknown protocol {protocol!r}: expected one of {known}")
    return protocol


def assembler(protocol: str, **options: Any) -> Any:
    """A new assembler of the protocol, built with ``options``."""
    return _ASSEMBLERS[check(protocol)](**options)


def encoder(protocol: str) -> Callable[[Mapping[str, Any]], bytes]:
    """What writes one of the protocol's events as SSE bytes."""
    return _ENCODERS[check(protocol)]


def headers(protocol: str | None) -> dict[str, str]:
    """Response headers the protocol's clients expect beside the SSE ones."""
    return dict(_HEADERS.get(protocol or "", {}))


def media_type(protocol: str | None) -> str:
    """The media type of the protocol's streams (of raw events: SSE)."""
    return _MEDIA_TYPES.get(protocol or "", "text/event-stream")
