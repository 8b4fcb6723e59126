"""The AgentScope Java runtime's `/process` stream, as its habits write it.

No Java runtime runs here, so the stream is built from its source
(agentscope-runtime-java 1.0.x: ``AgentScopeStreamAdapter``, ``Runner``,
the ``Message``/``Content`` schemas; research agentscope.md section 9), with
Jackson's habits: every field written, nulls included, and the ``data`` maps
in ``HashMap`` order (checked with the JDK on this machine). What it does
that the Python runtime does not:

- ``sequence_number`` counts from 1 and goes on across requests (a
  per-Runner counter), so a second request starts where the first ended;
- text and reasoning arrive as content deltas with ``msg_id: null``,
  ``index: 0`` and ``status: null``, never announced by a message;
- a tool call is one completed ``mcp_call`` message, its arguments whole;
- a tool's result is a completed ``mcp_approval_response`` message with role
  ``tool`` (a slip for ``mcp_call_output``);
- the final response lists only completed messages: the tool call and its
  result, not the text.

How agentcodec reads it (docs/protocols/agentscope.md, "Reading the Java runtime"): consecutive
id-less deltas are one anonymous message, and an event of any other message
ends it, so the reasoning before the tool call and the answer after it are
two messages; the final response keeps the server's output and puts the
anonymous messages back where they streamed; converted, the approval
response with the tool's role is the tool's result.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec.events import PROTOCOLS
from conftest import NATIVE, PURE, requires_native
from protocol_table import TABLE

# The encoder options that would otherwise come from the clock or a random id.
CLOCK = {name: row.fixed_options for name, row in TABLE.items()}
BACKENDS = [pytest.param(NATIVE, id="native", marks=requires_native), pytest.param(PURE, id="python")]
RESPONSE_ID = "response_7d1f0c8e-2b4a-4e5f-9a61-0c3d2e1f4a5b"
CALL_MESSAGE = "msg_5b2c9e41-8f3d-4a6e-b7c2-1d0e9f8a7b6c"
RESULT_MESSAGE = "msg_9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
ARGUMENTS = '{"city":"Paris"}'
OUTPUT = '[{"text":"Sunny, 18°C","type":"text"}]'
REASONING = ["The user", " wants the", " weather in Paris."]
ANSWER = ["It is sunny", " in Paris,", " 18°C."]


def response(sequence: int, status: str, output: list[Any], usage: Any = None) -> dict[str, Any]:
    return {
        "sequence_number": sequence,
        "object": "response",
        "status": status,
        "error": None,
        "id": RESPONSE_ID,
        "created_at": 1763700000,
        "completed_at": 1763700004 if status == "completed" else None,
        "output": output,
        "usage": usage,
        "session_id": "s1",
    }


def delta(sequence: int, text: str) -> dict[str, Any]:
    """A TextBlock or ThinkingBlock chunk: ``new TextContent(true, null, text)``
    added to a fresh Message that is never sent."""
    return {
        "sequence_number": sequence,
        "object": "content",
        "status": None,
        "error": None,
        "type": "text",
        "index": 0,
        "delta": True,
        "msg_id": None,
        "text": text,
    }


def completed(
    sequence: int | None, message_id: str, kind: str, role: str, data: dict[str, Any]
) -> dict[str, Any]:
    """``Message.completed()`` with one data content (``addDeltaContent``
    gives it index 0 and delta true; neither sets its msg_id)."""
    return {
        "sequence_number": sequence,
        "object": "message",
        "status": "completed",
        "error": None,
        "id": message_id,
        "type": kind,
        "role": role,
        "content": [
            {
                "sequence_number": None,
                "object": "content",
                "status": None,
                "error": None,
                "type": "data",
                "index": 0,
                "delta": True,
                "msg_id": None,
                "data": data,
            }
        ],
        "code": None,
        "message": None,
        "usage": None,
        "metadata": None,
    }


def java_stream(first: int) -> tuple[bytes, dict[str, Any], dict[str, Any]]:
    """One request's stream, its sequence numbers from ``first``; and the
    two completed messages it sends."""
    call = completed(
        None,
        CALL_MESSAGE,
        "mcp_call",
        "assistant",
        {"name": "get_weather", "arguments": ARGUMENTS, "call_id": "call_1"},
    )
    result = completed(
        None,
        RESULT_MESSAGE,
        "mcp_approval_response",
        "tool",
        {"output": OUTPUT, "name": "get_weather", "call_id": "call_1"},
    )
    events: list[dict[str, Any]] = [response(0, "created", []), response(0, "in_progress", [])]
    events += [delta(0, piece) for piece in REASONING]
    events += [call, result]
    events += [delta(0, piece) for piece in ANSWER]
    usage = {"input_tokens": 31, "output_tokens": 17}
    events.append(response(0, "completed", [call, result], usage))
    for number, event in enumerate(events, first):
        event["sequence_number"] = number
    data = b"".join(
        b"data: " + json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"
        for event in events
    )
    return data, call, result


def text_of(message: dict[str, Any]) -> str:
    return "".join(item.get("text") or "" for item in message["content"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_id_less_deltas_are_one_message_until_another_message_speaks(backend: ModuleType) -> None:
    stream, call, result = java_stream(1)
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    final = assembler.close()
    messages = assembler.messages
    assert [message["id"] for message in messages] == [None, CALL_MESSAGE, RESULT_MESSAGE, None]
    assert text_of(messages[0]) == "".join(REASONING)
    assert text_of(messages[3]) == "".join(ANSWER)
    assert messages[1] == call
    assert messages[2] == result
    # The server's output (the completed messages), with the text put back
    # where it streamed; usage is the server's.
    assert final["status"] == "completed"
    assert [message["id"] for message in final["output"]] == [None, CALL_MESSAGE, RESULT_MESSAGE, None]
    assert final["output"][1:3] == [call, result]
    assert final["output"][3] == messages[3]
    assert final["usage"] == {"input_tokens": 31, "output_tokens": 17}
    assert [call["arguments"] for call in assembler.tool_calls] == [{"city": "Paris"}]


def without_sequence_numbers(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: without_sequence_numbers(item) for key, item in value.items() if key != "sequence_number"
        }
    if isinstance(value, list):
        return [without_sequence_numbers(item) for item in value]
    return value


@pytest.mark.parametrize("backend", BACKENDS)
def test_sequence_numbers_that_go_on_across_requests_are_read_alike(backend: ModuleType) -> None:
    """The second request of a Runner starts its numbers where the first
    ended: nothing is read differently, strict or not, but the numbers."""
    results = []
    for first in (1, 12):
        stream, _, _ = java_stream(first)
        assembler = backend.AgentScopeAssembler(strict=True)
        assembler.feed(stream)
        results.append(assembler.close())
        assert assembler.errors == []
    assert results[1]["sequence_number"] == results[0]["sequence_number"] + 11
    assert without_sequence_numbers(results[0]) == without_sequence_numbers(results[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stream_of_one_id_less_answer_is_one_message(backend: ModuleType) -> None:
    events = [response(1, "created", []), *[delta(2 + n, piece) for n, piece in enumerate(ANSWER)]]
    events.append(response(9, "completed", []))
    assembler = backend.AgentScopeAssembler()
    assembler.feed(b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events))
    final = assembler.close()
    assert len(final["output"]) == 1
    assert text_of(final["output"][0]) == "".join(ANSWER)


def neutral(backend: ModuleType, stream: bytes) -> list[dict[str, Any]]:
    decoder = backend.NeutralDecoder("agentscope")
    return decoder.feed(stream) + decoder.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_decoded_the_answer_and_the_reasoning_are_two_messages_and_the_result_a_tool_result(
    backend: ModuleType,
) -> None:
    stream, _, _ = java_stream(1)
    events = neutral(backend, stream)
    started = [(event["message_id"], event["kind"]) for event in events if event["type"] == "message_started"]
    assert started == [
        ("msg-1", "message"),
        (CALL_MESSAGE, "tool_call"),
        (RESULT_MESSAGE, "tool_result"),
        ("msg-2", "message"),
    ]
    # The first anonymous message finishes when the tool call's message comes.
    finished = [event["message_id"] for event in events if event["type"] == "message_finished"]
    assert finished[:1] == ["msg-1"]
    view = backend.NeutralAssembler("agentscope")
    view.feed(stream)
    blocks = [block for message in view.close()["messages"] for block in message["blocks"]]
    assert [block["kind"] for block in blocks] == ["text", "tool_call", "tool_result", "text"]
    assert blocks[0]["text"] == "".join(REASONING)
    assert blocks[1]["input"] == {"city": "Paris"}
    assert blocks[2]["output"] == OUTPUT
    assert blocks[3]["text"] == "".join(ANSWER)


@requires_native
@pytest.mark.parametrize("target", [name for name in PROTOCOLS if name != "agentscope"])
def test_converted_both_backends_agree_and_the_target_reads_it(target: str) -> None:
    stream, _, _ = java_stream(1)
    outputs = []
    for backend in (NATIVE, PURE):
        transcoder = backend.Transcoder("agentscope", target, **CLOCK.get(target, {}))
        outputs.append(transcoder.feed(stream) + transcoder.close())
        view = backend.NeutralAssembler(target)
        view.feed(outputs[-1])
        read = view.close()
        assert view.errors == []
        texts = [block.get("text") for message in read["messages"] for block in message["blocks"]]
        assert "".join(ANSWER) in texts
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("target", [name for name, row in TABLE.items() if row.judge is not None])
@pytest.mark.parametrize("backend", BACKENDS)
def test_converted_into_a_target_its_own_sdk_reads_it(backend: ModuleType, target: str) -> None:
    """Each target's judge (its table row's) reads the Java runtime's stream
    converted, with the reasoning, the call's result and the answer in it."""
    judge = TABLE[target].judge
    assert judge is not None
    stream, _, _ = java_stream(1)
    transcoder = backend.Transcoder("agentscope", target, **CLOCK[target])
    converted = transcoder.feed(stream) + transcoder.close()
    judge(backend, converted)
    read = backend.NeutralAssembler(target)
    read.feed(converted)
    blocks = [block for message in read.close()["messages"] for block in message["blocks"]]
    texts = [block.get("text") for block in blocks if block["kind"] in ("text", "reasoning")]
    assert "".join(ANSWER) in texts
    if "reasoning" not in TABLE[target].cannot_carry:
        assert "".join(REASONING) in texts


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_content_builders_complete_that_sends_its_message_is_read_as_the_completed_content(
    backend: ModuleType,
) -> None:
    """The Java ``ContentBuilder.complete()`` returns the message, so a
    server streaming with the builders sends the message (still in
    progress, its content whole) where the Python builders send the
    completed content."""
    message = {
        "sequence_number": 2,
        "object": "message",
        "status": "in_progress",
        "error": None,
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "code": None,
        "message": None,
        "usage": None,
        "metadata": None,
    }
    deltas = [
        {**delta(3 + n, piece), "msg_id": "msg_1", "status": "in_progress"} for n, piece in enumerate(ANSWER)
    ]
    whole = {**delta(0, "".join(ANSWER)), "msg_id": "msg_1", "delta": False, "status": "completed"}
    completed_content = {**message, "sequence_number": 6, "content": [whole]}
    done = {**message, "sequence_number": 7, "status": "completed", "content": [whole]}
    events = [
        response(1, "created", []),
        message,
        *deltas,
        completed_content,
        done,
        response(8, "completed", [done]),
    ]
    assembler = backend.AgentScopeAssembler(strict=True)
    assembler.feed(b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events))
    final = assembler.close()
    assert assembler.errors == []
    assert final["output"] == [done]
    assert text_of(assembler.messages[0]) == "".join(ANSWER)
    decoded = neutral(backend, b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events))
    texts = "".join(event["delta"] for event in decoded if event["type"] == "block_delta")
    assert texts == "".join(ANSWER)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_heartbeat_does_not_end_the_anonymous_message(backend: ModuleType) -> None:
    """A heartbeat is no message (the assembler ignores it): the assembler
    and the decoder both keep the text around it in one message."""
    heartbeat = {"object": "message", "id": "hb", "type": "heartbeat", "status": "in_progress"}
    events = [response(1, "created", []), delta(2, "It is "), heartbeat, delta(4, "sunny.")]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    assert [text_of(message) for message in assembler.messages] == ["It is sunny."]
    started = [event for event in neutral(backend, stream) if event["type"] == "message_started"]
    assert len(started) == 1


