"""Conversions into and out of AG-UI, on both backends: from the Agent API
as an AgentScope AgentApp's ``/ag-ui`` converts (and where it should do
better), and from AG-UI producers' habits (calls interleaved, arguments
after a call's end, a tool call in a message that ended) into every other
protocol. What every conversion does alike is test_transcode's."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agui_reference import verify_events
from conversion import CANCELLED_RUN, backends, convert, view
from protocol_table import TABLE
from protocols import sse_event
from sse_helpers import data_events
from test_transcode_losses import URL_CITATION, annotated_run

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# What each target cannot carry.
TARGET_LOSSES = {name: row.cannot_carry for name, row in TABLE.items()}
PROTOCOLS = list(TABLE)


def agui_stream(events: list[dict[str, Any]]) -> bytes:
    return b"".join(sse_event(event) for event in events)


def test_agentscope_to_agui_does_what_the_agentapp_does_and_what_it_should() -> None:
    process = (FIXTURES / "agentapp" / "agent_turn.process.sse").read_bytes()
    theirs = data_events((FIXTURES / "agentapp" / "agent_turn.agui.sse").read_bytes())
    for backend in backends():
        ours = data_events(convert(backend, "agentscope", "agui", process))
        kinds = [event["type"] for event in ours]
        # Reasoning is reasoning, not text (agentscope-runtime #504).
        assert "REASONING_MESSAGE_START" in kinds
        assert kinds.count("TEXT_MESSAGE_START") == 1
        assert [event["type"] for event in theirs].count("TEXT_MESSAGE_START") == 2
        # Tool arguments stream (the AgentApp sends them once, whole).
        args = [event["delta"] for event in ours if event["type"] == "TOOL_CALL_ARGS"]
        assert len(args) > 1
        assert "".join(args) == '{"city": "Paris", "unit": "C"}'

        # The same text, results and run as the AgentApp's, event for event.
        def texts(events: list[dict[str, Any]], kind: str) -> str:
            return "".join(event["delta"] for event in events if event["type"] == kind)

        assert (
            texts(ours, "TEXT_MESSAGE_CONTENT")
            == json.loads((FIXTURES / "agentapp" / "agent_turn.json").read_text())["answer"]
        )
        result = next(event for event in ours if event["type"] == "TOOL_CALL_RESULT")
        their_result = next(event for event in theirs if event["type"] == "TOOL_CALL_RESULT")
        assert (result["toolCallId"], result["content"], result["role"]) == (
            their_result["toolCallId"],
            their_result["content"],
            their_result["role"],
        )
        assert kinds[0] == "RUN_STARTED"
        assert kinds[-1] == "RUN_FINISHED"


def test_a_cancelled_run_ends_as_the_agui_client_reads_one() -> None:
    for backend in backends():
        agui = data_events(convert(backend, "agentscope", "agui", CANCELLED_RUN))
        assert [event["type"] for event in agui][-3:] == [
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]
        assert agui[-1]["outcome"] == {"type": "cancelled"}


INTERLEAVED_CALLS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '{"city": '},
    {"type": "TOOL_CALL_END", "toolCallId": "a"},
    {"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": '{"city": "Zürich"}'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '"東'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '京"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "b"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


@pytest.mark.parametrize(
    "target", [t for t in PROTOCOLS if t != "agui" and "tool_call" not in TARGET_LOSSES[t]]
)
@pytest.mark.parametrize("chunk", [None, 5])
def test_arguments_after_a_calls_end_reach_every_target_as_the_agui_client_keeps_them(
    target: str, chunk: int | None
) -> None:
    """Producers that interleave parallel calls (pydantic-ai) may send a
    call's arguments after its TOOL_CALL_END; the AG-UI client appends them.
    A call whose end comes before its arguments are whole finishes when they
    are (or when the run ends), so that every target gets them whole. (The
    Transcoder once dropped them.)"""
    stream = agui_stream(INTERLEAVED_CALLS)
    client = backends()[0].AGUIAssembler()
    client.feed(stream)
    kept = {
        call["id"]: json.loads(call["function"]["arguments"])
        for message in client.close()["messages"]
        for call in message.get("toolCalls") or []
    }
    assert kept == {"a": {"city": "東京"}, "b": {"city": "Zürich"}}
    converted = {convert(backend, "agui", target, stream, chunk) for backend in backends()}
    assert len(converted) == 1
    calls = {
        block["call_id"]: block["input"]
        for message in view(backends()[0], target, converted.pop())["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call"
    }
    assert calls == kept


@pytest.mark.parametrize("ending", ["RUN_FINISHED", "RUN_ERROR"])
def test_a_call_whose_arguments_never_become_whole_finishes_when_the_run_ends(ending: str) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '{"city": "Par'},
        {"type": "TOOL_CALL_END", "toolCallId": "a"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "then"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": ending, "threadId": "t", "runId": "r", "message": "boom"},
    ]
    outputs = []
    for backend in backends():
        decoder = backend.NeutralDecoder("agui")
        neutral = decoder.feed(agui_stream(events)) + decoder.close()
        outputs.append(neutral)
        kinds = [(event["type"], event.get("message_id")) for event in neutral]
        # The call's block (in a message of its own) stays open past its end...
        assert kinds.index(("block_finished", "a")) > kinds.index(("message_finished", "m"))
        # ...and finishes, with its message, before the run ends.
        assert kinds[-3:-1] == [("block_finished", "a"), ("message_finished", "a")]
        assert kinds[-1][0] == ("run_finished" if ending == "RUN_FINISHED" else "run_failed")
    assert outputs[0] == outputs[-1]


TEXT_THEN_CALL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Let me check 東京."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "weather", "parentMessageId": "m1"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"city": "東京"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "sunny", "role": "tool"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "It is sunny."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def agentscope_output(stream: bytes) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """The AgentScope events of a converted stream, by (object, type,
    status), and the response its assembler closes to."""
    events = data_events(stream)
    assembler = backends()[0].AgentScopeAssembler()
    assembler.feed(stream)
    final = assembler.close()
    assert assembler.errors == [] or final["status"] == "failed"
    return [(event["object"], event.get("type"), event["status"]) for event in events], final


def test_a_call_in_a_message_that_ended_completes_before_its_result_in_agentscope() -> None:
    """AG-UI producers (pydantic-ai, ag-ui-langgraph) end the text message,
    then start the tool call naming it as parent. Converted to AgentScope,
    the call's message completes when its block does, so that the output
    lists the call before its result (it once completed at the run's end)."""
    stream = agui_stream(TEXT_THEN_CALL)
    converted = {convert(backend, "agui", "agentscope", stream) for backend in backends()}
    assert len(converted) == 1
    events, final = agentscope_output(converted.pop())
    completed = [kind for obj, kind, status in events if obj == "message" and status == "completed"]
    assert completed == ["message", "function_call", "function_call_output", "message"]
    assert [item["type"] for item in final["output"]] == completed
    assert final["output"][1]["content"][0]["data"]["arguments"] == '{"city": "東京"}'


def test_a_failed_run_keeps_what_streamed_in_agentscopes_failed_response() -> None:
    """A run that fails after a call, with an answer half written: the
    failed response holds the call and the text so far (incomplete), as the
    Responses encoder's failed response does."""
    events = [*TEXT_THEN_CALL[:10], {"type": "RUN_ERROR", "message": "boom", "code": "x"}]
    converted = {convert(backend, "agui", "agentscope", agui_stream(events)) for backend in backends()}
    assert len(converted) == 1
    _, final = agentscope_output(converted.pop())
    assert final["status"] == "failed"
    assert [(item["type"], item["status"]) for item in final["output"]] == [
        ("message", "completed"),
        ("function_call", "completed"),
        ("function_call_output", "completed"),
        ("message", "incomplete"),
    ]
    assert final["output"][3]["content"][0]["text"] == "It is sunny."
    assert final["error"] == {"code": "x", "message": "boom"}


def test_a_neutral_encoder_reports_its_losses_by_the_neutral_event(backend: ModuleType) -> None:
    """A server writing its own neutral events learns what the target lost,
    numbered by the neutral event (from 1) that brought it."""
    encoder = backend.NeutralEncoder("agui")
    assert encoder.losses == []
    for event in annotated_run(URL_CITATION)[:-1]:
        encoder.encode(event)
    encoder.encode({"type": "run_finished", "status": "interrupted", "usage": {"input_tokens": 1}})
    encoder.close()
    assert encoder.losses == [
        {"event": 5, "what": "annotations", "why": "agui has no place for these annotations of a text block"},
        {
            "event": 8,
            "what": "run_status",
            "why": "agui has no run status interrupted: the run is written as completed",
        },
    ]


def encrypted_values(stream: bytes) -> list[tuple[str, str, str]]:
    """An AG-UI stream's encrypted values: (subtype, entity, value)."""
    return [
        (event["subtype"], event["entityId"], event["encryptedValue"])
        for event in data_events(stream)
        if event["type"] == "REASONING_ENCRYPTED_VALUE"
    ]


def test_encrypted_values_after_their_messages_end_survive_agui_into_agui(backend: ModuleType) -> None:
    """A REASONING_ENCRYPTED_VALUE names a message or a tool call, and may
    come after its end (as in the recorded stream of every AG-UI event,
    built with ag-ui-protocol's models): AG-UI into AG-UI writes it again,
    in events the client's verifier takes, and the client keeps it where it
    kept the source's; the neutral view keeps it on its block. (Both once
    dropped it without a word.)"""
    stream = (FIXTURES / "sdk" / "agui_every_event.sse").read_bytes()
    sealed = [("message", "r-msg", "enc-1"), ("tool-call", "c1", "enc-2")]
    assert encrypted_values(stream) == sealed
    transcoder = backend.Transcoder("agui", "agui")
    converted = transcoder.feed(stream) + transcoder.close()
    assert encrypted_values(converted) == sealed
    assert [loss for loss in transcoder.losses if loss["what"] == "block_not_open"] == []
    verify_events(data_events(converted))
    # ag-ui-protocol's own model takes each, as it would write it.
    agui = pytest.importorskip("ag_ui.core")
    for event in data_events(converted):
        if event["type"] == "REASONING_ENCRYPTED_VALUE":
            model = agui.ReasoningEncryptedValueEvent.model_validate(event)
            assert json.loads(model.model_dump_json(by_alias=True, exclude_none=True)) == event

    def client_messages(stream: bytes) -> dict[str, Any]:
        client = backend.AGUIAssembler()
        client.feed(stream)
        return {message["id"]: message.get("encryptedValue") for message in client.close()["messages"]}

    assert client_messages(converted)["r-msg"] == client_messages(stream)["r-msg"] == "enc-1"
    kept = {
        (message["id"], block["kind"]): block.get("encrypted")
        for message in view(backend, "agui", stream)["messages"]
        for block in message["blocks"]
    }
    assert kept[("r-msg", "reasoning")] == "enc-1"
    assert kept[("m1", "tool_call")] == "enc-2"
