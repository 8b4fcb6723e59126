"""OpenAI Responses: the assembler gives the Response openai-python's own
stream helper gives, on both backends and in any chunking.

The judges: streams recorded from a real AgentApp's
``/compatible-mode/v1/responses`` endpoint and streams built with
openai-python's own event classes for every event type
(scripts/agentapp_fixtures.py, scripts/openai_responses_fixtures.py), and what
openai-python's ``ResponseStreamState`` accumulates from them.
"""

from __future__ import annotations

import json
import random
import typing
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import conversion
import protocol_table
from agentcodec import AgentCodecError, OpenAIResponsesError, OpenAIResponsesEventError, openai_responses
from conftest import NATIVE, PURE, examples, requires_native
from protocols import sse_event
from protocols.openai_responses import tool_call_stream as responses

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDED = [
    ("agentapp", "agent_turn.responses", "agent_turn"),
    ("agentapp", "agent_fails.responses", "agent_fails"),
    ("sdk", "responses_every_event", "responses_every_event"),
    ("sdk", "responses_cut", "responses_cut"),
    ("sdk", "responses_failed", "responses_failed"),
    ("sdk", "responses_incomplete", "responses_incomplete"),
]
SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(folder: str, stream_name: str, reference_name: str) -> tuple[bytes, dict[str, Any]]:
    stream = (FIXTURES / folder / f"{stream_name}.sse").read_bytes()
    reference = json.loads((FIXTURES / folder / f"{reference_name}.json").read_text())
    return stream, reference.get("responses", reference)


def without_sdk_extras(value: Any) -> Any:
    """The SDK's parsed Response adds ``parsed`` (text) and ``parsed_arguments``
    (tools) to what the server sent; agentcodec keeps what was sent."""
    if isinstance(value, dict):
        return {
            key: without_sdk_extras(item)
            for key, item in value.items()
            if not (key in ("parsed", "parsed_arguments") and item is None)
        }
    if isinstance(value, list):
        return [without_sdk_extras(item) for item in value]
    return value


def assemble(backend: ModuleType, chunks: list[bytes]) -> tuple[Any, dict[str, Any]]:
    assembler = backend.OpenAIResponsesAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler, assembler.close()


def wire_events(stream: bytes) -> list[dict[str, Any]]:
    return [json.loads(block.split("data: ", 1)[1]) for block in stream.decode().split("\n\n") if block]


@pytest.mark.parametrize(("folder", "name", "reference_name"), RECORDED)
def test_recorded_streams_give_the_sdks_response(
    backend: ModuleType, folder: str, name: str, reference_name: str
) -> None:
    stream, reference = load(folder, name, reference_name)
    assembler, response = assemble(backend, [stream])
    if reference["final_response"] is not None:
        assert response == without_sdk_extras(reference["final_response"])
        assert assembler.output_text == reference["output_text"]
    else:
        # No response.completed: the SDK has only its snapshot, in which it
        # accumulates output text and function-call arguments. Those agree;
        # agentcodec also applies the done events, summaries, refusals and
        # the latest lifecycle event's fields.
        snapshot = reference["snapshot"]
        ours = {item.get("id"): item for item in response["output"]}
        for item in snapshot["output"]:
            mine = ours[item.get("id")]
            assert mine["type"] == item["type"]
            if item["type"] == "message":
                texts = [part.get("text") for part in item["content"] if part["type"] == "output_text"]
                assert [
                    part.get("text") for part in mine["content"] if part["type"] == "output_text"
                ] == texts
            if item["type"] == "function_call":
                assert mine["arguments"] == item["arguments"]


@pytest.mark.parametrize(("folder", "name", "reference_name"), RECORDED)
def test_any_chunking(backend: ModuleType, folder: str, name: str, reference_name: str) -> None:
    stream, _ = load(folder, name, reference_name)
    _, whole = assemble(backend, [stream])
    rng = random.Random(name)
    chunks, position = [], 0
    while position < len(stream):
        size = rng.randint(1, 900)
        chunks.append(stream[position : position + size])
        position += size
    assert assemble(backend, chunks)[1] == whole
    if len(stream) < 30_000:
        assert assemble(backend, [stream[i : i + 1] for i in range(len(stream))])[1] == whole


