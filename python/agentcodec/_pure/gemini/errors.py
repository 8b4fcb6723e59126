"""The exceptions of the Gemini stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["GeminiError", "GeminiEventError"]


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
