"""OpenAI Chat Completions, for the cross-cutting tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from agentcodec import openai_chat
from sse_helpers import data_events

from . import BuiltTurn, GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length, loaded

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


def judge(backend: ModuleType, stream: bytes) -> None:
    """The choices openai-python's ``ChatCompletionStreamState``
    accumulates, each chunk read as its client reads one (``construct_type``:
    Azure's first chunk says its ``object`` is ``""``), are those the
    assembler gives (nulls aside: the SDK fills in every field it knows),
    where the choices first come in their order (the SDK places a choice by
    arrival, the assembler by index). The completion's own fields are the
    first chunk's for the SDK (Azure's prompt filter chunk has empty ones),
    the first that says them for the assembler."""
    import json
    import warnings

    import pytest

    streaming = pytest.importorskip("openai.lib.streaming.chat")
    from openai._models import construct_type
    from openai.types.chat import ChatCompletionChunk

    chunks = [chunk for chunk in data_events(stream) if "choices" in chunk]
    state: Any = streaming.ChatCompletionStreamState()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for chunk in chunks:
            state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=json.loads(json.dumps(chunk))))
        expected = state.current_completion_snapshot.to_dict() if chunks else None
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(stream)
    completion = assembler.close()
    arrival = [choice["index"] for chunk in chunks for choice in chunk["choices"]]
    first = list(dict.fromkeys(arrival))
    if expected is not None and first == sorted(first):
        assert comparable(completion["choices"]) == comparable(expected["choices"])


def comparable(value: Any) -> Any:
    """A completion without what only says "nothing": null fields (the SDK's
    models fill in every field they know with None, agentcodec keeps what
    was sent) and the SDK's own ``parsed`` and ``parsed_arguments``."""
    if isinstance(value, dict):
        return {
            key: comparable(item)
            for key, item in value.items()
            if item is not None and key not in ("parsed", "parsed_arguments")
        }
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


ROW = Row(
    name="openai-chat",
    carries_stop_reasons=True,
    stop_reason_words={
        "safety": "content_filter",
        "end_turn": "stop",
        "tool_use": "tool_calls",
        "max_tokens": "length",
    },
    stop_reasons={"max_output_tokens": "length", "content_filter": "content_filter", "length": "length"},
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
            "message_boundary",
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
    gateway=GatewayCase(
        "/v1/chat/completions",
        lambda question: {"model": "m", "messages": [{"role": "user", "content": question}], "stream": True},
        converts_with={"executed_tool_calls": "omit", "message_separator": "\n\n"},
    ),
    judge=judge,
)
