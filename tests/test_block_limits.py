"""``max_blocks``: how many blocks (content parts, tool calls) one stream's
assembled messages may hold, on every assembler and both backends.

Each assembler keeps a count of the blocks it holds rather than counting
them after every event, so the count is held here to what its own view
shows: on recorded streams of every protocol, the same streams broken, and
generated ones, the limit stops the stream at exactly the event after which
the view first holds more blocks than the limit allows."""

from __future__ import annotations

import json
import random
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import StreamLimitError
from conftest import NATIVE, PURE, examples
from protocol_table import TABLE
from test_producer_habits import STREAM_IDS, STREAMS, events_of
from test_transcode_properties import OPTIONS, broken, neutral_stream

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def blocks_in_view(protocol: str, assembler: Any) -> int:
    """The blocks an assembler's view shows: what ``max_blocks`` counts."""
    if protocol == "neutral":
        return sum(len(message["blocks"]) for message in assembler.view["messages"])
    return TABLE[protocol].count_blocks(assembler)


def make(backend: ModuleType, protocol: str, source: str, **options: Any) -> Any:
    if protocol == "neutral":
        return backend.NeutralAssembler(source, on_error="skip", **options)
    return getattr(backend, TABLE[protocol].assembler)(on_error="skip", **options)


def held_after_each_event(
    backend: ModuleType, protocol: str, source: str, frames: list[bytes]
) -> list[tuple[int, int]]:
    """(events seen, blocks in the view) after each frame, without a limit."""
    assembler = make(backend, protocol, source, max_blocks=None)
    held = []
    for frame in frames:
        assembler.feed(frame)
        held.append((assembler.event_count, blocks_in_view(protocol, assembler)))
    return held


def check_every_level(backend: ModuleType, protocol: str, source: str, frames: list[bytes]) -> int:
    """At every limit below the most the stream holds, the stream stops at
    the event that first takes the view past it, and what came before stays.
    Returns the most blocks held."""
    held = held_after_each_event(backend, protocol, source, frames)
    most = max((blocks for _, blocks in held), default=0)
    for limit in range(most):
        event, blocks = next((event, blocks) for event, blocks in held if blocks > limit)
        assembler = make(backend, protocol, source, max_blocks=limit)
        with pytest.raises(StreamLimitError) as info:
            for frame in frames:
                assembler.feed(frame)
        error = info.value
        assert (error.limit, error.maximum, error.event) == ("max_blocks", limit, event)
        assert error.detail == f"it brings the stream's blocks to {blocks}"
        assert str(error) == (
            f"{error.subject} {event} exceeds max_blocks={limit}: it brings the stream's blocks to"
            f" {blocks}; the assembler takes no more input"
        )
        assembler.close()
        assert blocks_in_view(protocol, assembler) == blocks  # the event past the limit is applied
    # At the most it holds, nothing stops it.
    assembler = make(backend, protocol, source, max_blocks=most)
    for frame in frames:
        assembler.feed(frame)
    assembler.close()
    return most


@pytest.mark.parametrize(("protocol", "path"), STREAMS, ids=STREAM_IDS)
def test_recorded_streams_stop_where_their_view_first_holds_too_many(
    backend: ModuleType, protocol: str, path: Any
) -> None:
    frames = events_of(path.read_bytes())
    check_every_level(backend, protocol, protocol, frames)
    check_every_level(backend, "neutral", protocol, frames)


def test_the_recorded_streams_hold_blocks_of_every_protocol(backend: ModuleType) -> None:
    """So that the test above tests something on each: every protocol has a
    recorded stream holding several blocks."""
    most: dict[str, int] = {}
    for protocol, path in STREAMS:
        held = held_after_each_event(backend, protocol, protocol, events_of(path.read_bytes()))
        most[protocol] = max(most.get(protocol, 0), *(blocks for _, blocks in held))
    assert min(most.values()) >= 2, most


