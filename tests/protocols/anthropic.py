"""Anthropic Messages, for the cross-cutting tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from agentcodec import anthropic

# The pure backend's rule for a data block it writes as an Anthropic block.
from agentcodec._pure.anthropic.events import _anthropic_block
from sse_helpers import data_events

from . import BuiltTurn, GatewayCase, JudgedToolCalls, Row, ToolCallCase, beside, list_length


def tool_call_stream(pieces: list[str], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """One tool call whose arguments stream as ``pieces`` of ``text``:
    the events that open it, an event a piece, the events that end it."""
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


def _judged_calls(message: dict[str, Any]) -> list[Any]:
    return [
        block["input"] for block in message["content"] if block["type"] in ("tool_use", "server_tool_use")
    ]


def _built_turn() -> list[dict[str, Any]]:
    builder = anthropic.MessageStreamBuilder()
    return data_events(
        builder.add_text_delta("hi") + builder.add_tool_use("weather", "{}") + builder.finish()
    )


def judge(backend: ModuleType, stream: bytes) -> None:
    """Every event one anthropic-sdk-python's models take, field for field,
    one block at a time, and what its ``accumulate_event`` builds is the
    message the assembler gives (an ``error`` event, at most one, ends it,
    and its error is one of the types the SDK's models take)."""
    import json

    import pytest

    pytest.importorskip("anthropic.lib.streaming._messages")
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import ErrorResponse, RawMessageStreamEvent
    from pydantic import TypeAdapter

    events = data_events(stream)
    failed = [event for event in events if event["type"] == "error"]
    assert len(failed) <= 1
    for event in failed:
        assert ErrorResponse.model_validate(event).to_dict() == event
    events = [event for event in events if event["type"] != "error"]
    validator: Any = TypeAdapter(RawMessageStreamEvent)
    open_blocks: list[int] = []
    for event in events:
        assert validator.validate_python(event).to_dict() == event
        if event["type"] == "content_block_start":
            assert not open_blocks
            open_blocks.append(event["index"])
        elif event["type"] in ("content_block_delta", "content_block_stop"):
            assert open_blocks == [event["index"]]
            if event["type"] == "content_block_stop":
                open_blocks.pop()
    assembler = backend.AnthropicAssembler(on_error="skip")
    assembler.feed(stream)
    message = assembler.close()
    assert [error for error in assembler.errors if error["code"] == "invalid_event"] == []
    if failed:
        assert assembler.errors[-1]["message"] == failed[0]["error"]["message"]
    if events:
        snapshot: Any = None
        buffers: dict[int, bytes] = {}
        for event in events:
            typed = construct_type(type_=RawMessageStreamEvent, value=json.loads(json.dumps(event)))
            snapshot = accumulate_event(event=typed, current_snapshot=snapshot, json_bufs=buffers)
        assert message == snapshot.to_dict()


ROW = Row(
    name="anthropic",
    carries_stop_reasons=True,
    stop_reason_words={
        "content_filter": "refusal",
        "tool_calls": "tool_use",
        "safety": "refusal",
        "stop": "end_turn",
    },
    stop_reasons={"max_output_tokens": "max_tokens", "content_filter": "refusal", "length": "max_tokens"},
    # (Its error types are a closed set: the SDK's models reject any other.)
    error_code_words={
        "throttlingException": "rate_limit_error",
        "rate_limit_exceeded": "rate_limit_error",
        "RESOURCE_EXHAUSTED": "rate_limit_error",
        "UNAVAILABLE": "overloaded_error",
        "serviceUnavailableException": "overloaded_error",
        "server_error": "api_error",
        "INVALID_ARGUMENT": "invalid_request_error",
        "validationException": "invalid_request_error",
        "overloaded_error": "overloaded_error",
        "E_BOOM": "api_error",
    },
    assembler="AnthropicAssembler",
    result="message",
    stream="sdk/anthropic_every_block.sse",
    recorded_streams=("sdk/anthropic_*.sse",),
    reads=("message",),
    fixed_options={"response_id": "msg_1", "model": "m"},
    # (tool arguments that are no JSON object end as the JSON of their last clean prefix)
    encrypted_by="anthropic",
    # (as the AI SDK's Anthropic package writes them)
    provider_metadata=(
        ({"encrypted": "SIG", "encrypted_by": "anthropic"}, {"anthropic": {"signature": "SIG"}}),
        (
            {"encrypted": "DATA", "redacted": True, "encrypted_by": "anthropic"},
            {"anthropic": {"redactedData": "DATA"}},
        ),
    ),
    tool_kinds=frozenset({"server"}),
    cannot_carry=frozenset(
        {
            "media",
            "data",
            "tool_result",
            "refusal_kind",
            "corrections",
            "broken_arguments",
            "tool_server",
            "usage",
            "annotations",
            "error_code",
        }
    ),
    carries_data=lambda value: _anthropic_block(value) is not None,
    status_as_carried={"cancelled": "completed", "interrupted": "completed"},
    count_blocks=lambda assembler: list_length(assembler.message.get("content")),
    block_opening=({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},),
    one_block=lambda n: {
        "type": "content_block_start",
        "index": n,
        "content_block": {"type": "text", "text": "x"},
    },
    text_opening=(
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    text_delta={
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "b"},
        "x": 0,
    },
    tool_calls=(ToolCallCase("anthropic", "tool_calls", "input", tool_call_stream, before={}),),
    judged_tool_calls=(
        JudgedToolCalls("sdk/anthropic_*.sse", beside, lambda recorded: _judged_calls(recorded["message"])),
    ),
    built_turn=BuiltTurn(
        _built_turn,
        (("message", "id"), ("content_block", "id")),
        (r"msg_01[0-9A-Za-z]{22}", r"toolu_01[0-9A-Za-z]{22}"),
    ),
    own_annotation={
        "type": "char_location",
        "cited_text": "hi",
        "document_index": 0,
        "document_title": None,
        "start_char_index": 0,
        "end_char_index": 2,
    },
    gateway=GatewayCase(
        "/v1/messages",
        lambda question: {
            "model": "m",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": question}],
            "stream": True,
        },
        converts_with={"executed_tool_calls": "omit"},
    ),
    judge=judge,
)
