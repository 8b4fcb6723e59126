"""Properties over generated streams (hypothesis): chunking never matters,
the two backends agree, and encoding round-trips."""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import SSELimitError
from conftest import NATIVE, PURE, examples, requires_native
from sse_helpers import decode, split_at

# Pieces that exercise every rule, so that random concatenations hit the
# interesting cases far more often than uniformly random bytes would.
PIECES = [
    b"data",
    b"data:",
    b"data: ",
    b"event:",
    b"event: ",
    b"id:",
    b"id: ",
    b"retry:",
    b"retry: ",
    b":",
    b": ping",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"\r\r",
    b" ",
    b"\0",
    b"\xef\xbb\xbf",
    b"\xef",
    b"\xbb",
    b"\xff",
    b"\xe2\x82",
    b"\xac",
    b"\xf0\x9f\x98\x80",
    b"x",
    b"0",
    b"123",
    b"18446744073709551616",
    b"retry: 18446744073709551616\n",
    b"retry:1\n",
    b"id: 1\n",
    b"data: x\n\n",
    b"Data",
    b"\xe2\x80\xa8",
    b'{"a": 1}',
    b"unknown: v",
]

streams = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join),
    st.binary(max_size=200),
    st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=5)), max_size=30).map(b"".join),
)

backends = pytest.mark.parametrize(
    "backend",
    [pytest.param(NATIVE, id="native", marks=requires_native), pytest.param(PURE, id="python")],
)

FAST = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(backend: ModuleType, chunks: list[bytes], **kwargs: object) -> tuple:
    """Everything observable: events, final state, or the limit error."""
    decoder = backend.SSEDecoder(**kwargs)
    events: list = []
    try:
        for chunk in chunks:
            events.extend(decoder.feed(chunk))
        events.extend(decoder.close())
    except SSELimitError as err:
        events.extend(err.events)
        state: tuple = ("error", err.limit, err.max_bytes, err.offset)
    else:
        state = ("ok", decoder.last_event_id, decoder.retry)
    return [(e.event, e.data, e.id, e.retry) for e in events], state


@backends
@FAST
@given(stream=streams, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10))
def test_any_chunking_gives_the_same_events(backend: ModuleType, stream: bytes, cuts: list[int]) -> None:
    cuts = [c for c in cuts if c <= len(stream)]
    assert outcome(backend, split_at(stream, cuts)) == outcome(backend, [stream])


@backends
@FAST
@given(
    stream=streams,
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    max_line=st.integers(min_value=0, max_value=30),
    max_event=st.integers(min_value=0, max_value=30),
)
def test_limits_are_chunking_independent(
    backend: ModuleType, stream: bytes, cuts: list[int], max_line: int, max_event: int
) -> None:
    cuts = [c for c in cuts if c <= len(stream)]
    limits = {"max_line_bytes": max_line, "max_event_bytes": max_event}
    assert outcome(backend, split_at(stream, cuts), **limits) == outcome(backend, [stream], **limits)


@requires_native
@settings(max_examples=examples(1000), deadline=None)
@given(
    stream=streams,
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    start_id=st.text(max_size=5),
    limited=st.booleans(),
)
def test_native_and_python_agree(stream: bytes, cuts: list[int], start_id: str, limited: bool) -> None:
    chunks = split_at(stream, [c for c in cuts if c <= len(stream)])
    kwargs: dict = {"last_event_id": start_id}
    if limited:
        kwargs.update(max_line_bytes=12, max_event_bytes=20)
    assert outcome(NATIVE, chunks, **kwargs) == outcome(PURE, chunks, **kwargs)


@requires_native
@settings(max_examples=examples(50), deadline=None)
@given(
    field=st.sampled_from([b"data: ", b"id: ", b"event: ", b":", b"x: "]),
    size=st.integers(min_value=0, max_value=300_000),
    filler=st.sampled_from([b"a", b"\xff", b"\xe2\x82\xac", b"\0"]),
    chunk=st.integers(min_value=1, max_value=70_000),
)
def test_native_and_python_agree_on_huge_fields(field: bytes, size: int, filler: bytes, chunk: int) -> None:
    stream = field + filler * (size // len(filler)) + b"\r\n\r\ndata: tail\n\n"
    chunks = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]
    assert outcome(NATIVE, chunks) == outcome(PURE, chunks)


# Text as servers send it: any characters but lone surrogates.
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=10)


@backends
@FAST
@given(
    data=texts,
    event=st.none() | names,
    id=st.none() | names.filter(lambda s: "\0" not in s),
    retry=st.none() | st.integers(min_value=0, max_value=2**64 - 1),
)
def test_encode_then_decode_round_trips(
    backend: ModuleType, data: str, event: str | None, id: str | None, retry: int | None
) -> None:
    events, decoder = decode(backend, [backend.encode_sse(data, event=event, id=id, retry=retry)])
    # SSE carries line breaks as line ends, which decode as LF: text
    # without CR comes back exactly.
    expected_data = re.sub(r"\r\n?", "\n", data)
    expected_event = event if event else "message"
    assert events == [(expected_event, expected_data, id or "", retry)]
    assert decoder.last_event_id == (id or "")


@backends
@FAST
@given(events=st.lists(st.tuples(texts.filter(lambda s: "\r" not in s), st.none() | names), max_size=8))
def test_encoded_streams_decode_in_any_chunking(backend: ModuleType, events: list) -> None:
    stream = b"".join(backend.encode_sse(data, event=event) for data, event in events)
    decoded, _ = decode(backend, [stream[i : i + 3] for i in range(0, len(stream), 3)])
    assert [d for _, d, _, _ in decoded] == [data for data, _ in events]


@requires_native
@FAST
@given(
    data=texts,
    event=st.none() | names,
    id=st.none() | st.text(max_size=5),
    retry=st.none() | st.integers(min_value=-5, max_value=2**65),
)
def test_encoders_agree(data: str, event: str | None, id: str | None, retry: int | None) -> None:
    def run(backend: ModuleType) -> object:
        try:
            return backend.encode_sse(data, event=event, id=id, retry=retry)
        except ValueError as err:
            return (type(err), str(err))

    assert run(NATIVE) == run(PURE)
