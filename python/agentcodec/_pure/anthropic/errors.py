"""The exceptions of the Anthropic Messages stream, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from ..._errors import AgentCodecError, _EventError

__all__ = ["AnthropicError", "AnthropicEventError"]


class AnthropicError(AgentCodecError, ValueError):
    """An Anthropic Messages stream that cannot be assembled, or a misuse of the assembler."""


class AnthropicEventError(_EventError, AnthropicError):
    """One event of an Anthropic Messages stream cannot be applied: it is not
    a JSON object, comes before ``message_start`` or after ``message_stop``,
    addresses a content block that never started or has stopped, gives a
    delta the block cannot take, or ends a tool block whose input is not
    valid JSON.

    Attributes:
        event: the event's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "Anthropic Messages event"
