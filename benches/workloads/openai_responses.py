"""OpenAI Responses' row: the agent turn as an AgentApp's Responses endpoint
writes it, read by openai-python's ``ResponseStreamState``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Conversion, Workload, converted_workload


def assemble_responses_openai(chunks: list[bytes]) -> Any:
    """openai-python's own path: its SSEDecoder, json, its event models and
    ResponseStreamState (what ``client.responses.stream()`` runs)."""
    import warnings

    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai._types import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    state = ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sse in SSEDecoder().iter_bytes(iter(chunks)):
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=json.loads(sse.data)))
    return state._completed_response


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}}
    item = {"type": "message", "id": "m", "role": "assistant", "content": []}
    yield {"type": "response.output_item.added", "output_index": 0, "item": item}
    for n in range(count):
        yield {
            "type": "response.output_text.delta",
            "output_index": 0,
            "item_id": "m",
            "content_index": n,
            "delta": "x",
        }


def convert_responses_runtime(chunks: list[bytes]) -> int:
    """ResponsesAdapter.convert_agent_event_to_responses_event, then the
    Responses endpoint's framing (model_dump, json.dumps, an event line)."""
    from agentscope_runtime.engine.deployers.adapter.responses.response_api_adapter_utils import (
        ResponsesAdapter,
    )

    adapter = ResponsesAdapter()
    written = 0
    for event in peers.runtime_events(chunks):
        for converted in adapter.convert_agent_event_to_responses_event(event) or ():
            data = converted.model_dump(exclude_none=True)
            text = json.dumps(data, ensure_ascii=False)
            written += len(f"event: {data.get('type', 'message')}\ndata: {text}\n\n".encode())
    return written


WORKLOAD: Workload = converted_workload(
    "openai-responses",
    layer="assemble_responses",
    tiny_blocks=_tiny_blocks,
    instructions={"responses-agent": "agent"},
    options={"created_at": 1763700000},
    peers=(("openai-python ResponseStreamState", assemble_responses_openai, peers.installed("openai")),),
    distributions=("openai",),
    conversion=Conversion(
        layer="convert_responses",
        label="OpenAI Responses",
        instructions="transcode-responses",
        adapter=(
            "agentscope-runtime ResponsesAdapter",
            convert_responses_runtime,
            peers.installed("orjson") and peers.installed("agentscope_runtime"),
        ),
    ),
)
