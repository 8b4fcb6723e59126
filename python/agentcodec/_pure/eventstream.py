"""The AWS event stream (``application/vnd.amazon.eventstream``), the binary
framing of the AWS streaming APIs: decoding its messages in any chunking, and
encoding them. The mirror of
``rust/eventstream.rs``.

A message is a prelude (its total length, its headers' length, both 32-bit
big-endian, and the CRC32 of those 8 bytes), its headers (each a name of 1 to
255 bytes, a type byte and a value of that type), its payload, and the CRC32
of everything before it. Both CRCs are checked: a message that fails either
is an ``EventStreamError`` naming where it starts, and the messages before it
have been handed out. A message longer than the limit is refused from its
prelude, before it is held."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from typing import Any

from .._errors import EventStreamError
from .._eventstream_message import EventStreamMessage, HeaderValue
from .._json import dumps
from ._args import as_bytes, limit_arg
from .article import article
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES

__all__ = ["EventStreamDecoder", "EventStreamMessage", "HeaderValue", "encode_event_message"]

_PRELUDE = 12
_OVERHEAD = 16


def _hex(value: int) -> str:
    return f"{value:#010x}"


def _fail(offset: int, reason: str, messages: list[EventStreamMessage]) -> EventStreamError:
    return EventStreamError(offset, reason, messages)


def _parse_headers(data: bytes) -> dict[str, HeaderValue]:
    headers: dict[str, HeaderValue] = {}
    at = 0
    size = len(data)

    def short(what: str) -> ValueError:
        return ValueError(f"its headers end inside {what} at header byte {at}")

    while at < size:
        name_length = data[at]
        if name_length == 0:
            raise ValueError(f"a header at header byte {at} has an empty name")
        if size < at + 2 + name_length:
            raise short("a header's name")
        try:
            name = data[at + 1 : at + 1 + name_length].decode()
        except UnicodeDecodeError:
            raise ValueError(f"the header name at header byte {at} is not UTF-8") from None
        kind = data[at + 1 + name_length]
        start = at + 2 + name_length
        quoted = _quoted(name)

        def fixed(length: int, start: int = start, quoted: str = quoted) -> bytes:
            if size < start + length:
                raise short(f"header {quoted}")
            return data[start : start + length]

        value: HeaderValue
        if kind in (0, 1):
            value, used = kind == 0, 0
        elif kind == 2:
            value, used = struct.unpack(">b", fixed(1))[0], 1
        elif kind == 3:
            value, used = struct.unpack(">h", fixed(2))[0], 2
        elif kind == 4:
            value, used = struct.unpack(">i", fixed(4))[0], 4
        elif kind in (5, 8):
            value, used = struct.unpack(">q", fixed(8))[0], 8
        elif kind in (6, 7):
            length = struct.unpack(">H", fixed(2))[0]
            raw = fixed(2 + length)[2:]
            if kind == 7:
                try:
                    value = raw.decode()
                except UnicodeDecodeError:
                    raise ValueError(f"header {quoted} is a string that is not UTF-8") from None
            else:
                value = raw
            used = 2 + length
        elif kind == 9:
            value, used = fixed(16), 16
        else:
            raise ValueError(f"header {quoted} has the unknown type {kind}")
        headers[name] = value
        at = start + used
    return headers


def _quoted(name: str) -> str:
    """A name as JSON writes it, for the messages both backends share."""
    return dumps(name)


class EventStreamDecoder:
    """Splits an AWS event stream into its messages, in any chunking, each
    as soon as it is whole, both CRCs checked. Raises ``EventStreamError``
    (its ``offset`` where the bad message starts, its ``messages`` those the
    failing call completed before it); the decoder then takes no more input."""

    __slots__ = ("_failed", "_held", "_max_message_bytes", "_offset")

    def __init__(self, *, max_message_bytes: int | None = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._max_message_bytes = limit_arg("max_message_bytes", max_message_bytes)
        self._held = bytearray()
        self._offset = 0
        self._failed: EventStreamError | None = None

    @property
    def max_message_bytes(self) -> int | None:
        return self._max_message_bytes

    def feed(self, data: Any) -> list[EventStreamMessage]:
        """Decodes one chunk and returns the messages it completed."""
        chunk = as_bytes(data, "EventStreamDecoder.feed()")
        if self._failed is not None:
            raise self._again()
        self._held += chunk
        held = bytes(self._held)
        messages: list[EventStreamMessage] = []
        pos = 0
        maximum = self._max_message_bytes
        while len(held) - pos >= _PRELUDE:
            offset = self._offset + pos
            total, headers_length, prelude_crc = struct.unpack_from(">III", held, pos)
            found = zlib.crc32(held[pos : pos + 8])
            if prelude_crc != found:
                self._stop(offset, f"its prelude CRC is {_hex(prelude_crc)}, not {_hex(found)}", messages)
            if total < _OVERHEAD or headers_length > total - _OVERHEAD:
                self._stop(
                    offset, f"its length {total} cannot hold its {headers_length} bytes of headers", messages
                )
            if maximum is not None and total > maximum:
                self._stop(offset, f"its length {total} exceeds max_message_bytes={maximum}", messages)
            if len(held) - pos < total:
                break
            frame = held[pos : pos + total]
            (message_crc,) = struct.unpack_from(">I", frame, total - 4)
            found = zlib.crc32(frame[: total - 4])
            if message_crc != found:
                self._stop(offset, f"its message CRC is {_hex(message_crc)}, not {_hex(found)}", messages)
            try:
                headers = _parse_headers(frame[_PRELUDE : _PRELUDE + headers_length])
            except ValueError as exc:
                self._stop(offset, str(exc), messages)
            messages.append(EventStreamMessage(headers, frame[_PRELUDE + headers_length : total - 4]))
            pos += total
        del self._held[:pos]
        self._offset += pos
        return messages

    def close(self) -> list[EventStreamMessage]:
        """Ends the stream: one that ends inside a message is an error. The
        decoder may then read a new stream."""
        if self._failed is not None:
            raise self._again()
        cut = len(self._held)
        offset = self._offset
        self._held = bytearray()
        self._offset = 0
        if cut:
            raise EventStreamError(offset, f"the stream ends {cut} bytes into it")
        return []

    def _stop(self, offset: int, reason: str, messages: list[EventStreamMessage]) -> None:
        self._failed = EventStreamError(offset, reason)
        self._held = bytearray()
        raise _fail(offset, reason, messages)

    def _again(self) -> EventStreamError:
        failed = self._failed
        assert failed is not None
        return EventStreamError(failed.offset, failed.reason)


def _header_bytes(name: str, value: HeaderValue) -> bytes:
    raw_name = name.encode()
    if not 1 <= len(raw_name) <= 255:
        raise ValueError(f"header name {_quoted(name)} is not 1 to 255 bytes long")
    head = bytes([len(raw_name)]) + raw_name
    if isinstance(value, bool):
        return head + bytes([0 if value else 1])
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise ValueError(f"header {_quoted(name)} is an integer past 64 bits")
        # The smallest type that holds it, as the AWS SDKs write integers.
        if -(2**31) <= value < 2**31:
            return head + b"\x04" + struct.pack(">i", value)
        return head + b"\x05" + struct.pack(">q", value)
    if isinstance(value, str):
        data, kind = value.encode(), b"\x07"
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data, kind = bytes(value), b"\x06"
    else:
        raise TypeError(
            f"header {_quoted(name)} cannot be {article(type(value).__name__)} {type(value).__name__}"
        )
    if len(data) > 65535:
        raise ValueError(f"header {_quoted(name)} is longer than 65535 bytes")
    return head + kind + struct.pack(">H", len(data)) + data


def encode_event_message(headers: Mapping[str, HeaderValue], payload: Any = None) -> bytes:
    """One message: its prelude, headers, payload and CRCs. A ``bool`` is a
    boolean header, an ``int`` a 32-bit one (64-bit past that range), a
    ``str`` a string, ``bytes`` a byte array."""
    written = b"".join(_header_bytes(name, value) for name, value in headers.items())
    body = b"" if payload is None else as_bytes(payload, "encode_event_message()")
    total = _OVERHEAD + len(written) + len(body)
    if total >= 2**32:
        raise ValueError("the message is longer than 4 GiB")
    prelude = struct.pack(">II", total, len(written))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + written + body
    return message + struct.pack(">I", zlib.crc32(message))