def test_the_fixture_is_this_stream() -> None:
    """tests/fixtures/java/agent_turn.process.sse is this module's stream,
    so that the SDK judges of what a conversion writes (each protocol's
    own tests, over tests/conversion.py) convert it too."""
    fixture = Path(__file__).resolve().parent / "fixtures" / "java" / "agent_turn.process.sse"
    assert fixture.read_bytes() == java_stream(1)[0]


def announced_message_stream() -> tuple[bytes, dict[str, Any]]:
    """A message announced ``in_progress`` whose deltas carry no ``msg_id``
    (a Java adapter's ``message.inProgress()`` then ``addDeltaContent``, which
    sets none), its content and the message completed, and a final response
    holding the message; and that message."""
    nulls = {"error": None, "code": None, "message": None, "usage": None, "metadata": None}
    text = {"object": "content", "type": "text", "index": 0, "msg_id": None, **nulls}
    done = {
        "object": "message",
        "id": "m1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{**text, "delta": False, "status": "completed", "text": "Hello 東京"}],
        **nulls,
    }
    events: list[dict[str, Any]] = [
        {"object": "response", "status": "created", "id": "r1", "output": [], **nulls},
        {**done, "status": "in_progress", "content": []},
    ]
    events += [{**text, "delta": True, "status": None, "text": piece} for piece in ["Hel", "lo ", "東京"]]
    events += [dict(done["content"][0]), done]
    events.append({"object": "response", "status": "completed", "id": "r1", "output": [done], **nulls})
    for number, event in enumerate(events, 1):
        event["sequence_number"] = number
    data = b"".join(b"data:" + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events)
    return data, done


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_id_less_deltas_go_to_the_open_message_announced_last(backend: ModuleType, chunk: int) -> None:
    """An id-less delta belongs to the open message announced last; an
    anonymous message is made only when none is open. (The text was once in
    close()'s output twice: in the message, and in an anonymous one.)"""
    stream, done = announced_message_stream()
    assembler = backend.AgentScopeAssembler()
    for start in range(0, len(stream), chunk):
        assembler.feed(stream[start : start + chunk])
        if b'"lo "' in stream[: start + chunk] and b'"completed"' not in stream[: start + chunk]:
            # While it streams, the deltas are the announced message's.
            assert [message["id"] for message in assembler.messages] == ["m1"]
    final = assembler.close()
    assert final["output"] == [done]
    assert assembler.messages == [done]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_id_less_delta_after_the_announced_message_ended_is_anonymous(backend: ModuleType) -> None:
    stream, done = announced_message_stream()
    assembler = backend.AgentScopeAssembler()
    # The final response left out: the stream ends with the message completed.
    assembler.feed(stream[: stream.rindex(b"data:")])
    assembler.feed_event(
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": None, "text": "more"}
    )
    assert [message["id"] for message in assembler.messages] == ["m1", None]
    assert assembler.messages[0] == done
    assert text_of(assembler.messages[1]) == "more"


@pytest.mark.parametrize("backend", BACKENDS)
def test_decoded_id_less_deltas_go_to_the_open_message_announced_last(backend: ModuleType) -> None:
    """The decoder follows the assembler's rule, so that a conversion and the
    neutral view hold the announced message's text once."""
    stream, _ = announced_message_stream()
    events = neutral(backend, stream)
    assert [event["message_id"] for event in events if event["type"] == "message_started"] == ["m1"]
    view = backend.NeutralAssembler("agentscope")
    view.feed(stream)
    messages = view.close()["messages"]
    assert [(message["id"], [block.get("text") for block in message["blocks"]]) for message in messages] == [
        ("m1", ["Hello 東京"])
    ]
    # Converted, the message's text is there once, in one message.
    transcoder = backend.Transcoder("agentscope", "langchain", **CLOCK["langchain"])
    converted = backend.NeutralAssembler("langchain")
    converted.feed(transcoder.feed(stream) + transcoder.close())
    assert [
        [block.get("text") for block in message["blocks"]] for message in converted.close()["messages"]
    ] == [["Hello 東京"]]
