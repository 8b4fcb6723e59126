"""The exceptions of the Vercel AI SDK UI message stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["AISDKError", "AISDKEventError"]


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
