"""The exceptions of the AgentScope Agent API, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["AgentScopeError", "AgentScopeEventError"]


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
