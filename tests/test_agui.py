"""AG-UI: the assembler gives the run the AG-UI client holds, on both
backends and in any chunking; the encoder writes what ag-ui-protocol's
``EventEncoder`` writes.

The judges: streams recorded from a real AgentApp's ``/ag-ui`` endpoint and
streams built with ag-ui-protocol's own models (scripts/agentapp_fixtures.py,
scripts/agui_fixtures.py), every event validated by ag-ui-protocol, and the
AG-UI client's reducer (tests/agui_reference.py) for the messages and state.
"""

from __future__ import annotations

import json
import random
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import AgentCodecError, AGUIError, AGUIEventError, agui
from agui_reference import apply_events
from agui_strategies import agui_events, agui_streams
from conftest import NATIVE, PURE, examples, requires_native
from protocols import sse_event
from protocols.agui import tool_call_stream as agui_tool_call

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDED = [
    ("agentapp", "agent_turn.agui"),
    ("agentapp", "agent_fails.agui"),
    ("sdk", "agui_every_event"),
    ("sdk", "agui_run_error"),
]
SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(folder: str, name: str) -> tuple[bytes, dict[str, Any]]:
    stream = (FIXTURES / folder / f"{name}.sse").read_bytes()
    reference = json.loads((FIXTURES / folder / f"{name.removesuffix('.agui')}.json").read_text())
    return stream, reference.get("agui", reference)


def wire_events(stream: bytes) -> list[dict[str, Any]]:
    return [json.loads(block[len("data: ") :]) for block in stream.decode().split("\n\n") if block]


def assemble(backend: ModuleType, chunks: list[bytes], **options: Any) -> Any:
    assembler = backend.AGUIAssembler(**options)
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler, assembler.close()


# --- recorded streams -------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "name"), RECORDED)
def test_recorded_streams_assemble_to_the_clients_messages(
    backend: ModuleType, folder: str, name: str
) -> None:
    stream, reference = load(folder, name)
    _, run = assemble(backend, [stream])
    assert run["messages"] == reference["messages"]
    assert run["state"] == reference["state"]
    assert reference["warnings"] == []


@pytest.mark.parametrize(("folder", "name"), RECORDED)
def test_any_chunking(backend: ModuleType, folder: str, name: str) -> None:
    stream, _ = load(folder, name)
    _, whole = assemble(backend, [stream])
    rng = random.Random(name)
    cuts, position = [], 0
    while position < len(stream):
        size = rng.randint(1, 700)
        cuts.append(stream[position : position + size])
        position += size
    assert assemble(backend, cuts)[1] == whole
    if len(stream) < 20_000:
        assert assemble(backend, [stream[i : i + 1] for i in range(len(stream))])[1] == whole


@pytest.mark.parametrize(("folder", "name"), RECORDED)
def test_decoded_events_and_feed_with_events(backend: ModuleType, folder: str, name: str) -> None:
    stream, _ = load(folder, name)
    events = wire_events(stream)
    _, whole = assemble(backend, [stream])
    assembler = backend.AGUIAssembler()
    for event in events:
        assembler.feed_event(event)
    assert assembler.close() == whole
    assert assembler.event_count == len(events)
    assert backend.AGUIAssembler().feed_with_events(stream) == events


def test_the_agentapp_run(backend: ModuleType) -> None:
    stream, reference = load("agentapp", "agent_turn.agui")
    _, run = assemble(backend, [stream])
    assert (run["threadId"], run["runId"], run["status"], run["error"]) == (
        "thread_1",
        "run_1",
        "finished",
        None,
    )
    answer = json.loads((FIXTURES / "agentapp" / "agent_turn.json").read_text())["answer"]
    assert run["messages"][-1]["content"] == answer
    assert run["messages"][1]["toolCalls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris", "unit": "C"}',
    }
    assert run["messages"][2]["role"] == "tool"
    assert run["messages"][2]["toolCallId"] == "call_w1"
    assert reference["validated_events"] == wire_events(stream)  # every event validates as sent


