"""Incremental ``text/event-stream`` decoder: the pure-Python mirror of
``rust/sse/decoder.rs``.

Both follow the WHATWG "parsing an event stream" algorithm and must agree on
every input. The decoder works on bytes: lines are split by C-level
``bytes.split`` / ``re.split`` once per chunk, a line spanning chunks grows in
a ``bytearray`` (amortised O(1) per byte), and UTF-8 is decoded per field,
lossily. Nothing is rescanned, so time is linear however the input is chunked.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._errors import SSELimitError
from ._args import as_bytes, limit_arg, retry_arg
from .json_values import scan_document

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "SSEDecoder",
    "SSEEvent",
]

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_KNOWN_FIELDS = (b"data", b"event", b"id", b"retry")
# Longest known field name plus its colon: a line's fate is decided by then.
_CLASSIFY_PREFIX = 6
_U64_MAX = 2**64 - 1

# What becomes of a line, judged from its first bytes.
_IGNORED, _KEPT, _UNDECIDED = 0, 1, 2


def _classify(head: bytes) -> int:
    if not head:
        return _UNDECIDED
    if head[0] == 0x3A:  # ":" starts a comment
        return _IGNORED
    head = head[:_CLASSIFY_PREFIX]
    colon = head.find(b":")
    if colon >= 0:
        return _KEPT if head[:colon] in _KNOWN_FIELDS else _IGNORED
    if len(head) == _CLASSIFY_PREFIX:
        return _IGNORED
    if any(name.startswith(head) for name in _KNOWN_FIELDS):
        return _UNDECIDED
    return _IGNORED


class SSEEvent:
    """One Server-Sent Event.

    ``event`` is the type ("message" when the block had no ``event`` field),
    ``data`` the ``data`` values joined by LF, ``id`` the last event ID in
    effect when the event was dispatched, and ``retry`` the reconnection time
    (ms) set in this event's block, if any.
    """

    __slots__ = ("data", "event", "id", "retry")

    event: str
    data: str
    id: str
    retry: int | None

    def __init__(
        self,
        event: str | None = None,
        data: str | None = None,
        id: str | None = None,
        retry: int | None = None,
    ) -> None:
        for name, value in (("event", event), ("data", data), ("id", id)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"SSEEvent {name} must be str, not {type(value).__name__}")
        retry = retry_arg(retry)
        _set(self, "event", "message" if event is None else event)
        _set(self, "data", "" if data is None else data)
        _set(self, "id", "" if id is None else id)
        _set(self, "retry", retry)

    def json(self) -> Any:
        """The data parsed as JSON, exactly as the standard library's
        ``json.loads`` parses it."""
        return _json_loads(self.data)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"SSEEvent is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"SSEEvent is immutable: cannot delete {name!r}")

    def _key(self) -> tuple[str, str, str, int | None]:
        return (self.event, self.data, self.id, self.retry)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SSEEvent):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"SSEEvent(event={self.event!r}, data={self.data!r}, id={self.id!r}, retry={self.retry!r})"


_stdlib_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _json_loads(text: str) -> Any:
    """``json.loads(text)`` for a str: its BOM check, then the decoder."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return scan_document(_stdlib_scan, text)


_new = object.__new__
_set = object.__setattr__


def _make_event(event: str, data: str, id: str, retry: int | None) -> SSEEvent:
    # Skips __init__'s checks: the decoder's values are always valid.
    ev = _new(SSEEvent)
    _set(ev, "event", event)
    _set(ev, "data", data)
    _set(ev, "id", id)
    _set(ev, "retry", retry)
    return ev


class _LimitExceededError(Exception):
    """A limit was exceeded by the line being processed (internal)."""

    def __init__(self, limit: str, max_bytes: int) -> None:
        self.limit = limit
        self.max_bytes = max_bytes


