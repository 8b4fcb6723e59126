"""A streamed JSON array (``[{...},\\r\\n{...}]``), as an HTTP API answers
that streams the elements of one JSON array as they come: each element is handed
out as its own text as soon as it is whole, in any chunking. The mirror of
``rust/json_array.rs``.

The decoder tracks only what it must to find an element's end: the nesting
depth and whether it is inside a string (and after a backslash there).
Between elements, white space and commas are skipped; the array's ``]`` ends
it. A JSON text outside any array (the object an HTTP error answers with) is
an element too, so that nothing the stream holds is dropped; so is anything
else that is not white space, which then fails as JSON where the protocol
reads it. UTF-8 is decoded lossily, as SSE is."""

from __future__ import annotations

import re
from typing import Any

from .._errors import SSELimitError
from ._args import as_bytes, limit_arg
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES

__all__ = ["ArrayDecoder", "JSONArrayDecoder"]

_BOM = b"\xef\xbb\xbf"
_WHITE_SPACE = b" \t\r\n"
_SUBJECT = "JSON array element"

# Where the decoder is (rust/json_array.rs's ``At``).
_OUTSIDE, _BETWEEN, _NESTED, _TEXT, _WORD = range(5)

# What ends each stretch the decoder skips at once: a string's quote or
# backslash; a nested element's structural bytes; a bare word's end.
_STRING_STOP = re.compile(rb'["\\]')
_NESTED_STOP = re.compile(rb'["{}\[\]]')
_WORD_STOP = re.compile(rb"[ \t\r\n,]")
_WORD_STOP_IN_ARRAY = re.compile(rb"[ \t\r\n,\]]")


class ArrayDecoder:
    """Incremental decoder of a streamed JSON array: ``feed_texts`` gives
    each element's text."""

    __slots__ = (
        "_at",
        "_depth",
        "_element",
        "_element_start",
        "_escaped",
        "_failed",
        "_in_array",
        "_max_element_bytes",
        "_offset",
        "_opening",
    )

    last_event_id = ""
    retry = None

    def __init__(self, *, max_event_bytes: int | None) -> None:
        self._max_element_bytes = max_event_bytes
        self._reset()
        self._failed: SSELimitError | None = None

    def _reset(self) -> None:
        self._at = _OUTSIDE
        self._depth = 0
        self._escaped = False
        self._in_array = False
        self._opening = True  # only a BOM's bytes came yet
        self._offset = 0
        self._element = bytearray()
        self._element_start = 0

    def feed_texts(self, data: bytes | bytearray | memoryview) -> list[str]:
        """The elements the chunk completes. On a limit error, its ``events``
        are the elements before the large one, and no more input is taken."""
        if self._failed is not None:
            raise self._error(self._failed)
        data = bytes(data)
        out: list[str] = []
        base = self._offset
        start = 0  # where the element being read starts in this chunk
        pos = 0
        size = len(data)
        while pos < size:
            at = self._at
            if at in (_OUTSIDE, _BETWEEN):
                byte = data[pos]
                pos += 1
                offset = base + pos - 1
                if offset < 3 and self._opening:
                    if byte == _BOM[offset]:
                        continue
                    self._opening = False
                if byte in b" \t\r\n" or (at == _BETWEEN and byte == 0x2C):
                    continue
                if at == _OUTSIDE and byte == 0x5B:  # [
                    self._in_array = True
                    self._at = _BETWEEN
                    continue
                if at == _BETWEEN and byte == 0x5D:  # ]
                    self._in_array = False
                    self._at = _OUTSIDE
                    continue
                start = pos - 1
                self._element_start = base + start
                if byte in b"{[":
                    self._at, self._depth = _NESTED, 1
                elif byte == 0x22:  # "
                    self._at, self._depth, self._escaped = _TEXT, 0, False
                else:
                    self._at = _WORD
            elif at == _TEXT:
                if self._escaped:
                    pos += 1
                    self._escaped = False
                    continue
                found = _STRING_STOP.search(data, pos)
                if found is None:
                    break
                pos = found.end()
                if data[pos - 1] == 0x5C:  # backslash
                    self._escaped = True
                elif self._depth == 0:
                    self._end_element(data, start, pos, out)
                else:
                    self._at = _NESTED
            elif at == _NESTED:
                found = _NESTED_STOP.search(data, pos)
                if found is None:
                    break
                pos = found.end()
                byte = data[pos - 1]
                if byte == 0x22:
                    self._at, self._escaped = _TEXT, False
                elif byte in b"{[":
                    self._depth += 1
                elif self._depth == 1:
                    self._end_element(data, start, pos, out)
                else:
                    self._depth -= 1
            else:  # a bare word
                stop = _WORD_STOP_IN_ARRAY if self._in_array else _WORD_STOP
                found = stop.search(data, pos)
                if found is None:
                    break
                # The byte that ends a word is read again between elements.
                pos = found.start()
                self._end_element(data, start, pos, out)
        if self._at not in (_OUTSIDE, _BETWEEN):
            self._check(len(self._element) + size - start, out)
            self._element += data[start:]
        self._offset = base + size
        return out

    def close_texts(self) -> list[str]:
        """Ends the stream: an element cut off by the end is handed out as it
        came (it then fails as JSON)."""
        if self._failed is not None:
            raise self._error(self._failed)
        element = bytes(self._element)
        self._reset()
        return [element.decode("utf-8", "replace")] if element else []

    def _end_element(self, data: bytes, start: int, end: int, out: list[str]) -> None:
        self._at = _BETWEEN if self._in_array else _OUTSIDE
        if not self._element:
            self._check(end - start, out)
            out.append(data[start:end].decode("utf-8", "replace"))
        else:
            self._check(len(self._element) + end - start, out)
            self._element += data[start:end]
            out.append(self._element.decode("utf-8", "replace"))
            self._element.clear()

    def _check(self, length: int, out: list[str]) -> None:
        maximum = self._max_element_bytes
        if maximum is not None and length > maximum:
            self._failed = SSELimitError("max_event_bytes", maximum, self._element_start, subject=_SUBJECT)
            raise self._error(self._failed, out)

    @staticmethod
    def _error(failed: SSELimitError, texts: list[str] | None = None) -> SSELimitError:
        return SSELimitError(failed.limit, failed.max_bytes, failed.offset, texts or [], failed.subject)


class JSONArrayDecoder:
    """Splits a streamed JSON array (``[{...},\\r\\n{...}]``, as an API answers
    that streams one array's elements) into its elements' texts, in any chunking, each
    handed out as soon as it is whole. A JSON text outside any array is an
    element too; white space and commas between elements are skipped."""

    __slots__ = ("_decoder", "_max_event_bytes")

    def __init__(self, *, max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._max_event_bytes = limit_arg("max_event_bytes", max_event_bytes)
        self._decoder = ArrayDecoder(max_event_bytes=self._max_event_bytes)

    def feed(self, data: Any) -> list[str]:
        """Decodes one chunk and returns the elements it completed, as text."""
        return self._decoder.feed_texts(as_bytes(data, "JSONArrayDecoder.feed()"))

    def close(self) -> list[str]:
        """Ends the stream: an element cut off by the end is handed out as it
        came."""
        return self._decoder.close_texts()

    @property
    def max_event_bytes(self) -> int | None:
        return self._max_event_bytes