@pytest.mark.parametrize(("folder", "name", "reference_name"), RECORDED)
def test_decoded_events_and_feed_with_events(
    backend: ModuleType, folder: str, name: str, reference_name: str
) -> None:
    stream, _ = load(folder, name, reference_name)
    events = wire_events(stream)
    _, whole = assemble(backend, [stream])
    assembler = backend.OpenAIResponsesAssembler()
    for event in events:
        assembler.feed_event(event)
    assert assembler.close() == whole
    assert assembler.event_count == len(events)
    assert backend.OpenAIResponsesAssembler().feed_with_events(stream) == events


def test_a_failing_agentapp_run_keeps_what_streamed(backend: ModuleType) -> None:
    stream, reference = load("agentapp", "agent_fails.responses", "agent_fails")
    assembler, response = assemble(backend, [stream])
    assert response["status"] == "failed"
    assert assembler.status == "failed"
    assert response["error"] == reference["terminal_response"]["error"]
    # response.failed carries only the items completed before the failure;
    # the text streamed before it stays.
    answer = json.loads((FIXTURES / "agentapp" / "agent_fails.json").read_text())["answer"]
    assert [item["type"] for item in response["output"]] == ["reasoning", "message"]
    assert response["output"][0] == reference["terminal_response"]["output"][0]
    assert assembler.output_text == answer
    assert assembler.errors == [
        {"event": len(wire_events(stream)), "code": "server_error", "message": response["error"]["message"]}
    ]


@pytest.mark.parametrize("status", ["failed", "incomplete"])
def test_a_response_that_ends_early_keeps_its_text(backend: ModuleType, status: str) -> None:
    stream, reference = load("sdk", f"responses_{status}", f"responses_{status}")
    assembler, response = assemble(backend, [stream])
    # The terminal event carries no output items; what streamed stays.
    assert response["status"] == status
    assert assembler.output_text == "Partial answer"
    assert (
        response["output"][0]["content"][0]["text"]
        == reference["snapshot"]["output"][0]["content"][0]["text"]
    )
    if status == "failed":
        assert assembler.errors == [{"event": 6, "code": "server_error", "message": "The model went away."}]
    else:
        assert response["incomplete_details"] == {"reason": "max_output_tokens"}
        assert assembler.errors == []


def test_every_event_type(backend: ModuleType) -> None:
    stream, _ = load("sdk", "responses_every_event", "responses_every_event")
    assembler, response = assemble(backend, [stream])
    assert assembler.function_calls == [
        {
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": {"city": "Paris"},
            "done": True,
        }
    ]
    assert assembler.errors == [{"event": 86, "code": "rate_limit", "message": "slow down"}]
    kept = [event["type"] for event in assembler.events]
    assert kept == [
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
        "response.compaction.compacting",
        "error",
    ]
    assert response["usage"]["total_tokens"] == 30


def test_the_cut_stream_applies_every_kind_of_delta(backend: ModuleType) -> None:
    stream, _ = load("sdk", "responses_cut", "responses_cut")
    _assembler, response = assemble(backend, [stream])
    reasoning, message, call, custom, mcp = response["output"]
    assert reasoning == {  # replaced by its output_item.done
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Looked it up."}],
        "content": [{"type": "reasoning_text", "text": "I should search."}],
        "encrypted_content": "enc",
        "status": "completed",
    }
    assert message["content"][0]["annotations"][0]["url"] == "https://example.com"
    assert message["content"][1] == {"type": "refusal", "refusal": "No."}
    assert call["arguments"] == '{"city":"Paris"}'
    assert custom["input"] == "ls -la"
    assert mcp["status"] == "in_progress"  # cut before its arguments
    assert response["status"] == "in_progress"


def test_deltas_without_their_part_added(backend: ModuleType) -> None:
    """Producers that skip content_part.added (a strict client drops their
    text); the part opens with the first delta."""
    assembler = backend.OpenAIResponsesAssembler()
    for event in [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "m", "type": "message", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "m",
            "output_index": 0,
            "content_index": 0,
            "delta": "Hel",
            "logprobs": [{"token": "Hel", "logprob": -0.1}],
        },
        {
            "type": "response.output_text.delta",
            "item_id": "m",
            "output_index": 0,
            "content_index": 0,
            "delta": "lo",
            "logprobs": [],
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"id": "r", "type": "reasoning", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "r",
            "output_index": 1,
            "summary_index": 0,
            "delta": "think",
        },
    ]:
        assembler.feed_event(event)
    output = assembler.response["output"]
    assert output[0]["content"] == [
        {
            "type": "output_text",
            "annotations": [],
            "text": "Hello",
            "logprobs": [{"token": "Hel", "logprob": -0.1}],
        }
    ]
    assert output[1]["summary"] == [{"type": "summary_text", "text": "think"}]
    assert assembler.output_text == "Hello"


