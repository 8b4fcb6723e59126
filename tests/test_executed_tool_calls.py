"""``executed_tool_calls="omit"``: the tool calls the agent ran itself (a
server tool's or an MCP call, or one whose result comes in the run) are left
out, so that a client that runs every call it reads (a Chat client's agent
loop) does not run them again; a call the run leaves to its client is
written. Judged by each target's own reader, on both backends."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conversion import OPTIONS, SOURCES, backends, chunked, view
from protocol_table import TABLE

# The targets that write tool calls.
TARGETS = [name for name, row in TABLE.items() if "tool_call" not in row.cannot_carry]


def agent_turn(*, tool: str = "function", answered: bool = True) -> list[dict[str, Any]]:
    """Neutral events: an agent's turn that calls a tool (of kind ``tool``)
    between two texts, with the call's result (``answered``) or without."""
    events: list[dict[str, Any]] = [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "m1", "role": "assistant"},
        {"type": "block_started", "message_id": "m1", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m1", "index": 0, "delta": "Let me check. "},
        {"type": "block_finished", "message_id": "m1", "index": 0},
        {
            "type": "block_started",
            "message_id": "m1",
            "index": 1,
            "kind": "tool_call",
            "call_id": "call_1",
            "name": "get_weather",
            "tool": tool,
        },
        {"type": "block_delta", "message_id": "m1", "index": 1, "delta": '{"city": '},
        {"type": "block_delta", "message_id": "m1", "index": 1, "delta": '"Paris"}'},
        {"type": "block_finished", "message_id": "m1", "index": 1},
        {"type": "message_finished", "message_id": "m1"},
    ]
    if answered:
        events += [
            {"type": "message_started", "message_id": "t1", "role": "tool"},
            {
                "type": "block_started",
                "message_id": "t1",
                "index": 0,
                "kind": "tool_result",
                "call_id": "call_1",
                "name": "get_weather",
            },
            {"type": "block_delta", "message_id": "t1", "index": 0, "delta": "sunny"},
            {"type": "block_finished", "message_id": "t1", "index": 0},
            {"type": "message_finished", "message_id": "t1"},
            {"type": "message_started", "message_id": "m2", "role": "assistant"},
            {"type": "block_started", "message_id": "m2", "index": 0, "kind": "text"},
            {"type": "block_delta", "message_id": "m2", "index": 0, "delta": "It is sunny."},
            {"type": "block_finished", "message_id": "m2", "index": 0},
            {"type": "message_finished", "message_id": "m2"},
        ]
    events.append({"type": "run_finished", "status": "completed"})
    return events


def encoded(backend: ModuleType, target: str, events: list[dict[str, Any]], **options: Any) -> bytes:
    encoder = backend.NeutralEncoder(target, **OPTIONS[target], **options)
    return b"".join(encoder.encode(event) for event in events) + encoder.close()


