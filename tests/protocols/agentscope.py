"""The AgentScope Runtime Agent API (``/process``), for the cross-cutting tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length, loaded


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
    response = {"object": "response", "id": "r", "status": "in_progress", "output": []}
    message = {
        "object": "message",
        "id": "m",
        "type": "function_call",
        "role": "assistant",
        "status": "in_progress",
    }
    data = {"call_id": "c", "name": "f"}
    content = {"object": "content", "type": "data", "index": 0, "msg_id": "m", "status": "in_progress"}
    start = [response, message]
    deltas = [{**content, "delta": True, "data": {**data, "arguments": piece}} for piece in pieces]
    end = [
        {**content, "delta": False, "status": "completed", "data": {**data, "arguments": text}},
        {**message, "status": "completed"},
        {**response, "status": "completed"},
    ]
    return start, deltas, end


def _judged_calls(response: dict[str, Any]) -> list[Any]:
    messages = response["output"] or []
    contents = (content for message in messages for content in message.get("content") or [])
    return [
        loaded(content["data"]["arguments"])
        for content in contents
        if content["type"] == "data" and "arguments" in (content.get("data") or {})
    ]


def judge(backend: ModuleType, stream: bytes) -> None:
    """Every event one the strict assembler takes."""
    assembler = backend.AgentScopeAssembler(strict=True)
    assembler.feed(stream)
    assembler.close()
    assert all(error["code"] != "invalid_event" for error in assembler.errors)


ROW = Row(
    name="agentscope",
    assembler="AgentScopeAssembler",
    result="response",
    stream="agentscope/builder_agent_turn.sse",
    recorded_streams=("agentscope/*.sse", "agentapp/*.process.sse", "java/*.sse"),
    reads=("response", "messages"),
    fixed_options={"session_id": "s", "response_id": "r", "created_at": 1763700000},
    status_as_carried={"interrupted": "incomplete"},
    count_blocks=lambda assembler: sum(list_length(message.get("content")) for message in assembler.messages),
    block_opening=({"object": "message", "id": "m", "role": "assistant", "status": "in_progress"},),
    one_block=lambda n: {
        "object": "content",
        "type": "text",
        "index": n,
        "delta": True,
        "msg_id": "m",
        "text": "x",
    },
    text_opening=({"object": "message", "id": "m", "role": "assistant", "content": []},),
    text_delta={
        "object": "content",
        "type": "text",
        "index": 0,
        "delta": True,
        "msg_id": "m",
        "text": "b",
        "x": 0,
    },
    tool_calls=(ToolCallCase("agentscope", "tool_calls", "arguments", tool_call_stream),),
    judged_tool_calls=(
        JudgedToolCalls("agentscope/*.sse", beside, lambda recorded: _judged_calls(recorded["final"])),
    ),
    # A reasoning message has no place for a signature.
    tool_kinds=frozenset({"plugin", "mcp", "component"}),
    cannot_carry=frozenset({"signatures", "annotations"}),
    gateway=GatewayCase(
        "/process",
        lambda question: {"input": [{"role": "user", "content": [{"type": "text", "text": question}]}]},
    ),
    judge=judge,
)
