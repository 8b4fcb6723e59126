"""Exceptions shared by both backends and by every protocol (each
protocol's own are in its ``_pure/<name>/errors.py``).

The native extension imports these classes and raises them with the same
arguments as the pure-Python backend, so the two raise identical errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "ConversionLossError",
    "AgentCodecError",
    "EventStreamError",
    "PartialJSONError",
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


def __getattr__(name: str) -> type[AgentCodecError]:
    # Each protocol's exceptions were defined here before they moved into
    # its package: a pickle of one (which names this module) still loads.
    import importlib  # noqa: PLC0415  (only for such a pickle)

    from ._pure.events import PROTOCOL_NAMES  # noqa: PLC0415

    for protocol in PROTOCOL_NAMES:
        errors = importlib.import_module(f"agentcodec._pure.{protocol.replace('-', '_')}.errors")
        if isinstance(found := getattr(errors, name, None), type) and issubclass(found, AgentCodecError):
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
