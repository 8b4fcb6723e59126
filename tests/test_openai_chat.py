"""OpenAI Chat Completions: the assembler gives the ChatCompletion
openai-python's own ``ChatCompletionStreamState`` gives, on both backends
and in any chunking, without the SDK's faults.

The judges: streams built with openai-python's own chunk classes
(scripts/openai_chat_fixtures.py) and what ``ChatCompletionStreamState``
accumulates from them; generated streams run through the SDK live.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcodec import AgentCodecError, OpenAIChatError, OpenAIChatEventError
from agentcodec._backend import impl
from conftest import NATIVE, PURE, examples, requires_native
from conversion import SOURCE_IDS, SOURCES, backends, convert, view
from protocol_table import TABLE
from protocols import sse_event
from protocols.openai_chat import CHUNK, chat_choice, comparable
from protocols.openai_chat import tool_call_stream as chat
from sse_helpers import data_events

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sdk"
RECORDED = ["chat_every_field", "chat_refusal_audio", "chat_azure", "chat_repeating"]
SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(name: str) -> tuple[bytes, dict[str, Any]]:
    stream = (FIXTURES / f"{name}.sse").read_bytes()
    reference = json.loads((FIXTURES / f"{name}.json").read_text())
    return stream, reference["final_completion"]


def assemble(backend: ModuleType, chunks: list[bytes], **options: Any) -> tuple[Any, dict[str, Any]]:
    assembler = backend.OpenAIChatAssembler(**options)
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler, assembler.close()


def wire_chunks(stream: bytes) -> list[dict[str, Any]]:
    datas = [block.removeprefix("data: ") for block in stream.decode().split("\n\n") if block]
    return [json.loads(data) for data in datas if data != "[DONE]"]


def sse(chunks: list[dict[str, Any]], done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


@pytest.mark.parametrize("name", [name for name in RECORDED if name != "chat_repeating"])
def test_recorded_streams_give_the_sdks_completion(backend: ModuleType, name: str) -> None:
    stream, reference = load(name)
    _, completion = assemble(backend, [stream])
    assert comparable(completion) == comparable(reference)
    # What openai-python's own model accepts, field for field.
    from openai.types.chat import ChatCompletion

    assert comparable(ChatCompletion.model_validate(completion).to_dict()) == comparable(completion)


def test_repeated_identity_fields_are_kept_once(backend: ModuleType) -> None:
    """openai-python concatenates every repeated string: the role becomes
    "assistantassistant…", the tool call's id "call_1call_1" and its name
    "ff". agentcodec keeps them once and agrees on everything else."""
    stream, reference = load("chat_repeating")
    message = reference["choices"][0]["message"]
    assert message["role"] == "assistant" * 5
    assert message["tool_calls"][0]["id"] == "call_1call_1"
    message["role"] = "assistant"
    message["tool_calls"][0]["id"] = "call_1"
    message["tool_calls"][0]["function"]["name"] = "f"
    _, completion = assemble(backend, [stream])
    assert comparable(completion) == comparable(reference)
    assert completion["choices"][0]["message"]["reasoning_content"] == "r1r2"


@pytest.mark.parametrize("name", RECORDED)
def test_any_chunking(backend: ModuleType, name: str) -> None:
    stream, _ = load(name)
    _, whole = assemble(backend, [stream])
    rng = random.Random(name)
    chunks, position = [], 0
    while position < len(stream):
        size = rng.randint(1, 300)
        chunks.append(stream[position : position + size])
        position += size
    assert assemble(backend, chunks)[1] == whole
    assert assemble(backend, [stream[i : i + 1] for i in range(len(stream))])[1] == whole


@pytest.mark.parametrize("name", RECORDED)
def test_decoded_chunks_and_feed_with_events(backend: ModuleType, name: str) -> None:
    stream, _ = load(name)
    chunks = wire_chunks(stream)
    _, whole = assemble(backend, [stream])
    assembler = backend.OpenAIChatAssembler()
    for chunk in chunks:
        assembler.feed_event(chunk)
    assert assembler.close() == whole
    assert assembler.event_count == len(chunks)
    assert backend.OpenAIChatAssembler().feed_with_events(stream) == chunks


def test_content_filter_chunks_are_kept_aside(backend: ModuleType) -> None:
    stream, _ = load("chat_azure")
    assembler, completion = assemble(backend, [stream])
    assert completion["id"] == "chatcmpl-1"
    assert completion["choices"][0]["message"]["content"] == "Hello there"
    assert [event["object"] for event in assembler.events] == ["", ""]
    assert "prompt_filter_results" in assembler.events[0]


def test_tool_calls_are_parsed(backend: ModuleType) -> None:
    stream, _ = load("chat_every_field")
    assembler, _ = assemble(backend, [stream])
    assert assembler.tool_calls == [
        {
            "choice": 1,
            "id": "call_a",
            "type": "function",
            "name": "get_weather",
            "arguments": {"city": "Paris", "note": 'Héllo "w" 🙂'},
            "done": True,
        },
        {
            "choice": 1,
            "id": "call_b",
            "type": "function",
            "name": "get_time",
            "arguments": {"tz": "CET"},
            "done": True,
        },
    ]
    bad = [
        {
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}}
            ]
        },
        {
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]}}
            ]
        },
    ]
    assembler, _ = assemble(backend, [sse(bad, done=False)])
    assert assembler.tool_calls == [
        {
            "choice": 0,
            "id": "c",
            "type": None,
            "name": "f",
            "arguments": '{"a":',
            "done": True,
            "error": "arguments are not valid JSON: incomplete at byte 5",
        }
    ]


def test_a_cut_stream_keeps_what_streamed(backend: ModuleType) -> None:
    stream, _ = load("chat_every_field")
    cut = stream[: len(stream) // 2]
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(cut)
    completion = assembler.close()
    message = completion["choices"][0]["message"]
    assert message["content"].startswith("Héllo")
    assert completion["choices"][0]["finish_reason"] is None
    assert completion["usage"] is None


def test_tool_call_fragments_in_one_chunk_merge(backend: ModuleType) -> None:
    # vLLM with speculative decoding sends two fragments of one call in the
    # first chunk (openai-python #3201).
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"a'},
                            },
                            {"index": 0, "function": {"arguments": '":1}'}},
                        ]
                    },
                }
            ]
        },
        # Gemini's compatible endpoint leaves out the index: whole calls, by id.
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"id": "g", "function": {"name": "h", "arguments": "{}"}}]},
                }
            ]
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": None, "id": "g", "function": {"arguments": ""}}]},
                }
            ]
        },
    ]
    assembler, completion = assemble(backend, [sse(chunks)])
    calls = completion["choices"][0]["message"]["tool_calls"]
    assert calls == [
        {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}},
        {"id": "g", "function": {"name": "h", "arguments": "{}"}, "index": None},
    ]
    assert [call["arguments"] for call in assembler.tool_calls] == [{"a": 1}, {}]


def test_usage_and_fingerprint_are_kept_from_the_latest_chunk_that_has_them(backend: ModuleType) -> None:
    # openai-python replaces them with every chunk, so a chunk without them
    # after the usage chunk erases it; agentcodec keeps the latest given.
    chunks = [
        {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "a"}}]},
        {"id": "x", "choices": [], "usage": {"total_tokens": 3}, "system_fingerprint": "fp"},
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": None},
    ]
    _, completion = assemble(backend, [sse(chunks)])
    assert completion == {
        "id": "c",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"content": "a"}, "finish_reason": "stop", "logprobs": None},
        ],
        "system_fingerprint": "fp",
        "usage": {"total_tokens": 3},
    }


def test_logprobs_of_a_later_choice_are_not_doubled(backend: ModuleType) -> None:
    # openai-python adds a choice's logprobs twice when the choice first
    # appears after the stream's first chunk (it builds the choice with
    # them, then extends them with the same chunk's).
    logprobs = {
        "content": [{"token": "t", "logprob": -1.0, "bytes": [116], "top_logprobs": []}],
        "refusal": None,
    }
    chunks = [
        {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "a"}}]},
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 1, "delta": {"content": "t"}, "logprobs": logprobs}],
        },
    ]
    sdk = sdk_completion(chunks)
    assert sdk is not None
    assert len(sdk["choices"][1]["logprobs"]["content"]) == 2
    _, completion = assemble(backend, [sse(chunks)])
    assert completion["choices"][1]["logprobs"] == logprobs


def test_errors(backend: ModuleType) -> None:
    good = {"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]}
    cases = [
        ("not json", "is not valid JSON: invalid literal, expected 'null' at byte 1"),
        ("[1]", "is a JSON array, not an object"),
        ('{"choices": {}}', "has choices that are not a list"),
        ('{"choices": [1]}', "has a choice (at 0) that is not an object"),
        ('{"choices": [{"delta": {}}]}', "has a choice (at 0) without an index"),
        ('{"choices": [{"index": "0"}]}', "has a choice (at 0) whose index is not a 64-bit integer"),
        ('{"choices": [{"index": 0, "delta": []}]}', "has a delta (choice 0) that is not an object"),
        (
            '{"choices": [{"index": 0, "delta": {"content": 1}}]}',
            "has a delta (choice 0) whose content is not a string",
        ),
        (
            '{"choices": [{"index": 0, "delta": {"tool_calls": {}}}]}',
            "has a delta (choice 0) whose tool_calls are not a list of objects",
        ),
    ]
    for text, problem in cases:
        assembler = backend.OpenAIChatAssembler()
        assembler.feed(sse([good], done=False))
        with pytest.raises(OpenAIChatEventError) as caught:
            assembler.feed(f"data: {text}\n\ndata: {json.dumps(good)}\n\n".encode())
        assert caught.value.event == 2
        assert caught.value.problem == problem
        assert str(caught.value) == f"OpenAI Chat Completions chunk 2 {problem}"
        # What came before stands; the chunk after the bad one is applied next.
        assert assembler.completion["choices"][0]["message"]["content"] == "Hi"
        assert assembler.close()["choices"][0]["message"]["content"] == "HiHi"
    assembler = backend.OpenAIChatAssembler(on_error="skip")
    assembler.feed(b"data: nope\n\n" + sse([good]) + sse([good]))
    assert [error["event"] for error in assembler.errors] == [1, 4]
    assert assembler.errors[1]["message"] == "OpenAI Chat Completions chunk 4 comes after [DONE]"
    assert assembler.close()["choices"][0]["message"]["content"] == "Hi"
    with pytest.raises(OpenAIChatError, match="the assembler is closed"):
        assembler.feed(b"")


def test_a_bad_chunk_changes_nothing(backend: ModuleType) -> None:
    assembler = backend.OpenAIChatAssembler(on_error="skip")
    assembler.feed(sse([{"choices": [{"index": 0, "delta": {"content": "a"}}]}], done=False))
    assembler.feed(
        sse(
            [{"choices": [{"index": 0, "delta": {"content": "b"}}, {"index": 1, "delta": {"content": 5}}]}],
            done=False,
        )
    )
    assert len(assembler.errors) == 1
    assert assembler.completion["choices"] == [
        {"index": 0, "message": {"content": "a"}, "finish_reason": None, "logprobs": None}
    ]


def test_server_errors_are_recorded(backend: ModuleType) -> None:
    error = {"error": {"message": "overloaded", "type": "server_error", "code": None}}
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(sse([{"choices": [{"index": 0, "delta": {"content": "a"}}]}, error]))
    assert assembler.errors == [{"event": 2, "code": "server_error", "message": "overloaded"}]
    assert assembler.events == [error]
    assert assembler.close()["choices"][0]["message"]["content"] == "a"


# --- generated streams -------------------------------------------------------------------

words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)


@st.composite
def chat_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Streams as a well-behaved server writes them: identity fields only
    in the first delta of their choice or tool call, in index order."""
    chunks: list[dict[str, Any]] = []
    started: set[int] = set()
    calls: dict[int, int] = {}
    for _ in range(draw(st.integers(1, 12))):
        index = draw(st.integers(0, 2))
        delta: dict[str, Any] = {}
        if index not in started:
            delta["role"] = "assistant"
        field = draw(st.sampled_from(["content", "refusal", "reasoning_content", "tool", "none"]))
        if field == "tool":
            count = calls.get(index, 0)
            at = draw(st.integers(0, count)) if count else 0
            call: dict[str, Any] = {"index": at, "function": {"arguments": draw(words)}}
            if at == count:
                call.update(id=f"call_{index}_{at}", type="function")
                call["function"]["name"] = "f"
                calls[index] = count + 1
            delta["tool_calls"] = [call]
        elif field != "none":
            delta[field] = draw(words)
        choice: dict[str, Any] = {"index": index, "delta": delta, "finish_reason": None}
        # (logprobs on a choice's first chunk the SDK doubles: see
        # test_logprobs_of_a_later_choice_are_not_doubled)
        if (index in started or not chunks) and draw(st.booleans()):
            choice["logprobs"] = {
                "content": [{"token": "t", "logprob": -1.0, "bytes": [116], "top_logprobs": []}]
            }
        if draw(st.integers(0, 5)) == 0:
            choice["finish_reason"] = draw(st.sampled_from(["stop", "length", "tool_calls"]))
        started.add(index)
        chunks.append(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "system_fingerprint": "fp",
                "choices": [choice],
            }
        )
    return chunks


