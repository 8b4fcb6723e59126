"""The Vercel AI SDK UI message stream types (as ``ai`` 7 defines them in
``ui-message-chunks.ts`` and ``ui-messages.ts``).

``TypedDict`` shapes for the plain dicts on the wire: each SSE event's
``data`` is one chunk, named by its ``type``; the assembled ``UIMessage``
holds parts. Field names are the SDK's (camelCase). Every record may carry
more keys than listed (the SDK's chunk schema lets unknown keys pass), and
agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

from .._vocabulary import tables

__all__ = [
    "FINISH_REASONS",
    "HEADERS",
    "TOOL_STATES",
    "DataChunk",
    "DataPart",
    "DynamicToolPart",
    "ErrorChunk",
    "FileChunk",
    "FilePart",
    "FinishChunk",
    "MessageMetadataChunk",
    "ReasoningChunk",
    "ReasoningPart",
    "SourceDocumentChunk",
    "SourceUrlChunk",
    "StartChunk",
    "StepChunk",
    "TextChunk",
    "TextPart",
    "ToolApproval",
    "ToolChunk",
    "ToolPart",
    "UIMessage",
    "UIMessageChunk",
    "UIMessagePart",
]

#: The finish reasons of the ``finish`` chunk.
FINISH_REASONS = tables("ai_sdk")["FINISH_REASONS"]
#: The states of a tool part, in the order a call goes through them.
TOOL_STATES = (
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
)
#: The response headers of a UI message stream (``UI_MESSAGE_STREAM_HEADERS``);
#: a custom backend must send ``x-vercel-ai-ui-message-stream: v1``.
HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}

ProviderMetadata = dict[str, dict[str, Any]]


class StartChunk(TypedDict, total=False):
    type: Literal["start"]
    messageId: str
    messageMetadata: Any


class FinishChunk(TypedDict, total=False):
    type: Literal["finish"]
    finishReason: Literal["stop", "length", "content-filter", "tool-calls", "error", "other"]
    messageMetadata: Any


class MessageMetadataChunk(TypedDict):
    type: Literal["message-metadata"]
    messageMetadata: Any


class StepChunk(TypedDict):
    type: Literal["start-step", "finish-step", "reset-step"]


class TextChunk(TypedDict, total=False):
    type: Literal["text-start", "text-delta", "text-end"]
    id: str
    delta: str
    providerMetadata: ProviderMetadata


class ReasoningChunk(TypedDict, total=False):
    type: Literal["reasoning-start", "reasoning-delta", "reasoning-end"]
    id: str
    delta: str
    providerMetadata: ProviderMetadata


class ToolChunk(TypedDict, total=False):
    """``tool-input-start``, ``-delta``, ``-available``, ``-error``,
    ``tool-approval-request``, ``-response``, ``tool-output-available``,
    ``-error`` and ``-denied``: the fields each carries."""

    type: str
    toolCallId: str
    toolName: str
    inputTextDelta: str
    input: Any
    output: Any
    errorText: str
    preliminary: bool
    dynamic: bool
    title: str
    providerExecuted: bool
    providerMetadata: ProviderMetadata
    toolMetadata: dict[str, Any]
    approvalId: str
    approved: bool
    reason: str
    isAutomatic: bool
    signature: str


class SourceUrlChunk(TypedDict, total=False):
    type: Literal["source-url"]
    sourceId: str
    url: str
    title: str
    providerMetadata: ProviderMetadata


class SourceDocumentChunk(TypedDict, total=False):
    type: Literal["source-document"]
    sourceId: str
    mediaType: str
    title: str
    filename: str
    providerMetadata: ProviderMetadata


class FileChunk(TypedDict, total=False):
    type: Literal["file", "reasoning-file"]
    url: str
    mediaType: str
    providerMetadata: ProviderMetadata


class DataChunk(TypedDict, total=False):
    """``data-<name>``: with an ``id``, a later chunk of the same type and id
    replaces its data; a ``transient`` one is not stored."""

    type: str
    id: str
    data: Any
    transient: bool


class ErrorChunk(TypedDict, total=False):
    type: Literal["error", "abort"]
    errorText: str
    reason: str


UIMessageChunk = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    StartChunk,
    FinishChunk,
    MessageMetadataChunk,
    StepChunk,
    TextChunk,
    ReasoningChunk,
    ToolChunk,
    SourceUrlChunk,
    SourceDocumentChunk,
    FileChunk,
    DataChunk,
    ErrorChunk,
]


class TextPart(TypedDict, total=False):
    type: Literal["text"]
    text: str
    state: Literal["streaming", "done"]
    providerMetadata: ProviderMetadata


class ReasoningPart(TypedDict, total=False):
    type: Literal["reasoning"]
    id: str
    text: str
    state: Literal["streaming", "done"]
    providerMetadata: ProviderMetadata


class ToolApproval(TypedDict, total=False):
    id: str
    approved: bool
    reason: str
    isAutomatic: bool
    signature: str


class ToolPart(TypedDict, total=False):
    """A tool the client knows: ``type`` is ``tool-<name>``."""

    type: str
    toolCallId: str
    state: str
    title: str
    input: Any
    output: Any
    rawInput: Any
    errorText: str
    preliminary: bool
    providerExecuted: bool
    approval: ToolApproval
    toolMetadata: dict[str, Any]
    callProviderMetadata: ProviderMetadata
    resultProviderMetadata: ProviderMetadata


class DynamicToolPart(TypedDict, total=False):
    type: Literal["dynamic-tool"]
    toolName: str
    toolCallId: str
    state: str
    title: str
    input: Any
    output: Any
    errorText: str
    preliminary: bool
    providerExecuted: bool
    approval: ToolApproval
    toolMetadata: dict[str, Any]
    callProviderMetadata: ProviderMetadata
    resultProviderMetadata: ProviderMetadata


class FilePart(TypedDict, total=False):
    type: Literal["file", "reasoning-file"]
    mediaType: str
    url: str
    providerMetadata: ProviderMetadata


class DataPart(TypedDict, total=False):
    type: str
    id: str
    data: Any


UIMessagePart = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    TextPart,
    ReasoningPart,
    ToolPart,
    DynamicToolPart,
    FilePart,
    DataPart,
    SourceUrlChunk,
    SourceDocumentChunk,
]


class UIMessage(TypedDict, total=False):
    id: str
    metadata: Any
    role: Literal["assistant"]
    parts: list[UIMessagePart]
