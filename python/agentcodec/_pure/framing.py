"""How a stream is framed: SSE, or the framing a protocol may send instead
(NDJSON lines, a streamed JSON array, the AWS event stream), told by the
stream's first byte that is not white space (nor a BOM): ``{`` or ``[`` opens
JSON, a zero byte an event stream message (the top byte of its length),
where SSE lines open with a field name or ``:``. The mirror of
``rust/framing.rs``."""

from __future__ import annotations

from typing import Literal

from .._errors import EventStreamError
from .._eventstream_message import EventStreamMessage
from .._json import dumps
from .eventstream import EventStreamDecoder
from .json_array import ArrayDecoder
from .ndjson import LineDecoder
from .sse_decoder import TextDecoder

__all__ = ["Framing", "Kind", "event_text"]

#: The framing a protocol's streams may have besides SSE: a JSON text a line
#: (NDJSON), one JSON array streamed element by element, or the AWS event
#: stream.
Kind = Literal["lines", "array", "eventstream", "named"]

_BOM = b"\xef\xbb\xbf"
_WHITE_SPACE = b" \t\r\n"
# White space held before a stream says its framing: past this, it is SSE.
_MOST_HELD = 4096


def event_text(message: EventStreamMessage) -> str:
    """An event stream message as the JSON its event is in the service's
    model, ``{"<event type>": <payload>}`` (an exception's type, or ``error``
    for an error message, in its place)."""
    headers = message.headers
    payload = message.payload.decode("utf-8", "replace")
    if not payload.strip():
        payload = "{}"

    def header(name: str, default: str) -> str:
        value = headers.get(name)
        return value if isinstance(value, str) else default

    kind = header(":message-type", "event")
    if kind == "exception":
        return "{" + dumps(header(":exception-type", "exception")) + ":" + payload + "}"
    if kind == "error":
        error = {"code": header(":error-code", ""), "message": header(":error-message", "")}
        return dumps({"error": error})
    return "{" + dumps(header(":event-type", "")) + ":" + payload + "}"


class EventStreamTexts:
    """The AWS event stream's messages, as the texts of their events."""

    __slots__ = ("_decoder",)

    last_event_id = ""
    retry = None

    def __init__(self, *, max_event_bytes: int | None) -> None:
        self._decoder = EventStreamDecoder(max_message_bytes=max_event_bytes)

    def feed_texts(self, data: bytes | bytearray | memoryview) -> list[str]:
        try:
            return [event_text(message) for message in self._decoder.feed(data)]
        except EventStreamError as exc:
            raise EventStreamError(exc.offset, exc.reason, [event_text(m) for m in exc.messages]) from None

    def close_texts(self) -> list[str]:
        return [event_text(message) for message in self._decoder.close()]


class Framing:
    """SSE or the framing of ``kind``, as the stream's first byte says. Reads as the SSE
    ``TextDecoder`` does."""

    __slots__ = ("_decoder", "_held", "_kind", "_max_event_bytes", "_max_line_bytes")

    def __init__(self, kind: Kind, *, max_line_bytes: int | None, max_event_bytes: int | None) -> None:
        self._kind = kind
        self._max_line_bytes = max_line_bytes
        self._max_event_bytes = max_event_bytes
        self._decoder: TextDecoder | LineDecoder | ArrayDecoder | EventStreamTexts | None = None
        self._held = b""

    @property
    def last_event_id(self) -> str:
        return self._decoder.last_event_id if self._decoder is not None else ""

    @property
    def retry(self) -> int | None:
        return self._decoder.retry if self._decoder is not None else None

    def feed_texts(self, data: bytes | bytearray | memoryview) -> list[str]:
        if self._decoder is not None:
            return self._decoder.feed_texts(data)
        held = self._held + bytes(data)
        opening = held[3:] if held.startswith(_BOM) else held
        first = b"" if len(held) < 3 and _BOM.startswith(held) else opening.lstrip(_WHITE_SPACE)[:1]
        if not first and len(held) < _MOST_HELD:
            self._held = held  # white space, or a BOM split across chunks
            return []
        self._held = b""
        if first in (b"{", b"[") and self._kind == "lines":
            self._decoder = LineDecoder(max_line_bytes=self._max_line_bytes)
        elif first in (b"{", b"[") and self._kind == "array":
            self._decoder = ArrayDecoder(max_event_bytes=self._max_event_bytes)
        elif first == b"\x00" and self._kind == "eventstream":
            self._decoder = EventStreamTexts(max_event_bytes=self._max_event_bytes)
        else:
            self._decoder = TextDecoder(
                max_line_bytes=self._max_line_bytes, max_event_bytes=self._max_event_bytes
            )
        return self._decoder.feed_texts(held)

    def close_texts(self) -> list[str]:
        if self._decoder is None:
            self._held = b""
            return []
        return self._decoder.close_texts()
