"""The AWS event stream layer (agentcodec.eventstream): its messages in any
chunking, both CRCs checked, on both backends, judged by botocore's own
event-stream parser."""

from __future__ import annotations

import struct
import zlib
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcodec import EventStreamError
from agentcodec.eventstream import EventStreamMessage
from conftest import NATIVE, PURE
from protocol_table import FIXTURES
from sse_helpers import split_at

eventstream = pytest.importorskip("botocore.eventstream")


def frame(headers: bytes, payload: bytes) -> bytes:
    """A message written by hand, as the format says."""
    prelude = struct.pack(">II", 16 + len(headers) + len(payload), len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + payload
    return message + struct.pack(">I", zlib.crc32(message))


def header(name: str, kind: int, value: bytes = b"") -> bytes:
    return bytes([len(name.encode())]) + name.encode() + bytes([kind]) + value


# Every header type (0 to 9), as the format writes them.
ALL_TYPES = b"".join(
    [
        header(":message-type", 7, struct.pack(">H", 5) + b"event"),
        header(":event-type", 7, struct.pack(">H", 17) + b"contentBlockDelta"),
        header("yes", 0),
        header("no", 1),
        header("byte", 2, struct.pack(">b", -5)),
        header("short", 3, struct.pack(">h", -300)),
        header("int", 4, struct.pack(">i", 70000)),
        header("long", 5, struct.pack(">q", -(2**40))),
        header("raw", 6, struct.pack(">H", 3) + b"\x00\xff\x10"),
        header("when", 8, struct.pack(">q", 1_700_000_000_123)),
        header("id", 9, bytes(range(16))),
        header("naïve", 7, struct.pack(">H", 5) + "ünï".encode()),
    ]
)
PAYLOAD = b'{"contentBlockIndex":0,"delta":{"text":"Hi \xc3\xa9"},"p":"abcd"}'
STREAM = frame(ALL_TYPES, PAYLOAD) + frame(b"", b"") + frame(header("k", 0), b"second")


def decode(backend: ModuleType, chunks: list[bytes], **options: Any) -> list[EventStreamMessage]:
    decoder = backend.EventStreamDecoder(**options)
    messages = [message for chunk in chunks for message in decoder.feed(chunk)]
    return messages + decoder.close()


def botocore_reads(data: bytes) -> list[tuple[dict[str, Any], bytes]]:
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(data)
    return [(message.headers, message.payload) for message in buffer]


def test_the_fuzzers_seed_is_this_stream() -> None:
    """fuzz/ is seeded from tests/fixtures/: this stream, kept there."""
    assert (FIXTURES / "eventstream" / "all_header_types.bin").read_bytes() == STREAM


def test_every_header_type_reads_as_botocore_reads_it(backend: ModuleType) -> None:
    messages = decode(backend, [STREAM])
    assert [(m.headers, m.payload) for m in messages] == botocore_reads(STREAM)
    assert messages[0].headers["when"] == 1_700_000_000_123
    assert messages[0].headers["id"] == bytes(range(16))
    assert messages[1] == EventStreamMessage({}, b"")


def test_messages_come_whole_in_any_chunking(backend: ModuleType) -> None:
    whole = decode(backend, [STREAM])
    for cut in range(len(STREAM) + 1):
        assert decode(backend, split_at(STREAM, [cut])) == whole, cut
    assert decode(backend, [bytes([byte]) for byte in STREAM]) == whole
    decoder = backend.EventStreamDecoder()
    first = len(frame(ALL_TYPES, PAYLOAD))
    assert decoder.feed(STREAM[: first - 1]) == []
    assert decoder.feed(memoryview(STREAM)[first - 1 : first]) == whole[:1]


def test_what_is_written_botocore_reads(backend: ModuleType) -> None:
    headers = {
        ":message-type": "event",
        ":event-type": "messageStop",
        "n": 7,
        "big": 2**40,
        "ok": True,
        "raw": b"\x01",
    }
    written = backend.encode_event_message(headers, b'{"stopReason":"end_turn"}')
    assert written == PURE.encode_event_message(headers, b'{"stopReason":"end_turn"}')
    assert botocore_reads(written) == [(headers, b'{"stopReason":"end_turn"}')]
    assert botocore_reads(backend.encode_event_message({})) == [({}, b"")]
    # The integer types: 32 bits where they fit, 64 past them.
    assert written.count(b"\x01n\x04") == 1
    assert written.count(b"\x03big\x05") == 1


@pytest.mark.parametrize(
    ("headers", "error", "message"),
    [
        ({"": "x"}, ValueError, 'header name "" is not 1 to 255 bytes long'),
        ({"x" * 256: "x"}, ValueError, "is not 1 to 255 bytes long"),
        ({"h": "x" * 65536}, ValueError, 'header "h" is longer than 65535 bytes'),
        ({"h": 2**64}, ValueError, 'header "h" is an integer past 64 bits'),
        ({"h": 1.5}, TypeError, 'header "h" cannot be a float'),
    ],
)
def test_what_cannot_be_written_is_refused_alike(
    backend: ModuleType, headers: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        backend.encode_event_message(headers, b"")


def test_a_bad_crc_names_the_message_and_what_came_before_stands(backend: ModuleType) -> None:
    first = len(frame(ALL_TYPES, PAYLOAD))
    for position, what in [(len(STREAM) - 1, "message"), (first + 1, "prelude")]:
        corrupt = bytearray(STREAM)
        corrupt[position] ^= 0x40
        second = first + 16
        decoder = backend.EventStreamDecoder()
        with pytest.raises(EventStreamError) as caught:
            decoder.feed(bytes(corrupt))
        error = caught.value
        assert error.offset == (second if what == "message" else first)
        assert error.reason.startswith(f"its {what} CRC is 0x")
        assert str(error).startswith(f"event stream message at byte offset {error.offset}: its {what} CRC")
        assert len(error.messages) == (2 if what == "message" else 1)
        with pytest.raises(EventStreamError):
            decoder.feed(b"")
        # botocore refuses it too.
        with pytest.raises(eventstream.ChecksumMismatch):
            botocore_reads(bytes(corrupt))


def test_lengths_and_limits_are_checked_where_the_message_starts(backend: ModuleType) -> None:
    small = frame(b"", b"12345")
    decoder = backend.EventStreamDecoder(max_message_bytes=len(small))
    assert decoder.max_message_bytes == len(small)
    large = frame(b"", b"x" * 100)
    with pytest.raises(EventStreamError) as caught:
        decoder.feed(small + large[:12])  # refused from its prelude, before it is held
    assert caught.value.offset == len(small)
    assert caught.value.reason == f"its length {len(large)} exceeds max_message_bytes={len(small)}"
    assert caught.value.messages == [EventStreamMessage({}, b"12345")]
    # A length that cannot hold its headers, with a good prelude CRC.
    prelude = struct.pack(">II", 16, 1)
    bad = prelude + struct.pack(">I", zlib.crc32(prelude))
    with pytest.raises(EventStreamError, match="its length 16 cannot hold its 1 bytes of headers"):
        decode(backend, [bad])
    # A stream that ends inside a message.
    with pytest.raises(
        EventStreamError, match=r"^event stream message at byte offset 0: the stream ends 20 bytes into it$"
    ):
        decode(backend, [small[:20]])
    # Headers the format does not allow.
    for headers, reason in [
        (b"\x00", "a header at header byte 0 has an empty name"),
        (header("t", 10), 'header "t" has the unknown type 10'),
        (header("s", 7, b"\x00\x05ab"), 'its headers end inside header "s" at header byte 0'),
        (header("u", 7, b"\x00\x01\xff"), 'header "u" is a string that is not UTF-8'),
    ]:
        with pytest.raises(EventStreamError) as caught:
            decode(backend, [frame(headers, b"")])
        assert caught.value.reason == reason


def test_arguments_are_checked_alike(backend: ModuleType) -> None:
    assert backend.EventStreamDecoder().max_message_bytes == backend.DEFAULT_MAX_EVENT_BYTES
    assert backend.EventStreamDecoder(max_message_bytes=None).max_message_bytes is None
    with pytest.raises(ValueError, match=r"^max_message_bytes must not be negative, got -1$"):
        backend.EventStreamDecoder(max_message_bytes=-1)
    with pytest.raises(TypeError) as caught:
        backend.EventStreamDecoder().feed("text")
    assert str(caught.value).startswith("EventStreamDecoder.feed() takes bytes")


def _mutated(data: bytes, flips: list[int]) -> bytes:
    out = bytearray(data)
    for flip in flips:
        if out:
            out[flip % len(out)] ^= 1 << (flip % 8)
    return bytes(out)


@pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
@given(
    st.one_of(
        st.binary(max_size=120),
        st.lists(st.integers(0, 10_000), max_size=3).map(lambda flips: _mutated(STREAM, flips)),
    ),
    st.lists(st.integers(0, 400), max_size=5),
    st.integers(0, 200),
)
def test_the_backends_agree(data: bytes, cuts: list[int], limit: int) -> None:
    def outcome(backend: ModuleType) -> object:
        decoder = backend.EventStreamDecoder(max_message_bytes=limit)
        messages: list[EventStreamMessage] = []
        try:
            for chunk in split_at(data, [cut for cut in cuts if cut <= len(data)]):
                messages += decoder.feed(chunk)
            messages += decoder.close()
        except EventStreamError as error:
            return messages, error.messages, error.offset, error.reason
        return messages

    assert outcome(NATIVE) == outcome(PURE)