def test_a_failing_agentapp_run_keeps_what_streamed(backend: ModuleType) -> None:
    stream, reference = load("agentapp", "agent_fails.agui")
    assembler, run = assemble(backend, [stream])
    assert run["status"] == "error"
    assert run["error"] == {
        "message": "Unknown agent error: RuntimeError: the weather service went away",
        "code": "AGENT_UNKNOWN_ERROR",
    }
    assert run["messages"] == reference["messages"]
    assert assembler.errors == [
        {"event": len(wire_events(stream)), "code": "AGENT_UNKNOWN_ERROR", "message": run["error"]["message"]}
    ]


def test_every_event_type(backend: ModuleType) -> None:
    stream, _reference = load("sdk", "agui_every_event")
    _, run = assemble(backend, [stream])
    assert run["status"] == "finished"
    assert run["result"] == {"answer": "sunny"}
    assert run["outcome"] == {"type": "success"}
    assert run["usage"] == [{"inputTokens": 10, "outputTokens": 5}]
    assert run["state"] == {"city": "Paris", "steps": ["looked up"], "origin": "Paris"}
    kept = [event["type"] for event in run["events"]]
    assert kept == [
        "STEP_STARTED",
        "REASONING_START",
        "REASONING_END",
        "STEP_FINISHED",
        "RAW",
        "CUSTOM",
        "SUBAGENT_STARTED",
        "SUBAGENT_ERROR",
        "SUBAGENT_FINISHED",
    ]
    roles = [message["role"] for message in run["messages"]]
    # The snapshot replaced the transcript, keeping the client-only reasoning
    # and activity messages (it has none of those roles).
    assert roles == ["user", "reasoning", "reasoning", "assistant", "tool", "activity", "assistant"]
    assert run["messages"][1]["encryptedValue"] == "enc-1"


# --- the client's reducer as the judge, on generated streams ----------------------------------


@SETTINGS
@given(events=agui_streams)
def test_generated_streams_agree_with_the_client(events: list[dict[str, Any]]) -> None:
    # An event that cannot be applied changes nothing here; the client still
    # merges an ACTIVITY_DELTA's metadata when its patch fails.
    events = [{**event, "metadata": None} if event["type"] == "ACTIVITY_DELTA" else event for event in events]
    events = [
        {key: value for key, value in event.items() if value is not None or key != "metadata"}
        for event in events
    ]
    try:
        reference = apply_events(events)
    except ValueError:
        return  # the client stops the stream (a chunk without the id it needs)
    ids = [message["id"] for message in reference["messages"]]
    if len(ids) != len(set(ids)):
        # Two transcript entries with one id: after a MESSAGES_SNAPSHOT the
        # client holds one object for both (JavaScript aliasing), agentcodec
        # two copies; a later change then shows in one entry here, both there.
        return
    for backend in (NATIVE, PURE):
        if backend is None:
            continue
        assembler = backend.AGUIAssembler(on_error="skip")
        for event in events:
            assembler.feed_event(event)
        assert assembler.messages == reference["messages"]
        assert assembler.state == reference["state"]
        # What the client only warns about, the assembler reports.
        assert len([e for e in assembler.errors if e["code"] == "invalid_event"]) >= len(
            reference["warnings"]
        )


def observe(backend: ModuleType, chunks: list[bytes], on_error: str) -> list[Any]:
    """Everything a user can see, after each call, errors included."""
    assembler = backend.AGUIAssembler(on_error=on_error)
    seen: list[Any] = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        seen.append((result, assembler.run, assembler.status, assembler.errors, assembler.event_count))
    return seen


frames = st.one_of(
    agui_events().map(json.dumps),
    agui_events().map(lambda event: json.dumps({_snake(key): value for key, value in event.items()})),
    st.sampled_from(
        ["[DONE]", "not json", "[1]", '"s"', "{}", '{"type":5}', '{"type":"NEW_THING","x":1}', "NaN"]
    ),
)


def _snake(key: str) -> str:
    return "".join("_" + char.lower() if char.isupper() else char for char in key)


@requires_native
@SETTINGS
@given(
    texts=st.lists(frames, max_size=20), on_error=st.sampled_from(["raise", "skip"]), cut=st.integers(1, 60)
)
def test_native_and_python_agree(texts: list[str], on_error: str, cut: int) -> None:
    stream = b"".join(b"data: " + text.encode() + b"\n\n" for text in texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, on_error) == observe(PURE, chunks, on_error)


