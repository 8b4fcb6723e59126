"""Encoding events as ``text/event-stream`` bytes: the pure-Python mirror of
``rust/sse/encoder.rs``."""

from __future__ import annotations

import json
import re
from typing import Any

from .. import _json
from ._args import retry_arg

__all__ = ["encode_sse", "encode_sse_comment", "frame_json_string"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> list[str]:
    return _LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def _data_text(data: Any) -> str:
    if isinstance(data, str):
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            return bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"SSE data is not valid UTF-8 (at byte {exc.start})") from None
    return _json.dumps(data)


def _check_str(name: str, value: Any, expected: str = "str or None") -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be {expected}, not {type(value).__name__}")


def encode_sse(
    data: Any,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """Encodes one event as ``text/event-stream`` bytes.

    Every CR, LF or CRLF in the data starts a new ``data:`` line, so a decoder
    gives the data back with its line breaks as LF.
    """
    text = _data_text(data)
    retry = retry_arg(retry)
    head = ""
    if id is not None:
        _check_str("id", id)
        if "\r" in id or "\n" in id:
            raise ValueError("SSE id must not contain CR or LF")
        if "\0" in id:
            raise ValueError("SSE id must not contain NUL (decoders ignore such an id)")
        head = f"id: {id}\n"
    if event is not None:
        _check_str("event", event)
        if "\r" in event or "\n" in event:
            raise ValueError("SSE event name must not contain CR or LF")
        head += f"event: {event}\n"
    if retry is not None:
        head += f"retry: {retry}\n"
    try:
        return (head + "data: " + "\ndata: ".join(_lines(text)) + "\n\n").encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate: reported at its position in the data, as the
        # native backend reports it (when the data holds it).
        text.encode("utf-8")
        raise


def encode_sse_comment(text: str = "") -> bytes:
    """Encodes a comment, which decoders ignore: a keep-alive. Each line of
    ``text`` becomes its own comment line."""
    _check_str("text", text, "str")
    return "".join(f": {line}\n" if line else ":\n" for line in _lines(text)).encode("utf-8")


_json_string = json.encoder.encode_basestring


def frame_json_string(prefix: str, text: str, suffix: str) -> bytes:
    """``prefix``, ``text`` as a JSON string (as ``json.dumps(text,
    ensure_ascii=False)`` writes it) and ``suffix``, as UTF-8: the bytes of a
    streamed token whose event is the same but for its text."""
    return (prefix + _json_string(text) + suffix).encode()
