"""The exceptions of the OpenAI Responses stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["OpenAIResponsesError", "OpenAIResponsesEventError"]


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
