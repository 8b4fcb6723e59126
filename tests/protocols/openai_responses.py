"""The OpenAI Responses API, for the cross-cutting tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from agentcodec import openai_responses
from sse_helpers import data_events

from . import (
    BuiltTurn,
    GatewayCase,
    JudgedToolCalls,
    Row,
    ToolCallCase,
    beside,
    list_length,
    loaded,
    of_the_run,
)


def tool_call_stream(
    pieces: list[str], text: str, kind: str = "function"
) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
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


def mcp_tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    return tool_call_stream(pieces, text, "mcp")


def _judged_calls(response: dict[str, Any]) -> list[Any]:
    calls = ("function_call", "mcp_call")
    return [loaded(item["arguments"]) for item in response["output"] if item["type"] in calls]


def _last_response(recorded: dict[str, Any]) -> dict[str, Any]:
    """openai-python's final response, or where the stream did not complete,
    its last snapshot."""
    response: dict[str, Any] = recorded["final_response"] or recorded["snapshot"]
    return response


def _built_turn() -> list[dict[str, Any]]:
    builder = openai_responses.ResponseBuilder()
    out = builder.start() + builder.add_reasoning_delta("think") + builder.add_text_delta("hi")
    out += builder.add_function_call("weather", "{}") + builder.complete()
    return data_events(out)


def judge(backend: ModuleType, stream: bytes) -> None:
    """Numbered in order, every event one openai-python's models validate,
    and what its ``ResponseStreamState`` accumulates is the response the
    assembler gives."""
    import warnings

    import pytest

    streaming = pytest.importorskip("openai.lib.streaming.responses._responses")
    from openai._models import construct_type
    from openai._types import omit
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    events = data_events(stream)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    for event in events:
        adapter.validate_python(event)  # every field of the type the API says
    state = streaming.ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for event in events:
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=event))
        completed = state._completed_response
        expected = completed.to_dict() if completed is not None else None
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed(stream)
    response = assembler.close()
    assert assembler.errors == [] or response["status"] == "failed"
    if expected is not None:
        from test_openai_responses import without_sdk_extras

        assert response == without_sdk_extras(expected)


ROW = Row(
    name="openai-responses",
    carries_stop_reasons=True,
    # (A completed run says no reason; a run cut short says its kind.)
    stop_reason_words={
        "max_tokens": "max_output_tokens",
        "refusal": "content_filter",
        "guardrail_intervened": "content_filter",
        "end_turn": None,
    },
    error_code_words={
        "throttlingException": "rate_limit_exceeded",
        "rate_limit_error": "rate_limit_exceeded",
        "RESOURCE_EXHAUSTED": "rate_limit_exceeded",
        "overloaded_error": "server_error",
        "UNAVAILABLE": "server_error",
        "api_error": "server_error",
        "invalid_request_error": "invalid_prompt",
        "validationException": "invalid_prompt",
        "E_BOOM": "server_error",
    },
    assembler="OpenAIResponsesAssembler",
    result="response",
    stream="agentapp/agent_turn.responses.sse",
    recorded_streams=("sdk/responses_*.sse", "agentapp/*.responses.sse"),
    reads=("response",),
    three_messages=(
        {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}},
        *(
            {
                "type": "response.output_item.added",
                "output_index": i,
                "item": {"type": "message", "id": f"m{i}", "role": "assistant", "content": []},
            }
            for i in range(3)
        ),
    ),
    fixed_options={"response_id": "resp_1", "model": "m", "created_at": 1763700000},
    encrypted_by="openai",
    # (as the AI SDK's OpenAI package writes them, with the reasoning item's id)
    provider_metadata=(
        (
            {"encrypted": "ENC", "encrypted_by": "openai"},
            {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "ENC"}},
        ),
    ),
    tool_kinds=frozenset({"custom", "mcp"}),
    cannot_carry=frozenset({"error_code", "media", "data", "usage", "annotations"}),
    status_as_carried={"interrupted": "incomplete"},
    count_blocks=lambda assembler: sum(
        list_length(item.get("content")) + list_length(item.get("summary"))
        for item in assembler.response["output"]
    ),
    block_opening=(
        {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
        },
    ),
    one_block=lambda n: {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m",
        "content_index": n,
        "delta": "x",
    },
    text_opening=(
        {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "m", "role": "assistant", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "item_id": "m",
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ),
    text_delta={
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "item_id": "m",
        "delta": "b",
        "x": 0,
    },
    tool_calls=(
        ToolCallCase("openai-responses", "function_calls", "arguments", tool_call_stream),
        ToolCallCase("openai-responses-mcp", "tool_calls", "arguments", mcp_tool_call_stream),
    ),
    judged_tool_calls=(
        JudgedToolCalls(
            "agentapp/*.responses.sse",
            of_the_run,
            lambda recorded: _judged_calls(_last_response(recorded["responses"])),
        ),
        JudgedToolCalls(
            "sdk/responses_*.sse", beside, lambda recorded: _judged_calls(_last_response(recorded))
        ),
    ),
    built_turn=BuiltTurn(
        _built_turn,
        (("response", "id"), ("item", "id"), ("item", "call_id")),
        (r"resp_[0-9a-f]{48}", r"(msg|rs|fc)_[0-9a-f]{48}", r"call_[0-9A-Za-z]{24}"),
    ),
    results_as_text=True,
    gateway=GatewayCase("/v1/responses", lambda question: {"input": question, "stream": True}),
    judge=judge,
    own_annotation={
        "type": "url_citation",
        "url": "https://example.org",
        "title": "E",
        "start_index": 0,
        "end_index": 2,
    },
)
