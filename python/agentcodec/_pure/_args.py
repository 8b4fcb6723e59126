"""Argument checks shared by the pure-Python modules, worded as the native
extension words them."""

from __future__ import annotations

import struct
from typing import Any

__all__ = ["as_bytes", "limit_arg", "retry_arg"]

_U64_MAX = 2**64 - 1


# The largest size an address can reach (usize::MAX in the Rust core).
_NO_LIMIT = 2 ** (8 * struct.calcsize("P")) - 1


def as_bytes(data: Any, what: str) -> bytes:
    """The contents of a bytes-like object, as ``bytes``."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        raise TypeError(f"{what} takes bytes-like data, not str: encode it as UTF-8 first")
    try:
        view = memoryview(data)
    except TypeError:
        view = None
    # Bytes, not any buffer: an array of ints is not a byte stream.
    if view is None or view.format not in ("B", "c"):
        raise TypeError(
            f"{what} takes bytes-like data (bytes, bytearray, memoryview), not {type(data).__name__}"
        )
    return view.tobytes()


def limit_arg(name: str, value: Any) -> int | None:
    """A size limit: a non-negative int, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    limit: int = min(value, _NO_LIMIT)  # more than memory can hold is the same as no limit
    return limit


def retry_arg(retry: Any) -> int | None:
    """An SSE reconnection time: a non-negative int of at most 64 bits."""
    if retry is None:
        return None
    if isinstance(retry, bool) or not isinstance(retry, int):
        raise TypeError("SSE retry must be an int (milliseconds)")
    if retry < 0:
        raise ValueError("SSE retry must not be negative")
    if retry > _U64_MAX:
        raise ValueError("SSE retry does not fit in 64 bits")
    return retry
