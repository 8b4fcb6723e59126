"""Argument checks shared by the pure-Python modules, worded as the native
extension words them."""

from __future__ import annotations

from typing import Any

__all__ = ["as_bytes", "limit_arg", "retry_arg"]

_U64_MAX = 2**64 - 1


def as_bytes(data: Any, what: str) -> bytes:
    """The contents of a bytes-like object, as ``bytes``."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        raise TypeError(f"{what} takes bytes-like data, not str: encode it as UTF-8 first")
    try:
        return memoryview(data).tobytes()
    except TypeError:
        raise TypeError(
            f"{what} takes bytes-like data (bytes, bytearray, memoryview), not {type(data).__name__}"
        ) from None


def limit_arg(name: str, value: Any) -> int | None:
    """A size limit: a non-negative int, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None")
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


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
