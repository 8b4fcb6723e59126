"""Limits on what one stream makes an assembler hold, beyond the SSE layer's:
``max_stream_bytes`` (the data its events bring, and what JSON Patch copies
duplicate) and the nesting depth of a patched state. Both backends refuse
the same event with the same words, and what came before stays."""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AgentCodecError, AGUIEventError
from conftest import NATIVE, PURE, requires_native
from test_hostile_input import TEXT_DELTAS

ASSEMBLERS = [
    "AgentScopeAssembler",
    "LangChainAssembler",
    "AGUIAssembler",
    "OpenAIResponsesAssembler",
    "OpenAIChatAssembler",
    "AnthropicAssembler",
    "AISDKAssembler",
]


def data(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def frame(event: dict[str, Any]) -> bytes:
    return b"data: " + data(event).encode() + b"\n\n"


def size(event: dict[str, Any]) -> int:
    return len(data(event).encode())


@pytest.mark.parametrize("protocol", list(TEXT_DELTAS))
def test_events_past_max_stream_bytes_are_refused_and_what_came_before_stays(
    backend: ModuleType, protocol: str
) -> None:
    name, view, opening, delta = TEXT_DELTAS[protocol]
    head = b"".join(frame(event) for event in opening)
    limit = sum(size(event) for event in opening) + 3 * size(delta)
    reference = getattr(backend, name)()
    reference.feed(head + frame(delta) * 3)

    assembler = getattr(backend, name)(max_stream_bytes=limit)
    assembler.feed(head + frame(delta) * 3)  # exactly the limit: taken
    assert getattr(assembler, view) == getattr(reference, view)
    refused = len(opening) + 4
    with pytest.raises(AgentCodecError) as info:
        assembler.feed(frame(delta) * 2)
    assert info.value.event == refused  # type: ignore[attr-defined]
    assert re.fullmatch(
        rf".* {refused} exceeds max_stream_bytes={limit}: its data is {size(delta)} bytes,"
        rf" after the {limit} the stream has brought",
        str(info.value),
    )
    assert getattr(assembler, view) == getattr(reference, view)
    with pytest.raises(AgentCodecError):  # the event that waited is past it too
        assembler.feed(b"")

    skipping = getattr(backend, name)(on_error="skip", max_stream_bytes=limit)
    skipping.feed(head + frame(delta) * 5)
    assert [error["event"] for error in skipping.errors] == [refused, refused + 1]
    assert {error["code"] for error in skipping.errors} == {"invalid_event"}
    assert getattr(skipping, view) == getattr(reference, view)


def test_the_bytes_counted_are_utf8_on_both_backends(backend: ModuleType) -> None:
    """Non-ASCII text counts its UTF-8 bytes, not its characters."""
    opening = {"object": "message", "id": "m", "role": "assistant", "content": []}
    delta = {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": "é😀"}
    exact = size(opening) + size(delta)
    assert exact == len(data(opening)) + len(data(delta)) + 4
    taken = backend.AgentScopeAssembler(max_stream_bytes=exact)
    taken.feed(frame(opening) + frame(delta))
    assert taken.messages[0]["content"][0]["text"] == "é😀"
    refused = backend.AgentScopeAssembler(max_stream_bytes=exact - 1, on_error="skip")
    refused.feed(frame(opening) + frame(delta))
    assert refused.error_count == 1
    assert refused.errors[0]["message"].endswith(
        f"its data is {size(delta)} bytes, after the {size(opening)} the stream has brought"
    )


def test_events_given_decoded_are_not_counted(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler(max_stream_bytes=0)
    assembler.feed_event({"object": "message", "id": "m", "role": "assistant", "content": []})
    assert [message["id"] for message in assembler.messages] == ["m"]


def test_no_limit_and_a_bad_limit(backend: ModuleType) -> None:
    text = {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": "x" * 1000}
    unlimited = backend.AgentScopeAssembler(max_stream_bytes=None)
    unlimited.feed(frame(text) * 100)
    assert len(unlimited.messages[0]["content"][0]["text"]) == 100_000
    for name in [*ASSEMBLERS, "NeutralAssembler"]:
        make = getattr(backend, name)
        args = ("agui",) if name == "NeutralAssembler" else ()
        with pytest.raises(ValueError, match=r"^max_stream_bytes must not be negative, got -1$"):
            make(*args, max_stream_bytes=-1)
        with pytest.raises(TypeError, match=r"^max_stream_bytes must be an int or None$"):
            make(*args, max_stream_bytes="1")
        make(*args, max_stream_bytes=2**100)  # more than memory holds: no limit


def _doubling(count: int) -> bytes:
    """A state, then patches each copying the whole of it into itself."""
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"a": "x" * 1000}},
    ]
    events += [
        {"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "", "path": f"/c{index}"}]}
        for index in range(count)
    ]
    return b"".join(frame(event) for event in events)


def test_patches_copying_the_state_into_itself_stop_at_max_stream_bytes(backend: ModuleType) -> None:
    """Each of these 70-byte events doubles the state: thirty of them would
    ask for a terabyte. Copies are taken from the stream's budget, so the
    state stops growing within it."""
    assembler = backend.AGUIAssembler(on_error="skip", max_stream_bytes=1_000_000)
    assembler.feed(_doubling(40))
    # 1,000-byte text: the state doubles ten times, then each copy is refused.
    assert len(assembler.state) == 1 + 9
    assert assembler.error_count == 40 - 9
    first = assembler.errors[0]
    assert first["event"] == 2 + 10
    assert re.fullmatch(
        r"AG-UI event 12 \(STATE_DELTA\) does not apply to the state: operation 0 \(copy\) exceeds"
        r" max_stream_bytes=1000000: the patch's copies are \d+ bytes, after the \d+ the stream has brought",
        first["message"],
    )
    assert len(json.dumps(assembler.state)) < 1_000_000
    neutral = backend.NeutralAssembler("agui", on_error="skip", max_stream_bytes=1_000_000)
    neutral.feed(_doubling(40))
    assert neutral.view["state"] == assembler.state
    assert neutral.error_count == 40 - 9


@requires_native
def test_what_copies_count_is_the_same_on_both_backends() -> None:
    errors = []
    for backend in (NATIVE, PURE):
        assembler = backend.AGUIAssembler(on_error="skip", max_stream_bytes=1_000_000)
        assembler.feed(_doubling(12))
        errors.append(assembler.errors)
    assert errors[0] == errors[1]


def test_patches_nest_the_state_no_deeper_than_parsed_json(backend: ModuleType) -> None:
    """Each event adds an object under the deepest one: without a bound the
    state nested as deep as the stream went on (25 MB of such events crashed
    the native backend walking it, and the pure one raised RecursionError
    reading it). It stops at 127, the depth parsed JSON may have."""
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STATE_SNAPSHOT", "snapshot": {}},
    ]
    events += [
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a" * depth, "value": {}}]}
        for depth in range(1, 129)
    ]
    assembler = backend.AGUIAssembler()
    assembler.feed(b"".join(frame(event) for event in events[:-2]))
    with pytest.raises(AGUIEventError) as info:
        assembler.feed(frame(events[-2]))
    pointer = "/a" * 127
    assert str(info.value) == (
        f'AG-UI event 129 (STATE_DELTA) does not apply to the state: operation 0 (add): "{pointer}":'
        " the value would nest 128 deep, past the limit of 127"
    )
    state = assembler.state
    depth = 0
    while state:
        state, depth = state["a"], depth + 1
    assert depth == 126
    json.dumps(assembler.state)  # readable, and within what json walks


def test_converters_hold_no_stream_budget(backend: ModuleType) -> None:
    """A Transcoder or NeutralDecoder holds nothing the stream brings, so it
    takes no max_stream_bytes: a long conversion is never cut short."""
    with pytest.raises(TypeError):
        backend.Transcoder("agentscope", "agui", max_stream_bytes=10)
    with pytest.raises(TypeError):
        backend.NeutralDecoder("agentscope", max_stream_bytes=10)
