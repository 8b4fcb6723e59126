"""Every assembler's tool calls, their arguments parsed as they stream: after
every argument delta (SSE bytes in any chunking, so the quick paths run too)
the arguments so far are what jiter's partial mode gives for the text so
far, on both backends; once the call ends they are the parsed value, or the
raw text with an error saying why."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import BACKENDS, NATIVE, PURE, examples, requires_native
from test_partial_json import JSON_VALUES, reference

SETTINGS = settings(max_examples=examples(60), deadline=None)

CHUNK = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chat_choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {**CHUNK, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def chat(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    start = chat_choice(
        {
            "role": "assistant",
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
            ],
        }
    )
    deltas = [
        chat_choice({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in pieces
    ]
    return [start], deltas, [chat_choice({}, "tool_calls"), "[DONE]"]


def anthropic(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    message = {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }
    start = [
        {"type": "message_start", "message": message},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
    ]
    deltas = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": piece},
        }
        for piece in pieces
    ]
    end = [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
    return start, deltas, end


def responses(pieces: list[str], text: str, kind: str = "function") -> tuple[list[Any], list[Any], list[Any]]:
    header = {
        "id": "r",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "m",
        "output": [],
    }
    called = {"call_id": "c"} if kind == "function" else {"server_label": "s"}
    item = {
        "type": f"{kind}_call",
        "id": "fc",
        **called,
        "name": "f",
        "arguments": "",
        "status": "in_progress",
    }
    done = {**item, "arguments": text, "status": "completed"}
    start = [
        {"type": "response.created", "sequence_number": 0, "response": header},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item},
    ]
    deltas = [
        {"type": f"response.{kind}_call_arguments.delta", "output_index": 0, "item_id": "fc", "delta": piece}
        for piece in pieces
    ]
    end = [
        {
            "type": f"response.{kind}_call_arguments.done",
            "output_index": 0,
            "item_id": "fc",
            "arguments": text,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": {**header, "status": "completed", "output": [done]}},
    ]
    return start, deltas, end


def responses_mcp(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    return responses(pieces, text, "mcp")


def agui(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    start = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
    ]
    deltas = [{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": piece} for piece in pieces]
    end = [
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    return start, deltas, end


def ai_sdk(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    start = [
        {"type": "start", "messageId": "m"},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
    ]
    deltas = [{"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": piece} for piece in pieces]
    end = [
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": json.loads(text)},
        {"type": "finish"},
        "[DONE]",
    ]
    return start, deltas, end


def langchain_envelope(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "method": "messages", "params": {"namespace": [], "timestamp": 1, "data": data}}


def langchain(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    chunk = {"type": "tool_call_chunk", "id": "call_1", "name": "f", "args": ""}
    start = [
        {"event": "message-start", "role": "ai", "id": "m"},
        {"event": "content-block-start", "index": 0, "content": chunk},
    ]
    deltas = [
        {"event": "content-block-delta", "index": 0, "delta": {"type": "tool-call-delta", "args": piece}}
        for piece in pieces
    ]
    end = [{"event": "message-finish", "reason": "tool_use"}]
    return (
        [langchain_envelope(data) for data in start],
        [langchain_envelope(data) for data in deltas],
        [langchain_envelope(data) for data in end],
    )


def agentscope(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    response = {"object": "response", "id": "r", "status": "in_progress", "output": []}
    message = {
        "object": "message",
        "id": "m",
        "type": "function_call",
        "role": "assistant",
        "status": "in_progress",
    }
    data = {"call_id": "c", "name": "f"}
    content = {"object": "content", "type": "data", "index": 0, "msg_id": "m", "status": "in_progress"}
    start = [response, message]
    deltas = [{**content, "delta": True, "data": {**data, "arguments": piece}} for piece in pieces]
    end = [
        {**content, "delta": False, "status": "completed", "data": {**data, "arguments": text}},
        {**message, "status": "completed"},
        {**response, "status": "completed"},
    ]
    return start, deltas, end


@dataclass(frozen=True)
class Protocol:
    name: str
    assembler: str  # the backend's class
    accessor: str  # the property giving the calls
    field: str  # where a call's arguments are
    stream: Callable[[list[str], str], tuple[list[Any], list[Any], list[Any]]]
    before: Any = None  # the arguments before any text came


PROTOCOLS = [
    Protocol("openai-chat", "OpenAIChatAssembler", "tool_calls", "arguments", chat),
    Protocol("anthropic", "AnthropicAssembler", "tool_calls", "input", anthropic, before={}),
    Protocol("openai-responses", "OpenAIResponsesAssembler", "function_calls", "arguments", responses),
    Protocol("openai-responses-mcp", "OpenAIResponsesAssembler", "tool_calls", "arguments", responses_mcp),
    Protocol("agui", "AGUIAssembler", "tool_calls", "arguments", agui),
    Protocol("ai-sdk", "AISDKAssembler", "tool_calls", "input", ai_sdk),
    Protocol("langchain", "LangChainAssembler", "tool_calls", "args", langchain),
    Protocol("agentscope", "AgentScopeAssembler", "tool_calls", "arguments", agentscope),
]


def sse(event: Any) -> bytes:
    data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    return [text[start:end] for start, end in itertools.pairwise(points) if end > start]


def the_call(assembler: Any, protocol: Protocol) -> dict[str, Any]:
    calls = getattr(assembler, protocol.accessor)
    assert len(calls) == 1, calls
    call: dict[str, Any] = calls[0]
    return call


def stream_and_read(
    backend: ModuleType, protocol: Protocol, text: str, pieces: list[str], chunking: int
) -> list[tuple[Any, bool]]:
    """Feeds the stream as SSE bytes, `chunking` bytes at a time around
    each delta's event, and reads the call after every delta."""
    start, deltas, end = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    seen = ""
    reads = []
    for piece, event in zip(pieces, deltas, strict=True):
        data = sse(event)
        for at in range(0, len(data), chunking):
            assembler.feed(data[at : at + chunking])
        seen += piece
        call = the_call(assembler, protocol)
        expected = reference(seen.encode()) if seen.strip() else protocol.before
        assert call[protocol.field] == expected, (protocol.name, seen)
        assert "error" not in call
        reads.append((call[protocol.field], call["done"]))
    for event in end:
        assembler.feed(sse(event))
    assembler.close()
    call = the_call(assembler, protocol)
    assert call[protocol.field] == json.loads(text), protocol.name
    assert call["done"] is True
    assert "error" not in call
    return reads


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    value=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    writing=st.tuples(st.sampled_from([None, 0, 2]), st.sampled_from([1, 7, 10_000])),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
)
def test_arguments_so_far_are_what_jiter_gives_for_the_text_so_far(
    backend: ModuleType,
    protocol: Protocol,
    value: dict[str, Any],
    writing: tuple[int | None, int],
    cuts: list[int],
) -> None:
    indent, chunking = writing  # chunking: SSE bytes fed at a time
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    stream_and_read(backend, protocol, text, split(text, cuts), chunking)


