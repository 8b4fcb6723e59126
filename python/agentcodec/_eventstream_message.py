"""The message both backends' ``EventStreamDecoder`` gives: one class, so
that a message compares equal whichever backend read it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EventStreamMessage", "HeaderValue"]

#: A header's value, as botocore reads it: ``bool``; ``int`` for a byte,
#: short, integer, long or timestamp (milliseconds) header; ``bytes`` for a
#: byte array or a UUID (16 bytes); ``str``.
HeaderValue = bool | int | bytes | str


@dataclass(frozen=True, slots=True)
class EventStreamMessage:
    """One message of an AWS event stream: its headers, and its payload."""

    headers: dict[str, HeaderValue]
    payload: bytes
