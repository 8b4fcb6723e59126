"""Limits on what one stream makes an assembler hold, beyond the SSE layer's:
``max_stream_bytes`` (the data its events bring, and what JSON Patch copies
duplicate). Both backends refuse the same event with the same words, and
what came before stays. (A protocol's limits of its own, such as what a
patched state may grow to, are in its tests.)"""

from __future__ import annotations

import json
import pickle
import re
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AgentCodecError, StreamLimitError
from protocol_table import TABLE
from test_hostile_input import TEXT_DELTAS

ASSEMBLERS = [row.assembler for row in TABLE.values()]


def data(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def frame(event: dict[str, Any]) -> bytes:
    return b"data: " + data(event).encode() + b"\n\n"


def size(event: dict[str, Any]) -> int:
    return len(data(event).encode())


@pytest.mark.parametrize("protocol", list(TEXT_DELTAS))
@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_stream_past_max_stream_bytes_ends_there_and_what_came_before_stays(
    backend: ModuleType, protocol: str, on_error: str
) -> None:
    name, view, opening, delta = TEXT_DELTAS[protocol]
    head = b"".join(frame(event) for event in opening)

    def counted(event: dict[str, Any]) -> int:
        # Where event names say what each event is, the event as read is
        # counted: {"event": <its name>, "data": <its data>}.
        named = TABLE[protocol].framing == "named"
        return size(event) + (len('{"event":"message","data":}') if named else 0)

    limit = sum(counted(event) for event in opening) + 3 * counted(delta)
    reference = getattr(backend, name)()
    reference.feed(head + frame(delta) * 3)
    streaming = getattr(reference, view)
    reference.close()

    assembler = getattr(backend, name)(max_stream_bytes=limit, on_error=on_error)
    assembler.feed(head + frame(delta) * 3)  # exactly the limit: taken
    assert getattr(assembler, view) == streaming
    refused = len(opening) + 4
    with pytest.raises(StreamLimitError) as info:
        assembler.feed(frame(delta) * 2)
    error = info.value
    assert (error.limit, error.maximum, error.event) == ("max_stream_bytes", limit, refused)
    assert str(error) == (
        f"{error.subject} {refused} exceeds max_stream_bytes={limit}: its data is {counted(delta)} bytes,"
        f" after the {limit} the stream has brought; the assembler takes no more input"
    )
    assert isinstance(error, ValueError)
    assert pickle.loads(pickle.dumps(error)).args == error.args
    # Whatever on_error says: the stream is over, and says why again.
    with pytest.raises(StreamLimitError, match=f"^{re.escape(str(error))}$"):
        assembler.feed(frame(delta))
    assert assembler.error_count == 0
    assembler.close()
    assert getattr(assembler, view) == getattr(reference, view)
    with pytest.raises(AgentCodecError, match=r"closed$"):
        assembler.feed(b"")


def test_the_bytes_counted_are_utf8_on_both_backends(backend: ModuleType) -> None:
    """Non-ASCII text counts its UTF-8 bytes, not its characters."""
    opening = {"object": "message", "id": "m", "role": "assistant", "content": []}
    delta = {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": "é😀"}
    exact = size(opening) + size(delta)
    assert exact == len(data(opening)) + len(data(delta)) + 4
    taken = backend.AgentScopeAssembler(max_stream_bytes=exact)
    taken.feed(frame(opening) + frame(delta))
    assert taken.messages[0]["content"][0]["text"] == "é😀"
    refused = backend.AgentScopeAssembler(max_stream_bytes=exact - 1)
    with pytest.raises(
        StreamLimitError, match=f"its data is {size(delta)} bytes, after the {size(opening)} "
    ):
        refused.feed(frame(opening) + frame(delta))


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
        args = ("agentscope",) if name == "NeutralAssembler" else ()
        for limit in ("max_stream_bytes", "max_messages"):
            with pytest.raises(ValueError, match=f"^{limit} must not be negative, got -1$"):
                make(*args, **{limit: -1})
            with pytest.raises(TypeError, match=f"^{limit} must be an int or None$"):
                make(*args, **{limit: "1"})
            make(*args, **{limit: 2**100})  # more than memory holds: no limit


@pytest.mark.parametrize("limit", ["max_stream_bytes", "max_messages"])
def test_converters_take_no_such_limit(backend: ModuleType, limit: str) -> None:
    """A Transcoder or NeutralDecoder holds nothing the stream brings, so
    neither takes these limits: a long conversion is never cut short."""
    with pytest.raises(TypeError):
        backend.Transcoder("agentscope", "langchain", **{limit: 10})
    with pytest.raises(TypeError):
        backend.NeutralDecoder("agentscope", **{limit: 10})


def tiny_messages(count: int) -> bytes:
    """AgentScope messages of one short text each, as a server streams them."""
    return b"".join(
        frame({"object": "message", "id": f"m{index}", "role": "assistant", "status": "in_progress"})
        + frame(
            {
                "object": "content",
                "type": "text",
                "index": 0,
                "delta": True,
                "msg_id": f"m{index}",
                "text": "hi",
            }
        )
        for index in range(count)
    )


@pytest.mark.parametrize("on_error", ["raise", "skip"])
def test_a_stream_past_max_messages_ends_there(backend: ModuleType, on_error: str) -> None:
    """A message costs its assembler a few hundred bytes whatever its size,
    so a stream of tiny messages is bounded by a count of its own: the event
    that starts one message too many is the stream's last."""
    assembler = backend.AgentScopeAssembler(max_messages=1000, on_error=on_error)
    with pytest.raises(StreamLimitError) as info:
        assembler.feed(tiny_messages(1500))
    assert (info.value.limit, info.value.maximum, info.value.event) == ("max_messages", 1000, 2001)
    assert str(info.value) == (
        "AgentScope event 2001 exceeds max_messages=1000: it brings the stream's messages to 1001;"
        " the assembler takes no more input"
    )
    with pytest.raises(StreamLimitError):
        assembler.feed_event({"object": "message", "id": "late", "role": "assistant"})
    assembler.close()
    messages = assembler.messages
    assert len(messages) == 1001
    assert [message["content"][0]["text"] for message in messages[:1000]] == ["hi"] * 1000
    assert assembler.response["status"] == "incomplete"
    assert assembler.event_count == 2001


def test_messages_given_decoded_count_too(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler(max_messages=2)
    for index in range(2):
        assembler.feed_event({"object": "message", "id": f"m{index}", "role": "assistant"})
    with pytest.raises(StreamLimitError, match="it brings the stream's messages to 3;"):
        assembler.feed_event({"object": "message", "id": "m2", "role": "assistant"})


@pytest.mark.parametrize("protocol", [name for name, row in TABLE.items() if row.three_messages], ids=str)
def test_every_protocol_counts_its_messages(backend: ModuleType, protocol: str) -> None:
    """Two messages fit; the third ends the stream, in each protocol with more
    than one, in its own assembler and in the neutral view."""
    events = TABLE[protocol].three_messages
    assembler = getattr(backend, TABLE[protocol].assembler)(max_messages=2)
    with pytest.raises(StreamLimitError, match="it brings the stream's messages to 3;") as info:
        assembler.feed(b"".join(frame(event) for event in events))
    assert info.value.event == len(events)
    neutral = backend.NeutralAssembler(protocol, max_messages=2)
    with pytest.raises(StreamLimitError, match="it brings the stream's messages to 3;"):
        neutral.feed(b"".join(frame(event) for event in events))
