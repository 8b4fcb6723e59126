"""The LangGraph Agent Server's row: the agent turn as langgraph-api streams
it with ``stream_mode=["values", "messages-tuple"]`` (a message chunk an
event, each with the run's metadata as the server writes it: some 800 bytes
of node, step, checkpoint and model fields), read as langgraph-sdk's client
reads it; at 2k, 20k and 200k deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Case, Stream, Workload, assembling, converted_stream

#: What langgraph-api writes beside each chunk (the fixtures' recording, its ids fixed).
METADATA = {
    "created_by": "system",
    "graph_id": "agent",
    "assistant_id": "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
    "run_attempt": 1,
    "langgraph_version": "1.2.24",
    "langgraph_api_version": "0.16.7",
    "langgraph_plan": "enterprise",
    "langgraph_host": "self-hosted",
    "langgraph_api_url": "http://127.0.0.1:2024",
    "thread_id": "01a21ca3-8c34-7580-8dcf-02388dfcc82d",
    "run_id": "01a21ca3-8ca6-7174-b1ca-4c55501e1e79",
    "ls_integration": "langchain_chat_model",
    "langgraph_step": 1,
    "langgraph_node": "agent",
    "langgraph_triggers": ["branch:to:agent"],
    "langgraph_path": ["__pregel_pull", "agent"],
    "langgraph_checkpoint_ns": "agent:dd5d78b1-b6a2-d68c-1d9f-4b6eba97e655",
    "checkpoint_ns": "agent:dd5d78b1-b6a2-d68c-1d9f-4b6eba97e655",
    "ls_provider": "openai",
    "ls_model_name": "gpt-4.1",
    "ls_model_type": "chat",
    "ls_temperature": 0.2,
    "lc_versions": {"langchain-core": "1.8.3"},
}


def _stream(kind: str, count: int) -> Stream:
    converted = converted_stream("langgraph", count, run_id="run-1", node="agent")
    written = json.dumps(METADATA, separators=(",", ":"), ensure_ascii=False).encode()
    data = converted.data.replace(b'{"langgraph_node":"agent"}]', written + b"]")
    return Stream(converted.name, data, converted.events)


def _cases(quick: bool, long: int) -> list[Case]:
    counts = (200, 2000) if quick else (2000, 20000, 200000)
    return [assembling(_stream("agent", count), "events") for count in counts]


def parse_langgraph_sdk(chunks: list[bytes]) -> Any:
    """langgraph-sdk's client's own reading (``client.runs.stream``): its line
    and SSE decoders over the response, orjson a part; its parts kept."""
    from langgraph_sdk.sse import BytesLineDecoder, SSEDecoder

    lines, decoder = BytesLineDecoder(), SSEDecoder()
    parts = []
    for chunk in chunks:
        for line in lines.decode(chunk):
            part = decoder.decode(line.rstrip(b"\n"))
            if part is not None:
                parts.append(part)
    for line in lines.flush():
        part = decoder.decode(line.rstrip(b"\n"))
        if part is not None:
            parts.append(part)
    return parts


def assemble_langgraph_sdk_langchain(chunks: list[bytes]) -> Any:
    """The same, then the messages added up as its users add them, with
    langchain-core (``AIMessageChunk`` addition), and the last values kept."""
    from langchain_core.messages import AIMessageChunk, message_chunk_to_message

    messages: dict[str, Any] = {}
    values = None
    for part in parse_langgraph_sdk(chunks):
        if part.event == "messages":
            fields = {key: value for key, value in part.data[0].items() if key != "type"}
            chunk = AIMessageChunk(**fields)
            held = messages.get(chunk.id)
            messages[chunk.id] = chunk if held is None else held + chunk
        elif part.event == "values":
            values = part.data
    return values, [message_chunk_to_message(message).model_dump() for message in messages.values()]


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    yield {"event": "metadata", "data": {"run_id": "r"}}
    for n in range(count):
        call = {"name": "f", "args": "{}", "id": f"c{n}", "index": n}
        chunk = {"type": "AIMessageChunk", "id": "m", "content": "", "tool_call_chunks": [call]}
        yield {"event": "messages", "data": [chunk, {"langgraph_node": "agent"}]}


WORKLOAD: Workload = Workload(
    protocol="langgraph",
    layer="assemble_langgraph",
    stream=_stream,
    cases=_cases,
    tiny_blocks=_tiny_blocks,
    instructions={"langgraph-agent": "agent"},
    suite_count=200,
    peers=(
        ("langgraph-sdk parse", parse_langgraph_sdk, peers.installed("langgraph_sdk")),
        (
            "langgraph-sdk + langchain-core",
            assemble_langgraph_sdk_langchain,
            peers.installed("langgraph_sdk") and peers.installed("langchain_core"),
        ),
    ),
    distributions=("langgraph-sdk", "langchain-core"),
)