def sdk_completion(chunks: list[dict[str, Any]]) -> dict[str, Any] | None:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for chunk in chunks:
            state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=json.loads(json.dumps(chunk))))
        try:
            completion: dict[str, Any] = state.get_final_completion().to_dict()
        except Exception:  # finish_reason "length" raises when nothing is parsed
            completion = state.current_completion_snapshot.to_dict()
    return completion


@SETTINGS
@given(chunks=chat_streams())
def test_generated_streams_agree_with_openai_python(chunks: list[dict[str, Any]]) -> None:
    # The SDK places choices by arrival, agentcodec by index: compare by index.
    seen = sorted({chunk["choices"][0]["index"] for chunk in chunks})
    if seen != list(range(len(seen))) or [c["choices"][0]["index"] for c in chunks][: len(seen)] != seen:
        return
    expected = comparable(sdk_completion(chunks))
    for backend in (NATIVE, PURE):
        if backend is None:
            continue
        assembler = backend.OpenAIChatAssembler()
        assembler.feed(sse(chunks))
        assert comparable(assembler.close()) == expected


index_values = st.one_of(st.integers(-1, 2), st.sampled_from([2**63, "0", 1.0, None, -0.0, True]))


@st.composite
def hostile_chunks(draw: st.DrawFn) -> str:
    delta: dict[str, Any] = {}
    for key in draw(
        st.lists(st.sampled_from(["role", "content", "refusal", "reasoning", "tool_calls", "audio", "x"]))
    ):
        if key == "tool_calls":
            delta[key] = draw(
                st.lists(
                    st.fixed_dictionaries(
                        {"index": index_values},
                        optional={
                            "id": st.sampled_from(["a", "b"]),
                            "type": st.just("function"),
                            "function": st.fixed_dictionaries(
                                {}, optional={"name": words, "arguments": words}
                            ),
                        },
                    ),
                    max_size=2,
                )
                | st.sampled_from([{}, None, [1]])
            )
        elif key == "audio":
            delta[key] = {"id": "a", "data": draw(words), "expires_at": draw(st.integers(0, 3))}
        else:
            delta[key] = draw(words | st.none() | st.integers(0, 2))
    choice: dict[str, Any] = {
        "index": draw(index_values),
        "delta": draw(st.just(delta) | st.sampled_from([None, []])),
    }
    if draw(st.booleans()):
        choice["finish_reason"] = draw(st.sampled_from(["stop", "", None, 1]))
    if draw(st.booleans()):
        choice["logprobs"] = draw(st.sampled_from([None, {"content": [{"token": "t"}]}, {"refusal": []}, 2]))
    chunk: dict[str, Any] = {"choices": draw(st.just([choice]) | st.sampled_from([[], None, {}]))}
    for key, values in (
        ("object", ["chat.completion.chunk", "", 3]),
        ("usage", [None, {"total_tokens": 1}]),
        ("system_fingerprint", [None, "fp", "fq", 1]),
        (
            "error",
            [
                None,
                {"message": "m", "code": "c"},
                {"code": "", "type": "t"},
                {"type": "t", "code": None},
                "e",
                "",
            ],
        ),
        ("id", ["c", "d"]),
    ):
        if draw(st.booleans()):
            chunk[key] = draw(st.sampled_from(values))
    return json.dumps(chunk)


