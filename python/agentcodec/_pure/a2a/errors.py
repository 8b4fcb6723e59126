"""The exceptions of the A2A (Agent2Agent) stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["A2AError", "A2AEventError"]


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