# --- errors -------------------------------------------------------------------------


def test_a_delta_for_a_message_never_started_is_an_error_and_nothing_is_lost(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler()
    stream = b"".join(
        b"data: " + json.dumps(event).encode() + b"\n\n"
        for event in [
            {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "kept"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": " and more"},
        ]
    )
    with pytest.raises(AGUIEventError) as caught:
        assembler.feed(stream)
    assert caught.value.event == 3
    assert str(caught.value) == (
        'AG-UI event 3 (TEXT_MESSAGE_CONTENT) is for message "nope", which was never started'
    )
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, AGUIError)
    assert assembler.messages == [{"id": "m1", "role": "assistant", "content": "kept"}]
    # The event after it waited, and is applied by the next call.
    assert assembler.close()["messages"][0]["content"] == "kept and more"


def test_skip_records_and_goes_on(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler(on_error="skip")
    for event in [
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c9", "delta": "{}"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
        {"type": "TEXT_MESSAGE_START"},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]},
        "not an object",
    ]:
        assembler.feed_event(event)
    assert assembler.messages == [
        {
            "id": "c1",
            "role": "assistant",
            "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        }
    ]
    assert [(error["event"], error["message"]) for error in assembler.errors] == [
        (1, 'AG-UI event 1 (TOOL_CALL_ARGS) is for tool call "c9", which was never started'),
        (4, "AG-UI event 4 (TEXT_MESSAGE_START) has no messageId"),
        (
            5,
            'AG-UI event 5 (STATE_DELTA) does not apply to the state: operation 0 (remove): "/missing": '
            'no member "missing"',
        ),
        (6, "AG-UI event 6 is a JSON string, not an object"),
    ]
    assert assembler.state == {}


def test_bad_shapes(backend: ModuleType) -> None:
    cases = [
        ({"delta": "x"}, "has no type"),
        ({"type": ["TEXT_MESSAGE_START"]}, "has a type that is not a string"),
        (
            {"type": "TEXT_MESSAGE_START", "messageId": 7},
            "(TEXT_MESSAGE_START) has a messageId that is not a string",
        ),
        (
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": []},
            "(TEXT_MESSAGE_START) has metadata that is not an object",
        ),
        ({"type": "TOOL_CALL_START", "toolCallId": "c"}, "(TOOL_CALL_START) has no toolCallName"),
        (
            {"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "c"},
            "(TOOL_CALL_RESULT) has no content",
        ),
        ({"type": "STATE_DELTA", "delta": {}}, "(STATE_DELTA) has a delta that is not a JSON Patch array"),
        (
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"role": "user"}]},
            "(MESSAGES_SNAPSHOT) has a message without a string id",
        ),
        (
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"},
            "(TEXT_MESSAGE_CHUNK) opens a message but has no messageId",
        ),
        (
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "c"},
            "(TOOL_CALL_CHUNK) opens a tool call but has no toolCallName",
        ),
        ({"type": "RUN_ERROR"}, "(RUN_ERROR) has no message"),
        (
            {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "P", "patch": []},
            '(ACTIVITY_DELTA) is for message "a", which was never started',
        ),
    ]
    for event, problem in cases:
        assembler = backend.AGUIAssembler()
        with pytest.raises(AGUIEventError) as caught:
            assembler.feed_event(event)
        assert str(caught.value) == f"AG-UI event 1 {problem}"
        assert assembler.messages == []
        assert assembler.state == {}


