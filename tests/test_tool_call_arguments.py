"""Every assembler's tool calls, their arguments parsed as they stream: after
every argument delta (SSE bytes in any chunking, so the quick paths run too)
the arguments so far are what jiter's partial mode gives for the text so
far, on both backends; once the call ends they are the parsed value, or the
raw text with an error saying why."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import BACKENDS, NATIVE, PURE, examples, requires_native
from protocol_table import TABLE
from protocols import sse_event as sse
from test_partial_json import JSON_VALUES, reference

SETTINGS = settings(max_examples=examples(60), deadline=None)


@dataclass(frozen=True)
class Protocol:
    name: str
    assembler: str  # the backend's class
    accessor: str  # the property giving the calls
    field: str  # where a call's arguments are
    stream: Callable[[list[str], str], tuple[list[Any], list[Any], list[Any]]]
    before: Any  # the arguments before any text came
    view: str  # what the assembler gives whole


# Every protocol's tool calls (Responses has two kinds), each a case.
PROTOCOLS = [
    Protocol(case.name, row.assembler, case.accessor, case.field, case.stream, case.before, row.result)
    for row in TABLE.values()
    for case in row.tool_calls
]


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    return [text[start:end] for start, end in itertools.pairwise(points) if end > start]


def the_call(assembler: Any, protocol: Protocol) -> dict[str, Any]:
    calls = getattr(assembler, protocol.accessor)
    assert len(calls) == 1, calls
    call: dict[str, Any] = calls[0]
    return call


def stream_and_read(
    backend: ModuleType, protocol: Protocol, text: str, pieces: list[str], chunking: int
) -> list[tuple[Any, bool]]:
    """Feeds the stream as SSE bytes, `chunking` bytes at a time around
    each delta's event, and reads the call after every delta."""
    start, deltas, end = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    seen = ""
    reads = []
    for piece, event in zip(pieces, deltas, strict=True):
        data = sse(event)
        for at in range(0, len(data), chunking):
            assembler.feed(data[at : at + chunking])
        seen += piece
        call = the_call(assembler, protocol)
        expected = reference(seen.encode()) if seen.strip() else protocol.before
        assert call[protocol.field] == expected, (protocol.name, seen)
        assert "error" not in call
        reads.append((call[protocol.field], call["done"]))
    for event in end:
        assembler.feed(sse(event))
    assembler.close()
    call = the_call(assembler, protocol)
    assert call[protocol.field] == json.loads(text), protocol.name
    assert call["done"] is True
    assert "error" not in call
    return reads


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    value=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    writing=st.tuples(st.sampled_from([None, 0, 2]), st.sampled_from([1, 7, 10_000])),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
)
def test_arguments_so_far_are_what_jiter_gives_for_the_text_so_far(
    backend: ModuleType,
    protocol: Protocol,
    value: dict[str, Any],
    writing: tuple[int | None, int],
    cuts: list[int],
) -> None:
    indent, chunking = writing  # chunking: SSE bytes fed at a time
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    stream_and_read(backend, protocol, text, split(text, cuts), chunking)


@requires_native
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@SETTINGS
@given(
    value=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    cuts=st.lists(st.integers(0, 10_000), max_size=20),
)
def test_backends_agree(protocol: Protocol, value: dict[str, Any], cuts: list[int]) -> None:
    text = json.dumps(value)
    pieces = split(text, cuts)
    assert stream_and_read(NATIVE, protocol, text, pieces, 10_000) == stream_and_read(
        PURE, protocol, text, pieces, 10_000
    )


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_the_live_value_is_updated_in_place(backend: ModuleType, protocol: Protocol) -> None:
    """Reading after every delta costs the delta: the same containers come
    back, grown."""
    text = json.dumps({"rows": [{"n": n} for n in range(50)]})
    pieces = [text[at : at + 5] for at in range(0, len(text), 5)]
    start, deltas, _ = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    first = None
    for event in deltas:
        assembler.feed(sse(event))
        value = the_call(assembler, protocol)[protocol.field]
        if isinstance(value, dict):
            first = first if first is not None else value
            assert value is first
    assert first is not None
    assert len(first["rows"]) == 50


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_reading_other_views_between_deltas_changes_nothing(backend: ModuleType, protocol: Protocol) -> None:
    """Reading the assembled message (which joins what the pure backend
    keeps in pieces) between reads of the calls."""
    text = json.dumps({"city": "Paris", "days": [1, 2, 3], "note": "é" * 20})
    pieces = [text[at : at + 3] for at in range(0, len(text), 3)]
    start, deltas, _ = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    seen = ""
    for number, (piece, event) in enumerate(zip(pieces, deltas, strict=True)):
        assembler.feed(sse(event))
        seen += piece
        if number % 3 == 0:
            json.dumps(getattr(assembler, protocol.view))
        if number % 2 == 0:
            assert the_call(assembler, protocol)[protocol.field] == (
                reference(seen.encode()) if seen.strip() else protocol.before
            )


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_invalid_arguments_are_an_error_with_the_offset_and_stay_as_they_came(
    backend: ModuleType, protocol: Protocol
) -> None:
    pieces = ['{"a": 1', ", x", "}"]
    start, deltas, _ = protocol.stream(pieces, '{"a": 1}')
    assembler = getattr(backend, protocol.assembler)()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    call = the_call(assembler, protocol)
    assert call[protocol.field] == '{"a": 1, x}'
    assert (
        call["error"]
        == f"{SUBJECT[protocol.field]} not valid JSON: expected a string key, found 'x' at byte 9"
    )
    assert call["done"] is False


SUBJECT = {"arguments": "arguments are", "input": "input is", "args": "args are"}


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("every", [1, 700, 5000])
def test_long_arguments_read_now_and_then(backend: ModuleType, protocol: Protocol, every: int) -> None:
    """Thousands of one-character deltas (the pure backend joins pieces in
    batches of a thousand as they come): read after every delta, across
    several joins, or only at the end, the arguments are what jiter gives."""
    text = json.dumps({"query": "ab\u00e9\U0001f642" * 700, "n": [1, 2]})
    pieces = list(text)
    start, deltas, end = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    for count, event in enumerate(deltas, 1):
        assembler.feed(sse(event))
        if count % every == 0:
            seen = text[:count]
            assert the_call(assembler, protocol)[protocol.field] == reference(seen.encode()), count
    for event in end:
        assembler.feed(sse(event))
    assembler.close()
    assert the_call(assembler, protocol)[protocol.field] == json.loads(text)
