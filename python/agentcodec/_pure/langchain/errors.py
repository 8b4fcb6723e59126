"""The exceptions of the LangChain Agent Streaming Protocol, raised by both backends (the native
one imports them from here) and exported by ``agentcodec`` and by the
protocol's package."""

from __future__ import annotations

from typing import Any

from ..._errors import AgentCodecError, _EventError

__all__ = ["LangChainError", "LangChainEventError", "ResumeGapError"]


class LangChainError(AgentCodecError, ValueError):
    """A LangChain protocol stream that cannot be assembled, or a misuse of the assembler."""


class LangChainEventError(_EventError, LangChainError):
    """One message of a LangChain protocol stream is not a JSON object.

    Attributes:
        event: the message's number, counting from 1, in the order the assembler saw them.
        problem: what is wrong with it.
    """

    subject = "LangChain protocol message"


class ResumeGapError(LangChainError):
    """Events a client asked to replay are no longer buffered.

    Attributes:
        since: the sequence number the client has seen.
        min_available_seq: the oldest sequence number still buffered.
        missed: how many events the client cannot get back.
    """

    since: int
    min_available_seq: int

    def __init__(self, since: int, min_available_seq: int) -> None:
        self.since = since
        self.min_available_seq = min_available_seq
        super().__init__(
            f"cannot replay after seq {since}: the oldest buffered event is seq {min_available_seq} "
            f"({self.missed} events missed)"
        )

    @property
    def missed(self) -> int:
        return self.min_available_seq - self.since - 1

    def to_response(self, command_id: int | None = None) -> dict[str, Any]:
        """The ``resume_gap`` error response servers send for it."""
        return {
            "type": "error",
            "id": command_id,
            "error": "resume_gap",
            "message": str(self),
            "since": self.since,
            "min_available_seq": self.min_available_seq,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.since, self.min_available_seq))