def observe(backend: ModuleType, chunks: list[bytes], on_error: str) -> list[Any]:
    assembler = backend.OpenAIChatAssembler(on_error=on_error)
    seen: list[Any] = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        seen.append(
            (
                result,
                assembler.completion,
                assembler.tool_calls,
                assembler.events,
                assembler.errors,
                assembler.event_count,
            )
        )
    return seen


frames = st.one_of(
    hostile_chunks(),
    st.sampled_from(["[DONE]", "not json", "[1]", "{}", "NaN"]),
)


@requires_native
@SETTINGS
@given(
    texts=st.lists(frames, max_size=20), on_error=st.sampled_from(["raise", "skip"]), cut=st.integers(1, 80)
)
def test_native_and_python_agree(texts: list[str], on_error: str, cut: int) -> None:
    stream = b"".join(b"data: " + text.encode() + b"\n\n" for text in texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, on_error) == observe(PURE, chunks, on_error)


def test_the_public_module() -> None:
    from agentcodec import openai_chat

    assert openai_chat.Assembler is impl.OpenAIChatAssembler  # the backend in use
    assert issubclass(openai_chat.OpenAIChatEventError, openai_chat.OpenAIChatError)


def test_many_tool_calls_are_found_without_a_scan(backend: ModuleType) -> None:
    """A tool call's delta not at the position its index names (indexes from
    1, calls out of order, calls joined by id) was found by scanning the
    message's calls from the end: 20k calls took minutes. 20k calls indexed
    from 1 and started in descending order, then a fragment for each in
    ascending order, then one joined by id each."""
    count = 20_000

    def calls(*entries: dict[str, Any]) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": list(entries)}}]}

    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    for index in range(count, 0, -1):
        chunks.append(calls({"index": index, "id": f"c{index}", "function": {"name": "f", "arguments": "{"}}))
    chunks += [calls({"index": index, "function": {"arguments": '"a":'}}) for index in range(1, count + 1)]
    # (An index given as null: a list with no index at all is added whole.)
    chunks += [
        calls({"index": None, "id": f"c{index}", "function": {"arguments": "1}"}})
        for index in range(1, count + 1)
    ]
    _, completion = assemble(backend, [sse(chunks)])
    held = completion["choices"][0]["message"]["tool_calls"]
    assert len(held) == count
    assert held[0] == {"index": count, "id": f"c{count}", "function": {"name": "f", "arguments": '{"a":1}'}}
    assert {call["function"]["arguments"] for call in held} == {'{"a":1}'}


