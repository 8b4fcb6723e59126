"""Streams langchain-core itself produces (its compat bridge, from model
chunks) assemble to the content langchain-core's ChatModelStream assembles
(fixtures made by scripts/langchain_fixtures.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from conftest import BACKENDS

Assembler: Any = None


@pytest.fixture(autouse=True, params=BACKENDS)
def _backend_assembler(request: pytest.FixtureRequest) -> None:
    """Every test here runs on both backends: ``Assembler`` is the backend's."""
    global Assembler  # noqa: PLW0603
    Assembler = request.param.LangChainAssembler


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "langchain"
NAMES = sorted(path.stem for path in FIXTURES.glob("*.sse"))


def load(name: str) -> tuple[bytes, dict[str, Any]]:
    return (FIXTURES / f"{name}.sse").read_bytes(), json.loads((FIXTURES / f"{name}.json").read_text())[
        "message"
    ]


def without_index(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # ChatModelStream writes the wire position into a block's "index"; that
    # key is the provider's own index in the protocol, so agentcodec leaves
    # blocks as the stream finished them.
    return [{key: value for key, value in block.items() if key != "index"} for block in blocks]


def test_fixtures_exist() -> None:
    assert len(NAMES) >= 5


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("chunking", ["whole", "network", "bytes"])
def test_same_content_as_chat_model_stream(name: str, chunking: str) -> None:
    stream, expected = load(name)
    assembler = Assembler()
    if chunking == "whole":
        assembler.feed(stream)
    elif chunking == "bytes":
        for i in range(len(stream)):
            assembler.feed(stream[i : i + 1])
    else:
        rng, position = random.Random(name), 0
        while position < len(stream):
            size = rng.randint(1, 4096)
            assembler.feed(stream[position : position + size])
            position += size
    (message,) = assembler.close()
    assert without_index(message["content"]) == without_index(expected["content"])
    assert message["status"] == "completed"
    assert message["id"] == "run-1"
    assert (message["namespace"], message["node"]) == (["agent:1"], "model")
    if expected["usage"]:
        assert message["usage"] == expected["usage"]
    finish_reason = expected["response_metadata"].get("finish_reason")
    assert message["finish_reason"] == finish_reason


@pytest.mark.parametrize("name", NAMES)
def test_replayed_events_are_not_applied_twice(name: str) -> None:
    stream, expected = load(name)
    frames = [frame + b"\n\n" for frame in stream.split(b"\n\n") if frame]
    assembler = Assembler()
    half = len(frames) // 2
    assembler.feed(b"".join(frames[:half]))
    # A reconnect that replays from an earlier point: the overlap is dropped.
    assembler.feed(b"".join(frames[max(0, half - 3) :]))
    (message,) = assembler.close()
    assert without_index(message["content"]) == without_index(expected["content"])
    assert assembler.duplicate_count == min(3, half)


def test_parallel_tool_calls() -> None:
    stream, _ = load("parallel_tool_calls")
    assembler = Assembler()
    assembler.feed(stream)
    (message,) = assembler.close()
    calls = [block for block in message["content"] if block["type"] == "tool_call"]
    assert [(c["id"], c["name"], c["args"]) for c in calls] == [
        ("call_1", "weather", {"city": "Paris"}),
        ("call_2", "calc", {"expr": "2+2"}),
    ]
    assert message["usage"] == {"input_tokens": 12, "output_tokens": 9, "total_tokens": 21}
