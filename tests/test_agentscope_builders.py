"""The builders write the bytes agentscope-runtime's builders write, given the
same ids and clocks, and keep the response a client would assemble."""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec import encode_sse
from agentcodec.agentscope import ContentBuilder, ContentType, MessageType, ResponseBuilder, Role, RunStatus
from agentcodec.agentscope import builders as builders_module

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agentscope"
CLOCK = 1763700000


@pytest.fixture
def deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    """uuid4 counts up and the clocks stand still, as in the fixtures script."""
    counter = itertools.count(1)
    monkeypatch.setattr(builders_module, "uuid4", lambda: uuid.UUID(int=next(counter)))
    monkeypatch.setattr(builders_module, "_now", lambda: CLOCK)
    monkeypatch.setattr(builders_module, "_now_datetime", lambda: CLOCK)


def fixture(name: str) -> tuple[bytes, dict[str, Any]]:
    return (FIXTURES / f"{name}.sse").read_bytes(), json.loads((FIXTURES / f"{name}.json").read_text())


@pytest.mark.usefixtures("deterministic")
@pytest.mark.parametrize("name", ["builder_hello", "builder_200_tokens"])
def test_generate_streaming_response_is_byte_identical(name: str) -> None:
    stream, expected = fixture(name)
    inputs = expected["inputs"]
    builder = ResponseBuilder(session_id=inputs["session_id"])
    events = list(builder.generate_streaming_response(inputs["tokens"], role=Role.ASSISTANT))
    assert b"".join(encode_sse(event) for event in events) == stream
    assert builder.get_response_data() == expected["final"]


@pytest.mark.usefixtures("deterministic")
@pytest.mark.parametrize("name", ["builder_hello", "builder_200_tokens"])
def test_generate_streaming_sse_is_byte_identical(name: str) -> None:
    stream, expected = fixture(name)
    inputs = expected["inputs"]
    builder = ResponseBuilder(session_id=inputs["session_id"])
    assert b"".join(builder.generate_streaming_sse(inputs["tokens"])) == stream
    assert builder.get_response_data() == expected["final"]


@pytest.mark.usefixtures("deterministic")
def test_agent_turn_is_byte_identical() -> None:
    """The same calls as scripts/agentscope_fixtures.py's builder_agent_turn."""
    stream, expected = fixture("builder_agent_turn")
    builder = ResponseBuilder(session_id="sess_2")
    events = [builder.created(), builder.in_progress()]

    reasoning = builder.create_message_builder(role="assistant", message_type="reasoning")
    events.append(reasoning.get_message_data())
    thought = reasoning.create_content_builder(content_type="text")
    events += [thought.add_text_delta(t) for t in ["The user ", "wants the ", "weather in Paris."]]
    events += [thought.complete(), reasoning.complete()]

    call = builder.create_message_builder(role="assistant", message_type="plugin_call")
    events.append(call.get_message_data())
    args = call.create_content_builder(content_type="data")
    events.append(args.set_data({"call_id": "call_1", "name": "get_weather", "arguments": ""}))
    events += [args.add_data_delta({"arguments": p}) for p in ['{"city": ', '"Paris", ', '"unit": "C"}']]
    events += [args.complete(), call.complete()]

    output = builder.create_message_builder(role="tool", message_type="plugin_call_output")
    events.append(output.get_message_data())
    result = output.create_content_builder(content_type="data")
    events.append(result.set_data({"call_id": "call_1", "name": "get_weather", "output": '{"temp": 21}'}))
    events += [result.complete(), output.complete()]

    answer = builder.create_message_builder(role="assistant", message_type="message")
    events.append(answer.get_message_data())
    text = answer.create_content_builder(content_type="text")
    tokens = ["It is ", "21 °C ", "and sunny in Paris ☀️", ' — "enjoy".\n']
    events += [text.add_text_delta(t) for t in tokens]
    events.append(text.complete())
    image = answer.create_content_builder(content_type="image")
    events += [image.set_image_url("https://example.com/paris.png"), image.complete()]
    events += [answer.complete(), builder.completed()]

    assert b"".join(encode_sse(event) for event in events) == stream
    assert builder.get_response_data() == expected["final"]
    args_data = builder.get_response_data()["output"][1]["content"][0]["data"]
    assert args_data["arguments"] == '{"city": "Paris", "unit": "C"}'


