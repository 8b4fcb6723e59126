"""AG-UI's row: the agent turn as an AgentApp's AG-UI endpoint writes it,
read by ag-ui-protocol's event models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Conversion, Workload, converted_workload


def assemble_agui_models(chunks: list[bytes]) -> Any:
    """ag-ui-protocol's event models (each event validated, as its Python
    client does) with the least accumulating that gets messages right: text
    and reasoning by message id, arguments by tool call, results."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: Any = TypeAdapter(Event)
    messages: dict[str, dict[str, Any]] = {}
    calls: dict[str, dict[str, Any]] = {}
    for event in (adapter.validate_python(data) for data in peers.decode_httpx_sse_json(chunks)):
        kind = event.type.value if hasattr(event.type, "value") else event.type
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            messages[event.message_id] = {"id": event.message_id, "role": event.role, "content": ""}
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            messages[event.message_id]["content"] += event.delta
        elif kind == "TOOL_CALL_START":
            calls[event.tool_call_id] = {
                "id": event.tool_call_id,
                "name": event.tool_call_name,
                "arguments": "",
            }
        elif kind == "TOOL_CALL_ARGS":
            calls[event.tool_call_id]["arguments"] += event.delta
        elif kind == "TOOL_CALL_RESULT":
            messages[event.message_id] = {"id": event.message_id, "role": "tool", "content": event.content}
    return messages, calls


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    for n in range(count):
        call = {"toolCallId": f"c{n}", "toolCallName": "f", "parentMessageId": "m"}
        yield {"type": "TOOL_CALL_START", **call}


def convert_agui_runtime(chunks: list[bytes]) -> int:
    """AGUIAdapterUtils.convert_agent_event_to_agui_events, then the AG-UI
    endpoint's framing (model_dump by alias, json.dumps)."""
    from agentscope_runtime.engine.deployers.adapter.agui.agui_adapter_utils import AGUIAdapterUtils

    adapter = AGUIAdapterUtils(thread_id="t", run_id="r")
    written = 0
    for event in peers.runtime_events(chunks):
        for agui in adapter.convert_agent_event_to_agui_events(event):
            data = agui.model_dump(mode="json", exclude_none=True, by_alias=True)
            written += len(f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
    return written


WORKLOAD: Workload = converted_workload(
    "agui",
    layer="assemble_agui",
    tiny_blocks=_tiny_blocks,
    instructions={"agui-agent": "agent"},
    options={"thread_id": "t", "run_id": "r"},
    peers=(
        (
            "ag-ui-protocol models + accumulator",
            assemble_agui_models,
            peers.installed("ag_ui.core") and peers.installed("httpx_sse"),
        ),
    ),
    distributions=("ag-ui-protocol",),
    conversion=Conversion(
        layer="convert_agui",
        label="AG-UI",
        instructions="transcode-agui",
        adapter=(
            "agentscope-runtime AGUIAdapterUtils",
            convert_agui_runtime,
            peers.installed("orjson") and peers.installed("agentscope_runtime"),
        ),
    ),
)
