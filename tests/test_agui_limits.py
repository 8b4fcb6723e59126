"""AG-UI's limits of its own, on both backends: a state grown by JSON
Patch copies is held to ``max_stream_bytes`` and to the nesting depth
parsed JSON may have, and the history an assembler starts from counts
toward ``max_blocks``."""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AGUIEventError, StreamLimitError
from conftest import NATIVE, PURE, requires_native


def frame(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


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


def test_the_history_an_agui_assembler_starts_from_counts(backend: ModuleType) -> None:
    calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}} for n in range(3)
    ]
    history = [{"id": "m", "role": "assistant", "toolCalls": calls}]
    assembler = backend.AGUIAssembler(messages=history, max_blocks=3)
    start = {"type": "TOOL_CALL_START", "toolCallId": "c3", "toolCallName": "f", "parentMessageId": "m"}
    with pytest.raises(StreamLimitError, match="it brings the stream's blocks to 4;"):
        assembler.feed(_frames([{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, start]))
    assert len(assembler.messages[0]["toolCalls"]) == 4


def _frames(events: list[dict[str, Any]]) -> bytes:
    return b"".join(frame(event) for event in events)
