"""Conversions into the OpenAI Responses API, on both backends: from the
Agent API as an AgentScope AgentApp's Responses endpoint converts (and where
it should do better), and what a failed or cancelled run leaves a client
that reads only the last event. What every conversion does alike is
test_transcode's."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conversion import CANCELLED_RUN, OPTIONS, backends, convert, sse, view
from protocol_table import TABLE
from sse_helpers import data_events

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_agentscope_to_responses_keeps_tool_calls_and_failed_runs() -> None:
    for name, status in (("agent_turn", "completed"), ("agent_fails", "failed")):
        process = (FIXTURES / "agentapp" / f"{name}.process.sse").read_bytes()
        for backend in backends():
            assembler = backend.OpenAIResponsesAssembler()
            assembler.feed(convert(backend, "agentscope", "openai-responses", process))
            response = assembler.close()
            assert response["status"] == status
            types = [item["type"] for item in response["output"]]
            # The AgentApp drops plugin calls and their results (agentscope-runtime #486).
            assert "function_call" in types
            assert "function_call_output" in types
            assert "reasoning" in types
            assert assembler.function_calls[0]["arguments"] == {"city": "Paris", "unit": "C"}


def test_a_cancelled_run_is_an_incomplete_response_keeping_its_text() -> None:
    for backend in backends():
        responses = data_events(convert(backend, "agentscope", "openai-responses", CANCELLED_RUN))
        assert responses[-1]["type"] == "response.incomplete"
        assert responses[-1]["response"]["status"] == "cancelled"
        assert responses[-1]["response"]["output"][0]["content"][0]["text"] == "partial"


def test_a_failed_run_keeps_its_unfinished_items_in_the_failed_response() -> None:
    """A client that reads only ``response.failed`` keeps the text and the
    arguments streamed before the failure: the open items are in its output,
    as far as they got, with status ``incomplete``."""
    events = [
        {"object": "response", "id": "r1", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "half an "},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "answer"},
        {
            "object": "message",
            "id": "m2",
            "type": "plugin_call",
            "role": "assistant",
            "status": "in_progress",
        },
        {
            "object": "content",
            "type": "data",
            "index": 0,
            "delta": True,
            "msg_id": "m2",
            "data": {"call_id": "c1", "name": "weather", "arguments": '{"city": "Par'},
        },
        {"object": "response", "id": "r1", "status": "failed", "error": {"code": "boom", "message": "gone"}},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    written = {
        backend.__name__: convert(backend, "agentscope", "openai-responses", stream) for backend in backends()
    }
    assert len(set(written.values())) == 1  # byte for byte, on both backends
    failed = data_events(next(iter(written.values())))[-1]
    assert failed["type"] == "response.failed"
    message, call = failed["response"]["output"]
    assert message["status"] == "incomplete"
    assert message["content"][0]["text"] == "half an answer"
    assert (call["type"], call["status"], call["name"]) == ("function_call", "incomplete", "weather")
    assert call["arguments"] == '{"city": "Par'
    from openai.types.responses import Response

    Response.model_validate(failed["response"])  # as openai-python reads it
    # Its error code is one the API has: "boom" is none.
    assert failed["response"]["error"] == {"code": "server_error", "message": "gone"}


def neutral_run(*ending: dict[str, Any]) -> list[dict[str, Any]]:
    """A run of one message of text, ended by ``ending``."""
    return [
        {"type": "run_started", "run_id": "r", "thread_id": None, "model": "m", "created_at": 1},
        {"type": "message_started", "message_id": "m", "role": "assistant", "kind": "message"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "Hi"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        *ending,
    ]


def encoded(backend: ModuleType, events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    encoder = backend.NeutralEncoder("openai-responses", created_at=1)
    stream = b"".join(encoder.encode(event) for event in events) + encoder.close()
    return data_events(stream), encoder.losses


@pytest.mark.parametrize(
    ("usage", "written"),
    [
        (
            {"input_tokens": 3, "output_tokens": 5},
            {
                "input_tokens": 3,
                "output_tokens": 5,
                "total_tokens": 8,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        ),
        (
            # The neutral counts go into the detail objects; the source's other fields stay.
            {
                "input_tokens": 10,
                "output_tokens": 4,
                "cached_input_tokens": 6,
                "cache_creation_input_tokens": 2,
                "reasoning_tokens": 1,
                "service_tier": "standard",
            },
            {
                "input_tokens": 10,
                "output_tokens": 4,
                "service_tier": "standard",
                "total_tokens": 14,
                "input_tokens_details": {"cached_tokens": 6, "cache_write_tokens": 2},
                "output_tokens_details": {"reasoning_tokens": 1},
            },
        ),
        (
            # A Responses usage comes through as it was.
            {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 1, "cache_write_tokens": 0},
                "output_tokens": 2,
                "output_tokens_details": {"reasoning_tokens": 2},
                "total_tokens": 3,
            },
            {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 1, "cache_write_tokens": 0},
                "output_tokens": 2,
                "output_tokens_details": {"reasoning_tokens": 2},
                "total_tokens": 3,
            },
        ),
        (
            # Fields of the wrong type are written as the API's.
            {"input_tokens": 1, "output_tokens": 1, "total_tokens": "2", "input_tokens_details": [1]},
            {
                "input_tokens": 1,
                "output_tokens": 1,
                "total_tokens": 2,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        ),
    ],
    ids=["counts", "neutral-details", "responses", "odd-fields"],
)
def test_a_usage_is_written_whole_as_openai_python_requires_it(
    backend: ModuleType, usage: dict[str, Any], written: dict[str, Any]
) -> None:
    """openai-python's ResponseUsage needs the total and both detail objects;
    a usage written with the counts alone was one its models refuse."""
    from openai.types.responses import ResponseUsage

    events, losses = encoded(
        backend, neutral_run({"type": "run_finished", "status": "completed", "usage": usage})
    )
    assert events[-1]["response"]["usage"] == written
    assert list(events[-1]["response"]["usage"]) == list(written)  # in the same order on both backends
    ResponseUsage.model_validate(written)
    assert losses == []


def test_a_usage_without_input_and_output_counts_is_left_out_and_said(backend: ModuleType) -> None:
    usage = {"output_tokens": 5}
    events, losses = encoded(backend, neutral_run({"type": "run_failed", "message": "x", "usage": usage}))
    assert events[-1]["response"]["usage"] is None
    assert losses == [
        {
            "event": 6,
            "what": "usage",
            "why": "openai-responses needs input_tokens and output_tokens in a usage: "
            "one without them is left out",
        }
    ]


@pytest.mark.parametrize(
    ("stop_reason", "status", "details"),
    [
        ("length", "incomplete", {"reason": "max_output_tokens"}),
        ("max_tokens", "incomplete", {"reason": "max_output_tokens"}),
        ("content_filter", "incomplete", {"reason": "content_filter"}),
        ("stop", "incomplete", {"reason": None}),
        (None, "interrupted", {"reason": None}),
        ("length", "cancelled", None),
    ],
)
def test_an_incomplete_response_says_why_in_the_apis_words(
    backend: ModuleType, stop_reason: Any, status: str, details: Any
) -> None:
    """Its ``incomplete_details.reason`` was the neutral status ("incomplete"),
    which openai-python's models refuse; it is the API's word for the last
    message's stop reason, where there is one, and a cancelled response has
    no details."""
    from openai.types.responses import ResponseIncompleteEvent

    finished = {"type": "message_finished", "message_id": "m", "stop_reason": stop_reason}
    events, _ = encoded(backend, neutral_run(finished, {"type": "run_finished", "status": status}))
    assert events[-1]["response"]["incomplete_details"] == details
    ResponseIncompleteEvent.model_validate(events[-1])


def test_an_mcp_call_has_a_server_label_and_foreign_annotations_are_said(backend: ModuleType) -> None:
    """An MCP call item without ``server_label``, and another protocol's citation
    written as a Responses annotation, were what openai-python's models
    refuse. The label is empty (this call names no server); the citation
    has no place, and is reported."""
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    url = {"type": "url_citation", "url": "https://x", "title": "x", "start_index": 0, "end_index": 2}
    char = {"type": "char_location", "cited_text": "Hi", "document_index": 0, "start_char_index": 0}
    odd = {"type": ["url_citation"]}  # a type that is no name: no annotation of the API's
    events, losses = encoded(
        backend,
        [
            *neutral_run()[:4],
            {"type": "block_replaced", "message_id": "m", "index": 0, "annotations": [url, char, odd]},
            {"type": "block_finished", "message_id": "m", "index": 0},
            {"type": "block_started", "message_id": "m", "index": 1, "kind": "tool_call", "call_id": "c",
             "name": "f", "tool": "mcp"},
            {"type": "block_delta", "message_id": "m", "index": 1, "delta": "{}"},
            {"type": "block_finished", "message_id": "m", "index": 1},
            {"type": "run_finished", "status": "completed"},
        ],
    )  # fmt: skip
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    for event in events:
        adapter.validate_python(event)
    calls = [item for item in events[-1]["response"]["output"] if item["type"] == "mcp_call"]
    assert [(call["name"], call["server_label"], call["arguments"]) for call in calls] == [("f", "", "{}")]
    added = [
        event["annotation"] for event in events if event["type"] == "response.output_text.annotation.added"
    ]
    assert added == [url]
    assert [loss["what"] for loss in losses] == ["annotations"]


def test_an_error_code_the_api_does_not_have_is_a_server_error(backend: ModuleType) -> None:
    """A failed run's code that is none of the API's (here not even a
    string) is written as ``server_error``, as a Response's error must be."""
    events, _ = encoded(
        backend, [neutral_run()[0], {"type": "run_failed", "code": {"not": "a code"}, "message": "boom"}]
    )
    assert events[-1]["response"]["error"] == {"code": "server_error", "message": "boom"}


