"""The LangChain Agent Streaming Protocol's row: the Agent Server's
``messages`` stream, read by hand (bytes.find or httpx-sse, and json) and by
langchain-core's ``ChatModelStream``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Case, Workload, assembling, langchain_stream

# The field each LangChain block type's deltas append to (media: base64).
_LANGCHAIN_FIELD = {"text": "text", "reasoning": "reasoning", "tool_call_chunk": "args"}


def _assemble_langchain_python(envelopes: Any) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The least a pure-Python client does to assemble the LangChain
    protocol: blocks by namespace and index, opened by content-block-start,
    deltas appended to their block's field (pieces joined at the end),
    content-block-finish merged over the block (an empty field keeps what
    was appended); tool-call arguments parsed at the end."""
    messages: dict[tuple[str, ...], dict[int, tuple[dict[str, Any], list[str]]]] = {}
    for envelope in envelopes:
        params = envelope["params"]
        data = params["data"]
        kind = data["event"]
        if kind == "content-block-delta":
            delta = data["delta"]
            block, pieces = messages[tuple(params["namespace"])][data["index"]]
            pieces.append(delta.get(_LANGCHAIN_FIELD.get(block["type"], "data")) or "")
        elif kind == "content-block-start":
            blocks = messages.setdefault(tuple(params["namespace"]), {})
            blocks[data["index"]] = (dict(data["content"]), [])
        elif kind == "content-block-finish":
            block, pieces = messages[tuple(params["namespace"])][data["index"]]
            field = _LANGCHAIN_FIELD.get(block["type"], "base64")
            if data["content"].get(field):
                pieces.clear()
            block.update((key, value) for key, value in data["content"].items() if value or key != field)
    assembled: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for namespace, blocks in messages.items():
        content = []
        for block, pieces in blocks.values():
            field = _LANGCHAIN_FIELD.get(block["type"], "base64")
            if pieces:
                block[field] = block.get(field, "") + "".join(pieces)
            if block["type"] == "tool_call_chunk":
                arguments = json.loads(block["args"] or "{}")
                content.append(
                    {"type": "tool_call", "id": block["id"], "name": block["name"], "args": arguments}
                )
            else:
                content.append(block)
        assembled[namespace] = content
    return assembled


def assemble_langchain_handrolled(chunks: list[bytes]) -> Any:
    import orjson

    return _assemble_langchain_python(orjson.loads(data) for data in peers.handrolled_frames(chunks))


def assemble_langchain_httpx_sse(chunks: list[bytes]) -> Any:
    return _assemble_langchain_python(peers.decode_httpx_sse_json(chunks))


def assemble_langchain_core(chunks: list[bytes]) -> Any:
    """langchain-core's ChatModelStream, fed by httpx-sse and json."""
    from langchain_core.language_models.chat_model_stream import ChatModelStream

    stream = ChatModelStream(namespace=["agent:1"], node="model", message_id="run-1")
    for envelope in peers.decode_httpx_sse_json(chunks):
        stream.dispatch(envelope["params"]["data"])
    return stream.output


def _cases(quick: bool, long: int) -> list[Case]:
    kinds = (("text", 200), ("text", long), ("agent", long), ("media", long * 10))
    return [assembling(langchain_stream(kind, count)) for kind, count in kinds]


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    start = {"event": "message-start", "id": "m"}
    yield {"method": "messages", "params": {"namespace": [], "data": start}}
    for n in range(count):
        delta = {"type": "text-delta", "text": "x"}
        data = {"event": "content-block-delta", "index": n, "delta": delta}
        yield {"method": "messages", "params": {"namespace": [], "data": data}}


WORKLOAD = Workload(
    protocol="langchain",
    layer="assemble_langchain",
    stream=langchain_stream,
    cases=_cases,
    tiny_blocks=_tiny_blocks,
    instructions={"langchain-agent": "agent"},
    suite_count=2000,
    peers=(
        ("hand-rolled bytes.find + orjson", assemble_langchain_handrolled, peers.installed("orjson")),
        ("httpx-sse + json", assemble_langchain_httpx_sse, peers.installed("httpx_sse")),
        (
            "langchain-core ChatModelStream",
            assemble_langchain_core,
            peers.installed("httpx_sse") and peers.installed("langchain_core"),
        ),
    ),
    distributions=("langchain-core",),
)