def calls(backend: ModuleType, target: str, written: bytes) -> list[tuple[Any, Any]]:
    """The tool calls the target's reader gives: name and input."""
    return [
        (block.get("name"), block.get("input"))
        for message in view(backend, target, written)["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call"
    ]


def text(backend: ModuleType, target: str, written: bytes) -> str:
    return "".join(
        block["text"]
        for message in view(backend, target, written)["messages"]
        for block in message["blocks"]
        if block["kind"] == "text"
    )


@pytest.mark.parametrize("target", TARGETS)
def test_a_call_the_agent_answered_is_left_out(backend: ModuleType, target: str) -> None:
    turn = agent_turn()
    written = encoded(backend, target, turn, executed_tool_calls="omit")
    assert calls(backend, target, written) == []
    assert text(backend, target, written) == text(backend, target, encoded(backend, target, turn))
    # As it is written without the option:
    assert calls(backend, target, encoded(backend, target, turn)) == [("get_weather", {"city": "Paris"})]
    assert calls(backend, target, encoded(backend, target, turn, executed_tool_calls="write")) == [
        ("get_weather", {"city": "Paris"})
    ]


@pytest.mark.parametrize("target", TARGETS)
def test_a_call_the_run_leaves_to_its_client_is_written(backend: ModuleType, target: str) -> None:
    turn = agent_turn(answered=False)
    written = encoded(backend, target, turn, executed_tool_calls="omit")
    assert calls(backend, target, written) == [("get_weather", {"city": "Paris"})]
    assert written == encoded(backend, target, turn)


@pytest.mark.parametrize("tool", ["server", "mcp"])
@pytest.mark.parametrize("target", TARGETS)
def test_a_call_a_server_runs_is_left_out(backend: ModuleType, target: str, tool: str) -> None:
    written = encoded(backend, target, agent_turn(tool=tool, answered=False), executed_tool_calls="omit")
    assert calls(backend, target, written) == []
    assert text(backend, target, written) == "Let me check. "


@pytest.mark.parametrize("target", TARGETS)
def test_a_call_answered_by_its_own_output_is_left_out(backend: ModuleType, target: str) -> None:
    turn = agent_turn(answered=False)
    finished = next(
        at for at, event in enumerate(turn) if event["type"] == "block_finished" and event["index"] == 1
    )
    turn.insert(finished, {"type": "block_replaced", "message_id": "m1", "index": 1, "output": "sunny"})
    assert calls(backend, target, encoded(backend, target, turn, executed_tool_calls="omit")) == []


@pytest.mark.parametrize("target", TARGETS)
def test_of_two_calls_only_the_answered_one_is_left_out(backend: ModuleType, target: str) -> None:
    turn = agent_turn()
    second = [dict(event) for event in turn if event.get("message_id") == "m1" and event.get("index") == 1]
    for event in second:
        event["index"] = 2
        if event["type"] == "block_started":
            event.update(call_id="call_2", name="get_time")
    at = next(at for at, event in enumerate(turn) if event["type"] == "message_finished")
    turn[at:at] = second
    written = encoded(backend, target, turn, executed_tool_calls="omit")
    assert calls(backend, target, written) == [("get_time", {"city": "Paris"})]


@pytest.mark.parametrize("cls", ["Transcoder", "NeutralEncoder"])
def test_a_bad_choice_is_refused_naming_the_option(backend: ModuleType, cls: str) -> None:
    args = (TARGETS[0], TARGETS[-1]) if cls == "Transcoder" else (TARGETS[-1],)
    with pytest.raises(ValueError, match="executed_tool_calls must be 'write' or 'omit', not 'drop'"):
        getattr(backend, cls)(*args, executed_tool_calls="drop")
    with pytest.raises(TypeError, match="executed_tool_calls"):
        getattr(backend, cls)(*args, executed_tool_calls=1)


def _answered(backend: ModuleType, source: str, stream: bytes) -> bool:
    messages = view(backend, source, stream)["messages"]
    return any(block["kind"] == "tool_result" for message in messages for block in message["blocks"])


ANSWERING = [
    (source, path) for source, path in SOURCES if _answered(backends()[-1], source, path.read_bytes())
]


@pytest.mark.parametrize(
    ("source", "path"), ANSWERING, ids=[f"{s}:{p.parent.name}/{p.stem}" for s, p in ANSWERING]
)
def test_a_recorded_agent_run_converts_without_the_calls_it_answered(source: str, path: Path) -> None:
    """Every recorded stream whose agent ran tools, converted into every
    target that writes calls, in pieces: the calls read back are those the
    run left unanswered, the target's SDK (its row's judge) reads the same,
    and both backends write the same bytes."""
    stream = path.read_bytes()
    by_backend = []
    for backend in backends():
        messages = view(backend, source, stream)["messages"]
        blocks = [block for message in messages for block in message["blocks"]]
        answered = {block.get("call_id") for block in blocks if block["kind"] == "tool_result"}
        left = [
            block.get("name")
            for block in blocks
            if block["kind"] == "tool_call"
            and block.get("call_id") not in answered
            and block.get("output") is None
            and block.get("tool") not in ("server", "mcp")
        ]
        assert len(left) < sum(block["kind"] == "tool_call" for block in blocks)
        written = {}
        for target in TARGETS:
            pieces = []
            for chunk in (None, 7):
                transcoder = backend.Transcoder(source, target, executed_tool_calls="omit", **OPTIONS[target])
                out = b"".join(transcoder.feed(piece) for piece in chunked(stream, chunk))
                pieces.append(out + transcoder.close())
            assert pieces[0] == pieces[1], target
            assert [name for name, _ in calls(backend, target, pieces[0])] == left, target
            # A result goes with its call: it is no loss, and no target reads it alone.
            assert "tool_result" not in {loss["what"] for loss in transcoder.losses}, target
            assert not _answered(backend, target, pieces[0]), target
            # The target's own SDK reads what its assembler reads of it.
            judge = TABLE[target].judge
            if judge is not None:
                judge(backend, pieces[0])
            written[target] = pieces[0]
        by_backend.append(written)
    assert all(written == by_backend[0] for written in by_backend)


def test_what_is_held_is_bounded_and_then_written_as_it_came(backend: ModuleType) -> None:
    """A call whose arguments grow past what may be held (16 MiB) is written
    as it came, though its result comes after: the memory a held call takes
    is bounded."""
    target = TARGETS[-1]
    turn = agent_turn()
    at = next(at for at, event in enumerate(turn) if event["type"] == "block_delta" and event["index"] == 1)
    piece = "x" * (1 << 20)
    turn[at : at + 2] = [
        {"type": "block_delta", "message_id": "m1", "index": 1, "delta": '{"a": "'},
        *({"type": "block_delta", "message_id": "m1", "index": 1, "delta": piece} for _ in range(17)),
        {"type": "block_delta", "message_id": "m1", "index": 1, "delta": '"}'},
    ]
    written = encoded(backend, target, turn, executed_tool_calls="omit")
    assert [name for name, _ in calls(backend, target, written)] == ["get_weather"]
