"""The exceptions of the LangGraph Agent Server stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["LangGraphError", "LangGraphEventError"]


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