# --- the merge of indexed lists, against a plain reading of its rules ------------------------


def _as_int(value: Any) -> int | None:
    return value if type(value) is int and -(2**63) <= value < 2**63 else None


def reference_merge(held: dict[str, Any], delta: dict[str, Any], *, message: bool = False) -> None:
    """The merge as the module's doc states it, finding entries by scanning
    (a message's ``tool_calls`` by the tool calls' rules)."""
    for key, value in delta.items():
        tools = message and key == "tool_calls"
        if held.get(key) is None:
            if tools and isinstance(value, list):
                held[key] = []
                reference_merge_tools(held[key], value)
            else:
                held[key] = reference_fresh(value)
            continue
        slot = held[key]
        if value is None or key in ("role", "id", "name"):
            continue
        if key in ("index", "type"):
            if key != "index" or _as_int(slot) is None or _as_int(slot) != _as_int(value):
                held[key] = value
        elif isinstance(slot, str) and isinstance(value, str):
            held[key] = slot + value
        elif isinstance(slot, dict) and isinstance(value, dict):
            reference_merge(slot, value)
        elif isinstance(slot, list) and isinstance(value, list):
            if tools:
                reference_merge_tools(slot, value)
            elif any(isinstance(item, dict) and "index" in item for item in value):
                reference_merge_indexed(slot, value)
            else:
                slot.extend(value)
        else:
            held[key] = value


