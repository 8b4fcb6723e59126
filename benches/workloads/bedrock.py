"""Bedrock's row: the agent turn as ConverseStream streams it (an AWS event
stream message a delta: reasoning, text, tool input fragments), read as a
user of botocore reads it; at 2k, 20k and 200k deltas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


def assemble_botocore(chunks: list[bytes]) -> Any:
    """botocore's own path (``client.converse_stream()['stream']``): its
    event-stream buffer and the service model's parser an event; then what
    its users write to keep the reply: the text and reasoning joined, each
    tool use's input joined and parsed, the stop reason and usage."""
    import json

    import botocore.session
    from botocore.eventstream import EventStream
    from botocore.parsers import EventStreamJSONParser

    class Raw:
        def stream(self, amt: int = 1024) -> Iterator[bytes]:
            yield from chunks

        def close(self) -> None:
            pass

    shape = _stream_shape(botocore.session)
    blocks: dict[int, dict[str, Any]] = {}
    reply: dict[str, Any] = {}
    for event in EventStream(Raw(), shape, EventStreamJSONParser(), "ConverseStream"):
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            blocks[start["contentBlockIndex"]] = {"tool": start["start"].get("toolUse"), "input": []}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            block = blocks.setdefault(delta["contentBlockIndex"], {"text": [], "reasoning": []})
            piece = delta["delta"]
            if "text" in piece:
                block.setdefault("text", []).append(piece["text"])
            elif "toolUse" in piece:
                block["input"].append(piece["toolUse"]["input"])
            elif "reasoningContent" in piece:
                block.setdefault("reasoning", []).append(piece["reasoningContent"].get("text", ""))
        elif "messageStop" in event:
            reply["stopReason"] = event["messageStop"]["stopReason"]
        elif "metadata" in event:
            reply["usage"] = event["metadata"].get("usage")
    content = []
    for _, block in sorted(blocks.items()):
        if block.get("tool") is not None:
            content.append(
                {"toolUse": {**block["tool"], "input": json.loads("".join(block["input"]) or "{}")}}
            )
        else:
            content.append(
                {"text": "".join(block.get("text", [])), "reasoning": "".join(block.get("reasoning", []))}
            )
    reply["content"] = content
    return reply


_SHAPE: list[Any] = []


def _stream_shape(session_module: Any) -> Any:
    """The service model's stream shape, loaded once (as a client holds it)."""
    if not _SHAPE:
        model = session_module.get_session().get_service_model("bedrock-runtime")
        _SHAPE.append(model.operation_model("ConverseStream").output_shape.members["stream"])
    return _SHAPE[0]


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"messageStart": {"role": "assistant"}}
    for n in range(count):
        yield {"contentBlockDelta": {"delta": {"text": "x"}, "contentBlockIndex": n}}


WORKLOAD: Workload = converted_workload(
    "bedrock",
    layer="assemble_bedrock",
    tiny_blocks=_tiny_blocks,
    instructions={"bedrock-agent": "agent"},
    unit="events",
    peers=(("botocore + join", assemble_botocore, peers.installed("botocore")),),
    distributions=("botocore",),
)
