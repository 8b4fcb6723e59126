"""Writing one AgentScope event as agentscope-runtime's ``/process`` writes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._backend import impl

__all__ = ["encode"]


def encode(event: Mapping[str, Any]) -> bytes:
    """One event (a response, message or content object) as the runtime
    writes it: a bare ``data:`` line of compact JSON, no event name."""
    encoded: bytes = impl.encode_sse(event)
    return encoded
