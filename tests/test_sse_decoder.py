"""SSEDecoder behaviour beyond the vectors: API, limits, errors, linearity."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcodec import SSEError, SSELimitError
from conftest import NATIVE, PURE, examples
from sse_helpers import as_tuples, decode


def test_defaults_agree_between_backends(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder()
    assert decoder.max_line_bytes == backend.DEFAULT_MAX_LINE_BYTES == 64 * 1024 * 1024
    assert decoder.max_event_bytes == backend.DEFAULT_MAX_EVENT_BYTES == 64 * 1024 * 1024
    assert decoder.last_event_id == ""
    assert decoder.retry is None


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_accepts_bytes_like(backend: ModuleType, kind: type) -> None:
    decoder = backend.SSEDecoder()
    assert as_tuples(decoder.feed(kind(b"data: x\n\n"))) == [("message", "x", "", None)]


def test_accepts_non_contiguous_memoryview(backend: ModuleType) -> None:
    view = memoryview(b"ddaattaa::  xx\n\n\n\n")[::2]
    assert as_tuples(backend.SSEDecoder().feed(view)) == [("message", "x", "", None)]


@pytest.mark.parametrize("bad", ["data: x\n\n", 5, None, [b"x"]])
def test_rejects_non_bytes(backend: ModuleType, bad: object) -> None:
    with pytest.raises(TypeError, match="bytes-like"):
        backend.SSEDecoder().feed(bad)


def test_cr_at_chunk_end_is_not_held_back(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder()
    assert as_tuples(decoder.feed(b"data: x\r\r")) == [("message", "x", "", None)]
    assert as_tuples(decoder.feed(b"\ndata: y\r\n\r\n")) == [("message", "y", "", None)]


def test_events_are_returned_as_soon_as_complete(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert len(decoder.feed(b"\n")) == 1


def test_retry_updates_before_dispatch(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder()
    decoder.feed(b"retry: 1500\n")
    assert decoder.retry == 1500


def test_close_discards_and_allows_reconnection(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(last_event_id="5")
    first = decoder.feed(b"data: a\n\nid: 6\ndata: b")
    assert decoder.close() == []
    assert decoder.last_event_id == "5"
    # A new stream: its BOM is stripped again, the id carries over.
    second = decoder.feed(b"\xef\xbb\xbfdata: c\n\n")
    assert as_tuples(first + second) == [("message", "a", "5", None), ("message", "c", "5", None)]


def test_close_twice_is_harmless(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder()
    decoder.feed(b"data: a")
    assert decoder.close() == decoder.close() == []


# --- limits --------------------------------------------------------------


def test_line_limit_error_names_limit_and_offset(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(max_line_bytes=8)
    with pytest.raises(SSELimitError) as info:
        decoder.feed(b"data: ok\n\ndata: too long\n\n")
    err = info.value
    assert isinstance(err, SSEError)
    assert isinstance(err, ValueError)
    assert (err.limit, err.max_bytes, err.offset) == ("max_line_bytes", 8, 10)
    assert str(err) == "SSE line exceeds max_line_bytes=8 at the line starting at byte offset 10"
    # What was decoded before the error survives on the exception.
    assert as_tuples(err.events) == [("message", "ok", "", None)]


def test_line_limit_hits_before_the_line_ends(backend: ModuleType) -> None:
    """A line that never ends cannot grow the buffer past the limit."""
    decoder = backend.SSEDecoder(max_line_bytes=1000)
    decoder.feed(b"data: ok\n\n")
    with pytest.raises(SSELimitError) as info:
        for _ in range(100):
            decoder.feed(b"data: " + b"x" * 100)
    assert (info.value.limit, info.value.offset) == ("max_line_bytes", 10)


def test_line_limit_offset_is_the_same_in_any_chunking(backend: ModuleType) -> None:
    stream = b"\xef\xbb\xbfdata: a\r\n\r\nevent: e\rdata: " + b"y" * 50 + b"\n\n"
    offsets = set()
    for size in (1, 2, 3, 7, 64, len(stream)):
        decoder = backend.SSEDecoder(max_line_bytes=20)
        with pytest.raises(SSELimitError) as info:
            for i in range(0, len(stream), size):
                decoder.feed(stream[i : i + size])
        offsets.add(info.value.offset)
    assert offsets == {23}


def test_exact_limit_is_allowed(backend: ModuleType) -> None:
    events, _ = decode(backend, [b"data: 12\n\n"], max_line_bytes=8, max_event_bytes=2)
    assert events == [("message", "12", "", None)]


def test_event_limit(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(max_event_bytes=5)
    with pytest.raises(SSELimitError) as info:
        decoder.feed(b"data: ab\ndata: cd\n\ndata: abc\ndata: def\n\n")
    assert (info.value.limit, info.value.max_bytes, info.value.offset) == ("max_event_bytes", 5, 29)
    assert "SSE event data exceeds max_event_bytes=5" in str(info.value)
    assert as_tuples(info.value.events) == [("message", "ab\ncd", "", None)]


def test_comments_and_unknown_fields_are_not_limited(backend: ModuleType) -> None:
    stream = b":" + b"c" * 5000 + b"\nunknown: " + b"u" * 5000 + b"\ndata: ok\n\n"
    for size in (1, 100, len(stream)):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        events, _ = decode(backend, chunks, max_line_bytes=16)
        assert events == [("message", "ok", "", None)]


def test_failed_decoder_refuses_more_input(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(max_line_bytes=4)
    with pytest.raises(SSELimitError) as first:
        decoder.feed(b"data: xxxxx")
    for call in (lambda: decoder.feed(b"\n\ndata: a\n\n"), decoder.close):
        with pytest.raises(SSELimitError) as again:
            call()
        assert (again.value.limit, again.value.offset) == (first.value.limit, first.value.offset)
        assert again.value.events == []


def test_no_limits(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    assert decoder.max_line_bytes is None
    assert decoder.max_event_bytes is None
    big = b"x" * (1 << 20)
    assert decoder.feed(b"data: " + big + b"\n\n")[0].data == big.decode()


def test_huge_limit_means_unlimited(backend: ModuleType) -> None:
    decoder = backend.SSEDecoder(max_line_bytes=2**200)
    assert decoder.max_line_bytes >= 2**63


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_line_bytes": -1}, ValueError, "max_line_bytes must not be negative, got -1"),
        ({"max_event_bytes": -5}, ValueError, "max_event_bytes must not be negative, got -5"),
        ({"max_line_bytes": "10"}, TypeError, "max_line_bytes must be an int or None"),
        ({"max_event_bytes": 1.5}, TypeError, "max_event_bytes must be an int or None"),
        ({"max_event_bytes": True}, TypeError, "max_event_bytes must be an int or None"),
    ],
)
def test_bad_limits(backend: ModuleType, kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        backend.SSEDecoder(**kwargs)
    assert str(info.value) == message


def test_limit_error_pickles() -> None:
    err = SSELimitError("max_line_bytes", 8, 10, [])
    again = pickle.loads(pickle.dumps(err))
    assert (again.limit, again.max_bytes, again.offset, str(again)) == (
        8 and "max_line_bytes",
        8,
        10,
        str(err),
    )


# --- linear time, bounded memory ------------------------------------------


def test_a_two_megabyte_event_one_byte_at_a_time(backend: ModuleType) -> None:
    """Feeding a 2 MB event byte by byte finishes: nothing is rescanned.

    A quadratic decoder would do about 2e12 byte operations here and not
    finish in the suite's time; this is a guard, not a timing. (At 10 MB the
    pure backend took 40 s of the suite for the same guard.)
    """
    payload = b"z" * (2 * 1000 * 1000)
    stream = memoryview(b"data: " + payload + b"\n\n")
    decoder = backend.SSEDecoder()
    feed = decoder.feed
    events = []
    for i in range(len(stream)):
        events += feed(stream[i : i + 1])
    assert len(events) == 1
    assert len(events[0].data) == len(payload)


def test_many_events_in_one_chunk_with_cr(backend: ModuleType) -> None:
    stream = b"data: x\r\n\r\n" * 20000 + b"data: y\r\r" * 20000
    events, _ = decode(backend, [stream])
    assert len(events) == 40000


# --- SSEEvent -------------------------------------------------------------


def test_event_type(backend: ModuleType) -> None:
    ev = backend.SSEEvent(data='{"a": [1, "\u00e9"]}')
    assert (ev.event, ev.id, ev.retry) == ("message", "", None)
    assert ev.json() == {"a": [1, "\u00e9"]}
    assert ev == backend.SSEEvent("message", '{"a": [1, "\u00e9"]}', "", None)
    assert ev != backend.SSEEvent(data="other")
    assert hash(ev) == hash(backend.SSEEvent(data='{"a": [1, "\u00e9"]}'))
    assert repr(backend.SSEEvent("e", "d", "i", 5)) == "SSEEvent(event='e', data='d', id='i', retry=5)"
    with pytest.raises(AttributeError):
        ev.data = "changed"  # type: ignore[misc]


def test_event_json_error_is_value_error(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="Expecting value"):
        backend.SSEEvent(data="not json").json()


def _loads_outcome(call: Callable[[], object]) -> object:
    """What parsing gives: the value (floats compared by their bits), or the
    error's type and message."""
    try:
        value = call()
    except (ValueError, RecursionError) as error:
        return (type(error), str(error))
    return repr(value)