# Why a run stopped and which MCP server runs a tool call. The Responses API
# says why a response is incomplete of the response (``incomplete_details``),
# not of a message: the neutral ``run_finished`` carries it as its
# ``stop_reason``. An MCP call names its server here and in the Agent API
# (``server_label``): the neutral ``tool_call`` carries it as its ``server``.
EVERY_EVENT = (FIXTURES / "sdk" / "responses_every_event.sse").read_bytes()
INCOMPLETE = (FIXTURES / "sdk" / "responses_incomplete.sse").read_bytes()


def responses_adapter() -> Any:
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    return TypeAdapter(ResponseStreamEvent)


def assembled_response(backend: ModuleType, stream: bytes) -> dict[str, Any]:
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed(stream)
    return assembler.close()  # type: ignore[no-any-return]


def mcp_calls(response: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (item["name"], item["server_label"], item["arguments"])
        for item in response["output"]
        if item["type"] == "mcp_call"
    ]


def incomplete_response(reason: str) -> bytes:
    """The recorded incomplete response, its reason made ``reason``."""
    events = data_events(INCOMPLETE)
    for event in events:
        details = event.get("response", {}).get("incomplete_details")
        if details:
            details["reason"] = reason
    return sse(events)


def test_a_responses_round_trip_keeps_the_mcp_server_and_the_incomplete_reason(backend: ModuleType) -> None:
    adapter = responses_adapter()
    for stream in (EVERY_EVENT, INCOMPLETE):
        written = convert(backend, "openai-responses", "openai-responses", stream)
        for event in data_events(written):
            adapter.validate_python(event)
        source, back = assembled_response(backend, stream), assembled_response(backend, written)
        assert mcp_calls(back) == mcp_calls(source)
        assert back.get("incomplete_details") == source.get("incomplete_details")
    assert mcp_calls(assembled_response(backend, EVERY_EVENT)) == [("lookup", "srv", '{"a":1}')]
    assert assembled_response(backend, INCOMPLETE)["incomplete_details"] == {"reason": "max_output_tokens"}


