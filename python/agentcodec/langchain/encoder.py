"""Writing one LangChain protocol message as the Agent Server writes it over SSE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._backend import impl

__all__ = ["encode"]


def _field(value: Any) -> str | None:
    """A value fit for an SSE field line: a str without CR, LF or NUL."""
    if isinstance(value, str) and not any(char in value for char in "\r\n\0"):
        return value
    return None


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol message as one SSE event: ``id:`` its ``seq`` (the event
    id a client resumes from), ``event:`` its ``method``, then the message
    as one ``data:`` line of compact JSON."""
    seq = message.get("seq")
    encoded: bytes = impl.encode_sse(
        message, event=_field(message.get("method")), id=str(seq) if type(seq) is int else None
    )
    return encoded
