"""Writing one LangChain protocol message as the Agent Server writes it over SSE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._backend import impl
from .._pure.protocol import sse_field

__all__ = ["encode"]


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol message as one SSE event: ``id:`` its ``seq`` (the event
    id a client resumes from), ``event:`` its ``method``, then the message
    as one ``data:`` line of compact JSON."""
    if not isinstance(message, Mapping):
        raise TypeError(f"a LangChain protocol message is a mapping, not {type(message).__name__}")
    seq = message.get("seq")
    encoded: bytes = impl.encode_sse(
        message, event=sse_field(message.get("method")), id=str(seq) if type(seq) is int else None
    )
    return encoded
