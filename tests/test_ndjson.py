"""NDJSONDecoder: newline-delimited JSON's lines, in any chunking, on both
backends; and the framing the assemblers of an NDJSON protocol read by."""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcodec import SSELimitError
from conftest import NATIVE, PURE
from sse_helpers import split_at

STREAM = '\ufeff{"a":"x\u0085y\u2028z"}\r\n\n  \t\n{"b":[1,\n2]}\n{"c":"é"}'.encode()
LINES = ['{"a":"x\u0085y\u2028z"}', '{"b":[1,', "2]}", '{"c":"é"}']


def decode(backend: ModuleType, chunks: list[bytes], **options: int | None) -> list[str]:
    decoder = backend.NDJSONDecoder(**options)
    lines = [line for chunk in chunks for line in decoder.feed(chunk)]
    return lines + decoder.close()


def test_lines_end_at_lf_alone_in_any_chunking(backend: ModuleType) -> None:
    """A CR before LF and the stream's BOM go; blank lines are skipped; the
    last line needs no LF; U+0085 and U+2028 stay inside their line."""
    assert decode(backend, [STREAM]) == LINES
    for cut in range(len(STREAM) + 1):
        assert decode(backend, split_at(STREAM, [cut])) == LINES, cut
    assert decode(backend, [bytes([byte]) for byte in STREAM]) == LINES
    assert decode(backend, [bytearray(STREAM[:5]), memoryview(STREAM[5:])]) == LINES


def test_a_long_line_is_refused_where_it_starts(backend: ModuleType) -> None:
    decoder = backend.NDJSONDecoder(max_line_bytes=8)
    assert decoder.max_line_bytes == 8
    with pytest.raises(SSELimitError) as caught:
        decoder.feed(b'{"a":1}\n{"b":22222}\n{"c":3}\n')
    error = caught.value
    assert (error.limit, error.max_bytes, error.offset) == ("max_line_bytes", 8, 8)
    assert error.subject == "NDJSON line"
    assert error.events == ['{"a":1}']
    assert str(error) == "NDJSON line exceeds max_line_bytes=8 at the line starting at byte offset 8"
    with pytest.raises(SSELimitError):
        decoder.feed(b"\n")
    # A line split across chunks is held only up to the limit.
    decoder = backend.NDJSONDecoder(max_line_bytes=8)
    decoder.feed(b'{"a":')
    with pytest.raises(SSELimitError, match="at byte offset 0"):
        decoder.feed(b'"long"}')


def test_arguments_are_checked_alike(backend: ModuleType) -> None:
    assert backend.NDJSONDecoder().max_line_bytes == backend.DEFAULT_MAX_LINE_BYTES
    assert backend.NDJSONDecoder(max_line_bytes=None).max_line_bytes is None
    with pytest.raises(ValueError, match=r"^max_line_bytes must not be negative, got -1$"):
        backend.NDJSONDecoder(max_line_bytes=-1)
    with pytest.raises(TypeError, match=r"^max_line_bytes must be an int or None$"):
        backend.NDJSONDecoder(max_line_bytes="8")
    with pytest.raises(TypeError) as caught:
        backend.NDJSONDecoder().feed("text")
    assert str(caught.value).startswith("NDJSONDecoder.feed() takes bytes")


@pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=6), st.integers(0, 40))
def test_the_backends_agree(data: bytes, cuts: list[int], limit: int) -> None:
    def outcome(backend: ModuleType) -> object:
        decoder = backend.NDJSONDecoder(max_line_bytes=limit)
        lines: list[str] = []
        try:
            for chunk in split_at(data, [cut for cut in cuts if cut <= len(data)]):
                lines += decoder.feed(chunk)
            lines += decoder.close()
        except SSELimitError as error:
            return lines, error.events, error.offset
        return lines

    assert outcome(NATIVE) == outcome(PURE)