def test_done_items_are_matched_by_id(backend: ModuleType) -> None:
    """Gateways send output_item.done at the wrong index or out of order."""
    assembler = backend.OpenAIResponsesAssembler()
    for event in [
        {"type": "response.output_item.added", "output_index": 0, "item": {"id": "a", "type": "reasoning"}},
        {"type": "response.output_item.added", "output_index": 1, "item": {"id": "b", "type": "message"}},
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {"id": "a", "type": "reasoning", "summary": []},
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"id": "b", "type": "message", "content": []},
        },
        {"type": "response.output_item.done", "output_index": 5, "item": {"id": "c", "type": "message"}},
    ]:
        assembler.feed_event(event)
    assert assembler.response["output"] == [
        {"id": "a", "type": "reasoning", "summary": []},
        {"id": "b", "type": "message", "content": []},
        {"id": "c", "type": "message"},
    ]


def test_errors(backend: ModuleType) -> None:
    cases = [
        (
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "x"},
            "(response.output_text.delta) is for output item 0, which was never added",
        ),
        (
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0},
            "(response.output_text.delta) has no delta",
        ),
        (
            {"type": "response.output_item.added", "output_index": "0", "item": {}},
            "(response.output_item.added) has an output_index that is not a 64-bit integer",
        ),
        (
            {"type": "response.output_item.added", "output_index": 2**64, "item": {}},
            "(response.output_item.added) has an output_index that is not a 64-bit integer",
        ),
        ({"type": "response.created", "response": []}, "(response.created) has no response object"),
        ({"type": 3}, "has a type that is not a string"),
    ]
    for event, problem in cases:
        assembler = backend.OpenAIResponsesAssembler()
        with pytest.raises(OpenAIResponsesEventError) as caught:
            assembler.feed_event(event)
        assert str(caught.value) == f"OpenAI Responses event 1 {problem}"
    assembler = backend.OpenAIResponsesAssembler(on_error="skip")
    assembler.feed_event({"type": "response.created", "response": {"id": "r1", "output": []}})
    assembler.feed_event({"type": "response.completed", "response": {"id": "r2", "output": []}})
    assembler.feed(b"data: [1]\n\n")
    assert [error["message"] for error in assembler.errors] == [
        'OpenAI Responses event 2 (response.completed) is for response "r2", not "r1"',
        "OpenAI Responses event 3 is a JSON array, not an object",
    ]
    assembler.close()
    with pytest.raises(OpenAIResponsesError, match="closed"):
        assembler.feed(b"")


def test_invalid_arguments_stay_as_they_came(backend: ModuleType) -> None:
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed_event(
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "fc", "type": "function_call", "call_id": "c", "name": "f", "arguments": '{"a": '},
        }
    )
    # Streaming: the arguments so far.
    assert assembler.function_calls == [
        {"id": "fc", "call_id": "c", "name": "f", "arguments": {}, "done": False}
    ]
    assembler.close()
    assert assembler.function_calls == [
        {
            "id": "fc",
            "call_id": "c",
            "name": "f",
            "arguments": '{"a": ',
            "done": True,
            "error": "arguments are not valid JSON: incomplete at byte 6",
        }
    ]


# --- generated streams -------------------------------------------------------------------

item_ids = st.sampled_from(["m", "fc", "rs", "x"])
indexes = st.one_of(st.integers(-1, 2), st.sampled_from([2**63, "0", 1.0, None]))
words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)


