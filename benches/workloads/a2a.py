"""A2A's row: the agent turn as an A2A 1.0 server streams it (what an
AgentApp's A2A endpoint carries of it: the text, as artifact chunks), read
the way a2a-sdk 1.x reads it; at 2k, 20k and 200k deltas."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


def assemble_a2a_sdk(chunks: list[bytes]) -> Any:
    """a2a-sdk 1.x's own path: its JSON-RPC client transport's SSE parsing
    over an httpx response (``parse_sse_stream``), json, the lenient
    protobuf parse into ``StreamResponse``, and the Task accumulated by its
    ``TaskManager`` (the SDK's only accumulator; over an in-memory store
    that does not copy the task on every event, the cheapest it offers),
    given as JSON at the end."""
    import httpx
    from a2a.client.transports.http_helpers import parse_sse_stream
    from a2a.server.context import ServerCallContext
    from a2a.server.tasks import InMemoryTaskStore, TaskManager
    from a2a.types import StreamResponse
    from a2a.utils.proto_utils import parse_lenient
    from google.protobuf.json_format import MessageToDict

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def run() -> Any:
        response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())
        manager = TaskManager(InMemoryTaskStore(use_copying=False), ServerCallContext(), None, None, None)
        answered = None
        async for _, data in parse_sse_stream(response):
            envelope = json.loads(data)
            if "result" not in envelope:
                continue  # a JSON-RPC error: the client raises it
            parsed = parse_lenient(envelope["result"], StreamResponse())
            payload = parsed.WhichOneof("payload")
            if payload == "message":
                answered = parsed.message
            elif payload is not None:
                await manager.process(getattr(parsed, payload))
        task = await manager.get_task()
        return MessageToDict(task if task is not None else answered)

    return asyncio.run(run())


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    yield {"jsonrpc": "2.0", "id": 1, "result": {"task": task}}
    for n in range(count):
        update = {
            "taskId": "t",
            "contextId": "c",
            "append": n > 0,
            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
        }
        yield {"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": update}}


WORKLOAD: Workload = converted_workload(
    "a2a",
    layer="assemble_a2a",
    tiny_blocks=_tiny_blocks,
    instructions={"a2a-agent": "agent"},
    unit="events",
    options={"task_id": "task-1", "context_id": "context-1", "request_id": "1"},
    # a2a-sdk 1.x: 0.3 (what agentscope-runtime pins) has no http_helpers.
    peers=(
        (
            "a2a-sdk parse + TaskManager",
            assemble_a2a_sdk,
            peers.installed("a2a.client.transports.http_helpers"),
        ),
    ),
    distributions=("a2a-sdk",),
)
