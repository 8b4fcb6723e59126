"""Anthropic Messages' row: the agent turn as the Messages API streams it,
read by anthropic-sdk-python's ``accumulate_event``; at 2k, 20k and 200k
deltas. And a tool call's input read as it streams, by the same."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import ToolArguments, Workload, converted_workload


def assemble_anthropic_sdk(chunks: list[bytes]) -> Any:
    """anthropic-sdk-python's own path: its SSEDecoder, json, its event
    models and ``accumulate_event`` (what ``client.messages.stream()``
    runs, without the derived events it also builds), skipping pings as
    its Stream does."""
    from anthropic._models import construct_type
    from anthropic._streaming import SSEDecoder
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.event == "ping":
            continue
        event = construct_type(type_=RawMessageStreamEvent, value=json.loads(sse.data))
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


def tool_call_events(pieces: list[str]) -> list[dict[str, Any]]:
    """A message with one tool call whose input streams as ``pieces``."""
    message = {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }
    start = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": start},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in pieces
        ),
    ]


def sdk_models(events: list[dict[str, Any]]) -> list[Any]:
    """The events as anthropic-sdk-python's models."""
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    return TypeAdapter(list[RawMessageStreamEvent]).validate_python(events)


def sdk_tool_input(models: list[Any]) -> Any:
    """The input anthropic-sdk-python's ``accumulate_event`` has after every
    event: its snapshot holds the input re-parsed from the whole buffer on
    every delta."""
    from anthropic.lib.streaming._messages import accumulate_event

    snapshot = None
    buffers: dict[int, bytes] = {}
    value = None
    for event in models:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        if snapshot.content:
            value = snapshot.content[0].input  # type: ignore[union-attr]
    return value


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}
    for n in range(count):
        yield {"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": "x"}}


WORKLOAD: Workload = converted_workload(
    "anthropic",
    layer="assemble_anthropic",
    tiny_blocks=_tiny_blocks,
    instructions={"anthropic-agent": "agent"},
    unit="events",
    peers=(("anthropic-sdk-python accumulate_event", assemble_anthropic_sdk, peers.installed("anthropic")),),
    distributions=("anthropic",),
    tool_arguments=ToolArguments(
        tool_call_events,
        "tool_calls",
        "input",
        ("anthropic-sdk accumulate_event", sdk_models, sdk_tool_input, peers.installed("anthropic")),
    ),
)