@st.composite
def response_events(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "response.created",
                "response.in_progress",
                "response.completed",
                "response.failed",
                "response.output_item.added",
                "response.output_item.done",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.done",
                "response.function_call_arguments.delta",
                "response.reasoning_summary_text.delta",
                "response.reasoning_text.delta",
                "response.refusal.delta",
                "response.output_text.annotation.added",
                "response.web_search_call.searching",
                "error",
                "response.unknown.thing",
            ]
        )
    )
    event: dict[str, Any] = {"type": kind, "sequence_number": draw(st.integers(0, 9))}
    if kind.startswith("response.") and kind.split(".")[1] in (
        "created",
        "in_progress",
        "completed",
        "failed",
    ):
        response: dict[str, Any] = {"id": draw(st.sampled_from(["r1", "r1", "r2"])), "status": "x"}
        if draw(st.booleans()):
            response["output"] = draw(st.lists(item_dicts(), max_size=2))
        event["response"] = response
        return event
    event["output_index"] = draw(indexes)
    if draw(st.booleans()):
        event["item_id"] = draw(item_ids)
    if kind in ("response.output_item.added", "response.output_item.done"):
        event["item"] = draw(item_dicts() | st.none())
    elif kind == "response.content_part.added":
        event["content_index"] = draw(indexes)
        event["part"] = {"type": "output_text", "text": "", "annotations": []}
    elif kind.endswith(".delta"):
        event["delta"] = draw(words)
        event["content_index" if "summary" not in kind else "summary_index"] = draw(indexes)
        if draw(st.booleans()):
            event["logprobs"] = draw(st.sampled_from([[], [{"token": "t"}], {"x": 1}]))
    elif kind.endswith(".done"):
        event["text"] = draw(words)
        event["content_index"] = draw(indexes)
    elif kind.endswith("annotation.added"):
        event.update(content_index=draw(indexes), annotation_index=draw(indexes), annotation={"type": "u"})
    elif kind == "error":
        event.update(code=draw(st.sampled_from(["c", None])), message="m")
    return event


@st.composite
def item_dicts(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"type": draw(st.sampled_from(["message", "function_call", "reasoning"]))}
    if draw(st.booleans()):
        item["id"] = draw(item_ids)
    if draw(st.booleans()):
        item["call_id"] = draw(st.sampled_from(["c1", "c2"]))
    if item["type"] == "message" or draw(st.booleans()):
        # (a message always has content: the SDK fills in [] where it lacks it)
        item["content"] = draw(st.sampled_from([[], [{"type": "output_text", "text": "a"}]]))
    return item


def observe(backend: ModuleType, chunks: list[bytes], on_error: str) -> list[Any]:
    assembler = backend.OpenAIResponsesAssembler(on_error=on_error)
    seen: list[Any] = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        seen.append(
            (
                result,
                assembler.response,
                assembler.output_text,
                assembler.function_calls,
                assembler.events,
                assembler.status,
                assembler.errors,
                assembler.event_count,
            )
        )
    return seen


frames = st.one_of(
    response_events().map(json.dumps),
    st.sampled_from(["[DONE]", "not json", "[1]", "{}", '{"type":null}', "NaN"]),
)


@requires_native
@SETTINGS
@given(
    texts=st.lists(frames, max_size=20), on_error=st.sampled_from(["raise", "skip"]), cut=st.integers(1, 80)
)
def test_native_and_python_agree(texts: list[str], on_error: str, cut: int) -> None:
    stream = b"".join(b"event: x\ndata: " + text.encode() + b"\n\n" for text in texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, on_error) == observe(PURE, chunks, on_error)


openai_streaming = pytest.importorskip("openai.lib.streaming.responses._responses")


@SETTINGS
@given(events=st.lists(response_events(), max_size=15))
def test_generated_streams_agree_with_openai_python(events: list[dict[str, Any]]) -> None:
    """Where openai-python's stream helper completes a response, the
    assembler gives the same one."""
    from openai._models import construct_type
    from openai._types import omit
    from openai.types.responses import ResponseStreamEvent

    state = openai_streaming.ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():  # the SDK's models warn about their own unions
        warnings.simplefilter("ignore")
        try:
            for event in events:
                state.handle_event(
                    construct_type(type_=ResponseStreamEvent, value=json.loads(json.dumps(event)))
                )
        except Exception:
            return
        completed = state._completed_response
        if completed is None:
            return
        expected = without_sdk_extras(completed.to_dict())
    for backend in (NATIVE, PURE):
        if backend is None:
            continue
        assembler = backend.OpenAIResponsesAssembler(on_error="skip")
        for event in events:
            assembler.feed_event(event)
        if not assembler.errors or all(error["code"] != "invalid_event" for error in assembler.errors):
            assert assembler.response == expected


