"""Newline-delimited JSON (NDJSON, JSON Lines): one JSON text a line, as
model servers stream answers. The mirror of ``rust/ndjson.rs``; ``framing``
tells it from SSE by a stream's first byte.

Lines end at LF alone, a CR before it dropped: a JSON text holds no raw LF,
but may hold other characters some readers take for line breaks (U+2028,
U+0085), which must not split it. Lines of white space are skipped; the last
line needs no LF. UTF-8 is decoded lossily, as SSE is."""

from __future__ import annotations

from typing import Any

from .._errors import SSELimitError
from ._args import as_bytes, limit_arg
from .sse_decoder import DEFAULT_MAX_LINE_BYTES

__all__ = ["LineDecoder", "NDJSONDecoder"]

_BOM = b"\xef\xbb\xbf"
# The white space JSON allows around a text.
_WHITE_SPACE = b" \t\r\n"
_SUBJECT = "NDJSON line"


class LineDecoder:
    """Incremental NDJSON decoder: ``feed_texts`` gives each line's text."""

    __slots__ = ("_failed", "_line", "_line_start", "_max_line_bytes", "_offset")

    def __init__(self, *, max_line_bytes: int | None) -> None:
        self._max_line_bytes = max_line_bytes
        self._offset = 0
        self._line = bytearray()
        self._line_start = 0
        self._failed: SSELimitError | None = None

    last_event_id = ""
    retry = None

    def feed_texts(self, data: bytes | bytearray | memoryview) -> list[str]:
        """The lines the chunk completes. On a limit error, its ``events``
        are the lines before the long one, and no more input is taken."""
        if self._failed is not None:
            raise self._error(self._failed)
        lines: list[str] = []
        data = bytes(data)
        base = self._offset
        pos = 0
        while True:
            found = data.find(b"\n", pos)
            if found < 0:
                break
            if not self._line:
                start = base + pos
                self._check(found - pos, start, lines)
                _emit(data[pos:found], start, lines)
            else:
                self._check(len(self._line) + found - pos, self._line_start, lines)
                self._line += data[pos:found]
                _emit(bytes(self._line), self._line_start, lines)
                self._line.clear()
            pos = found + 1
        if pos < len(data):
            if not self._line:
                self._line_start = base + pos
            self._check(len(self._line) + len(data) - pos, self._line_start, lines)
            self._line += data[pos:]
        self._offset = base + len(data)
        return lines

    def close_texts(self) -> list[str]:
        """Ends the stream: a last line without its LF is a line too."""
        if self._failed is not None:
            raise self._error(self._failed)
        lines: list[str] = []
        _emit(bytes(self._line), self._line_start, lines)
        self._line.clear()
        self._offset = self._line_start = 0
        return lines

    def _check(self, length: int, start: int, lines: list[str]) -> None:
        maximum = self._max_line_bytes
        if maximum is not None and length > maximum:
            self._failed = SSELimitError("max_line_bytes", maximum, start, subject=_SUBJECT)
            raise self._error(self._failed, lines)

    @staticmethod
    def _error(failed: SSELimitError, lines: list[str] | None = None) -> SSELimitError:
        return SSELimitError(failed.limit, failed.max_bytes, failed.offset, lines or [], failed.subject)


def _emit(line: bytes, start: int, lines: list[str]) -> None:
    """Keeps a line (less its CR, and a BOM opening the stream) unless it is
    white space."""
    if start == 0 and line.startswith(_BOM):
        line = line[3:]
    if line.endswith(b"\r"):
        line = line[:-1]
    if line.strip(_WHITE_SPACE):
        lines.append(line.decode("utf-8", "replace"))


class NDJSONDecoder:
    """Splits newline-delimited JSON (NDJSON, JSON Lines) into its lines, in
    any chunking: at LF alone (never at U+0085 or U+2028, which a JSON text
    may hold), a CR before it and a BOM opening the stream dropped, lines of
    white space skipped, the last line needing no LF."""

    __slots__ = ("_decoder", "_max_line_bytes")

    def __init__(self, *, max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES) -> None:
        self._max_line_bytes = limit_arg("max_line_bytes", max_line_bytes)
        self._decoder = LineDecoder(max_line_bytes=self._max_line_bytes)

    def feed(self, data: Any) -> list[str]:
        """Decodes one chunk and returns the lines it completed, as text."""
        return self._decoder.feed_texts(as_bytes(data, "NDJSONDecoder.feed()"))

    def close(self) -> list[str]:
        """Ends the stream: a last line without its LF is a line too."""
        return self._decoder.close_texts()

    @property
    def max_line_bytes(self) -> int | None:
        return self._max_line_bytes
