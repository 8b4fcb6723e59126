"""The LangGraph Agent Server stream types, as langgraph-api writes them and
langgraph-sdk reads them.

``TypedDict`` shapes for the plain dicts: an SSE event as the assemblers
take it (``StreamPart``: its ``event``, the stream mode and the namespace
after ``|``, and its ``data``), langgraph-sdk's and LangGraph's v2 parts,
the messages (LangChain's serialized messages, and the chunks of the
``messages`` mode), the interrupts, and the assembled run. Every record may
carry more keys than listed, and agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .._vocabulary import tables

__all__ = [
    "MODES",
    "AssembledRun",
    "Interrupt",
    "Message",
    "MessageChunk",
    "Namespace",
    "StreamPart",
    "ToolCall",
    "ToolCallChunk",
    "V2Part",
]

_VOCABULARY = tables("langgraph")

#: The events' kinds: the stream modes, and the server's own events.
MODES = _VOCABULARY["MODES"]


class StreamPart(TypedDict, total=False):
    """An SSE event: ``event`` is the mode (``values``, ``messages``...),
    then ``|`` and the namespace for a subgraph's."""

    event: str
    data: Any
    id: str | None


class V2Part(TypedDict, total=False):
    """langgraph-sdk's ``version="v2"`` parts, and LangGraph's own."""

    type: str
    ns: list[str]
    data: Any
    interrupts: list[Interrupt]


class Interrupt(TypedDict, total=False):
    value: Any
    id: str


class ToolCall(TypedDict, total=False):
    name: str
    args: dict[str, Any]
    id: str | None
    type: str


class ToolCallChunk(TypedDict, total=False):
    name: str | None
    args: str | None
    id: str | None
    index: int | str | None
    type: str


class Message(TypedDict, total=False):
    """A LangChain message, serialized (``type``: ai, human, tool, system)."""

    content: str | list[Any]
    additional_kwargs: dict[str, Any]
    response_metadata: dict[str, Any]
    type: str
    name: str | None
    id: str | None
    tool_calls: list[ToolCall]
    invalid_tool_calls: list[dict[str, Any]]
    usage_metadata: dict[str, Any] | None
    tool_call_id: str


class MessageChunk(Message, total=False):
    """A chunk of the ``messages`` mode (``type``: AIMessageChunk)."""

    tool_call_chunks: list[ToolCallChunk]
    chunk_position: str | None


class Namespace(TypedDict):
    """What a graph (the root, or a subgraph) left."""

    values: dict[str, Any] | None
    messages: list[Message]
    interrupts: list[Interrupt]


class AssembledRun(Namespace):
    """What ``Assembler.close()`` gives."""

    run_id: str | None
    error: dict[str, Any] | None
    namespaces: dict[str, Namespace]