def test_every_event_type_of_the_sdk_is_known() -> None:
    from openai.types.responses import ResponseStreamEvent

    classes = typing.get_args(typing.get_args(ResponseStreamEvent)[0])
    sdk_types = {typing.get_args(cls.model_fields["type"].annotation)[0] for cls in classes}
    assert sdk_types == set(openai_responses.EVENT_TYPES)
    recorded = {
        event["type"]
        for name in ("responses_every_event", "responses_failed", "responses_incomplete")
        for event in wire_events(load("sdk", name, name)[0])
    }
    assert recorded == sdk_types


def test_events_after_the_response_ended_leave_it_final() -> None:
    # openai-python's get_final_response() is the completed Response, whatever follows it.
    events = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "r1", "status": "in_progress"}},
        {"type": "response.completed", "sequence_number": 1, "response": {"id": "r1", "status": "completed"}},
        {
            "type": "response.output_item.added",
            "sequence_number": 2,
            "output_index": 0,
            "item": {"type": "message", "id": "m", "content": []},
        },
    ]
    for backend in (NATIVE, PURE):
        if backend is None:
            continue
        assembler = backend.OpenAIResponsesAssembler(on_error="skip")
        stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
        assembler.feed(stream)
        response = assembler.close()
        assert response["output"] == []
        assert response["status"] == "completed"
        (error,) = assembler.errors
        assert error["message"] == (
            "OpenAI Responses event 3 (response.output_item.added) comes after the response ended"
        )


# --- tool-call arguments as they stream (the cases of test_tool_call_arguments.py) ---


def test_arguments_replaced_by_other_text_are_read_anew(backend: ModuleType) -> None:
    """Responses: a `.done` whose arguments are not the deltas' text (same
    length and longer) replaces them; the next read parses the new text."""
    start, deltas, _ = responses(['{"a": ', "1"], "")
    assembler = backend.OpenAIResponsesAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse_event(event))
    assert assembler.function_calls[0]["arguments"] == {"a": 1}
    done = {"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc"}
    assembler.feed(sse_event({**done, "arguments": '{"b": 22}'}))
    assert assembler.function_calls[0]["arguments"] == {"b": 22}
    assembler.feed(sse_event({**done, "arguments": '{"b": 22, "c": 3}'}))
    assert assembler.function_calls[0]["arguments"] == {"b": 22, "c": 3}


def test_responses_tool_calls_and_function_calls_read_in_turn(backend: ModuleType) -> None:
    """Responses: `tool_calls` lists function and MCP calls, `function_calls`
    the function calls alone; the two share their parsers."""
    assembler = backend.OpenAIResponsesAssembler()
    start, deltas, _ = responses(['{"a": ', "1"], "")
    mcp_start, mcp_deltas, _ = responses(['{"b": ', "[2"], "", "mcp")
    mcp_added = {**mcp_start[1], "output_index": 1, "item": {**mcp_start[1]["item"], "id": "mc"}}
    mcp_deltas = [{**delta, "output_index": 1, "item_id": "mc"} for delta in mcp_deltas]
    for event in [*start, mcp_added, deltas[0], mcp_deltas[0]]:
        assembler.feed(sse_event(event))
    functions = assembler.function_calls
    assert functions == [{"id": "fc", "call_id": "c", "name": "f", "arguments": {}, "done": False}]
    live = functions[0]["arguments"]
    assembler.feed(sse_event(deltas[1]))
    assert [call["arguments"] for call in assembler.tool_calls] == [{"a": 1}, {}]
    assembler.feed(sse_event(mcp_deltas[1]))
    calls = assembler.tool_calls
    assert [(call["type"], call["arguments"]) for call in calls] == [
        ("function_call", {"a": 1}),
        ("mcp_call", {"b": [2]}),
    ]
    assert calls[1]["server_label"] == "s"
    assert assembler.function_calls[0]["arguments"] is live  # the same parser went on


def test_a_foreign_stream_of_one_event_is_refused_saying_so(backend: ModuleType) -> None:
    one = backend.OpenAIResponsesAssembler()
    one.feed_event({"type": "RUN_STARTED"})
    with pytest.raises(AgentCodecError, match=r"its one event is not one$"):
        one.close()