def test_generate_streaming_response_gives_what_add_text_delta_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its loop makes the delta events itself: the same events, None as "",
    and the same assembled response as the builders' own calls."""
    tokens = ["Hel", None, 'lo "', "wörld\n", ""]

    def by_calls() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        builder = ResponseBuilder(session_id="s")
        builder.reset()
        events = [builder.created(), builder.in_progress()]
        message = builder.create_message_builder()
        events.append(message.get_message_data())
        content = message.create_content_builder()
        events += [content.add_text_delta(token) for token in tokens]
        events += [content.complete(), message.complete(), builder.completed()]
        return events, builder.get_response_data()

    def streamed() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        builder = ResponseBuilder(session_id="s")
        return list(builder.generate_streaming_response(tokens)), builder.get_response_data()

    results = []
    for run in (by_calls, streamed):
        ids = itertools.count(1)
        monkeypatch.setattr(builders_module, "uuid4", lambda ids=ids: uuid.UUID(int=next(ids)))
        monkeypatch.setattr(builders_module, "_now", lambda: CLOCK)
        monkeypatch.setattr(builders_module, "_now_datetime", lambda: CLOCK)
        results.append(run())
    assert results[1] == results[0]
    events, final = results[1]
    assert [event["text"] for event in events[3:-3]] == ["Hel", "", 'lo "', "wörld\n", ""]
    assert final["output"][0]["content"][0]["text"] == 'Hello "wörld\n'


def test_generate_streaming_response_calls_a_subclass_add_delta(monkeypatch: pytest.MonkeyPatch) -> None:
    class Shouting(ContentBuilder):
        def add_text_delta(self, text: str | None) -> dict[str, Any]:
            return super().add_text_delta((text or "").upper())

        add_delta = add_text_delta

    monkeypatch.setattr(
        builders_module.MessageBuilder,
        "create_content_builder",
        lambda self, content_type=ContentType.TEXT: Shouting(self, content_type, 0),
    )
    builder = ResponseBuilder(session_id="s")
    events = list(builder.generate_streaming_response(["a", "b"]))
    assert [event["text"] for event in events[3:5]] == ["A", "B"]
    assert builder.get_response_data()["output"][0]["content"][0]["text"] == "AB"


def test_builder_stream_assembles_to_the_builders_response(backend: ModuleType) -> None:
    builder = ResponseBuilder(session_id="s")
    assembler = backend.AgentScopeAssembler()
    for chunk in builder.generate_streaming_sse(["Hel", "lo", " ", "wörld"]):
        assembler.feed(chunk)
    assert assembler.close() == builder.get_response_data()


def test_events_are_snapshots() -> None:
    builder = ResponseBuilder()
    created = builder.created()
    message = builder.create_message_builder()
    content = message.create_content_builder()
    content.add_text_delta("x")
    content.complete()
    assert created["output"] == []
    assert builder.get_response_data()["output"][0]["content"][0]["text"] == "x"


def test_round_trip_encoding_of_a_text_content() -> None:
    """Conformance case 23: the exact bytes of a TextContent."""
    builder = ResponseBuilder()
    message = builder.create_message_builder()
    message.message_id = "msg_1"  # as if upstream had drawn this id
    content = ContentBuilder(message, ContentType.TEXT, 0)
    expected = (
        'data: {"sequence_number":null,"object":"content","status":"in_progress","error":null,"type":"text",'
        '"index":0,"delta":true,"msg_id":"msg_1","text":"héllo"}\n\n'
    ).encode()
    assert encode_sse(content.add_text_delta("héllo")) == expected
    assert content.add_text_delta_sse("héllo") == expected


@pytest.mark.parametrize(
    "token", ["", "plain", 'quo"te\\', "new\nline\r\t", "\x00\x1f\x7f", "é☀️\u2028", None]
)
def test_fast_path_matches_the_event_path(token: str | None) -> None:
    builder = ResponseBuilder()
    content = builder.create_message_builder().create_content_builder()
    assert content.add_text_delta_sse(token) == encode_sse(content.add_text_delta(token))


