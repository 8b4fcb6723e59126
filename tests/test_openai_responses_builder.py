"""ResponseBuilder: a Responses stream written from simple calls, judged by
openai-python's own stream helper and by agentcodec's assembler."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from agentcodec import openai_responses
from conftest import NATIVE, PURE
from test_openai_responses import without_sdk_extras


def build() -> tuple[openai_responses.ResponseBuilder, bytes]:
    builder = openai_responses.ResponseBuilder(response_id="resp_1", model="gpt-test", created_at=1763700000)
    out = builder.start()
    out += builder.add_reasoning_delta("The user wants ", summary=True)
    out += builder.add_reasoning_delta("the weather.", summary=True)
    out += builder.add_text_delta("Let me ")
    out += builder.add_text_delta("check ☀️.")
    out += builder.add_function_call("weather", '{"city":', call_id="call_1")
    out += builder.add_arguments_delta(' "Paris"}')
    out += builder.add_function_call_output("call_1", "sunny, 21 °C")
    out += builder.add_text_delta("It is sunny.")
    out += builder.complete({"input_tokens": 5, "output_tokens": 7, "total_tokens": 12})
    return builder, out


def events_of(stream: bytes) -> list[dict[str, Any]]:
    return [
        json.loads(block.split("data: ", 1)[1])
        for block in stream.decode().split("\n\n")
        if "data: " in block
    ]


def test_the_sdk_accumulates_what_the_builder_keeps() -> None:
    streaming = pytest.importorskip("openai.lib.streaming.responses._responses")
    from openai._models import construct_type
    from openai._types import omit
    from openai.types.responses import ResponseStreamEvent

    builder, stream = build()
    events = events_of(stream)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    state = streaming.ResponseStreamState(input_tools=omit, text_format=omit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for event in events:
            state.handle_event(construct_type(type_=ResponseStreamEvent, value=event))
    expected = without_sdk_extras(state._completed_response.to_dict())
    assert builder.response == expected
    assert [item["type"] for item in expected["output"]] == [
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert expected["output"][1]["content"][0]["text"] == "Let me check ☀️."
    assert expected["output"][2]["arguments"] == '{"city": "Paris"}'


@pytest.mark.parametrize("backend", [b for b in (NATIVE, PURE) if b is not None], ids=lambda b: b.__name__)
def test_both_backends_assemble_the_stream_to_the_same_response(backend: Any) -> None:
    builder, stream = build()
    assembler = backend.OpenAIResponsesAssembler()
    assembler.feed(stream)
    assert assembler.close() == builder.response
    assert assembler.output_text == "Let me check ☀️.It is sunny."
    assert assembler.function_calls[0]["arguments"] == {"city": "Paris"}


def test_failed_and_cancelled_responses_keep_their_output() -> None:
    builder = openai_responses.ResponseBuilder(created_at=1)
    stream = builder.start() + builder.add_text_delta("partial") + builder.fail("boom", code="server_error")
    assert events_of(stream)[-1]["type"] == "response.failed"
    assert builder.response["status"] == "failed"
    assert builder.response["error"] == {"code": "server_error", "message": "boom"}
    cancelled = openai_responses.ResponseBuilder(created_at=1)
    cancelled.start()
    cancelled.add_text_delta("partial")
    assert events_of(cancelled.incomplete("cancelled"))[-1]["response"]["status"] == "cancelled"
    assert cancelled.response["output"][0]["content"][0]["text"] == "partial"


def test_an_incomplete_response_says_why() -> None:
    """``incomplete_details.reason`` is what a client reads to tell a cut
    answer from a filtered one."""
    from openai.types.responses import ResponseIncompleteEvent

    for stop_reason, details in (
        ("content_filter", {"reason": "content_filter"}),
        ("max_output_tokens", {"reason": "max_output_tokens"}),
        (None, {"reason": None}),
    ):
        builder = openai_responses.ResponseBuilder(created_at=1)
        builder.start()
        builder.add_text_delta("partial")
        last = events_of(builder.incomplete(stop_reason=stop_reason))[-1]
        ResponseIncompleteEvent.model_validate(last)
        assert last["response"]["incomplete_details"] == details
        assert builder.response["incomplete_details"] == details


def test_arguments_need_a_function_call() -> None:
    builder = openai_responses.ResponseBuilder()
    builder.start()
    with pytest.raises(ValueError, match="add_function_call"):
        builder.add_arguments_delta("{}")


def test_encode_writes_what_the_builder_and_transcoder_write() -> None:
    _, stream = build()
    frames = [frame + b"\n\n" for frame in stream.split(b"\n\n") if frame]
    assert b"".join(openai_responses.encode(event) for event in events_of(stream)) == b"".join(frames)
    assert openai_responses.encode({"type": "error", "sequence_number": 0, "message": "é"}) == (
        'event: error\ndata: {"type":"error","sequence_number":0,"message":"é"}\n\n'.encode()
    )
    with pytest.raises(ValueError, match="type"):
        openai_responses.encode({"sequence_number": 0})