def reference_fresh(value: Any) -> Any:
    if isinstance(value, list) and any(isinstance(item, dict) and "index" in item for item in value):
        merged: list[Any] = []
        reference_merge_indexed(merged, value)
        return merged
    return value


def reference_merge_indexed(entries: list[Any], items: list[Any]) -> None:
    for item in items:
        if not isinstance(item, dict):
            entries.append(item)
            continue
        index, found = _as_int(item.get("index")), None
        if index is not None:
            if 0 <= index < len(entries) and _has(entries[index], "index", index):
                found = index
            else:
                found = next(
                    (at for at in reversed(range(len(entries))) if _has(entries[at], "index", index)), None
                )
        elif isinstance(item.get("id"), str):
            found = next(
                (at for at in reversed(range(len(entries))) if _has(entries[at], "id", item["id"])), None
            )
        if found is None:
            fresh: dict[str, Any] = {}
            reference_merge(fresh, item)
            entries.append(fresh)
        else:
            reference_merge(entries[found], item)


def reference_merge_tools(calls: list[Any], items: list[Any]) -> None:
    """Tool calls, as OpenAI-compatible servers send them: by index (the
    last call with it), by id without one, or the call before it with
    neither (unless both name their function); an id other than the found
    call's is another call."""

    def named(call: Any) -> bool:
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        return isinstance(name, str) and bool(name)

    for item in items:
        index, item_id, found = _as_int(item.get("index")), item.get("id"), None
        if index is not None:
            found = next((at for at in reversed(range(len(calls))) if _has(calls[at], "index", index)), None)
        elif isinstance(item_id, str):
            found = next((at for at in reversed(range(len(calls))) if _has(calls[at], "id", item_id)), None)
        elif calls and item.get("index") is None and not (named(calls[-1]) and named(item)):
            found = len(calls) - 1
        if found is not None and isinstance(item_id, str):
            held_id = calls[found].get("id")
            if isinstance(held_id, str) and held_id != item_id:
                found = None
        if found is None:
            fresh: dict[str, Any] = {}
            reference_merge(fresh, item)
            calls.append(fresh)
        else:
            reference_merge(calls[found], item)


