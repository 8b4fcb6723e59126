"""The Ollama stream types, as its API's JSON spells them (``/api/chat`` and
``/api/generate``; the ollama client's models).

``TypedDict`` shapes for the plain dicts on the wire: each NDJSON line is a
``ChatResponse`` (or a ``GenerateResponse``) carrying a piece of the answer,
the last one ``done`` with its reason and counts, or an ``ErrorLine``. The
assembled answer has the same shape, whole. Every record may carry more keys
than listed, and agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .._vocabulary import tables

__all__ = [
    "DONE_REASONS",
    "ENDPOINTS",
    "ChatResponse",
    "ErrorLine",
    "GenerateResponse",
    "Line",
    "Message",
    "ToolCall",
    "ToolCallFunction",
]

_VOCABULARY = tables("ollama")

#: The reasons Ollama's server gives a done line.
DONE_REASONS = _VOCABULARY["DONE_REASONS"]
#: The endpoints whose answers the encoder writes (its ``endpoint`` option).
ENDPOINTS = _VOCABULARY["ENDPOINTS"]


class ToolCallFunction(TypedDict, total=False):
    index: int
    name: str
    arguments: dict[str, Any]


class ToolCall(TypedDict, total=False):
    id: str
    function: ToolCallFunction


class Message(TypedDict, total=False):
    role: str
    content: str
    thinking: str
    images: list[str]
    tool_calls: list[ToolCall]
    tool_name: str


class _Metrics(TypedDict, total=False):
    done: bool
    done_reason: str
    total_duration: int
    load_duration: int
    prompt_eval_count: int
    prompt_eval_duration: int
    eval_count: int
    eval_duration: int
    logprobs: list[dict[str, Any]]


class ChatResponse(_Metrics, total=False):
    """A line of ``/api/chat``'s stream, and its answer whole."""

    model: str
    created_at: str
    message: Message
    error: str


class GenerateResponse(_Metrics, total=False):
    """A line of ``/api/generate``'s stream, and its answer whole."""

    model: str
    created_at: str
    response: str
    thinking: str
    context: list[int]
    tool_calls: list[ToolCall]
    error: str


class ErrorLine(TypedDict):
    """The line a stream that failed ends with."""

    error: str


#: Any line of either stream.
Line = ChatResponse | GenerateResponse | ErrorLine