def frames_of(events: list[Any]) -> list[bytes]:
    return [b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n" for event in events]


def _real_events(protocol: str, rng: random.Random) -> list[Any]:
    path = rng.choice([path for name, path in STREAMS if name == protocol])
    return [event for event in TABLE[protocol].events(path.read_bytes()) if isinstance(event, dict)]


@SETTINGS
@given(rng=st.randoms(use_true_random=False), protocol=st.sampled_from(list(TABLE)))
def test_broken_streams_stop_where_their_view_first_holds_too_many(rng: random.Random, protocol: str) -> None:
    """Events dropped, repeated, swapped or changed: replacements and
    snapshots that take blocks away count as surely as deltas that add them."""
    frames = frames_of(broken(rng, _real_events(protocol, rng)))
    for backend in (NATIVE, PURE):
        if backend is not None:
            check_every_level(backend, protocol, protocol, frames)


@SETTINGS
@given(rng=st.randoms(use_true_random=False), protocol=st.sampled_from(list(TABLE)))
def test_generated_streams_stop_where_their_view_first_holds_too_many(
    rng: random.Random, protocol: str
) -> None:
    """Neutral streams of blocks opened, appended to, replaced and finished
    in any order, written in each protocol by its encoder."""
    encoder = PURE.NeutralEncoder(protocol, **OPTIONS[protocol])
    events = [event for event in neutral_stream(rng) if isinstance(event, dict)]
    data = b"".join(encoder.encode(event) for event in events) + encoder.close()
    frames = events_of(data)
    for backend in (NATIVE, PURE):
        if backend is not None:
            check_every_level(backend, protocol, protocol, frames)
            check_every_level(backend, "neutral", protocol, frames)


@pytest.mark.parametrize("protocol", list(TABLE))
@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_stream_of_tiny_blocks_ends_at_max_blocks(
    backend: ModuleType, protocol: str, on_error: str
) -> None:
    """Each block costs a few hundred bytes whatever its size: the event that
    opens one block too many is the stream's last, whatever on_error says,
    and every later call that brings input says so again."""
    opening, block = TABLE[protocol].block_opening, TABLE[protocol].one_block
    data = b"".join(frames_of([*opening, *(block(n) for n in range(1500))]))
    assembler = getattr(backend, TABLE[protocol].assembler)(max_blocks=1000, on_error=on_error)
    with pytest.raises(StreamLimitError) as info:
        assembler.feed(data)
    event = len(opening) + 1001
    assert (info.value.limit, info.value.maximum, info.value.event) == ("max_blocks", 1000, event)
    assert str(info.value).endswith(
        f" {event} exceeds max_blocks=1000: it brings the stream's blocks to 1001;"
        " the assembler takes no more input"
    )
    with pytest.raises(StreamLimitError, match="max_blocks=1000"):
        assembler.feed_event(block(2000))
    assert assembler.event_count == event
    assert assembler.error_count == 0
    assembler.close()
    assert blocks_in_view(protocol, assembler) == 1001
    neutral = backend.NeutralAssembler(protocol, max_blocks=1000)
    with pytest.raises(StreamLimitError, match="it brings the stream's blocks to 1001;"):
        neutral.feed(data)


@pytest.mark.parametrize("protocol", list(TABLE))
def test_blocks_given_decoded_count_too(backend: ModuleType, protocol: str) -> None:
    opening, block = TABLE[protocol].block_opening, TABLE[protocol].one_block
    assembler = getattr(backend, TABLE[protocol].assembler)(max_blocks=2)
    for event in [*opening, block(0), block(1)]:
        assembler.feed_event(event)
    with pytest.raises(StreamLimitError, match="it brings the stream's blocks to 3;"):
        assembler.feed_event(block(2))


def test_blocks_taken_away_make_room(backend: ModuleType) -> None:
    """The limit is on what the messages hold, not on what the stream ever
    opened: an AgentScope message whose content is given whole holds that
    content, not what it streamed before."""
    events = [{"object": "message", "id": "m", "role": "assistant", "status": "in_progress"}]
    events += [
        {"object": "content", "type": "text", "index": n, "delta": True, "msg_id": "m", "text": "x"}
        for n in range(3)
    ]
    done = {"object": "message", "id": "m", "role": "assistant", "status": "completed"}
    events.append({**done, "content": [{"type": "text", "text": "xxx"}]})
    events += [
        {"object": "content", "type": "text", "index": n, "delta": True, "msg_id": "m2", "text": "y"}
        for n in range(2)
    ]
    assembler = backend.AgentScopeAssembler(max_blocks=3)
    assembler.feed(b"".join(frames_of(events)))
    assert [len(message["content"]) for message in assembler.close()["output"]] == [1, 2]


@pytest.mark.parametrize("name", [*(row.assembler for row in TABLE.values()), "NeutralAssembler"])
def test_max_blocks_is_checked_like_the_other_limits(backend: ModuleType, name: str) -> None:
    make = getattr(backend, name)
    args = ("agentscope",) if name == "NeutralAssembler" else ()
    with pytest.raises(ValueError, match=r"^max_blocks must not be negative, got -1$"):
        make(*args, max_blocks=-1)
    with pytest.raises(TypeError, match=r"^max_blocks must be an int or None$"):
        make(*args, max_blocks="1")
    with pytest.raises(TypeError, match=r"^max_blocks must be an int or None$"):
        make(*args, max_blocks=True)
    make(*args, max_blocks=2**100)  # more than memory holds: no limit


def test_converters_take_no_max_blocks(backend: ModuleType) -> None:
    """A Transcoder or NeutralDecoder holds no blocks."""
    with pytest.raises(TypeError):
        backend.Transcoder("agentscope", "langchain", max_blocks=10)
    with pytest.raises(TypeError):
        backend.NeutralDecoder("agentscope", max_blocks=10)