ENCRYPTED = conversion.sse(
    [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "rs_1", "type": "reasoning"},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "thinking",
        },
        {
            "type": "response.reasoning_summary_part.done",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": "thinking"},
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "rs_1",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "thinking"}],
                "encrypted_content": "ENC42",
            },
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "hi",
        },
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "object": "response", "status": "completed"},
        },
    ]
)


@pytest.mark.parametrize("through", [name for name in protocol_table.TABLE if name != "openai-responses"])
def test_encrypted_reasoning_comes_back_from_every_target_with_a_place(
    backend: ModuleType, through: str
) -> None:
    """A reasoning item's encrypted content, converted into every other
    protocol and back, comes back where the target has a place for it."""
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed(conversion.round_trip(backend, "openai-responses", through, ENCRYPTED))
    response = assembler.close()
    reasoning_items = [item for item in response["output"] if item["type"] == "reasoning"]
    if "reasoning" in protocol_table.TABLE[through].cannot_carry:
        assert reasoning_items == []  # reported as a loss by the encoder
        return
    (reasoning,) = reasoning_items
    carried = protocol_table.TABLE[through].carries_signatures_of(protocol_table.TABLE["openai-responses"])
    assert reasoning.get("encrypted_content") == ("ENC42" if carried else None)


def test_the_types_have_the_wire_spellings() -> None:
    import typing

    assert "sequence_number" in typing.get_type_hints(openai_responses.StreamEvent)
    assert "response.output_text.delta" in openai_responses.EVENT_TYPES


def test_each_signed_thinking_block_is_a_reasoning_item_of_its_own(backend: ModuleType) -> None:
    """A reasoning item has one encrypted content: a signed thinking block and
    a redacted one after it in one message (as Messages-style providers send
    them) become two reasoning items, each with its own, as openai-python's
    stream helper completes the response; a second signature while the
    item's first block is still open has no place, and is reported. (One
    item kept the last and dropped the others without a word.)"""
    from openai._models import construct_type
    from openai._types import omit
    from openai.types.responses import ResponseStreamEvent

    def block(index: int, kind: str, *events: dict[str, Any]) -> list[dict[str, Any]]:
        at = {"message_id": "m", "index": index}
        return [
            {"type": "block_started", **at, "kind": kind},
            *({**event, **at} for event in events),
            {"type": "block_finished", **at},
        ]

    signed = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        *block(
            0,
            "reasoning",
            {"type": "block_delta", "delta": "Let me see."},
            {"type": "block_replaced", "encrypted": "sig-1"},
        ),
        *block(1, "reasoning", {"type": "block_replaced", "encrypted": "sealed-2", "redacted": True}),
        *block(2, "text", {"type": "block_delta", "delta": "Done."}),
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": "completed"},
    ]
    encoder = backend.NeutralEncoder("openai-responses", **conversion.OPTIONS["openai-responses"])
    written = b"".join(encoder.encode(event) for event in signed) + encoder.close()
    assert encoder.losses == []
    state = openai_streaming.ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():  # the SDK's models warn about their own unions
        warnings.simplefilter("ignore")
        for event in wire_events(written):
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=event))
    completed = state._completed_response
    assert completed is not None
    reasoning = [item for item in completed.output if item.type == "reasoning"]
    assert [item.encrypted_content for item in reasoning] == ["sig-1", "sealed-2"]
    assert len({item.id for item in reasoning}) == 2

    # Interleaved: the first block still open when the second is signed.
    encoder = backend.NeutralEncoder("openai-responses", **conversion.OPTIONS["openai-responses"])
    at = [{"message_id": "m", "index": index} for index in (0, 1)]
    for event in [
        *signed[:2],
        {"type": "block_started", **at[0], "kind": "reasoning"},
        {"type": "block_replaced", **at[0], "encrypted": "sig-1"},
        {"type": "block_started", **at[1], "kind": "reasoning"},
        {"type": "block_replaced", **at[1], "encrypted": "sig-2"},
    ]:
        encoder.encode(event)
    assert encoder.losses == [
        {"event": 6, "what": "signatures", "why": "openai-responses has no place for a reasoning signature"}
    ]
