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
