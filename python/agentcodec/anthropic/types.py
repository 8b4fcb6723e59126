"""The Anthropic Messages stream types (as anthropic-sdk-python 2.12 models them).

``TypedDict`` shapes for the plain dicts on the wire: each SSE event's
``data`` is one of the ``*Event`` records, named by its ``type``; a content
block is one of the ``*Block`` records. Every record may carry more keys
than listed (the API adds fields and block types), and agentcodec keeps
what it does not know.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

from .._vocabulary import tables

__all__ = [
    "STOP_REASONS",
    "Citation",
    "ContentBlock",
    "ContentBlockDeltaEvent",
    "ContentBlockStartEvent",
    "ContentBlockStopEvent",
    "ErrorEvent",
    "Message",
    "MessageDeltaEvent",
    "MessageStartEvent",
    "MessageStopEvent",
    "PingEvent",
    "RedactedThinkingBlock",
    "StreamEvent",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "Usage",
]

_VOCABULARY = tables("anthropic")

#: The stop reasons the API sends.
STOP_REASONS = _VOCABULARY["STOP_REASONS"]

StopReason = Literal["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]


class Usage(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int | None
    cache_read_input_tokens: int | None
    server_tool_use: dict[str, Any] | None
    service_tier: str | None


class Citation(TypedDict, total=False):
    type: str
    cited_text: str


class TextBlock(TypedDict, total=False):
    type: Literal["text"]
    text: str
    citations: list[Citation] | None


class ThinkingBlock(TypedDict, total=False):
    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(TypedDict, total=False):
    type: Literal["redacted_thinking"]
    data: str


class ToolUseBlock(TypedDict, total=False):
    #: ``tool_use``, ``server_tool_use`` or ``mcp_tool_use``.
    type: str
    id: str
    name: str
    input: Any


#: Any content block: the server tools' results (``web_search_tool_result``
#: and the like) are records of their own, kept whole.
ContentBlock = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock, dict[str, Any]
]


class Message(TypedDict, total=False):
    """What ``Assembler.close()`` returns: the Message of ``message_start``,
    with its content blocks, stop reason and usage."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[ContentBlock]
    stop_reason: StopReason | None
    stop_sequence: str | None
    stop_details: dict[str, Any] | None
    container: dict[str, Any] | None
    usage: Usage


class MessageStartEvent(TypedDict):
    type: Literal["message_start"]
    message: Message


class ContentBlockStartEvent(TypedDict):
    type: Literal["content_block_start"]
    index: int
    content_block: ContentBlock


class ContentBlockDeltaEvent(TypedDict):
    type: Literal["content_block_delta"]
    index: int
    #: ``text_delta`` (``text``), ``thinking_delta`` (``thinking``),
    #: ``signature_delta`` (``signature``), ``input_json_delta``
    #: (``partial_json``) or ``citations_delta`` (``citation``).
    delta: dict[str, Any]


class ContentBlockStopEvent(TypedDict):
    type: Literal["content_block_stop"]
    index: int


class MessageDeltaEvent(TypedDict):
    type: Literal["message_delta"]
    #: ``stop_reason``, ``stop_sequence``, and ``stop_details`` or ``container`` when given.
    delta: dict[str, Any]
    #: Cumulative: ``output_tokens``, and the input counts when they changed.
    usage: Usage


class MessageStopEvent(TypedDict):
    type: Literal["message_stop"]


class PingEvent(TypedDict):
    type: Literal["ping"]


class ErrorEvent(TypedDict):
    type: Literal["error"]
    #: ``type`` (``overloaded_error``, ``api_error``, ...) and ``message``.
    error: dict[str, Any]


StreamEvent = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    MessageStartEvent,
    ContentBlockStartEvent,
    ContentBlockDeltaEvent,
    ContentBlockStopEvent,
    MessageDeltaEvent,
    MessageStopEvent,
    PingEvent,
    ErrorEvent,
]
