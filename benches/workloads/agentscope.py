"""The AgentScope Agent API's row: the builders' streams, read by hand
(bytes.find or httpx-sse, and json) and by agentscope-runtime's models."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Case, Workload, agentscope_stream, assembling


def _cases(quick: bool, long: int) -> list[Case]:
    short, text = agentscope_stream("text", 200), agentscope_stream("text", long)
    cases = [assembling(stream) for stream in (short, text, agentscope_stream("agent", long))]
    cases.append(Case(f"assemble {text.name}, one buffer", text, [text.data]))
    # agentscope-runtime's peer here assembles text content only.
    cases.append(dataclasses.replace(assembling(agentscope_stream("media", long * 10)), skip=("runtime",)))
    return cases


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"object": "message", "id": "m", "role": "assistant", "status": "in_progress"}
    for n in range(count):
        yield {"object": "content", "type": "text", "index": n, "delta": True, "msg_id": "m", "text": "x"}


WORKLOAD = Workload(
    protocol="agentscope",
    layer="assemble_agentscope",
    stream=agentscope_stream,
    cases=_cases,
    tiny_blocks=_tiny_blocks,
    instructions={"agentscope-text": "text", "agentscope-agent": "agent"},
    suite_count=2000,
    peers=(
        ("hand-rolled bytes.find + orjson", peers.assemble_agentscope_handrolled, peers.installed("orjson")),
        ("httpx-sse + json", peers.assemble_agentscope_httpx_sse, peers.installed("httpx_sse")),
        (
            "agentscope-runtime add_delta_content",
            peers.assemble_agentscope_upstream,
            peers.installed("httpx_sse") and peers.installed("agentscope_runtime"),
        ),
    ),
    distributions=("agentscope-runtime", "pydantic"),
)
