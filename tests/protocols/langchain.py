"""The LangChain Agent Streaming Protocol, for the cross-cutting tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length


def langchain_envelope(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "method": "messages", "params": {"namespace": [], "timestamp": 1, "data": data}}


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
    chunk = {"type": "tool_call_chunk", "id": "call_1", "name": "f", "args": ""}
    start = [
        {"event": "message-start", "role": "ai", "id": "m"},
        {"event": "content-block-start", "index": 0, "content": chunk},
    ]
    deltas = [
        {"event": "content-block-delta", "index": 0, "delta": {"type": "tool-call-delta", "args": piece}}
        for piece in pieces
    ]
    end = [{"event": "message-finish", "reason": "tool_use"}]
    return (
        [langchain_envelope(data) for data in start],
        [langchain_envelope(data) for data in deltas],
        [langchain_envelope(data) for data in end],
    )


def _judged_calls(message: dict[str, Any]) -> list[Any]:
    kinds = ("tool_call", "invalid_tool_call")
    return [block["args"] for block in message["content"] if block["type"] in kinds]


def judge(backend: ModuleType, stream: bytes) -> None:
    """Every event one the assembler takes. (What langchain-core assembles
    from it is test_transcode's, on recorded judgements.)"""
    assembler = backend.LangChainAssembler()
    assembler.feed(stream)
    assembler.close()
    assert all(error["code"] != "invalid_event" for error in assembler.errors)


ROW = Row(
    name="langchain",
    carries_stop_reasons=True,
    assembler="LangChainAssembler",
    result="messages",
    stream="langchain/parallel_tool_calls.sse",
    recorded_streams=("langchain/*.sse", "langchain/server/*.sse"),
    reads=("messages",),
    three_messages=tuple(
        {"method": "messages", "params": {"namespace": [], "data": {"event": "message-start", "id": f"m{i}"}}}
        for i in range(3)
    ),
    fixed_options={"timestamp": 1763700000000},
    # (a command's response or error is not an event of the stream)
    drops_own_event=lambda event: event.get("type", "event") != "event",
    own_event_dropped={"type": "success", "id": 1, "result": {}},
    tool_kinds=frozenset({"server"}),
    namespaces=True,
    cannot_carry=frozenset({"error_code", "refusal_kind", "tool_server", "usage"}),
    status_as_carried={"incomplete": "completed", "cancelled": "interrupted"},
    count_blocks=lambda assembler: sum(list_length(message.get("content")) for message in assembler.messages),
    block_opening=(
        {"method": "messages", "params": {"namespace": [], "data": {"event": "message-start", "id": "m"}}},
    ),
    one_block=lambda n: {
        "method": "messages",
        "params": {
            "namespace": [],
            "data": {
                "event": "content-block-delta",
                "index": n,
                "delta": {"type": "text-delta", "text": "x"},
            },
        },
    },
    text_opening=(
        {"method": "messages", "params": {"namespace": [], "data": {"event": "message-start", "id": "m"}}},
    ),
    text_delta={
        "method": "messages",
        "params": {
            "namespace": [],
            "data": {
                "event": "content-block-delta",
                "index": 0,
                "delta": {"type": "text-delta", "text": "b"},
            },
            "x": 0,
        },
    },
    tool_calls=(ToolCallCase("langchain", "tool_calls", "args", tool_call_stream),),
    judged_tool_calls=(
        JudgedToolCalls("langchain/*.sse", beside, lambda recorded: _judged_calls(recorded["message"])),
    ),
    results_as_text=True,
    gateway=GatewayCase(
        "/threads/t/commands",
        lambda question: {"id": 1, "method": "run.start", "params": {"input": question}},
        read_at=("/threads/t/stream/events", {"channels": ["messages", "lifecycle", "tools"]}),
    ),
    judge=judge,
)