def test_the_neutral_view_has_the_runs_stop_reason_and_the_calls_server(backend: ModuleType) -> None:
    assembler = backend.NeutralAssembler("openai-responses")
    assembler.feed(EVERY_EVENT)
    calls = [
        block
        for message in assembler.close()["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call"
    ]
    assert [(call["tool"], call["server"]) for call in calls] == [
        ("function", None),
        ("custom", None),
        ("mcp", "srv"),
    ]
    assembler = backend.NeutralAssembler("openai-responses")
    assembler.feed(INCOMPLETE)
    run = assembler.close()
    assert (run["status"], run["stop_reason"]) == ("incomplete", "max_output_tokens")


def stop_reasons(backend: ModuleType, target: str, stream: bytes) -> list[Any]:
    """Each message's stop reason, as the target's stream reads back."""
    return [message["stop_reason"] for message in view(backend, target, stream)["messages"]]


@pytest.mark.parametrize("reason", ["max_output_tokens", "content_filter"])
def test_the_incomplete_reason_becomes_each_targets_stop_reason(backend: ModuleType, reason: str) -> None:
    """A response stopped by a filter was written as one that ran out of
    tokens: the status alone says only that it is incomplete. Each target
    that writes the run's reason (its row's ``stop_reasons``) writes it in
    its own words, which its SDK takes."""
    stream = incomplete_response(reason)
    targets = [(name, row) for name, row in TABLE.items() if row.stop_reasons]
    assert targets
    for target, row in targets:
        written = convert(backend, "openai-responses", target, stream)
        row.judge(backend, written)
        assert stop_reasons(backend, target, written) == [row.stop_reasons[reason]], target


def test_a_message_that_gives_its_own_reason_keeps_it(backend: ModuleType) -> None:
    """The run's reason stands only for a message that gave none."""
    neutral = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant", "kind": "message"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "Hi"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "message_finished", "message_id": "m", "stop_reason": "length"},
        {"type": "run_finished", "status": "incomplete", "stop_reason": "content_filter"},
    ]
    for target, row in TABLE.items():
        if not row.stop_reasons:
            continue
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        written = b"".join(encoder.encode(event) for event in neutral) + encoder.close()
        assert stop_reasons(backend, target, written) == [row.stop_reasons["length"]], target


