"""The exceptions of the Bedrock ConverseStream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["BedrockError", "BedrockEventError"]


class BedrockError(AgentCodecError, ValueError):
    """A Bedrock stream that cannot be assembled, or a misuse of the assembler."""


class BedrockEventError(_EventError, BedrockError):
    """One event of a Bedrock stream cannot be applied: it is not a JSON
    object, or its parts are of another type than the model's.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Bedrock event"