def _has(entry: Any, key: str, value: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    return _as_int(entry.get(key)) == value if key == "index" else entry.get(key) == value


TOOL_CALL_ITEMS = st.fixed_dictionaries(
    {},
    optional={
        "index": st.sampled_from([0, 1, 2, 3, -1, None, None, "1", 1.0, True]),
        "id": st.sampled_from([None, "a", "a", "b", 5]),
        "type": st.sampled_from(["function", None]),
        "function": st.fixed_dictionaries(
            {},
            optional={"arguments": st.sampled_from(["x", "y", ""]), "name": st.sampled_from(["f", "", None])},
        ),
    },
)
# A delta's tool calls are a list of objects, or null (anything else is refused).
TOOL_CALLS = st.one_of(st.lists(TOOL_CALL_ITEMS, max_size=4), st.none())


@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(deltas=st.lists(TOOL_CALLS, min_size=1, max_size=25))
# An entry that gains its id late is joined by it.
@example(deltas=[[{"index": 0}], [{"index": 0, "id": "a"}], [{"index": None, "id": "a"}]])
def test_tool_calls_merge_as_a_scan_finds_them(backend: ModuleType, deltas: list[Any]) -> None:
    """Entries found through the index of a choice's calls, on any sequence
    of fragments (indexes repeated, missing, null or of other types, which
    an entry joined by id takes; ids joined, repeated and set late): what
    scanning finds."""
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": calls}}]} for calls in deltas]
    expected: dict[str, Any] = {}
    for chunk in chunks:
        reference_merge(expected, json.loads(json.dumps(chunk["choices"][0]["delta"])), message=True)
    assembler = backend.OpenAIChatAssembler()
    for chunk in chunks:
        assembler.feed_event(chunk)
    assert assembler.completion["choices"][0]["message"] == expected


@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(deltas=st.lists(TOOL_CALLS, min_size=1, max_size=25))
def test_the_neutral_view_finds_the_calls_the_assembler_finds(backend: ModuleType, deltas: list[Any]) -> None:
    """The decoder (what every conversion reads) and the assembler follow one
    rule for which call a fragment belongs to: the same calls, in order,
    with the same arguments."""
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": calls}}]}
        for calls in deltas
    ]
    stream = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks)
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(stream)
    calls = assembler.close()["choices"][0]["message"].get("tool_calls") or []
    view = backend.NeutralAssembler("openai-chat")
    view.feed(stream)
    blocks = [block for message in view.close()["messages"] for block in message["blocks"]]
    functions = [call.get("function") if isinstance(call.get("function"), dict) else {} for call in calls]
    expected = [function.get("arguments") or None for function in functions]
    assert [block.get("arguments") or None for block in blocks] == expected


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [choice]}


def _call(**fields: Any) -> dict[str, Any]:
    return {"tool_calls": [fields]}


QUIRKS = {
    # AstrBot #6661, openai-python #2806: the index left out.
    "no index": [
        _chunk(
            {
                "role": "assistant",
                **_call(id="call_a", type="function", function={"name": "f", "arguments": ""}),
            }
        ),
        _chunk(_call(function={"arguments": '{"x": '})),
        _chunk(_call(function={"arguments": "1}"})),
        _chunk(_call(id="call_b", type="function", function={"name": "g", "arguments": "{}"})),
        _chunk({}, "tool_calls"),
    ],
    # lens #49: every call numbered 0.
    "one index": [
        _chunk(_call(index=0, id="call_a", type="function", function={"name": "f", "arguments": '{"x": '})),
        _chunk(_call(index=0, function={"arguments": "1}"})),
        _chunk(_call(index=0, id="call_b", type="function", function={"name": "g", "arguments": '{"y": '})),
        _chunk(_call(index=0, function={"arguments": "2}"})),
        _chunk({}, "tool_calls"),
    ],
}