def test_an_agent_api_mcp_call_keeps_its_server_label_both_ways(backend: ModuleType) -> None:
    """Responses -> Agent API -> Responses: the Agent API's ``McpCall`` has a
    ``server_label`` too, so the label comes back."""
    there = convert(backend, "openai-responses", "agentscope", EVERY_EVENT)
    data = [
        event["data"]
        for event in data_events(there)
        if event.get("object") == "content" and isinstance(event.get("data"), dict)
    ]
    assert {"call_id": "mcp_1", "name": "lookup", "arguments": '{"a":1}', "server_label": "srv"} in data
    # A function call's data has no label.
    assert all("server_label" not in item for item in data if item.get("name") != "lookup")
    back = convert(backend, "agentscope", "openai-responses", there)
    assert mcp_calls(assembled_response(backend, back)) == [("lookup", "srv", '{"a":1}')]


def test_a_target_without_a_place_for_the_mcp_server_says_so(backend: ModuleType) -> None:
    """Every target but the Responses API and the Agent API writes an MCP call
    without its server: one loss for the one call, at its event."""
    from protocol_table import TABLE

    for target, row in TABLE.items():
        transcoder = backend.Transcoder("openai-responses", target, **OPTIONS[target])
        transcoder.feed(EVERY_EVENT)
        transcoder.close()
        lost = [loss for loss in transcoder.losses if loss["what"] == "tool_server"]
        if "tool_server" in row.cannot_carry:
            assert [loss["why"] for loss in lost] == [
                f"{target} has no place for the MCP server of a tool call"
            ], target
        else:
            assert lost == [], target
    # Beside the targets with no tool calls at all.
    carried = [
        target
        for target, row in TABLE.items()
        if "tool_server" not in row.cannot_carry and "tool_call" not in row.cannot_carry
    ]
    assert carried == ["agentscope", "openai-responses"]
