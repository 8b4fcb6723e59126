"""Gemini's row: the agent turn as Gemini's streamGenerateContent streams it
with ``alt=sse`` (a record a delta: thought text, then text, whole function
calls), read as a user of google-genai reads it; at 2k, 20k and 200k deltas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import peers
from workloads import Workload, converted_workload


def assemble_genai_client(chunks: list[bytes]) -> Any:
    """google-genai's own path (``generate_content_stream``): its SSE line
    reader and json a record (``HttpResponse.segments``), its converter and
    ``GenerateContentResponse`` model a record; then what its users write to
    keep the reply (the SDK keeps each chunk's content apart): the text and
    the thoughts joined, the function calls gathered, the last usage."""
    import httpx
    from google.genai import _api_client, types
    from google.genai.models import _GenerateContentResponse_from_mldev

    stream = httpx.Response(200, content=iter(chunks))
    response = _api_client.HttpResponse({}, stream)
    text: list[str] = []
    thoughts: list[str] = []
    calls: list[Any] = []
    last: Any = None
    for segment in response.segments():
        last = types.GenerateContentResponse._from_response(
            response=_GenerateContentResponse_from_mldev(segment, None, None), kwargs={}
        )
        for part in last.candidates[0].content.parts or () if last.candidates else ():
            if part.function_call is not None:
                calls.append(part.function_call)
            elif part.text:
                (thoughts if part.thought else text).append(part.text)
    return {
        "text": "".join(text),
        "thoughts": "".join(thoughts),
        "calls": calls,
        "usage": last.usage_metadata,
    }


def _tiny_blocks(count: int) -> Iterator[dict[str, Any]]:
    for n in range(count):
        call = {"functionCall": {"name": "f", "args": {"n": n}}}
        yield {"candidates": [{"content": {"parts": [call], "role": "model"}, "index": 0}]}


WORKLOAD: Workload = converted_workload(
    "gemini",
    layer="assemble_gemini",
    tiny_blocks=_tiny_blocks,
    instructions={"gemini-agent": "agent"},
    unit="records",
    options={"model": "gemini-2.5-flash", "response_id": "r"},
    peers=(("google-genai + join", assemble_genai_client, peers.installed("google.genai")),),
    distributions=("google-genai",),
)
