"""The Vercel AI SDK UI message stream, for the cross-cutting tests."""

from __future__ import annotations

import json
from typing import Any

from agentcodec import ai_sdk
from sse_helpers import data_events

from . import BuiltTurn, GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length, loaded


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
    start = [
        {"type": "start", "messageId": "m"},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
    ]
    deltas = [{"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": piece} for piece in pieces]
    end = [
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": json.loads(text)},
        {"type": "finish"},
        "[DONE]",
    ]
    return start, deltas, end


def _judged_calls(message: dict[str, Any]) -> list[Any]:
    tools = (
        part
        for part in message["parts"]
        if part["type"].startswith("tool-") or part["type"] == "dynamic-tool"
    )
    return [part["input"] if "input" in part else loaded(part["rawInput"]) for part in tools]


def _built_turn() -> list[dict[str, Any]]:
    builder = ai_sdk.UIMessageStreamBuilder()
    return data_events(
        builder.add_text_delta("hi") + builder.add_tool_call("weather", "{}") + builder.finish()
    )


ROW = Row(
    name="ai-sdk",
    carries_stop_reasons=True,
    stop_reason_words={
        "refusal": "content_filter",
        "pause_turn": "other",
        "tool_use": "tool_calls",
        "max_tokens": "length",
    },
    assembler="AISDKAssembler",
    result="message",
    stream="ai_sdk/ai_sdk_tool_turn.sse",
    recorded_streams=("ai_sdk/*.sse",),
    reads=("message",),
    ended_by_done=True,
    fixed_options={"message_id": "m"},
    # (media is written whole, once complete: streamed media lands after what started meanwhile)
    signatures_in_provider_metadata=True,
    tool_kinds=frozenset({"server"}),
    cannot_carry=frozenset(
        {
            "error_code",
            "signatures",
            "refusal_kind",
            "corrections",
            "media_order",
            "tool_server",
            "usage",
            "annotations",
        }
    ),
    status_as_carried={"interrupted": "completed"},
    count_blocks=lambda assembler: list_length(assembler.message.get("parts")),
    block_opening=({"type": "start", "messageId": "m"},),
    one_block=lambda n: {"type": "text-start", "id": f"t{n}"},
    text_opening=({"type": "start", "messageId": "m"}, {"type": "text-start", "id": "t"}),
    text_delta={"type": "text-delta", "id": "t", "delta": "b", "x": 0},
    tool_calls=(ToolCallCase("ai-sdk", "tool_calls", "input", tool_call_stream),),
    judged_tool_calls=(
        JudgedToolCalls("ai_sdk/*.sse", beside, lambda recorded: _judged_calls(recorded["message"])),
    ),
    built_turn=BuiltTurn(_built_turn, (("toolCallId",),), (r"call_[0-9A-Za-z]{24}",)),
    # What useChat's DefaultChatTransport posts.
    gateway=GatewayCase(
        "/ai-sdk/chat",
        lambda question: {
            "id": "chat-1",
            "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": question}]}],
            "trigger": "submit-message",
        },
    ),
)