def test_unknown_types_are_kept_and_skipped(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler()
    assembler.feed(b'data: {"type":"FUTURE_EVENT","x":1}\n\ndata: {"type":"STEP_STARTED","stepName":"s"}\n\n')
    run = assembler.close()
    assert run["events"] == [{"type": "FUTURE_EVENT", "x": 1}, {"type": "STEP_STARTED", "stepName": "s"}]
    assert run["status"] == "incomplete"
    assert assembler.errors == []


def test_snake_case_keys_and_a_closed_assembler(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler()
    assembler.feed_event({"type": "RUN_ERROR", "message": "boom", "code": "X", "run_id": "r1"})
    assembler.feed_event({"type": "TEXT_MESSAGE_START", "message_id": "m"})
    assembler.feed_event({"type": "TEXT_MESSAGE_CONTENT", "message_id": "m", "delta": "é"})
    run = assembler.close()
    assert run["messages"] == [{"id": "m", "role": "assistant", "content": "é"}]
    assert run["status"] == "error"
    with pytest.raises(AGUIError, match="closed"):
        assembler.feed(b"")


def test_a_new_run_continues_the_thread(backend: ModuleType) -> None:
    history = [{"id": "u1", "role": "user", "content": "hi"}]
    assembler = backend.AGUIAssembler(messages=history, state={"n": 1})
    assembler.feed_event(
        {
            "type": "RUN_STARTED",
            "threadId": "t",
            "runId": "r",
            "input": {"messages": [*history, {"id": "u2", "role": "user", "content": "again"}]},
        }
    )
    assembler.feed_event({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]})
    run = assembler.close()
    assert [message["id"] for message in run["messages"]] == ["u1", "u2"]
    assert run["state"] == {"n": 2}
    assert run["status"] == "incomplete"
    assert history == [{"id": "u1", "role": "user", "content": "hi"}]  # not changed
    with pytest.raises(TypeError):
        backend.AGUIAssembler(messages=["not a message"])


def test_tool_results_follow_their_call(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler()
    for event in [
        {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "g", "parentMessageId": "m"},
        {"type": "TEXT_MESSAGE_START", "messageId": "later"},
        {"type": "TOOL_CALL_RESULT", "messageId": "ra", "toolCallId": "a", "content": "A"},
        {"type": "TOOL_CALL_RESULT", "messageId": "rb", "toolCallId": "b", "content": "B"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": "{}"},
    ]:
        assembler.feed_event(event)
    assert [message["id"] for message in assembler.messages] == ["m", "ra", "rb", "later"]
    assert assembler.messages[0]["toolCalls"][1]["function"]["arguments"] == "{}"


def test_results_put_before_later_messages_keep_every_message_findable(backend: ModuleType) -> None:
    """A result put before messages that came after its call moves them
    along: what is found by id or by call id afterwards is what the client
    finds by scanning, including a result whose id a later message has
    (the first with an id is the one found)."""
    events = [
        {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TEXT_MESSAGE_START", "messageId": "x"},
        {"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "g", "parentMessageId": "n"},
        {"type": "TEXT_MESSAGE_START", "messageId": "dup"},
        {"type": "TOOL_CALL_RESULT", "messageId": "dup", "toolCallId": "a", "content": "A"},
        {"type": "TOOL_CALL_RESULT", "messageId": "rb", "toolCallId": "b", "content": "B"},
        {"type": "TOOL_CALL_RESULT", "messageId": "ra2", "toolCallId": "a", "content": "A2"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "dup", "delta": "to the first dup"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "x", "delta": "x"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": "{}"},
        {"type": "TOOL_CALL_RESULT", "messageId": "rb2", "toolCallId": "b", "content": "B2"},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "b", "encryptedValue": "e"},
    ]
    assembler = backend.AGUIAssembler()
    for event in events:
        assembler.feed_event(event)
    messages = assembler.messages
    assert [message["id"] for message in messages] == ["m", "dup", "ra2", "x", "n", "rb", "rb2", "dup"]
    assert messages == apply_events(events)["messages"]
    assert messages[1]["content"] == "Ato the first dup"
    assert messages[4]["toolCalls"][0]["function"]["arguments"] == "{}"


def test_many_tool_results_are_placed_in_linear_time(backend: ModuleType) -> None:
    """Each result was placed by scanning every message for its call, then
    every message indexed again: 10k calls with their results took 108 s
    natively. 20k calls, each in a message of its own, each followed by its
    result; then a result for the first call."""
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
    for n in range(20_000):
        events.append(
            {
                "type": "TOOL_CALL_START",
                "toolCallId": f"c{n}",
                "toolCallName": "f",
                "parentMessageId": f"a{n}",
            }
        )
        events.append(
            {"type": "TOOL_CALL_RESULT", "messageId": f"r{n}", "toolCallId": f"c{n}", "content": "ok"}
        )
    events.append({"type": "TOOL_CALL_RESULT", "messageId": "late", "toolCallId": "c0", "content": "again"})
    events.append({"type": "TOOL_CALL_ARGS", "toolCallId": "c19999", "delta": "{}"})
    assembler = backend.AGUIAssembler()
    assembler.feed(b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events))
    messages = assembler.messages
    assert len(messages) == 40_001
    assert [message["id"] for message in messages[:4]] == ["a0", "r0", "late", "a1"]
    assert messages[-2]["toolCalls"][0]["function"]["arguments"] == "{}"


# --- the encoder -------------------------------------------------------------------------

ag_ui = pytest.importorskip("ag_ui.core")


def reference_encoding(event: dict[str, Any]) -> str:
    from ag_ui.encoder import EventEncoder
    from pydantic import TypeAdapter

    return EventEncoder().encode(TypeAdapter(ag_ui.Event).validate_python(event))


def test_the_encoder_writes_what_ag_ui_writes_for_every_event_type() -> None:
    types: set[str] = set()
    for name in ("agui_every_event", "agui_run_error"):
        stream, reference = load("sdk", name)
        assert b"".join(agui.encode(event) for event in reference["events"]) == stream
        for event in reference["events"]:
            assert agui.EventEncoder().encode(event) == reference_encoding(event)
        types |= {event["type"] for event in reference["events"]}
    assert types == set(agui.EVENT_TYPES)


@settings(max_examples=examples(300), deadline=None)
@given(event=agui_events())
def test_the_encoder_matches_on_generated_events(event: dict[str, Any]) -> None:
    from pydantic import ValidationError

    snake = {_snake(key): value for key, value in event.items()}
    for spelling in (event, snake):
        try:
            expected = reference_encoding(spelling)
        except ValidationError:
            continue  # an event ag-ui-protocol refuses has no reference bytes
        assert agui.EventEncoder().encode(spelling) == expected


@given(message_id=st.text(), delta=st.text(st.characters(blacklist_categories=("Cs",))))
def test_the_hot_paths_write_the_same_bytes(message_id: str, delta: str) -> None:
    if any("\ud800" <= char <= "\udfff" for char in message_id):
        return
    assert agui.text_message_content(message_id, delta) == agui.encode(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}
    )
    assert agui.tool_call_args(message_id, delta) == agui.encode(
        {"type": "TOOL_CALL_ARGS", "toolCallId": message_id, "delta": delta}
    )


# --- tool-call arguments as they stream (the cases of test_tool_call_arguments.py) ---


def test_a_messages_snapshot_replaces_streamed_arguments(backend: ModuleType) -> None:
    start, deltas, _ = agui_tool_call(['{"a": 1', "2"], "")
    assembler = backend.AGUIAssembler()
    for event in [*start, *deltas]:
        assembler.feed(sse_event(event))
    assert assembler.tool_calls[0]["arguments"] == {"a": 12}
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"z": [true]}'}}
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "m", "role": "assistant", "toolCalls": [call]}],
    }
    assembler.feed(sse_event(snapshot))
    assert assembler.tool_calls == [
        {"messageId": "m", "id": "c", "name": "f", "arguments": {"z": [True]}, "done": True}
    ]


def test_both_backends_recognise_every_event_type_the_vocabulary_lists(backend: ModuleType) -> None:
    """The Rust recogniser's list and the pure one's are one table
    (agentcodec/agui/vocabulary.txt): a stream of any listed type is
    recognised by both."""
    from agentcodec._vocabulary import tables

    for kind in tables("agui")["KNOWN"]:
        assembler = backend.AGUIAssembler(on_error="skip")
        assembler.feed(f'data: {{"type": "{kind}"}}\n\n'.encode())
        assembler.close()
        assert not any(error["code"] == "unrecognized_stream" for error in assembler.errors), kind


def test_the_types_have_the_wire_spellings() -> None:
    assert "messageId" in typing.get_type_hints(agui.types.TextMessageContentEvent)
    assert "toolCalls" in typing.get_type_hints(agui.AssistantMessage)
    assert len(agui.EVENT_TYPES) == 31
