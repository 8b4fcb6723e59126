"""The Bedrock ConverseStream types, as its JSON spells them (botocore's
``bedrock-runtime`` model: ``ConverseStreamOutput`` and ``ConverseResponse``).

``TypedDict`` shapes for the plain dicts: each event is one member of the
stream's union (``{"contentBlockDelta": {...}}``, as botocore gives it); the
assembled response is Converse's. Every dict may carry more keys than listed,
and agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .._vocabulary import tables

__all__ = [
    "EVENTS",
    "EXCEPTIONS",
    "STOP_REASONS",
    "ContentBlock",
    "ConverseResponse",
    "Event",
    "Message",
    "ToolUse",
    "Usage",
]

_VOCABULARY = tables("bedrock")

#: The events of the stream (the members of ``ConverseStreamOutput`` that are no exceptions).
EVENTS = _VOCABULARY["EVENTS"]
#: The exceptions a stream may end with.
EXCEPTIONS = _VOCABULARY["EXCEPTIONS"]
#: The reasons a message stops.
STOP_REASONS = _VOCABULARY["STOP_REASONS"]


class ToolUse(TypedDict, total=False):
    toolUseId: str
    name: str
    input: Any


class ContentBlock(TypedDict, total=False):
    text: str
    toolUse: ToolUse
    reasoningContent: dict[str, Any]


class Message(TypedDict, total=False):
    role: str
    content: list[ContentBlock]


class Usage(TypedDict, total=False):
    inputTokens: int
    outputTokens: int
    totalTokens: int
    cacheReadInputTokens: int
    cacheWriteInputTokens: int


class ConverseResponse(TypedDict, total=False):
    """The response Converse gives, and what the assembler gives."""

    output: dict[str, Message]
    stopReason: str
    usage: Usage
    metrics: dict[str, Any]
    additionalModelResponseFields: Any
    trace: dict[str, Any]


#: One event of the stream: ``{"<member>": {...}}``.
Event = dict[str, Any]