@requires_native
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@SETTINGS
@given(
    value=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    cuts=st.lists(st.integers(0, 10_000), max_size=20),
)
def test_backends_agree(protocol: Protocol, value: dict[str, Any], cuts: list[int]) -> None:
    text = json.dumps(value)
    pieces = split(text, cuts)
    assert stream_and_read(NATIVE, protocol, text, pieces, 10_000) == stream_and_read(
        PURE, protocol, text, pieces, 10_000
    )


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_the_live_value_is_updated_in_place(backend: ModuleType, protocol: Protocol) -> None:
    """Reading after every delta costs the delta: the same containers come
    back, grown."""
    text = json.dumps({"rows": [{"n": n} for n in range(50)]})
    pieces = [text[at : at + 5] for at in range(0, len(text), 5)]
    start, deltas, _ = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    first = None
    for event in deltas:
        assembler.feed(sse(event))
        value = the_call(assembler, protocol)[protocol.field]
        if isinstance(value, dict):
            first = first if first is not None else value
            assert value is first
    assert first is not None
    assert len(first["rows"]) == 50


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_reading_other_views_between_deltas_changes_nothing(backend: ModuleType, protocol: Protocol) -> None:
    """Reading the assembled message (which joins what the pure backend
    keeps in pieces) between reads of the calls."""
    text = json.dumps({"city": "Paris", "days": [1, 2, 3], "note": "é" * 20})
    pieces = [text[at : at + 3] for at in range(0, len(text), 3)]
    start, deltas, _ = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    seen = ""
    for number, (piece, event) in enumerate(zip(pieces, deltas, strict=True)):
        assembler.feed(sse(event))
        seen += piece
        if number % 3 == 0:
            json.dumps(getattr(assembler, MAIN_VIEW[protocol.name]))
        if number % 2 == 0:
            assert the_call(assembler, protocol)[protocol.field] == (
                reference(seen.encode()) if seen.strip() else protocol.before
            )


MAIN_VIEW = {
    "openai-chat": "completion",
    "anthropic": "message",
    "openai-responses": "response",
    "openai-responses-mcp": "response",
    "agui": "messages",
    "ai-sdk": "message",
    "langchain": "messages",
    "agentscope": "response",
}


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
def test_invalid_arguments_are_an_error_with_the_offset_and_stay_as_they_came(
    backend: ModuleType, protocol: Protocol
) -> None:
    pieces = ['{"a": 1', ", x", "}"]
    start, deltas, _ = protocol.stream(pieces, '{"a": 1}')
    assembler = getattr(backend, protocol.assembler)()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    call = the_call(assembler, protocol)
    assert call[protocol.field] == '{"a": 1, x}'
    assert (
        call["error"]
        == f"{SUBJECT[protocol.field]} not valid JSON: expected a string key, found 'x' at byte 9"
    )
    assert call["done"] is False


