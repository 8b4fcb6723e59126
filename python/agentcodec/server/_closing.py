"""Closing an async iterator early, so that what it holds (a connection, a
producer's cleanup) is released now rather than by the garbage collector."""

from __future__ import annotations

from typing import Any

__all__ = ["closed"]


async def closed(stream: Any) -> None:
    """Closes an async iterator that can be closed (a generator), else nothing."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