JSON_EDGE_CASES = [
    "NaN",
    "-Infinity",
    "[Infinity, 1]",
    '"\\ud800"',
    '"\\udc00x"',
    '"\\ud83d\\ude42"',
    "1" * 5000,
    "-" + "9" * 30,
    "18446744073709551616",
    "-9223372036854775809",
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "-0.0",
    "0.1",
    "1E5",
    "4.9e-324",
    "1.7976931348623157e308",
    '{"a":1,"a":2,"b":3}',
    "[" * 300 + "]" * 300,
    "\ufeff1",
    "",
    " ",
    "1 2",
    '"\x01"',
    "00",
    "[1,]",
    " true ",
    '"\\u0000"',
    '"é🙂"',
    '{"a":[1,2.5,{"b":null,"c":"d"}]}',
]


@pytest.mark.parametrize("text", JSON_EDGE_CASES)
def test_event_json_is_json_loads(backend: ModuleType, text: str) -> None:
    event = backend.SSEEvent(data=text)
    assert _loads_outcome(event.json) == _loads_outcome(lambda: json.loads(text))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
        max_leaves=12,
    ),
    st.booleans(),
)
def test_event_json_is_json_loads_on_any_value(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    expected = _loads_outcome(lambda: json.loads(text))
    for module in (NATIVE, PURE):
        if module is not None:
            assert _loads_outcome(module.SSEEvent(data=text).json) == expected


@pytest.mark.parametrize(("retry", "error"), [(-1, ValueError), (2**64, ValueError), ("1", TypeError)])
def test_event_bad_retry(backend: ModuleType, retry: object, error: type) -> None:
    with pytest.raises(error):
        backend.SSEEvent(retry=retry)


def test_event_requires_str(backend: ModuleType) -> None:
    with pytest.raises(TypeError):
        backend.SSEEvent(data=b"bytes")
