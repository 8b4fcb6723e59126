"""Conversions into the OpenAI Responses API, on both backends: from the
Agent API as an AgentScope AgentApp's Responses endpoint converts (and where
it should do better), and what a failed or cancelled run leaves a client
that reads only the last event. What every conversion does alike is
test_transcode's."""

from __future__ import annotations

import json
from pathlib import Path

from conversion import backends, convert
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
    events = [
        {"object": "response", "id": "r1", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "partial"},
        {"object": "response", "id": "r1", "status": "canceled"},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    for backend in backends():
        responses = data_events(convert(backend, "agentscope", "openai-responses", stream))
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
