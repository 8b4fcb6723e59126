"""AG-UI, for the cross-cutting tests."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from . import GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length, loaded, of_the_run


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
    start = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
    ]
    deltas = [{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": piece} for piece in pieces]
    end = [
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    return start, deltas, end


def _judged_calls(messages: list[dict[str, Any]]) -> list[Any]:
    calls = (call for message in messages for call in message.get("toolCalls") or [])
    return [loaded(call["function"]["arguments"]) for call in calls]


def judge(backend: ModuleType, stream: bytes) -> None:
    """Every event one ag-ui-protocol's models take and would write the same,
    the client's verifier passes the run, and the assembler gives the
    messages the client holds."""
    import pytest

    ag_ui = pytest.importorskip("ag_ui.core")
    from pydantic import TypeAdapter

    from agui_reference import apply_events, verify_events
    from sse_helpers import data_events

    adapter: TypeAdapter[Any] = TypeAdapter(ag_ui.Event)
    events = data_events(stream)
    for event in events:
        # What ag-ui-protocol's EventEncoder would write for it, byte for byte.
        model = adapter.validate_python(event)
        assert json.loads(model.model_dump_json(by_alias=True)) == event
    verify_events(events)
    reference = apply_events(events)
    assembler = backend.AGUIAssembler()
    assembler.feed(stream)
    run = assembler.close()
    assert run["messages"] == reference["messages"]
    assert (reference["warnings"] == [] and assembler.errors == []) or run["status"] == "error"


ROW = Row(
    name="agui",
    assembler="AGUIAssembler",
    result="run",
    stream="agentapp/agent_turn.agui.sse",
    recorded_streams=("sdk/agui_*.sse", "agentapp/*.agui.sse"),
    reads=("run", "messages", "state"),
    three_messages=tuple(
        {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "role": "assistant"} for i in range(3)
    ),
    fixed_options={"thread_id": "t", "run_id": "r"},
    cannot_carry=frozenset(
        {"media", "data", "refusal_kind", "corrections", "annotations", "tool_server", "usage"}
    ),
    status_as_carried={"incomplete": "completed", "interrupted": "completed"},
    keeps_foreign_events=True,
    runs_follow_runs=True,
    carries_state=True,
    carries_run_result=True,
    count_blocks=lambda assembler: sum(
        list_length(message.get("toolCalls")) for message in assembler.messages
    ),
    block_opening=({"type": "RUN_STARTED", "threadId": "t", "runId": "r"},),
    one_block=lambda n: {
        "type": "TOOL_CALL_START",
        "toolCallId": f"c{n}",
        "toolCallName": "f",
        "parentMessageId": "m",
    },
    text_opening=({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},),
    text_delta={"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b", "x": 0},
    tool_calls=(ToolCallCase("agui", "tool_calls", "arguments", tool_call_stream),),
    judged_tool_calls=(
        JudgedToolCalls(
            "agentapp/*.agui.sse", of_the_run, lambda recorded: _judged_calls(recorded["agui"]["messages"])
        ),
        JudgedToolCalls("sdk/agui_*.sse", beside, lambda recorded: _judged_calls(recorded["messages"])),
    ),
    results_as_text=True,
    gateway=GatewayCase(
        "/ag-ui",
        lambda question: {
            "threadId": "thread_1",
            "runId": "run_1",
            "messages": [{"id": "u1", "role": "user", "content": question}],
        },
    ),
    judge=judge,
)
