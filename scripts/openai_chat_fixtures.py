"""Records OpenAI Chat Completions streams in tests/fixtures/sdk/ (``chat_*``):
chunks built as openai-python's own ``ChatCompletionChunk`` classes for every
delta field (content, refusal, tool calls by index, audio, logprobs, usage,
n > 1), framed as the API frames them (``data: <json>``, then
``data: [DONE]``); the reference is what openai-python's
``ChatCompletionStreamState`` (behind ``client.chat.completions.stream``)
gives: ``get_final_completion()``, over the chunks its stream helper keeps
(it drops Azure's content-filter chunks, whose ``object`` is "").

Run it where openai is installed:

    pip install openai==3.54.0
    python scripts/openai_chat_fixtures.py
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import openai
import openai.types.chat.chat_completion_chunk as chat
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sdk"
sys.path.insert(0, str(ROOT / "tests"))


def chunk(choices: list[Any], **extra: Any) -> chat.ChatCompletionChunk:
    """A chunk as the API writes it: the completion's fields in every chunk."""
    fields: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1763700000,
        "model": "gpt-4.1-2026-04-14", "service_tier": "default", "system_fingerprint": "fp_1a2b",
        "choices": choices,
    }  # fmt: skip
    fields.update(extra)
    return chat.ChatCompletionChunk(**fields)


def choice(index: int, finish_reason: str | None = None, logprobs: Any = None, **delta: Any) -> chat.Choice:
    return chat.Choice(
        index=index, delta=chat.ChoiceDelta(**delta), finish_reason=finish_reason, logprobs=logprobs
    )


def call(index: int, arguments: str, **first: Any) -> chat.ChoiceDeltaToolCall:
    """A tool-call fragment: ``first`` carries ``id``, ``type`` and ``name``."""
    name = first.pop("name", None)
    function = chat.ChoiceDeltaToolCallFunction(arguments=arguments, **({"name": name} if name else {}))
    return chat.ChoiceDeltaToolCall(index=index, function=function, **first)


def logprob(token: str) -> chat.ChoiceLogprobs:
    entry = chat.ChatCompletionTokenLogprob(
        token=token, logprob=-0.25, bytes=list(token.encode()), top_logprobs=[]
    )
    return chat.ChoiceLogprobs(content=[entry], refusal=None)


def chat_events() -> list[Any]:
    """Two choices (n=2) interleaved: one answers with text and logprobs,
    the other calls two tools in parallel; then the usage chunk."""
    args = '{"city": "Paris", "note": "Héllo \\"w\\" 🙂"}'
    return [
        chunk([choice(0, role="assistant", content="", refusal=None, logprobs=None)], usage=None, obfuscation="a1"),
        chunk([choice(1, role="assistant", content=None)], usage=None),
        chunk([choice(0, content="Héllo", logprobs=logprob("Héllo"))], usage=None, obfuscation="b2"),
        chunk([choice(1, tool_calls=[call(0, "", id="call_a", type="function", name="get_weather")])]),
        chunk([choice(0, content=" \"world\" 🙂\n", logprobs=logprob(" \"world\" 🙂\n"))]),
        chunk([choice(1, tool_calls=[call(0, args[:9])])]),
        chunk([choice(1, tool_calls=[call(0, args[9:21])])]),
        chunk([choice(1, tool_calls=[call(1, "", id="call_b", type="function", name="get_time")])]),
        chunk([choice(1, tool_calls=[call(0, args[21:])])]),
        chunk([choice(1, tool_calls=[call(1, '{"tz":"CET"}')])]),
        chunk([choice(0, content="数据")]),
        chunk([choice(0, finish_reason="stop")]),
        chunk([choice(1, finish_reason="tool_calls")]),
        chunk([], usage=chat.CompletionUsage(prompt_tokens=12, completion_tokens=34, total_tokens=46,
                                             completion_tokens_details={"reasoning_tokens": 0})),
    ]  # fmt: skip


