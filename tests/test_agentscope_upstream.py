"""Streams recorded from agentscope-runtime itself assemble to exactly the
final response upstream holds (fixtures made by scripts/agentscope_fixtures.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agentscope"
NAMES = sorted(path.stem for path in FIXTURES.glob("*.sse"))


def load(name: str) -> tuple[bytes, dict[str, Any]]:
    return (FIXTURES / f"{name}.sse").read_bytes(), json.loads((FIXTURES / f"{name}.json").read_text())


def test_fixtures_exist() -> None:
    assert len(NAMES) >= 7


@pytest.mark.parametrize("name", NAMES)
def test_whole_stream(backend: ModuleType, name: str) -> None:
    stream, expected = load(name)
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    assert assembler.close() == expected["final"]


@pytest.mark.parametrize("name", NAMES)
def test_network_chunks(backend: ModuleType, name: str) -> None:
    stream, expected = load(name)
    rng = random.Random(name)
    assembler = backend.AgentScopeAssembler()
    position = 0
    while position < len(stream):
        size = rng.randint(1, 4096)
        assembler.feed(stream[position : position + size])
        position += size
    assert assembler.close() == expected["final"]


@pytest.mark.parametrize("name", [n for n in NAMES if "long" not in n and "200" not in n])
def test_one_byte_at_a_time(backend: ModuleType, name: str) -> None:
    stream, expected = load(name)
    assembler = backend.AgentScopeAssembler()
    for i in range(len(stream)):
        assembler.feed(stream[i : i + 1])
    assert assembler.close() == expected["final"]


@pytest.mark.parametrize("name", NAMES)
def test_decoded_events(backend: ModuleType, name: str) -> None:
    stream, expected = load(name)
    events = [json.loads(line[6:]) for line in stream.decode().split("\n\n") if line]
    assembler = backend.AgentScopeAssembler()
    for event in events:
        assembler.feed_event(event)
    assert assembler.close() == expected["final"]
    assert assembler.event_count == len(events)


@pytest.mark.parametrize("name", NAMES)
def test_feed_with_events_returns_what_was_sent(backend: ModuleType, name: str) -> None:
    stream, _ = load(name)
    assembler = backend.AgentScopeAssembler()
    events = assembler.feed_with_events(stream)
    assert events == [json.loads(line[6:]) for line in stream.decode().split("\n\n") if line]


def answer_text(response: dict[str, Any]) -> str:
    """The text of the last assistant "message" message, as a client shows it."""
    for message in reversed(response["output"]):
        if message.get("type") == "message":
            return "".join(part.get("text") or "" for part in message.get("content") or [])
    return ""


@pytest.mark.parametrize("name", ["runner_text", "runner_text_long", "builder_200_tokens"])
def test_truncated_anywhere_keeps_what_arrived(backend: ModuleType, name: str) -> None:
    """Cut the stream after any event: the text so far survives, "incomplete"."""
    stream, expected = load(name)
    frames = [line + "\n\n" for line in stream.decode().split("\n\n") if line]
    full_text = answer_text(expected["final"])
    step = max(1, len(frames) // 40)
    for cut in range(0, len(frames) - 1, step):
        assembler = backend.AgentScopeAssembler(on_error="skip")  # cut before any event: said at close
        assembler.feed("".join(frames[:cut]).encode())
        response = assembler.close()
        assert [error["code"] for error in assembler.errors] == ([] if cut else ["unrecognized_stream"])
        assert response["status"] == "incomplete"
        text = answer_text(response)
        assert full_text.startswith(text)
        deltas = [json.loads(f[6:]) for f in frames[:cut]]
        sent = "".join(e.get("text") or "" for e in deltas if e.get("object") == "content" and e.get("delta"))
        assert text == sent


def test_agentscope_adapter_quirks_are_resolved_by_the_completed_message(backend: ModuleType) -> None:
    """The adapter's shared index puts "lo" at index 1; message.completed is authoritative."""
    stream, expected = load("runner_agentscope")
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    messages = {m["type"]: m for m in assembler.messages}
    assert messages["reasoning"]["content"][0]["text"] == "Let me think"
    assert [m["type"] for m in expected["final"]["output"]] == [
        "reasoning",
        "message",
        "plugin_call",
        "plugin_call_output",
        "message",
    ]
    tool_call = next(m for m in assembler.messages if m["type"] == "plugin_call")
    assert tool_call["content"][0]["data"]["arguments"] == '{"city": "Paris"}'
    assert tool_call["content"][0]["data"]["call_id"] == "call_1"
