"""What a type checker makes of the client: checked by mypy with the package
(``[tool.mypy] files``), never run. Each ``assert_type`` is a claim the
typing makes to users; a wrong one fails the lint step.

The client is typed by the assembler it reads into, whichever the protocol:
these claims hold for every protocol's ``Assembler`` (each is an
``_Assembler`` of its events and result in the stubs), so one protocol shows
them. A protocol's name alone types the stream as ``Any``."""

from __future__ import annotations

from typing import Any

import httpx
from typing_extensions import assert_type

from agentcodec import agentscope
from agentcodec.client import AsyncEventStream, EventStream, aassemble, aconnect, assemble, connect


def results_by_assembler(source: bytes) -> None:
    assert_type(assemble([source], assembler=agentscope.Assembler()), agentscope.AgentResponse)
    assert_type(assemble([source], "agentscope"), Any)


def streams_by_assembler(client: httpx.Client, source: bytes) -> None:
    with connect(client, "POST", "http://agent/run", assembler=agentscope.Assembler(), json={}) as stream:
        assert_type(stream, EventStream[agentscope.Event, agentscope.AgentResponse])
        for event in stream:
            assert_type(event, agentscope.Event)
        assert_type(stream.until_done(), agentscope.AgentResponse)
        assert stream.assembler is not None
        assert_type(stream.assembler.result, agentscope.AgentResponse)
    with connect(client, "GET", "http://agent/run", protocol="agentscope") as named:
        assert_type(named, EventStream[Any, Any])
    assert_type(
        EventStream([source], assembler=agentscope.Assembler()),
        EventStream[agentscope.Event, agentscope.AgentResponse],
    )
    assert_type(EventStream([source], "agentscope"), EventStream[Any, Any])
    assert_type(EventStream([source]), EventStream[Any, Any])


async def async_streams_by_assembler(client: httpx.AsyncClient, source: bytes) -> None:
    async with aconnect(client, "POST", "http://agent/run", assembler=agentscope.Assembler()) as stream:
        assert_type(stream, AsyncEventStream[agentscope.Event, agentscope.AgentResponse])
        assert_type(await stream.until_done(), agentscope.AgentResponse)
    assert_type(await aassemble(stream, assembler=agentscope.Assembler()), agentscope.AgentResponse)