@pytest.mark.parametrize("quirk", QUIRKS)
@pytest.mark.parametrize("size", [7, 10_000])
def test_tool_calls_of_servers_that_leave_the_index_out_or_share_it(
    backend: ModuleType, quirk: str, size: int
) -> None:
    """A fragment without an index joins the call of its id (a new id, a
    new call), or with no id the call before it; a call with the index of
    another but an id of its own is a call of its own. Both calls arrive
    whole: in the assembler, and in every conversion (the decoder follows
    the same rule). They once ran together, or split into fragments."""
    stream = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in QUIRKS[quirk])
    stream += b"data: [DONE]\n\n"
    assembler = backend.OpenAIChatAssembler()
    for start in range(0, len(stream), size):
        assembler.feed(stream[start : start + size])
    calls = assembler.close()["choices"][0]["message"]["tool_calls"]
    found = [
        (call["id"], call["function"]["name"], json.loads(call["function"]["arguments"])) for call in calls
    ]
    expected = {"no index": ({"x": 1}, {}), "one index": ({"x": 1}, {"y": 2})}[quirk]
    assert found == [("call_a", "f", expected[0]), ("call_b", "g", expected[1])]
    for target, row in TABLE.items():
        if "tool_call" in row.cannot_carry:
            continue
        transcoder = backend.Transcoder("openai-chat", target, **row.fixed_options)
        converted = transcoder.feed(stream) + transcoder.close()
        blocks = [
            block
            for message in view(backend, target, converted)["messages"]
            for block in message["blocks"]
            if block["kind"] == "tool_call"
        ]
        # (the ids where the target keeps them)
        assert [(block["name"], block["input"]) for block in blocks] == [call[1:] for call in found], target


def test_a_calls_thought_signature_stays_with_it_as_the_sdk_keeps_it(backend: ModuleType) -> None:
    """Gemini's compatible endpoint puts a call's thought signature in
    ``extra_content`` (OpenMAIC #1556); it must go back upstream with the
    call, so it is kept as it came, as openai-python's stream state keeps it."""
    streaming = pytest.importorskip("openai.lib.streaming.chat._completions")
    from openai.types.chat import ChatCompletionChunk

    signature = {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    chunks = [
        _chunk(
            {
                "role": "assistant",
                **_call(
                    index=0,
                    id="call_a",
                    type="function",
                    function={"name": "f", "arguments": "{}"},
                    extra_content=signature,
                ),
            }
        ),
        _chunk({}, "tool_calls"),
    ]
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks))
    (call,) = assembler.close()["choices"][0]["message"]["tool_calls"]
    assert call["extra_content"] == signature
    state = streaming.ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    (theirs,) = state.get_final_completion().choices[0].message.tool_calls or []
    assert theirs.model_dump()["extra_content"] == signature


# --- tool-call arguments as they stream (the cases of test_tool_call_arguments.py) ---


def test_a_stream_cut_short_leaves_incomplete_arguments_with_an_error(backend: ModuleType) -> None:
    """Chat: no end to a call but the stream's; what streamed stays."""
    start, deltas, _ = chat(['{"city": "Par'], "")
    assembler = backend.OpenAIChatAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse_event(event))
    assert assembler.tool_calls[0]["arguments"] == {"city": "Par"}
    assembler.close()
    call = assembler.tool_calls[0]
    assert call["arguments"] == '{"city": "Par'
    assert call["error"] == "arguments are not valid JSON: incomplete at byte 13"
    assert call["done"] is True


def test_a_top_level_number_is_complete_when_the_call_ends(backend: ModuleType) -> None:
    start, deltas, end = chat(["12", "3"], "123")
    assembler = backend.OpenAIChatAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse_event(event))
    assert assembler.tool_calls[0]["arguments"] == 123
    assert assembler.tool_calls[0]["done"] is False
    for event in end:
        assembler.feed(sse_event(event))
    assert assembler.tool_calls[0]["arguments"] == 123
    assert assembler.tool_calls[0]["done"] is True


def test_many_calls_each_keep_their_own_parser(backend: ModuleType) -> None:
    """Chat: two choices streaming calls in turn."""
    assembler = backend.OpenAIChatAssembler()

    def call_delta(choice: int, index: int, **function: Any) -> dict[str, Any]:
        entry = {"index": index, "function": function}
        return {
            **CHUNK,
            "choices": [{"index": choice, "delta": {"tool_calls": [entry]}, "finish_reason": None}],
        }

    assembler.feed(sse_event(call_delta(1, 0, name="g", arguments='{"x": ')))
    assembler.feed(sse_event(call_delta(0, 0, name="f", arguments='{"a": ')))
    assert [call["arguments"] for call in assembler.tool_calls] == [{}, {}]
    assembler.feed(sse_event(call_delta(0, 1, name="h", arguments="[1")))
    assembler.feed(sse_event(call_delta(1, 0, arguments="2}")))
    assembler.feed(sse_event(call_delta(0, 0, arguments="1}")))
    calls = assembler.tool_calls
    assert [(call["choice"], call["name"], call["arguments"], call["done"]) for call in calls] == [
        (0, "f", {"a": 1}, True),
        (0, "h", [1], False),
        (1, "g", {"x": 2}, True),
    ]


