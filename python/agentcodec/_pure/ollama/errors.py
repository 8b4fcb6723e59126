"""The exceptions of the Ollama stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["OllamaError", "OllamaEventError"]


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