class SSEDecoder:
    """Incremental ``text/event-stream`` decoder (the WHATWG algorithm).

    ``feed()`` takes bytes-like chunks of any size and returns the events they
    complete; ``close()`` ends the stream, discarding an unterminated event, and
    leaves the decoder ready for a new stream (a reconnection) with the last
    event ID and retry carried over.
    """

    __slots__ = (
        "_block_retry",
        "_bom_held",
        "_data",
        "_data_len",
        "_data_only",
        "_event_type",
        "_failed",
        "_id_buffer",
        "_last_event_id",
        "_max_event",
        "_max_line",
        "_offset",
        "_pending",
        "_pending_head",
        "_pending_ignored",
        "_pending_start",
        "_retry",
        "_skip_lf",
    )

    def __init__(
        self,
        last_event_id: str = "",
        *,
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
    ) -> None:
        if not isinstance(last_event_id, str):
            raise TypeError(f"last_event_id must be str, not {type(last_event_id).__name__}")
        if not last_event_id.isascii():
            last_event_id.encode("utf-8")  # a lone surrogate is no text to send back
        self._max_line = limit_arg("max_line_bytes", max_line_bytes)
        self._max_event = limit_arg("max_event_bytes", max_event_bytes)
        self._last_event_id = last_event_id
        self._retry: int | None = None
        self._failed: SSELimitError | None = None
        # True in TextDecoder: events come out as their data alone.
        self._data_only = False
        self._reset_stream()

    def _reset_stream(self) -> None:
        self._offset = 0
        # Bytes at the stream start that may still be a BOM; None once past it.
        self._bom_held: bytes | None = b""
        self._skip_lf = False
        # The line whose end has not arrived yet (None: no such line). An
        # ignored line (comment, unknown field) is skipped, not buffered.
        self._pending: bytearray | None = None
        self._pending_head = b""
        self._pending_ignored = False
        self._pending_start = 0
        self._data: list[bytes | bytearray] = []
        self._data_len = 0
        self._event_type = b""
        self._id_buffer = self._last_event_id
        self._block_retry: int | None = None

    @property
    def last_event_id(self) -> str:
        """The last event ID: what a client sends as ``Last-Event-ID`` to resume."""
        return self._last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds set by the stream, or None."""
        return self._retry

    @property
    def max_line_bytes(self) -> int | None:
        return self._max_line

    @property
    def max_event_bytes(self) -> int | None:
        return self._max_event

    def feed(self, data: bytes | bytearray | memoryview) -> list[SSEEvent]:
        """Decodes one chunk and returns the events it completed."""
        chunk = as_bytes(data, "SSEDecoder.feed()")
        self._check_not_failed()
        events: list[Any] = []
        try:
            if self._bom_held is not None:
                chunk = self._strip_bom(chunk, events)
            self._scan(chunk, events)
        except SSELimitError as exc:
            raise self._fail(exc, events) from None
        return events

    def close(self) -> list[SSEEvent]:
        """Ends the stream: an unterminated event is discarded."""
        self._check_not_failed()
        events: list[Any] = []
        held = self._bom_held
        if held:
            # A stream shorter than a BOM: the bytes held back were content.
            self._bom_held = None
            try:
                self._scan(held, events)
            except SSELimitError as exc:
                raise self._fail(exc, events) from None
        self._reset_stream()
        return events

    def _check_not_failed(self) -> None:
        failed = self._failed
        if failed is not None:
            raise SSELimitError(failed.limit, failed.max_bytes, failed.offset)

    def _fail(self, exc: SSELimitError, events: list[Any]) -> SSELimitError:
        self._failed = exc
        exc.events = events
        return exc

    def _strip_bom(self, chunk: bytes, events: list[Any]) -> bytes:
        # Only the first three bytes of a stream can be a BOM; they may arrive
        # split across chunks, so a partial match is held back.
        held = self._bom_held or b""
        take = min(len(_BOM) - len(held), len(chunk))
        candidate = held + chunk[:take]
        if _BOM.startswith(candidate):
            if len(candidate) < len(_BOM):
                self._bom_held = candidate
                return b""
            self._bom_held = None
            self._offset += len(_BOM)
            return chunk[take:]
        # Not a BOM: what was held back is content after all.
        self._bom_held = None
        self._scan(held, events)
        return chunk

    def _scan(self, chunk: bytes, events: list[Any]) -> None:
        base = self._offset
        if self._skip_lf and chunk:
            self._skip_lf = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
                base += 1
        self._offset = base + len(chunk)
        if b"\r" in chunk:
            lines = _LINE_END.split(chunk) if b"\n" in chunk else chunk.split(b"\r")
            # The LF that may pair with a final CR is in the next chunk.
            self._skip_lf = chunk.endswith(b"\r")
        else:
            lines = chunk.split(b"\n")
        last = len(lines) - 1
        index = 0
        # Where the line being worked on started, when that is not simply
        # line `index` of this chunk (a line begun in an earlier chunk).
        pending_start: int | None = None
        try:
            if self._pending is not None:
                pending_start = self._pending_start
                if last == 0:
                    self._extend_pending(chunk, base)
                    return
                pending = self._pending
                self._pending = None
                if not self._pending_ignored:
                    pending += lines[0]
                    self._line(pending, events)
                pending_start = None
                index = 1
            # The hot loop: blank lines, data lines within the limits and
            # comments inline; other fields, and data over a limit (which
            # raises), in a method.
            line_fn = self._line
            dispatch = self._dispatch
            data = self._data
            max_line = self._max_line
            max_event = self._max_event
            first = index
            make_events = not self._data_only
            for index in range(first, last):
                line = lines[index]
                if not line:
                    if len(data) == 1 and make_events and not self._event_type and self._block_retry is None:
                        # The usual event, one data line and nothing else:
                        # what _dispatch does for it, without the call.
                        self._last_event_id = event_id = self._id_buffer
                        event = _new(SSEEvent)
                        _set(event, "event", "message")
                        _set(event, "data", data[0].decode("utf-8", "replace"))
                        _set(event, "id", event_id)
                        _set(event, "retry", None)
                        events.append(event)
                        data.clear()
                        self._data_len = 0
                    else:
                        dispatch(events)
                elif line[:5] == b"data:":
                    value = line[6:] if line[5:6] == b" " else line[5:]
                    if (max_line is not None and len(line) > max_line) or (
                        max_event is not None and self._data_len + len(value) > max_event
                    ):
                        line_fn(line, events)
                    data.append(value)
                    self._data_len += len(value) + 1
                elif line[0] != 0x3A:  # not a comment
                    line_fn(line, events)
            tail = lines[last]
            if tail:
                pending_start = base + len(chunk) - len(tail)
                self._extend_pending(tail, pending_start)
        except _LimitExceededError as overflow:
            if pending_start is None:
                pending_start = base + _line_start(chunk, index)
            raise SSELimitError(overflow.limit, overflow.max_bytes, pending_start) from None

    def _extend_pending(self, piece: bytes, start: int) -> None:
        """Buffers the start, or a further piece, of a line whose end has not
        arrived, unless the line is one the algorithm ignores."""
        if self._pending is None:
            self._pending = bytearray()
            self._pending_head = b""
            self._pending_ignored = False
            self._pending_start = start
        if self._pending_ignored:
            return
        self._pending += piece
        head = self._pending_head
        if len(head) < _CLASSIFY_PREFIX:
            head = self._pending_head = head + piece[: _CLASSIFY_PREFIX - len(head)]
        verdict = _classify(head)
        if verdict == _IGNORED:
            self._pending_ignored = True
            self._pending = bytearray()
        elif verdict == _KEPT and self._max_line is not None and len(self._pending) > self._max_line:
            raise _LimitExceededError("max_line_bytes", self._max_line)

    def _line(self, line: bytes | bytearray, events: list[Any]) -> None:
        """Processes one complete, non-empty line."""
        if not line:
            self._dispatch(events)
            return
        colon = line.find(b":")
        if colon < 0:
            name: bytes | bytearray = line
            value: bytes | bytearray = b""
        elif colon == 0:
            return  # a comment
        else:
            name = line[:colon]
            start = colon + 2 if line[colon + 1 : colon + 2] == b" " else colon + 1
            value = line[start:]
        if name not in _KNOWN_FIELDS:
            return
        max_line = self._max_line
        if max_line is not None and len(line) > max_line:
            raise _LimitExceededError("max_line_bytes", max_line)
        if name == b"data":
            max_event = self._max_event
            if max_event is not None and self._data_len + len(value) > max_event:
                raise _LimitExceededError("max_event_bytes", max_event)
            self._data.append(value)
            self._data_len += len(value) + 1
        elif name == b"event":
            self._event_type = bytes(value)
        elif name == b"id":
            # An id containing NUL is ignored as a whole.
            if b"\0" not in value:
                self._id_buffer = value.decode("utf-8", "replace")
        elif value.isdigit():  # retry: ASCII digits only, at least one
            ms = int(value)
            if ms <= _U64_MAX:
                self._retry = self._block_retry = ms

    def _dispatch(self, events: list[Any]) -> None:
        self._last_event_id = self._id_buffer
        if not self._data:
            # A block without data dispatches nothing; its type and retry do
            # not leak into the next block.
            self._event_type = b""
            self._block_retry = None
            return
        parts = self._data
        data = (parts[0] if len(parts) == 1 else b"\n".join(parts)).decode("utf-8", "replace")
        if self._data_only:
            events.append(data)
        else:
            event_type = self._event_type.decode("utf-8", "replace") if self._event_type else "message"
            events.append(_make_event(event_type, data, self._last_event_id, self._block_retry))
        # Cleared, not replaced: the hot loop holds the list.
        parts.clear()
        self._data_len = 0
        self._event_type = b""
        self._block_retry = None


def _line_start(chunk: bytes, index: int) -> int:
    """Where line ``index`` of ``chunk`` starts (only needed for an error)."""
    if index == 0:
        return 0
    for count, match in enumerate(_LINE_END.finditer(chunk), 1):
        if count == index:
            return match.end()
    return len(chunk)


class TextDecoder(SSEDecoder):
    """The assemblers' decoder: each event comes out as its data alone (a
    ``str``), sparing an ``SSEEvent`` that would be read once and dropped
    (a twentieth of the pure assembler's time)."""

    __slots__ = ()

    def __init__(self, *, max_line_bytes: int | None, max_event_bytes: int | None) -> None:
        super().__init__(max_line_bytes=max_line_bytes, max_event_bytes=max_event_bytes)
        self._data_only = True

    def feed_texts(self, data: bytes | bytearray | memoryview) -> list[str]:
        """``feed()``: the events' data. A limit error's ``events`` are data too."""
        return self.feed(data)  # type: ignore[return-value]

    def close_texts(self) -> list[str]:
        return self.close()  # type: ignore[return-value]


class NamedTextDecoder(TextDecoder):
    """The assemblers' decoder for a protocol whose SSE event names say what
    each event is (a stream mode, say): each event
    comes out as the text ``{"event": <name>, "data": <data>}``, its data
    put in as it is (a blank one, a keep-alive, stays blank, and ``[DONE]``
    itself)."""

    __slots__ = ()

    def _dispatch(self, events: list[Any]) -> None:
        name = self._event_type
        count = len(events)
        super()._dispatch(events)
        if len(events) > count:
            data = events[-1]
            trimmed = data.strip(" \t\n\r\x0b\x0c")
            if trimmed and trimmed != "[DONE]":
                events[-1] = named_text(name.decode("utf-8", "replace") or "message", data)


def named_text(name: str, data: str) -> str:
    """An SSE event as a named protocol's code reads it (``rust/framing.rs``'s ``named_text``)."""
    return '{"event":' + json.dumps(name, ensure_ascii=False) + ',"data":' + data + "}"
