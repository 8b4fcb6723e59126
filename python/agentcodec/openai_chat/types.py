"""The OpenAI Chat Completions stream types (as openai-python 3.54 models them).

``TypedDict`` shapes for the plain dicts on the wire: snake_case keys, each
chunk a ``chat.completion.chunk`` whose choices carry deltas. Every record
may carry more keys than listed (providers add ``reasoning_content``,
``reasoning`` and the like), and agentcodec keeps what it does not know.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from .._vocabulary import tables

__all__ = [
    "FINISH_REASONS",
    "ChatCompletion",
    "ChatCompletionChunk",
    "Choice",
    "ChoiceDelta",
    "ChoiceLogprobs",
    "ChunkChoice",
    "FunctionCall",
    "FunctionCallDelta",
    "Message",
    "ToolCall",
    "ToolCallDelta",
    "Usage",
]

_VOCABULARY = tables("openai_chat")

#: The finish reasons the API sends.
FINISH_REASONS = _VOCABULARY["FINISH_REASONS"]

FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "function_call"]


class Usage(TypedDict, total=False):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: dict[str, Any]
    completion_tokens_details: dict[str, Any]


class ChoiceLogprobs(TypedDict, total=False):
    content: list[dict[str, Any]] | None
    refusal: list[dict[str, Any]] | None


class FunctionCallDelta(TypedDict, total=False):
    name: str
    arguments: str


class ToolCallDelta(TypedDict, total=False):
    index: int
    id: str
    type: Literal["function"]
    function: FunctionCallDelta


class ChoiceDelta(TypedDict, total=False):
    role: Literal["assistant", "developer", "system", "user", "tool"]
    content: str | None
    refusal: str | None
    tool_calls: list[ToolCallDelta]
    function_call: FunctionCallDelta
    audio: dict[str, Any]


class ChunkChoice(TypedDict, total=False):
    index: int
    delta: ChoiceDelta
    finish_reason: FinishReason | None
    logprobs: ChoiceLogprobs | None


class ChatCompletionChunk(TypedDict, total=False):
    """One ``data:`` event of the stream."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    system_fingerprint: str | None
    service_tier: str | None
    usage: Usage | None


class FunctionCall(TypedDict, total=False):
    name: str
    arguments: str


class ToolCall(TypedDict, total=False):
    index: int
    id: str
    type: Literal["function"]
    function: FunctionCall


class Message(TypedDict, total=False):
    role: str
    content: str | None
    refusal: str | None
    tool_calls: list[ToolCall]
    function_call: FunctionCall
    audio: dict[str, Any]


class Choice(TypedDict, total=False):
    index: int
    message: Message
    finish_reason: FinishReason | None
    logprobs: ChoiceLogprobs | None


class ChatCompletion(TypedDict, total=False):
    """What the assembler gives: ``object`` is ``"chat.completion"``."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    system_fingerprint: str | None
    service_tier: str | None
    usage: Usage | None