SUBJECT = {"arguments": "arguments are", "input": "input is", "args": "args are"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stream_cut_short_leaves_incomplete_arguments_with_an_error(backend: ModuleType) -> None:
    """Chat: no end to a call but the stream's; what streamed stays."""
    start, deltas, _ = chat(['{"city": "Par'], "")
    assembler = backend.OpenAIChatAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    assert assembler.tool_calls[0]["arguments"] == {"city": "Par"}
    assembler.close()
    call = assembler.tool_calls[0]
    assert call["arguments"] == '{"city": "Par'
    assert call["error"] == "arguments are not valid JSON: incomplete at byte 13"
    assert call["done"] is True


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_top_level_number_is_complete_when_the_call_ends(backend: ModuleType) -> None:
    start, deltas, end = chat(["12", "3"], "123")
    assembler = backend.OpenAIChatAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    assert assembler.tool_calls[0]["arguments"] == 123
    assert assembler.tool_calls[0]["done"] is False
    for event in end:
        assembler.feed(sse(event))
    assert assembler.tool_calls[0]["arguments"] == 123
    assert assembler.tool_calls[0]["done"] is True


@pytest.mark.parametrize("backend", BACKENDS)
def test_arguments_replaced_by_other_text_are_read_anew(backend: ModuleType) -> None:
    """Responses: a `.done` whose arguments are not the deltas' text (same
    length and longer) replaces them; the next read parses the new text."""
    start, deltas, _ = responses(['{"a": ', "1"], "")
    assembler = backend.OpenAIResponsesAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    assert assembler.function_calls[0]["arguments"] == {"a": 1}
    done = {"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc"}
    assembler.feed(sse({**done, "arguments": '{"b": 22}'}))
    assert assembler.function_calls[0]["arguments"] == {"b": 22}
    assembler.feed(sse({**done, "arguments": '{"b": 22, "c": 3}'}))
    assert assembler.function_calls[0]["arguments"] == {"b": 22, "c": 3}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_messages_snapshot_replaces_streamed_arguments(backend: ModuleType) -> None:
    start, deltas, _ = agui(['{"a": 1', "2"], "")
    assembler = backend.AGUIAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse(event))
    assert assembler.tool_calls[0]["arguments"] == {"a": 12}
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"z": [true]}'}}
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "m", "role": "assistant", "toolCalls": [call]}],
    }
    assembler.feed(sse(snapshot))
    assert assembler.tool_calls == [
        {"messageId": "m", "id": "c", "name": "f", "arguments": {"z": [True]}, "done": True}
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_restarted_tool_input_is_read_anew(backend: ModuleType) -> None:
    """AI SDK: a second tool-input-start for the call restarts its text."""
    assembler = backend.AISDKAssembler()
    start = {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"}
    delta = {"type": "tool-input-delta", "toolCallId": "c"}
    for event in [{"type": "start"}, start, {**delta, "inputTextDelta": '{"a": 1'}]:
        assembler.feed(sse(event))
    assert assembler.tool_calls[0]["input"] == {"a": 1}
    for event in [start, {**delta, "inputTextDelta": '{"bb": 2'}]:
        assembler.feed(sse(event))
    assert [call["input"] for call in assembler.tool_calls][-1] == {"bb": 2}


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_calls_each_keep_their_own_parser(backend: ModuleType) -> None:
    """Chat: two choices streaming calls in turn."""
    assembler = backend.OpenAIChatAssembler()

    def call_delta(choice: int, index: int, **function: Any) -> dict[str, Any]:
        entry = {"index": index, "function": function}
        return {
            **CHUNK,
            "choices": [{"index": choice, "delta": {"tool_calls": [entry]}, "finish_reason": None}],
        }

    assembler.feed(sse(call_delta(1, 0, name="g", arguments='{"x": ')))
    assembler.feed(sse(call_delta(0, 0, name="f", arguments='{"a": ')))
    assert [call["arguments"] for call in assembler.tool_calls] == [{}, {}]
    assembler.feed(sse(call_delta(0, 1, name="h", arguments="[1")))
    assembler.feed(sse(call_delta(1, 0, arguments="2}")))
    assembler.feed(sse(call_delta(0, 0, arguments="1}")))
    calls = assembler.tool_calls
    assert [(call["choice"], call["name"], call["arguments"], call["done"]) for call in calls] == [
        (0, "f", {"a": 1}, True),
        (0, "h", [1], False),
        (1, "g", {"x": 2}, True),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tool_input_error_gives_the_raw_input_and_why_it_is_not_json(backend: ModuleType) -> None:
    """AI SDK: a `tool-input-error` keeps the text that did not parse as the
    part's `rawInput`; `tool_calls` reads that text and says where it broke."""
    assembler = backend.AISDKAssembler()
    error = {"type": "tool-input-error", "toolCallId": "c", "toolName": "f", "errorText": "bad"}
    for event in [{"type": "start"}, {**error, "input": '{"city": Paris}'}]:
        assembler.feed(sse(event))
    assert assembler.tool_calls == [
        {
            "toolCallId": "c",
            "type": "tool-f",
            "toolName": "f",
            "state": "output-error",
            "input": '{"city": Paris}',
            "done": True,
            "error": "input is not valid JSON: expected a value, found 'P' at byte 9",
        }
    ]
    # Raw input that is JSON (the tool's schema refused it) reads as its value.
    assembler.feed(sse({**error, "toolCallId": "d", "input": '{"city": 7}'}))
    assert assembler.tool_calls[1]["input"] == {"city": 7}
    assert "error" not in assembler.tool_calls[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_input_given_as_a_string_value_is_that_string(backend: ModuleType) -> None:
    """AI SDK: a part's `input` is already a value; a string there is not JSON text."""
    assembler = backend.AISDKAssembler()
    available = {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": "Paris"}
    for event in [{"type": "start"}, available]:
        assembler.feed(sse(event))
    assert [(call["input"], call["done"], "error" in call) for call in assembler.tool_calls] == [
        ("Paris", True, False)
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_call_that_ended_without_arguments_says_so(backend: ModuleType) -> None:
    """Chat: a call named and finished with no argument text."""
    assembler = backend.OpenAIChatAssembler()
    entry = {"index": 0, "id": "call_1", "function": {"name": "f"}}
    assembler.feed(sse(chat_choice({"tool_calls": [entry]})))
    assert assembler.tool_calls[0]["arguments"] is None
    assert "error" not in assembler.tool_calls[0]
    assembler.feed(sse(chat_choice({}, "tool_calls")))
    call = assembler.tool_calls[0]
    assert (call["arguments"], call["done"]) == (None, True)
    assert call["error"] == "arguments are missing: the call ended without any"


@pytest.mark.parametrize("backend", BACKENDS)
def test_responses_tool_calls_and_function_calls_read_in_turn(backend: ModuleType) -> None:
    """Responses: `tool_calls` lists function and MCP calls, `function_calls`
    the function calls alone; the two share their parsers."""
    assembler = backend.OpenAIResponsesAssembler()
    start, deltas, _ = responses(['{"a": ', "1"], "")
    mcp_start, mcp_deltas, _ = responses(['{"b": ', "[2"], "", "mcp")
    mcp_added = {**mcp_start[1], "output_index": 1, "item": {**mcp_start[1]["item"], "id": "mc"}}
    mcp_deltas = [{**delta, "output_index": 1, "item_id": "mc"} for delta in mcp_deltas]
    for event in [*start, mcp_added, deltas[0], mcp_deltas[0]]:
        assembler.feed(sse(event))
    functions = assembler.function_calls
    assert functions == [{"id": "fc", "call_id": "c", "name": "f", "arguments": {}, "done": False}]
    live = functions[0]["arguments"]
    assembler.feed(sse(deltas[1]))
    assert [call["arguments"] for call in assembler.tool_calls] == [{"a": 1}, {}]
    assembler.feed(sse(mcp_deltas[1]))
    calls = assembler.tool_calls
    assert [(call["type"], call["arguments"]) for call in calls] == [
        ("function_call", {"a": 1}),
        ("mcp_call", {"b": [2]}),
    ]
    assert calls[1]["server_label"] == "s"
    assert assembler.function_calls[0]["arguments"] is live  # the same parser went on


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.name)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("every", [1, 700, 5000])
def test_long_arguments_read_now_and_then(backend: ModuleType, protocol: Protocol, every: int) -> None:
    """Thousands of one-character deltas (the pure backend joins pieces in
    batches of a thousand as they come): read after every delta, across
    several joins, or only at the end, the arguments are what jiter gives."""
    text = json.dumps({"query": "ab\u00e9\U0001f642" * 700, "n": [1, 2]})
    pieces = list(text)
    start, deltas, end = protocol.stream(pieces, text)
    assembler = getattr(backend, protocol.assembler)()
    for event in start:
        assembler.feed(sse(event))
    for count, event in enumerate(deltas, 1):
        assembler.feed(sse(event))
        if count % every == 0:
            seen = text[:count]
            assert the_call(assembler, protocol)[protocol.field] == reference(seen.encode()), count
    for event in end:
        assembler.feed(sse(event))
    assembler.close()
    assert the_call(assembler, protocol)[protocol.field] == json.loads(text)
