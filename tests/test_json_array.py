"""JSONArrayDecoder: a streamed JSON array's elements, in any chunking, on
both backends."""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcodec import SSELimitError
from conftest import NATIVE, PURE
from sse_helpers import split_at

# As the server writes it: a BOM, CRLF and commas between elements, strings
# holding what would end an element outside one.
STREAM = '\ufeff[{"a": "x,]}\\"",\r\n  "é": [1, {"c": "["}]}\r\n,\r\n7, "s\\\\", true]\r\n'.encode()
ELEMENTS = ['{"a": "x,]}\\"",\r\n  "é": [1, {"c": "["}]}', "7", '"s\\\\"', "true"]


def decode(backend: ModuleType, chunks: list[bytes], **options: int | None) -> list[str]:
    decoder = backend.JSONArrayDecoder(**options)
    elements = [element for chunk in chunks for element in decoder.feed(chunk)]
    return elements + decoder.close()


def test_each_element_is_handed_out_whole_in_any_chunking(backend: ModuleType) -> None:
    assert decode(backend, [STREAM]) == ELEMENTS
    for cut in range(len(STREAM) + 1):
        assert decode(backend, split_at(STREAM, [cut])) == ELEMENTS, cut
    assert decode(backend, [bytes([byte]) for byte in STREAM]) == ELEMENTS
    assert decode(backend, [bytearray(STREAM[:5]), memoryview(STREAM[5:])]) == ELEMENTS


def test_an_element_comes_as_soon_as_it_is_whole(backend: ModuleType) -> None:
    decoder = backend.JSONArrayDecoder()
    assert decoder.feed(b'[{"a": 1}') == ['{"a": 1}']
    assert decoder.feed(b',\n{"b":') == []
    assert decoder.feed(b" 2}") == ['{"b": 2}']
    assert decoder.feed(b"]") == []
    assert decoder.close() == []


def test_nothing_the_stream_holds_is_dropped(backend: ModuleType) -> None:
    """An error body outside any array, junk between elements and an element
    cut off by the end are handed out, to fail as JSON where they are read."""
    error = {"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}
    assert decode(backend, [json.dumps(error, indent=2).encode()]) == [json.dumps(error, indent=2)]
    assert decode(backend, [b'[{"a": 1} x, ] junk']) == ['{"a": 1}', "x", "junk"]
    assert decode(backend, [b'[{"a": [1, 2']) == ['{"a": [1, 2']
    # A new stream after close() starts afresh.
    decoder = backend.JSONArrayDecoder()
    decoder.feed(b'[{"a": ')
    assert decoder.close() == ['{"a": ']
    assert decoder.feed(b'[{"b": 1}]') == ['{"b": 1}']


def test_a_large_element_is_refused_where_it_starts(backend: ModuleType) -> None:
    decoder = backend.JSONArrayDecoder(max_event_bytes=8)
    assert decoder.max_event_bytes == 8
    with pytest.raises(SSELimitError) as caught:
        decoder.feed(b'[{"a":1},\n{"b": 12345}]')
    error = caught.value
    assert (error.limit, error.max_bytes, error.offset) == ("max_event_bytes", 8, 10)
    assert error.subject == "JSON array element"
    assert error.events == ['{"a":1}']
    assert str(error) == (
        "JSON array element exceeds max_event_bytes=8 at the element starting at byte offset 10"
    )
    with pytest.raises(SSELimitError):
        decoder.feed(b"]")
    # An element split across chunks is held only up to the limit.
    decoder = backend.JSONArrayDecoder(max_event_bytes=8)
    decoder.feed(b'[{"b": 1')
    with pytest.raises(SSELimitError, match=r"at byte offset 1$"):
        decoder.feed(b"2345}")


def test_arguments_are_checked_alike(backend: ModuleType) -> None:
    assert backend.JSONArrayDecoder().max_event_bytes == backend.DEFAULT_MAX_EVENT_BYTES
    assert backend.JSONArrayDecoder(max_event_bytes=None).max_event_bytes is None
    with pytest.raises(ValueError, match=r"^max_event_bytes must not be negative, got -1$"):
        backend.JSONArrayDecoder(max_event_bytes=-1)
    with pytest.raises(TypeError) as caught:
        backend.JSONArrayDecoder().feed("text")
    assert str(caught.value).startswith("JSONArrayDecoder.feed() takes bytes")


# The bytes the decoder treats apart, to meet often.
JSON_BYTES = st.sampled_from(
    [b"[", b"]", b"{", b"}", b",", b'"', b"\\", b" ", b"\r\n", b"1", b"a", b"\xef\xbb\xbf", b"\xc3"]
)


@pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
@given(
    st.one_of(st.binary(max_size=200), st.lists(JSON_BYTES, max_size=60).map(b"".join)),
    st.lists(st.integers(0, 300), max_size=6),
    st.integers(0, 40),
)
def test_the_backends_agree(data: bytes, cuts: list[int], limit: int) -> None:
    def outcome(backend: ModuleType) -> object:
        decoder = backend.JSONArrayDecoder(max_event_bytes=limit)
        elements: list[str] = []
        try:
            for chunk in split_at(data, [cut for cut in cuts if cut <= len(data)]):
                elements += decoder.feed(chunk)
            elements += decoder.close()
        except SSELimitError as error:
            return elements, error.events, error.offset
        return elements

    assert outcome(NATIVE) == outcome(PURE)
