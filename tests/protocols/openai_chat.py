"""OpenAI Chat Completions, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from agentcodec import openai_chat
from sse_helpers import data_events

from . import BuiltTurn, JudgedToolCalls, Row, ToolCallCase, beside, list_length, loaded

CHUNK = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chat_choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {**CHUNK, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
    start = chat_choice(
        {
            "role": "assistant",
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
            ],
        }
    )
    deltas = [
        chat_choice({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces
    ]
    return [start], deltas, [chat_choice({}, "tool_calls"), "[DONE]"]


def _judged_calls(completion: dict[str, Any]) -> list[Any]:
    calls = (call for choice in completion["choices"] for call in choice["message"].get("tool_calls") or [])
    return [loaded(call["function"]["arguments"]) for call in calls]


def _built_turn() -> list[dict[str, Any]]:
    builder = openai_chat.ChatCompletionBuilder()
    return data_events(
        builder.add_content_delta("hi") + builder.add_tool_call("weather", "{}") + builder.finish()
    )


ROW = Row(
    name="openai-chat",
    keeps_concurrent_messages=False,
    assembler="OpenAIChatAssembler",
    result="completion",
    stream="sdk/chat_every_field.sse",
    recorded_streams=("sdk/chat_*.sse",),
    reads=("completion",),
    ended_by_done=True,
    three_messages=tuple(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": i, "delta": {"role": "assistant", "content": "x"}}],
        }
        for i in range(3)
    ),
    fixed_options={"response_id": "chatcmpl-1", "model": "m", "created_at": 1763700000},
    # (and a block finishes only when its choice does: in a cut stream, no tool call has)
    # Its legacy function_call delta.
    tool_kinds=frozenset({"function_call"}),
    cannot_carry=frozenset(
        {
            "signatures",
            "media",
            "data",
            "tool_result",
            "corrections",
            "block_ends",
            "tool_server",
            "usage",
            "annotations",
        }
    ),
    status_as_carried={"cancelled": "completed", "interrupted": "completed"},
    count_blocks=lambda assembler: sum(
        list_length(choice["message"].get("tool_calls"))
        for choice in assembler.completion.get("choices") or ()
    ),
    block_opening=(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant"}}],
        },
    ),
    one_block=lambda n: {
        "id": "c",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [{"index": n, "id": f"c{n}", "function": {"name": "f", "arguments": ""}}]
                },
            }
        ],
    },
    text_opening=(),
    text_delta={
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": None}],
        "x": 0,
    },
    tool_calls=(ToolCallCase("openai-chat", "tool_calls", "arguments", tool_call_stream),),
    judged_tool_calls=(
        JudgedToolCalls(
            "sdk/chat_*.sse", beside, lambda recorded: _judged_calls(recorded["final_completion"])
        ),
    ),
    built_turn=BuiltTurn(
        _built_turn,
        (("id",), ("choices", "0", "delta", "tool_calls", "0", "id")),
        (r"chatcmpl-[0-9A-Za-z]{29}", r"call_[0-9A-Za-z]{24}"),
    ),
    carries_choices=True,
)
