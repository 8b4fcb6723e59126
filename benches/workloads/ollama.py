"""Ollama's row: the agent turn as Ollama's /api/chat streams it (a line a
delta: thinking, then content, whole tool calls), read as a user of the
ollama client reads it; at 2k, 20k and 200k deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


def assemble_ollama_client(chunks: list[bytes]) -> Any:
    """The ollama client's own path (``Client.chat(stream=True)``): httpx's
    ``iter_lines``, json and its ``ChatResponse`` model a line; then what its
    users write to keep the answer: the text and thinking joined, the tool
    calls gathered, the last line's fields."""
    import httpx
    from ollama import ChatResponse

    response = httpx.Response(200, content=iter(chunks))
    content: list[str] = []
    thinking: list[str] = []
    calls: list[Any] = []
    last: Any = None
    for line in response.iter_lines():
        part = json.loads(line)
        if part.get("error"):
            raise RuntimeError(part["error"])
        last = ChatResponse(**part)
        content.append(last.message.content or "")
        thinking.append(last.message.thinking or "")
        calls.extend(last.message.tool_calls or ())
    answer = last.model_dump(exclude_none=True)
    answer["message"].update(content="".join(content), thinking="".join(thinking))
    if calls:
        answer["message"]["tool_calls"] = [call.model_dump(exclude_none=True) for call in calls]
    return answer


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    def line(message: dict[str, Any]) -> dict[str, Any]:
        return {"model": "m", "created_at": "2026-11-20T10:00:00Z", "message": message, "done": False}

    yield line({"role": "assistant", "content": ""})
    for n in range(count):
        call = {"id": f"c{n}", "function": {"index": n, "name": "f", "arguments": {}}}
        yield line({"role": "assistant", "content": "", "tool_calls": [call]})


WORKLOAD: Workload = converted_workload(
    "ollama",
    layer="assemble_ollama",
    tiny_blocks=_tiny_blocks,
    instructions={"ollama-agent": "agent"},
    unit="lines",
    options={"model": "qwen3:0.6b", "created_at": "2026-11-20T10:00:00Z"},
    peers=(("ollama client + join", assemble_ollama_client, peers.installed("ollama")),),
    distributions=("ollama",),
)
