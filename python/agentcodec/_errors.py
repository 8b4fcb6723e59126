"""Exceptions shared by both backends.

The native extension imports these classes and raises them with the same
arguments as the pure-Python backend, so the two raise identical errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "AGUIError",
    "AISDKError",
    "AISDKEventError",
    "ConversionLossError",
    "AGUIEventError",
    "AgentCodecError",
    "AgentScopeError",
    "AgentScopeEventError",
    "A2AError",
    "A2AEventError",
    "AnthropicError",
    "AnthropicEventError",
    "LangChainError",
    "LangChainEventError",
    "LangGraphError",
    "LangGraphEventError",
    "EventStreamError",
    "BedrockError",
    "BedrockEventError",
    "GeminiError",
    "GeminiEventError",
    "OllamaError",
    "OllamaEventError",
    "OpenAIChatError",
    "OpenAIChatEventError",
    "OpenAIResponsesError",
    "OpenAIResponsesEventError",
    "PartialJSONError",
    "ResumeGapError",
    "SSEError",
    "SSELimitError",
    "StreamLimitError",
]


class AgentCodecError(Exception):
    """Base class of every error agentcodec raises on bad input."""


class SSEError(AgentCodecError, ValueError):
    """A Server-Sent Events stream or event that cannot be decoded or encoded."""


_LIMIT_SUBJECT = {"max_line_bytes": "SSE line", "max_event_bytes": "SSE event data"}


class EventStreamError(AgentCodecError, ValueError):
    """An AWS event stream that cannot be decoded: a message whose prelude or
    message CRC does not match, whose length cannot hold its headers or
    exceeds ``max_message_bytes``, whose headers are malformed, or a stream
    that ends inside a message. The decoder takes no more input.

    Attributes:
        offset: the byte offset, from the start of the stream, of the message.
        reason: what is wrong with it.
        messages: the messages the failing call completed before it.
    """

    def __init__(self, offset: int, reason: str, messages: Sequence[Any] = ()) -> None:
        self.offset = offset
        self.reason = reason
        self.messages = list(messages)
        super().__init__(f"event stream message at byte offset {offset}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.offset, self.reason, self.messages))


class PartialJSONError(AgentCodecError, ValueError):
    """A JSON text fed to ``PartialJSON`` is not JSON.

    Attributes:
        offset: the byte offset, from the start of the text, where it stops being JSON.
        reason: what is wrong there.
    """

    def __init__(self, offset: int, reason: str) -> None:
        self.offset = offset
        self.reason = reason
        super().__init__(f"invalid JSON at byte {offset}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.offset, self.reason))


class SSELimitError(SSEError):
    """A configured size limit was exceeded.

    Attributes:
        limit: the name of the setting, ``"max_line_bytes"`` or ``"max_event_bytes"``.
        max_bytes: its value.
        offset: the byte offset, from the start of the stream, of the line (or
            the JSON array element) that exceeded it.
        events: the events the failing call completed before that line; earlier
            calls already returned theirs. The decoder accepts no more input.
        subject: what went past the limit: ``"SSE line"``, ``"SSE event data"``,
            ``"NDJSON line"`` in a newline-delimited JSON stream, or
            ``"JSON array element"`` in a streamed JSON array.
    """

    limit: str
    max_bytes: int
    offset: int
    # SSEEvent of whichever backend raised.
    events: list[Any]

    def __init__(
        self,
        limit: str,
        max_bytes: int,
        offset: int,
        events: Sequence[Any] = (),
        subject: str | None = None,
    ) -> None:
        self.limit = limit
        self.max_bytes = max_bytes
        self.offset = offset
        self.events = list(events)
        self.subject = subject or _LIMIT_SUBJECT.get(limit, "SSE input")
        unit = "element" if self.subject == "JSON array element" else "line"
        super().__init__(
            f"{self.subject} exceeds {limit}={max_bytes} at the {unit} starting at byte offset {offset}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.limit, self.max_bytes, self.offset, self.events, self.subject))


class StreamLimitError(AgentCodecError, ValueError):
    """A stream went past one of its assembler's limits: ``max_stream_bytes``
    (the data its events bring), ``max_messages`` or ``max_blocks`` (the
    content parts and tool calls its messages hold). The assembler takes no
    more input; what it assembled stays readable and ``close()`` finishes it.

    Attributes:
        limit: the name of the setting: ``"max_stream_bytes"``,
            ``"max_messages"`` or ``"max_blocks"``.
        maximum: its value.
        event: the number of the event that went past it, counting from 1.
        detail: how it went past it.
    """

    def __init__(self, subject: str, event: int, limit: str, maximum: int, detail: str) -> None:
        self.subject = subject
        self.event = event
        self.limit = limit
        self.maximum = maximum
        self.detail = detail
        super().__init__(
            f"{subject} {event} exceeds {limit}={maximum}: {detail}; the assembler takes no more input"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.subject, self.event, self.limit, self.maximum, self.detail))


class ConversionLossError(AgentCodecError, ValueError):
    """A conversion told to fail on a loss (``Transcoder(..., on_loss="error")``)
    met something its target cannot carry. It is raised once the source's
    event that brought it is converted, for the first of that event's
    losses (``Transcoder.losses`` has them all); the events after it wait
    for the next call, as after any error.

    Attributes:
        event: the number of the source's event that brought it, from 1.
        what: what was lost, in the words of the docs' table (guides/converting.md) of what each
            target cannot carry (``"media"``, ``"data"``, ``"tool_result"``,
            ``"corrections"``, ``"refusal_kind"``, ``"signatures"``).
        why: why, in a sentence that names the target.
    """

    def __init__(self, event: int, what: str, why: str) -> None:
        self.event = event
        self.what = what
        self.why = why
        super().__init__(f"event {event}: {why}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.event, self.what, self.why))


class _EventError(AgentCodecError):
    """An event that cannot be used, by number: each protocol names its own."""

    subject = "event"
    event: int
    problem: str

    def __init__(self, event: int, problem: str) -> None:
        self.event = event
        self.problem = problem
        super().__init__(f"{self.subject} {event} {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.event, self.problem))


class AgentScopeError(AgentCodecError, ValueError):
    """An AgentScope stream that cannot be assembled, or a misuse of the assembler."""


class AgentScopeEventError(_EventError, AgentScopeError):
    """One event of an AgentScope stream is not a JSON object (or, in strict
    mode, not what upstream's models accept).

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "AgentScope event"


class LangChainError(AgentCodecError, ValueError):
    """A LangChain protocol stream that cannot be assembled, or a misuse of the assembler."""


class LangChainEventError(_EventError, LangChainError):
    """One message of a LangChain protocol stream is not a JSON object.

    Attributes:
        event: the message's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "LangChain protocol message"


class AGUIError(AgentCodecError, ValueError):
    """An AG-UI stream that cannot be assembled, or a misuse of the assembler."""


class AGUIEventError(_EventError, AGUIError):
    """One event of an AG-UI stream cannot be applied: it is not a JSON
    object, lacks a field its type requires, addresses a message or tool call
    that was never started, or carries a JSON Patch that does not apply.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "AG-UI event"


class OpenAIResponsesError(AgentCodecError, ValueError):
    """An OpenAI Responses stream that cannot be assembled, or a misuse of the assembler."""


class OpenAIResponsesEventError(_EventError, OpenAIResponsesError):
    """One event of an OpenAI Responses stream cannot be applied: it is not a
    JSON object, lacks a field its type requires, or addresses an output item
    or part that was never added.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "OpenAI Responses event"


class OpenAIChatError(AgentCodecError, ValueError):
    """An OpenAI Chat Completions stream that cannot be assembled, or a misuse of the assembler."""


class OpenAIChatEventError(_EventError, OpenAIChatError):
    """One chunk of an OpenAI Chat Completions stream cannot be applied: it
    is not a JSON object, its choices or delta are not what the API sends,
    or it follows ``[DONE]``.

    Attributes:
        event: the chunk's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "OpenAI Chat Completions chunk"


class AnthropicError(AgentCodecError, ValueError):
    """An Anthropic Messages stream that cannot be assembled, or a misuse of the assembler."""


class AnthropicEventError(_EventError, AnthropicError):
    """One event of an Anthropic Messages stream cannot be applied: it is not
    a JSON object, comes before ``message_start`` or after ``message_stop``,
    addresses a content block that never started or has stopped, gives a
    delta the block cannot take, or ends a tool block whose input is not
    valid JSON.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Anthropic Messages event"


class A2AError(AgentCodecError, ValueError):
    """An A2A (Agent2Agent) stream that cannot be assembled, or a misuse of the assembler."""


class A2AEventError(_EventError, A2AError):
    """One event of an A2A stream cannot be applied: it is no A2A JSON-RPC
    response or result, mixes the spec versions, updates another task or
    an artifact that never started, or comes after the stream's end.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "A2A event"


class BedrockError(AgentCodecError, ValueError):
    """A Bedrock stream that cannot be assembled, or a misuse of the assembler."""


class BedrockEventError(_EventError, BedrockError):
    """One event of a Bedrock stream cannot be applied: it is not a JSON
    object, or its parts are of another type than the model's.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Bedrock event"


class GeminiError(AgentCodecError, ValueError):
    """A Gemini stream that cannot be assembled, or a misuse of the assembler."""


class GeminiEventError(_EventError, GeminiError):
    """One record of a Gemini stream cannot be applied: it is not a JSON
    object, its candidates, content or parts are of another type, or a
    streamed argument's ``jsonPath`` cannot be followed.

    Attributes:
        event: the record's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Gemini record"


class OllamaError(AgentCodecError, ValueError):
    """An Ollama stream that cannot be assembled, or a misuse of the assembler."""


class OllamaEventError(_EventError, OllamaError):
    """One line of an Ollama stream cannot be applied: it is not a JSON
    object, its text or lists are of another type, or it comes after the
    done line.

    Attributes:
        event: the line's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Ollama line"


class LangGraphError(AgentCodecError, ValueError):
    """A LangGraph Agent Server stream that cannot be assembled, or a misuse of the assembler."""


class LangGraphEventError(_EventError, LangGraphError):
    """One event of a LangGraph Agent Server stream cannot be applied: it is
    not a JSON object, is of no stream mode, holds data of another shape
    than its mode's, or a message chunk whose values cannot be added to
    those before it (as langchain-core refuses them).

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "LangGraph event"


class AISDKError(AgentCodecError, ValueError):
    """A Vercel AI SDK UI message stream that cannot be assembled, or a misuse of the assembler."""


class AISDKEventError(_EventError, AISDKError):
    """One chunk of a Vercel AI SDK UI message stream cannot be applied: it
    is not a JSON object, lacks a field its type requires, is a delta or end
    for a part that is not streaming, names a tool call or approval that
    never started, or follows ``[DONE]``.

    Attributes:
        event: the chunk's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "AI SDK UI message chunk"


class ResumeGapError(LangChainError):
    """Events a client asked to replay are no longer buffered.

    Attributes:
        since: the sequence number the client has seen.
        min_available_seq: the oldest sequence number still buffered.
        missed: how many events the client cannot get back.
    """

    since: int
    min_available_seq: int

    def __init__(self, since: int, min_available_seq: int) -> None:
        self.since = since
        self.min_available_seq = min_available_seq
        super().__init__(
            f"cannot replay after seq {since}: the oldest buffered event is seq {min_available_seq} "
            f"({self.missed} events missed)"
        )

    @property
    def missed(self) -> int:
        return self.min_available_seq - self.since - 1

    def to_response(self, command_id: int | None = None) -> dict[str, Any]:
        """The ``resume_gap`` error response servers send for it."""
        return {
            "type": "error",
            "id": command_id,
            "error": "resume_gap",
            "message": str(self),
            "since": self.since,
            "min_available_seq": self.min_available_seq,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.since, self.min_available_seq))
