"""The exceptions of the OpenAI Chat Completions stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["OpenAIChatError", "OpenAIChatEventError"]


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