def chat_refusal_events() -> list[Any]:
    """A refusal, an audio reply (id, base64 data in pieces, transcript) and
    a deprecated ``function_call``, each on its own choice."""
    return [
        chunk([choice(0, role="assistant", refusal="")]),
        chunk([choice(0, refusal="I can't ")]),
        chunk([choice(0, refusal="help with that.")]),
        chunk([choice(1, role="assistant", audio=chat.ChoiceDeltaAudio(id="audio_1", data="AAAA",
                                                                        transcript="Hi", expires_at=1763703600))]),
        chunk([choice(1, audio=chat.ChoiceDeltaAudio(data="BBBB", transcript=" there"))]),
        chunk([choice(2, role="assistant", function_call=chat.ChoiceDeltaFunctionCall(name="lookup",
                                                                                       arguments='{"q":'))]),
        chunk([choice(2, function_call=chat.ChoiceDeltaFunctionCall(arguments='"x"}'))]),
        chunk([choice(0, finish_reason="stop"), choice(1, finish_reason="stop"),
               choice(2, finish_reason="function_call")]),
    ]  # fmt: skip


def content_filter_chunk(**fields: Any) -> Any:
    """Azure's content-filter annotation: ``object`` is the empty string."""
    return construct_type(type_=chat.ChatCompletionChunk, value={
        "id": "", "object": "", "created": 0, "model": "", **fields})  # fmt: skip


def chat_azure_events() -> list[Any]:
    """An Azure OpenAI stream: prompt-filter results first, and a
    content-filter annotation between the deltas."""
    return [
        content_filter_chunk(choices=[], prompt_filter_results=[
            {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]),
        chunk([choice(0, role="assistant", content="")]),
        chunk([choice(0, content="Hello")]),
        content_filter_chunk(choices=[{"index": 0, "delta": {}, "finish_reason": None,
                                       "content_filter_offsets": {"check_offset": 0, "start_offset": 0,
                                                                  "end_offset": 5}}]),
        chunk([choice(0, content=" there")]),
        chunk([choice(0, finish_reason="stop")]),
    ]  # fmt: skip


def chat_repeating_events() -> list[Any]:
    """An OpenAI-compatible server that repeats ``role`` in every chunk and a
    tool call's ``id`` and ``name`` in every fragment, and streams
    ``reasoning_content`` (openai-python concatenates all of them)."""
    return [
        chunk([choice(0, role="assistant", content="", reasoning_content="r1")]),
        chunk([choice(0, role="assistant", content="Hello", reasoning_content="r2")]),
        chunk([choice(0, role="assistant", tool_calls=[call(0, '{"a"', id="call_1", type="function", name="f")])]),
        chunk([choice(0, role="assistant", tool_calls=[call(0, ":1}", id="call_1", type="function", name="f")])]),
        chunk([choice(0, role="assistant", finish_reason="tool_calls")]),
    ]  # fmt: skip


def chat_sse(chunks: list[Any]) -> str:
    return "".join(f"data: {item.to_json(indent=None)}\n\n" for item in chunks) + "data: [DONE]\n\n"


def chat_reference(stream: str) -> dict[str, Any]:
    state: Any = ChatCompletionStreamState()
    for block in stream.split("\n\n"):
        data = block.removeprefix("data: ")
        if not data or data == "[DONE]":
            continue
        item = construct_type(type_=chat.ChatCompletionChunk, value=json.loads(data))
        if item.object == "chat.completion.chunk":  # as the stream helper filters
            state.handle_chunk(item)
    return {"final_completion": state.get_final_completion().to_dict()}


def record_chat(name: str, chunks: list[Any]) -> None:
    stream = chat_sse(chunks)
    (OUT / f"{name}.sse").write_text(stream, encoding="utf-8")
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": f"openai {openai.__version__} chunk classes and ChatCompletionStreamState",
                    **chat_reference(stream)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def main() -> int:
    # to_dict() of the SDK's parsed snapshots warns about its own unions.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    OUT.mkdir(parents=True, exist_ok=True)
    record_chat("chat_every_field", chat_events())
    record_chat("chat_refusal_audio", chat_refusal_events())
    record_chat("chat_azure", chat_azure_events())
    record_chat("chat_repeating", chat_repeating_events())
    return 0


if __name__ == "__main__":
    sys.exit(main())
