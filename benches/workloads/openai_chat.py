"""OpenAI Chat Completions' row: the agent turn as a Chat Completions server
writes it (reasoning as ``reasoning_content``), read by openai-python's
``ChatCompletionStreamState``; one chunk a delta, at 2k, 20k and 200k."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


def assemble_chat_openai(chunks: list[bytes]) -> Any:
    """openai-python's own path: its SSEDecoder, json, its chunk model and
    ChatCompletionStreamState (what ``client.chat.completions.stream()``
    runs), ending at ``[DONE]`` as its Stream does."""
    from openai._models import construct_type
    from openai._streaming import SSEDecoder
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        if sse.data.startswith("[DONE]"):
            break
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=json.loads(sse.data)))
    return state.get_final_completion()


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    opening = {"index": 0, "delta": {"role": "assistant"}}
    yield {"id": "c", "object": "chat.completion.chunk", "choices": [opening]}
    for n in range(count):
        call = {"index": n, "id": f"c{n}", "function": {"name": "f", "arguments": ""}}
        yield {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


WORKLOAD: Workload = converted_workload(
    "openai-chat",
    layer="assemble_chat",
    tiny_blocks=_tiny_blocks,
    instructions={"chat-agent": "agent"},
    options={"created_at": 1763700000},
    unit="chunks",
    peers=(("openai-python ChatCompletionStreamState", assemble_chat_openai, peers.installed("openai")),),
    distributions=("openai",),
)
