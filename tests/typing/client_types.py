"""What a type checker makes of the client: checked by mypy with the package
(``[tool.mypy] files``), never run. Each ``assert_type`` is a claim the
typing makes to users; a wrong one fails the lint step."""

from __future__ import annotations

from typing import Any

import httpx
from typing_extensions import assert_type

from agentcodec import agui, anthropic, gemini, langgraph, ollama
from agentcodec.a2a.types import Message as A2AMessage
from agentcodec.a2a.types import Task
from agentcodec.agentscope.types import AgentResponse
from agentcodec.ai_sdk.types import UIMessage
from agentcodec.client import AsyncEventStream, EventStream, aassemble, aconnect, assemble, connect
from agentcodec.openai_chat.types import ChatCompletion
from agentcodec.openai_responses.types import Response, StreamEvent


def results_by_protocol(source: bytes) -> None:
    assert_type(assemble([source], "agentscope"), AgentResponse)
    assert_type(assemble([source], "langchain"), list[dict[str, Any]])
    assert_type(assemble([source], "agui"), agui.Run)
    assert_type(assemble([source], "openai-responses"), Response)
    assert_type(assemble([source], "openai-chat"), ChatCompletion)
    assert_type(assemble([source], "anthropic"), anthropic.Message)
    assert_type(assemble([source], "ai-sdk"), UIMessage)
    assert_type(assemble([source], "a2a"), Task | A2AMessage | None)
    assert_type(assemble([source], "ollama"), ollama.ChatResponse | ollama.GenerateResponse)
    assert_type(assemble([source], "gemini"), gemini.GenerateContentResponse)
    assert_type(assemble([source], "langgraph"), langgraph.AssembledRun)
    assert_type(assemble([source], assembler=agui.Assembler()), agui.Run)


def streams_by_protocol(client: httpx.Client, source: bytes) -> None:
    with connect(client, "POST", "http://agent/run", protocol="anthropic", json={}) as stream:
        assert_type(stream, EventStream[anthropic.StreamEvent, anthropic.Message])
        for event in stream:
            if event["type"] == "content_block_delta":
                assert_type(event, anthropic.ContentBlockDeltaEvent)
        assert_type(stream.until_done(), anthropic.Message)
        assert stream.assembler is not None
        assert_type(stream.assembler.result, anthropic.Message)
    with connect(client, "GET", "http://agent/run", assembler=agui.Assembler()) as stream_of_run:
        assert_type(stream_of_run.until_done(), agui.Run)
    assert_type(EventStream([source], assembler=agui.Assembler()), EventStream[agui.Event, agui.Run])
    assert_type(EventStream([source], "agui"), EventStream[Any, Any])
    assert_type(EventStream([source]), EventStream[Any, Any])


async def async_streams_by_protocol(client: httpx.AsyncClient, source: bytes) -> None:
    async with aconnect(client, "POST", "http://agent/run", protocol="openai-responses") as stream:
        assert_type(stream, AsyncEventStream[StreamEvent, Response])
        assert_type(await stream.until_done(), Response)
    assert_type(await aassemble(stream, "agui"), agui.Run)


def tool_calls_only_where_they_stream(source: bytes) -> None:
    """Ollama's and A2A's assemblers have no ``tool_calls`` (its tool calls
    come whole; A2A has none): the typing says so."""
    _ = ollama.Assembler().tool_calls  # type: ignore[attr-defined]
    _ = gemini.Assembler().tool_calls  # type: ignore[attr-defined]
    assert_type(agui.Assembler().tool_calls, list[dict[str, Any]])
