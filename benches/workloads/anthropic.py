"""Anthropic Messages' row: the agent turn as the Messages API streams it,
read by anthropic-sdk-python's ``accumulate_event``; at 2k, 20k and 200k
deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


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
)
