"""Hostile input where the two backends once disagreed or lost data: each
test is a reproduction from the differential fuzz campaign, run on both
backends, and fails without its fix."""

from __future__ import annotations

from types import ModuleType

import pytest

from agentcodec import AgentCodecError, AgentScopeError, AgentScopeEventError, SSELimitError

LANGCHAIN_HEAD = b'data: {"type":"event","method":"messages","params":{"namespace":[],"node":"m","data":'


def test_a_langchain_index_written_as_negative_zero_is_block_zero(backend: ModuleType) -> None:
    """JSON's ``-0`` is the integer 0 (Python reads it so); the native
    backend once took it for no index and dropped the delta."""
    stream = b"".join(
        LANGCHAIN_HEAD + data + b"}}\n\n"
        for data in (
            b'{"event":"message-start","role":"ai","id":"m1"}',
            b'{"event":"content-block-start","index":0,"content":{"type":"text","text":""}}',
            b'{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"hello "}}',
            b'{"event":"content-block-delta","index":-0,"delta":{"type":"text-delta","text":"world"}}',
        )
    )
    assembler = backend.LangChainAssembler()
    assembler.feed(stream)
    assert assembler.messages[0]["content"] == [{"type": "text", "text": "hello world"}]


def test_close_applies_the_waiting_events_before_the_hidden_limit_error(backend: ModuleType) -> None:
    """One chunk: a bad event, a good one, then a line over the limit.
    feed() raises for the bad event (the limit error hides behind it); close()
    applies the good event, then raises the limit. The pure backend once
    lost the good event."""
    message = b'{"object":"message","id":"m1","role":"assistant","content":[{"type":"text","text":"kept"}]}'
    chunk = b"data: null\n\ndata: " + message + b"\n\ndata: " + b"x" * 200 + b"\n\n"
    assembler = backend.AgentScopeAssembler(max_line_bytes=150)
    with pytest.raises(AgentScopeEventError):
        assembler.feed(chunk)
    with pytest.raises(SSELimitError):
        assembler.close()
    assert assembler.event_count == 2
    assert [message["id"] for message in assembler.messages] == ["m1"]
    assembler.close()  # the limit was reported: now it closes
    with pytest.raises(AgentScopeError, match="closed"):
        assembler.feed(b"data: {}\n\n")


def test_a_failed_close_still_ends_the_input(backend: ModuleType) -> None:
    """close() ends the input at once, even when an event waiting behind an
    earlier error fails it: the unterminated line is discarded, as SSE
    says, and more input is refused. The native backend once kept the line
    and glued the next feed onto it, turning a valid event into invalid
    JSON; the pure one took the next feed as a new stream."""
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(AgentScopeEventError, match="event 1 is not valid JSON"):
        assembler.feed(b'data: x\n\ndata: y\n\ndata: {"object":"message","id":"z"')
    with pytest.raises(AgentScopeEventError, match="event 2 is not valid JSON"):
        assembler.close()
    with pytest.raises(AgentScopeError, match="the assembler is closed"):
        assembler.feed(b'data: {"object":"message","id":"m2"}\n\n')
    assembler.close()  # nothing waits any more: now it closes
    assert assembler.messages == []
    assert assembler.event_count == 2


def test_a_failed_close_applies_the_rest_when_called_again(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler()
    stream = (
        b"data: x\n\ndata: y\n\n"
        b'data: {"object":"message","id":"m1","role":"assistant","content":[{"type":"text","text":"a"}]}\n\n'
    )
    with pytest.raises(AgentCodecError):
        assembler.feed(stream)
    with pytest.raises(AgentScopeEventError, match="event 2"):
        assembler.close()
    assembler.close()
    assert [message["id"] for message in assembler.messages] == ["m1"]


AGENTSCOPE_PLUGIN_CALL = b'data: {"object":"message","id":"m","type":"plugin_call","role":"assistant"}\n\n'


def test_data_deltas_without_an_index_find_their_call_without_a_scan(backend: ModuleType) -> None:
    """Data deltas with no index and a distinct call id each once scanned
    every slot of the message: quadratic on both backends (20k such events
    took about a minute). 20k of them, each its own slot."""
    events = b"".join(
        b'data: {"object":"content","type":"data","delta":true,"msg_id":"m","data":{"call_id":"c%d"}}\n\n' % i
        for i in range(20_000)
    )
    text = b"".join(
        b'data: {"object":"content","type":"text","msg_id":"t","text":"a"}\n\n' for _ in range(20_000)
    )
    assembler = backend.AgentScopeAssembler()
    assembler.feed(AGENTSCOPE_PLUGIN_CALL + events + text)
    messages = assembler.messages
    assert [block["data"]["call_id"] for block in messages[0]["content"][:3]] == ["c0", "c1", "c2"]
    assert len(messages[0]["content"]) == 20_000
    assert len(messages[1]["content"]) == 20_000  # content without an index takes the next slot


def test_a_data_delta_without_an_index_joins_the_first_slot_of_its_call(backend: ModuleType) -> None:
    """Two slots carry the same call: the delta joins the one first in the
    content (the lower index), whatever order they came in. The pure backend
    once took the one that came first."""
    stream = AGENTSCOPE_PLUGIN_CALL + b"".join(
        b"data: " + event + b"\n\n"
        for event in (
            b'{"object":"content","type":"data","index":5,"msg_id":"m","data":{"call_id":"c","arguments":"five"}}',
            b'{"object":"content","type":"data","index":2,"msg_id":"m","data":{"call_id":"c","arguments":"two"}}',
            b'{"object":"content","type":"data","delta":true,"msg_id":"m","data":{"call_id":"c","arguments":"+"}}',
        )
    )
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    assert [block["data"]["arguments"] for block in assembler.messages[0]["content"]] == ["two+", "five"]
