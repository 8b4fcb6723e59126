"""Builders given no ids make their own: unique, so that two streams never
share one (a client's history or a replay store keyed by id would merge
them), and shaped as each provider's own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from agentcodec import ai_sdk, anthropic, openai_chat, openai_responses


def events_of(stream: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[len(b"data: ") :]) for line in stream.split(b"\n") if line.startswith(b"data: {")]


def responses_turn() -> list[dict[str, Any]]:
    builder = openai_responses.ResponseBuilder()
    out = builder.start() + builder.add_reasoning_delta("think") + builder.add_text_delta("hi")
    out += builder.add_function_call("weather", "{}") + builder.complete()
    return events_of(out)


def chat_turn() -> list[dict[str, Any]]:
    builder = openai_chat.ChatCompletionBuilder()
    return events_of(
        builder.add_content_delta("hi") + builder.add_tool_call("weather", "{}") + builder.finish()
    )


def anthropic_turn() -> list[dict[str, Any]]:
    builder = anthropic.MessageStreamBuilder()
    return events_of(builder.add_text_delta("hi") + builder.add_tool_use("weather", "{}") + builder.finish())


def ai_sdk_turn() -> list[dict[str, Any]]:
    builder = ai_sdk.UIMessageStreamBuilder()
    return events_of(builder.add_text_delta("hi") + builder.add_tool_call("weather", "{}") + builder.finish())


def ids(events: list[dict[str, Any]], paths: list[tuple[str, ...]]) -> list[str]:
    found = []
    for event in events:
        for path in paths:
            value: Any = event
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, str):
                found.append(value)
    return sorted(set(found))


TURNS: list[tuple[str, Callable[[], list[dict[str, Any]]], list[tuple[str, ...]], list[str]]] = [
    (
        "openai-responses",
        responses_turn,
        [("response", "id"), ("item", "id"), ("item", "call_id")],
        [r"resp_[0-9a-f]{48}", r"(msg|rs|fc)_[0-9a-f]{48}", r"call_[0-9A-Za-z]{24}"],
    ),
    (
        "openai-chat",
        chat_turn,
        [("id",), ("choices", "0", "delta", "tool_calls", "0", "id")],
        [r"chatcmpl-[0-9A-Za-z]{29}", r"call_[0-9A-Za-z]{24}"],
    ),
    (
        "anthropic",
        anthropic_turn,
        [("message", "id"), ("content_block", "id")],
        [r"msg_01[0-9A-Za-z]{22}", r"toolu_01[0-9A-Za-z]{22}"],
    ),
    ("ai-sdk", ai_sdk_turn, [("toolCallId",)], [r"call_[0-9A-Za-z]{24}"]),
]


def flatten_lists(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lists as dicts keyed "0", "1", ..., so that a path can walk them."""

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return {str(i): walk(item) for i, item in enumerate(value)}
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    return [walk(event) for event in events]


@pytest.mark.parametrize(("protocol", "turn", "paths", "shapes"), TURNS, ids=[row[0] for row in TURNS])
def test_two_streams_share_no_id_and_each_id_has_the_providers_shape(
    protocol: str, turn: Callable[[], list[dict[str, Any]]], paths: list[tuple[str, ...]], shapes: list[str]
) -> None:
    first, second = (ids(flatten_lists(turn()), paths) for _ in range(2))
    assert not set(first) & set(second), (first, second)
    for found in first:
        assert any(re.fullmatch(shape, found) for shape in shapes), found
    for shape in shapes:
        assert any(re.fullmatch(shape, found) for found in first), (shape, first)


def test_ids_given_are_kept() -> None:
    builder = openai_chat.ChatCompletionBuilder(completion_id="chatcmpl-1")
    events = events_of(builder.add_tool_call("f", "{}", call_id="call_x") + builder.finish())
    assert {event["id"] for event in events} == {"chatcmpl-1"}
    calls = [call for event in events for call in event["choices"][0]["delta"].get("tool_calls") or []]
    assert calls[0]["id"] == "call_x"
