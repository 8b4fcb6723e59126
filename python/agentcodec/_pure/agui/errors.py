"""The exceptions of the AG-UI, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["AGUIError", "AGUIEventError"]


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