def test_fast_path_refuses_what_is_not_text() -> None:
    content = ResponseBuilder().create_message_builder().create_content_builder()
    with pytest.raises(TypeError, match="text must be a str or None, not int"):
        content.add_text_delta_sse(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="add_text_delta only supported for text content"):
        ResponseBuilder().create_message_builder().create_content_builder(
            ContentType.DATA
        ).add_text_delta_sse("x")


def test_every_text_delta_refuses_what_is_not_text_and_keeps_what_came_before() -> None:
    """add_text_delta and generate_streaming_response refuse a token that is
    not text where it comes (upstream's model does too), not later when the
    text is joined; the tokens before it stay kept."""
    content = ResponseBuilder().create_message_builder().create_content_builder()
    content.add_text_delta("kept")
    with pytest.raises(TypeError, match="text must be a str or None, not int"):
        content.add_text_delta(5)  # type: ignore[arg-type]
    assert content.complete()["text"] == "kept"

    builder = ResponseBuilder(session_id="s")
    events = []
    with pytest.raises(TypeError, match="text must be a str or None, not bytes"):
        events.extend(builder.generate_streaming_response(["Hel", None, "lo", b"x"]))  # type: ignore[list-item]
    assert [event["text"] for event in events[3:]] == ["Hel", "", "lo"]
    content = builder.message_builders[0].content_builders[0]
    assert content.complete()["text"] == "Hello"


def test_data_fold_on_complete() -> None:
    """Conformance case 9: numbers add, booleans replace, dicts merge, new keys join."""
    builder = ResponseBuilder()
    content = builder.create_message_builder().create_content_builder(ContentType.DATA)
    content.set_data({"n": 1, "flag": True, "d": {"a": "x"}})
    content.add_data_delta({"n": 2, "flag": False, "d": {"a": "y", "b": 1}, "new": [1]})
    assert content.complete()["data"] == {"n": 3, "flag": False, "d": {"a": "xy", "b": 1}, "new": [1]}


def test_many_argument_deltas_fold_in_linear_time() -> None:
    builder = ResponseBuilder()
    content = builder.create_message_builder().create_content_builder(ContentType.DATA)
    content.set_data({"arguments": ""})
    for _ in range(50_000):
        content.add_data_delta({"arguments": "ab"})
    assert len(content.complete()["data"]["arguments"]) == 100_000


def test_each_text_delta_event_is_a_dict_of_its_own() -> None:
    """A delta's event is copied from one kept by the builder: changing an
    event a caller was given changes neither the next nor the message."""
    message = ResponseBuilder().create_message_builder()
    content = message.create_content_builder()
    first = content.add_text_delta("a")
    first["text"] = "changed"
    first["msg_id"] = "other"
    first["extra"] = 1
    second = content.add_text_delta(None)
    assert second == {
        "sequence_number": None, "object": "content", "status": RunStatus.InProgress, "error": None,
        "type": ContentType.TEXT, "index": 0, "delta": True, "msg_id": message.message_id, "text": "",
    }  # fmt: skip
    completed = content.complete()
    assert list(second) == list(completed)
    assert completed["text"] == "a"


@pytest.mark.parametrize(
    ("content_type", "method", "args"),
    [(ContentType.DATA, "add_text_delta", ("x",)), (ContentType.TEXT, "set_data", ({},)),
     (ContentType.TEXT, "set_image_url", ("u",)), (ContentType.IMAGE, "set_refusal", ("r",)),
     (ContentType.TEXT, "add_data_delta", ({},)), (ContentType.TEXT, "update_data", ("k", 1))],
)  # fmt: skip
def test_methods_check_the_content_type(content_type: str, method: str, args: tuple) -> None:
    content = ResponseBuilder().create_message_builder().create_content_builder(content_type)
    with pytest.raises(ValueError, match="only supported for"):
        getattr(content, method)(*args)


def test_video_is_not_built_as_upstream() -> None:
    with pytest.raises(ValueError, match="Unsupported content type: video"):
        ResponseBuilder().create_message_builder().create_content_builder(ContentType.VIDEO)


def test_constants() -> None:
    assert RunStatus.InProgress == "in_progress"
    assert MessageType.MCP_TOOL_CALL == "mcp_call"
    assert "a2ui_action" in MessageType.all_values()
    assert ContentType.all_values() == ["text", "data", "image", "audio", "file", "refusal", "video"]