def test_a_call_that_ended_without_arguments_says_so(backend: ModuleType) -> None:
    """Chat: a call named and finished with no argument text."""
    assembler = backend.OpenAIChatAssembler()
    entry = {"index": 0, "id": "call_1", "function": {"name": "f"}}
    assembler.feed(sse_event(chat_choice({"tool_calls": [entry]})))
    assert assembler.tool_calls[0]["arguments"] is None
    assert "error" not in assembler.tool_calls[0]
    assembler.feed(sse_event(chat_choice({}, "tool_calls")))
    call = assembler.tool_calls[0]
    assert (call["arguments"], call["done"]) == (None, True)
    assert call["error"] == "arguments are missing: the call ended without any"


def test_a_foreign_stream_is_refused_saying_how_many_events_came(backend: ModuleType) -> None:
    assembler = backend.OpenAIChatAssembler()
    assembler.feed(TABLE["agentscope"].recorded())
    events = assembler.event_count
    with pytest.raises(
        AgentCodecError,
        match=rf"^the stream held no OpenAI Chat Completions chunk: none of its {events} events",
    ):
        assembler.close()


# --- what a conversion into the protocol writes, judged by its SDK (any source) ---


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_chat_output_is_what_openai_python_accumulates(source: str, path: Path) -> None:
    pytest.importorskip("openai.lib.streaming.chat")
    from openai.types.chat import ChatCompletionChunk

    for backend in backends():
        stream = convert(backend, source, "openai-chat", path.read_bytes())
        chunks = data_events(stream.replace(b"data: [DONE]\n\n", b""))
        failed = [chunk for chunk in chunks if "error" in chunk]
        assert len(failed) <= 1
        # (Azure's content-filter chunks pass through as they came; the SDK's
        # stream helper drops them)
        chunks = [chunk for chunk in chunks if "error" not in chunk and chunk.get("object") != ""]
        for chunk in chunks:
            # What openai-python's own model accepts, field for field.
            assert comparable(ChatCompletionChunk.model_validate(chunk).to_dict()) == comparable(chunk)
        assembler = backend.OpenAIChatAssembler()
        assembler.feed(stream)
        completion = assembler.close()
        if failed:
            assert assembler.errors[0]["message"] == failed[0]["error"]["message"]
        else:
            assert assembler.errors == []
        if chunks:
            assert comparable(completion) == comparable(sdk_completion(chunks))
            # [DONE] closes every run that finished, and only those.
            ended = view(backend, source, path.read_bytes())["ended"]
            assert stream.endswith(b"data: [DONE]\n\n") == (ended and not failed)


def test_the_finish_reasons_literal_is_the_vocabularys_table() -> None:
    """``FinishReason`` is written out for type checkers; ``FINISH_REASONS``
    comes from the vocabulary both backends read: they must agree."""
    from typing import get_args

    from agentcodec import openai_chat
    from agentcodec._vocabulary import tables

    assert get_args(openai_chat.types.FinishReason) == openai_chat.FINISH_REASONS
    assert tables("openai-chat")["FINISH_REASONS"] == openai_chat.FINISH_REASONS


def test_include_usage_false_leaves_the_usage_chunk_out_and_says_so(backend: ModuleType) -> None:
    """The Chat API writes a run's usage (a last chunk without choices)
    only when the request's ``stream_options`` ask, and a client that reads
    ``choices[0]`` of every chunk fails on it: ``include_usage=False``
    leaves it out, reported; by default (or True) it is written."""
    run = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "Hi"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": "completed", "usage": {"input_tokens": 3, "output_tokens": 1}},
    ]

    def written(**options: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        encoder = backend.NeutralEncoder("openai-chat", response_id="c", created_at=1, **options)
        stream = b"".join(encoder.encode(event) for event in run) + encoder.close()
        assert stream.endswith(b"data: [DONE]\n\n")
        return data_events(stream.replace(b"data: [DONE]\n\n", b"")), encoder.losses

    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    for options in ({}, {"include_usage": True}, {"include_usage": None}):
        chunks, losses = written(**options)
        assert chunks[-1]["choices"] == [], options
        assert chunks[-1]["usage"] == usage, options
        assert [loss for loss in losses if loss["what"] == "usage"] == []
    chunks, losses = written(include_usage=False)
    assert all(chunk["choices"] for chunk in chunks)
    assert "usage" not in json.dumps(chunks)
    assert [(loss["what"], loss["why"]) for loss in losses] == [
        ("usage", "openai-chat writes a run's usage only with include_usage")
    ]
    for refused, error in ((1, TypeError), ("no", TypeError)):
        with pytest.raises(error, match=r"^include_usage must be bool or None, not (int|str)$"):
            backend.NeutralEncoder("openai-chat", include_usage=refused)
