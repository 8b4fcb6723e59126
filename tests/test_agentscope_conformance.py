"""The AgentScope conformance cases (research notes, "Conformance cases we
should test"), numbered as there, on both backends."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AgentScopeEventError, SSELimitError

MSG = "msg_1"


def sse(*events: Any) -> bytes:
    return b"".join(
        b"data: " + (e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)).encode() + b"\n\n"
        for e in events
    )


def text(text: str, index: int | None = 0, delta: bool | None = True, msg_id: str = MSG, **kw: Any) -> dict:
    return {
        "object": "content",
        "type": "text",
        "index": index,
        "delta": delta,
        "msg_id": msg_id,
        "status": kw.pop("status", "in_progress"),
        "text": text,
        **kw,
    }


def data(
    payload: dict, index: int | None = 0, delta: bool | None = False, msg_id: str = MSG, **kw: Any
) -> dict:
    return {
        "object": "content",
        "type": "data",
        "index": index,
        "delta": delta,
        "msg_id": msg_id,
        "status": kw.pop("status", "in_progress"),
        "data": payload,
        **kw,
    }


def message(msg_id: str = MSG, status: str = "in_progress", type: str = "message", **kw: Any) -> dict:
    return {"object": "message", "id": msg_id, "status": status, "type": type, "role": "assistant", **kw}


def response(status: str, **kw: Any) -> dict:
    return {"object": "response", "id": "resp_1", "status": status, **kw}


def assemble(backend: ModuleType, *events: Any, **options: Any) -> Any:
    assembler = backend.AgentScopeAssembler(**options)
    assembler.feed(sse(*events))
    return assembler


def contents(assembler: Any, msg_id: str = MSG) -> list[dict]:
    return next(m for m in assembler.messages if m["id"] == msg_id)["content"]


# 1. SSE framing ---------------------------------------------------------------


def test_01_framing_any_chunking_and_done(backend: ModuleType) -> None:
    stream = sse(
        message(), text("h\u00e9llo "), text("w\u00f6rld \U0001f600"), response("completed"), "[DONE]"
    )
    expected = assemble(
        backend, message(), text("h\u00e9llo "), text("w\u00f6rld \U0001f600"), response("completed")
    ).close()
    for size in (1, 2, 3, 5, 13, 64):
        assembler = backend.AgentScopeAssembler()
        for i in range(0, len(stream), size):
            assembler.feed(stream[i : i + size])
        assert assembler.close() == expected
    # Without [DONE] and with a space-less "data:" prefix too.
    bare = stream.replace(b"data: ", b"data:").replace(b"data:[DONE]\n\n", b"")
    assembler = backend.AgentScopeAssembler()
    assembler.feed(bare)
    assert assembler.close() == expected


# 2, 4: the builder and text-adapter streams are recorded from upstream in
# test_agentscope_upstream.py; here, what a client reads from them.


def test_02_builder_stream(backend: ModuleType) -> None:
    events = [
        response("created", output=[]),
        response("in_progress", output=[]),
        message(content=None),
        text("Hel"),
        text("lo"),
        text("Hello", delta=False, status="completed"),
        message(status="completed", content=[text("Hello", delta=False, status="completed")]),
    ]
    final_message = message(status="completed", content=[text("Hello", delta=False, status="completed")])
    final = assemble(backend, *events, response("completed", output=[final_message])).close()
    assert final["status"] == "completed"
    assert final["output"][0]["content"][0]["text"] == "Hello"
    assert final["output"][0]["status"] == "completed"
    assert final["output"][0]["type"] == "message"


def test_03_first_delta_already_indexed(backend: ModuleType) -> None:
    assembler = assemble(backend, text("Hel", index=0), text("lo", index=0))
    assert [c["text"] for c in contents(assembler)] == ["Hello"]


def test_04_content_before_any_message_event(backend: ModuleType) -> None:
    assembler = assemble(
        backend,
        response("created", sequence_number=0),
        text("Hi", sequence_number=1),
        text("! My name is Friday", sequence_number=2),
        text(".", sequence_number=3),
    )
    (msg,) = assembler.messages
    assert msg["id"] == MSG
    assert msg["content"][0]["text"] == "Hi! My name is Friday."
    assert assembler.response["sequence_number"] == 0


# 5-7: replacement -------------------------------------------------------------


def test_05_completed_content_replaces(backend: ModuleType) -> None:
    assembler = assemble(backend, text("Hel"), text("lo"), text("Hello", delta=False, status="completed"))
    assert contents(assembler)[0]["text"] == "Hello"
    assert contents(assembler)[0]["status"] == "completed"


def test_06_delta_null_is_not_a_delta(backend: ModuleType) -> None:
    assembler = assemble(
        backend, text("Let"), text(" me think"), text("Let me think", delta=None, status="completed")
    )
    assert contents(assembler)[0]["text"] == "Let me think"


def test_07_tool_call_snapshots_replace(backend: ModuleType) -> None:
    snapshots = ["", '{"city": "Pa"}']
    events = [data({"call_id": "call_1", "name": "get_weather", "arguments": a}) for a in snapshots]
    events.append(
        data(
            {"call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}, status="completed"
        )
    )
    payload = contents(assemble(backend, message(type="plugin_call"), *events), MSG)[0]["data"]
    assert payload == {"call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}


# 8-9: data delta merging --------------------------------------------------------

BASE = {"call_id": "c1", "name": "get_weather", "arguments": "", "lst": [1]}
DELTA = {"call_id": "c1", "arguments": '{"ci', "lst": [2], "newkey": "x", "nested": {"a": 1}}


def test_08_upstream_data_merge(backend: ModuleType) -> None:
    assembler = assemble(backend, data(BASE), data(DELTA, delta=True), data_merge="upstream")
    assert contents(assembler)[0]["data"] == {
        "call_id": "c1c1",
        "name": "get_weather",
        "arguments": '{"ci',
        "lst": [1, 2],
    }


def test_08_default_data_merge(backend: ModuleType) -> None:
    assembler = assemble(backend, data(BASE), data(DELTA, delta=True))
    assert contents(assembler)[0]["data"] == {
        "call_id": "c1",
        "name": "get_weather",
        "arguments": '{"ci',
        "lst": [1, 2],
        "newkey": "x",
        "nested": {"a": 1},
    }


def test_09_default_merge_of_numbers_booleans_and_objects(backend: ModuleType) -> None:
    # The builders fold numbers by adding them (ContentBuilder.complete); a
    # stream's later number is the newer value, so the assembler replaces.
    base = {"n": 1, "flag": True, "d": {"a": "x"}}
    delta = {"n": 2, "flag": False, "d": {"a": "y", "b": 1}, "new": [1]}
    assembler = assemble(backend, data(base), data(delta, delta=True))
    assert contents(assembler)[0]["data"] == {"n": 2, "flag": False, "d": {"a": "xy", "b": 1}, "new": [1]}


def test_09_streamed_tool_arguments_by_call_id(backend: ModuleType) -> None:
    """Deltas without an index (ms-agent-framework) join their call's slot."""
    chunks = ['{"ci', 'ty": "Pa', 'ris"}']
    events = [
        data({"call_id": "call_1", "name": "f", "arguments": c}, index=None, delta=True) for c in chunks
    ]
    events.insert(2, data({"call_id": "call_2", "name": "g", "arguments": "{}"}, index=None, delta=True))
    parts = contents(assemble(backend, message(type="function_call"), *events))
    assert [p["data"] for p in parts] == [
        {"call_id": "call_1", "name": "f", "arguments": '{"city": "Paris"}'},
        {"call_id": "call_2", "name": "g", "arguments": "{}"},
    ]
    assert [p["index"] for p in parts] == [0, 1]


# 10-14: messages -----------------------------------------------------------------


def test_10_reasoning_is_its_own_message(backend: ModuleType) -> None:
    assembler = assemble(
        backend,
        message("msg_r", type="reasoning"),
        text("Let", msg_id="msg_r"),
        text(" me think", msg_id="msg_r"),
        message("msg_t"),
        text("Hello", msg_id="msg_t"),
    )
    assert [(m["type"], m["content"][0]["text"]) for m in assembler.messages] == [
        ("reasoning", "Let me think"),
        ("message", "Hello"),
    ]


def test_11_interleaved_messages(backend: ModuleType) -> None:
    assembler = assemble(
        backend,
        message("msg_r", type="reasoning"),
        text("Let", msg_id="msg_r"),
        message("msg_t"),
        text("Hel", msg_id="msg_t"),
        text(" me think", msg_id="msg_r"),
        text("lo", msg_id="msg_t"),
        message("msg_r", type="reasoning", status="completed"),
        message("msg_t", status="completed"),
    )
    texts = {m["id"]: m["content"][0]["text"] for m in assembler.messages}
    assert texts == {"msg_r": "Let me think", "msg_t": "Hello"}
    assert [m["status"] for m in assembler.messages] == ["completed", "completed"]


def test_12_completed_message_content_is_authoritative(backend: ModuleType) -> None:
    completed = message(
        status="completed",
        content=[
            {"type": "text", "index": 0, "msg_id": MSG, "text": "Hello"},
            {"type": "text", "index": 1, "msg_id": MSG, "text": ""},
        ],
    )
    assembler = assemble(backend, message(), text("Hel"), text("lo"), completed)
    assert contents(assembler) == completed["content"]


def test_13_add_content_shape(backend: ModuleType) -> None:
    parts = [
        {
            "object": "content",
            "type": "data",
            "index": None,
            "msg_id": None,
            "status": None,
            "data": {"a": 1},
        },
        {"object": "content", "type": "text", "index": None, "msg_id": None, "status": None, "text": "b"},
    ]
    assembler = assemble(backend, message(type="plugin_call", status="completed", content=parts))
    assert contents(assembler) == parts


def test_14_terminal_response_output_is_authoritative(backend: ModuleType) -> None:
    output = [
        message("m1", "completed", "reasoning", content=[text("think", delta=False, msg_id="m1")]),
        message("m2", "completed", "plugin_call", content=[data({"call_id": "c", "arguments": "{}"})]),
        message("m3", "completed", "plugin_call_output", content=[data({"call_id": "c", "output": "1"})]),
        message("m4", "completed", usage={"input_tokens": 3, "output_tokens": 5}),
    ]
    final = assemble(
        backend,
        text("partial", msg_id="other"),
        response("completed", output=output, usage={"input_tokens": 3, "output_tokens": 5}),
    ).close()
    assert final["output"] == output
    assert final["usage"] == output[-1]["usage"]


# 15-17: ends -----------------------------------------------------------------------


def test_15_failed_response(backend: ModuleType) -> None:
    error = {"code": "AGENT_UNKNOWN_ERROR", "message": "Unknown agent error: RuntimeError: Error"}
    assembler = assemble(
        backend, response("in_progress"), text("Hi"), response("failed", error=error, output=None)
    )
    final = assembler.close()
    assert final["status"] == "failed"
    assert final["error"] == error
    assert not final["output"]
    assert contents(assembler)[0]["text"] == "Hi"


def test_16_bare_error_frame(backend: ModuleType) -> None:
    assembler = assemble(backend, text("Hi"), {"error": "No runner"})
    final = assembler.close()
    assert final["status"] == "failed"
    assert final["error"] == {"code": "stream_error", "message": "No runner"}
    assert assembler.errors == [{"event": 2, "code": "stream_error", "message": "No runner"}]
    assert contents(assembler)[0]["text"] == "Hi"
    wrapper = {"error": "boom", "error_type": "RuntimeError", "message": "Error in streaming generator"}
    assert assemble(backend, wrapper).close()["error"] == {"code": "RuntimeError", "message": "boom"}


def test_17_truncated_stream_is_incomplete(backend: ModuleType) -> None:
    assembler = assemble(backend, response("in_progress"), message(), text("Hel"), text("lo"))
    final = assembler.close()
    assert final["status"] == "incomplete"
    assert final["output"][0]["content"][0]["text"] == "Hello"
    assert final == assembler.close()  # closing again changes nothing


# 18-22: edge cases ---------------------------------------------------------------------


def test_18_delta_for_an_index_without_a_slot_opens_it(backend: ModuleType) -> None:
    assembler = assemble(backend, text("x", index=7), text("y", index=2), text("z", index=7))
    assert [(c["index"], c["text"]) for c in contents(assembler)] == [(2, "y"), (7, "xz")]


def test_19_non_delta_with_index_replaces(backend: ModuleType) -> None:
    assembler = assemble(backend, text("Hel"), text("snap", delta=False))
    assert contents(assembler)[0]["text"] == "snap"


def test_20_other_content_types(backend: ModuleType) -> None:
    def part(kind: str, field: str, value: str, delta: bool = True) -> dict:
        return {"object": "content", "type": kind, "index": 0, "delta": delta, "msg_id": kind, field: value}

    kinds = [
        ("image", "image_url"),
        ("refusal", "refusal"),
        ("audio", "data"),
        ("video", "video_url"),
        ("file", "file_data"),
    ]
    events = [e for kind, field in kinds for e in (part(kind, field, "a", False), part(kind, field, "b"))]
    merged = {m["id"]: m["content"][0] for m in assemble(backend, *events).messages}
    assert {kind: merged[kind][field] for kind, field in kinds} == {kind: "ab" for kind, _ in kinds}
    # Upstream merges image URLs only; the others keep their first value.
    upstream = {m["id"]: m["content"][0] for m in assemble(backend, *events, data_merge="upstream").messages}
    assert {kind: upstream[kind][field] for kind, field in kinds} == {
        "image": "ab",
        "refusal": "a",
        "audio": "a",
        "video": "a",
        "file": "a",
    }


def test_21_unknown_content_type(backend: ModuleType) -> None:
    foo = message(status="completed", content=[{"type": "foo", "x": 1}])
    assert contents(assemble(backend, foo)) == [{"type": "foo", "x": 1}]
    with pytest.raises(AgentScopeEventError, match=r"^AgentScope event 1 has content of an unknown type$"):
        assemble(backend, foo, strict=True)
    with pytest.raises(AgentScopeEventError, match="event 2 has content of an unknown type"):
        assemble(backend, message(), {"object": "content", "type": "foo", "msg_id": MSG}, strict=True)


def test_22_invalid_role(backend: ModuleType) -> None:
    bot = {**message(), "role": "bot"}
    assert assemble(backend, bot).messages[0]["role"] == "bot"
    assembler = backend.AgentScopeAssembler(strict=True, on_error="skip")
    assembler.feed(sse(message(), bot))
    assert assembler.messages[0]["role"] == "assistant"
    assert assembler.errors == [
        {"event": 2, "code": "invalid_event", "message": "AgentScope event 2 has an invalid role"}
    ]


# 24-25 -----------------------------------------------------------------------------------


def test_24_sequence_numbers_any_base_not_reordered(backend: ModuleType) -> None:
    for numbers in ([0, 1, 2, 3], [41, 42, 43, 44], [5, 3, None, 4]):
        events = [response("in_progress", sequence_number=numbers[0])]
        events += [text(t, sequence_number=n) for t, n in zip("abc", numbers[1:], strict=True)]
        assembler = assemble(backend, *events)
        assert contents(assembler)[0]["text"] == "abc"


def test_25_unknown_keys_survive(backend: ModuleType) -> None:
    events = [{**message(), "foo": 1}, text("x", bar={"b": [1]}), response("in_progress", baz=True)]
    assembler = assemble(backend, *events)
    assert assembler.messages[0]["foo"] == 1
    assert contents(assembler)[0]["bar"] == {"b": [1]}
    assert assembler.response["baz"] is True
    encoded = backend.encode_sse(assembler.messages[0])
    assert b'"foo":1' in encoded
    assert b'"bar":{"b":[1]}' in encoded


# bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "problem"),
    [
        ("not json", "is not valid JSON: invalid literal, expected 'null' at byte 1"),
        ("[1, 2]", "is a JSON array, not an object"),
        ('"text"', "is a JSON string, not an object"),
        ("42", "is a JSON number, not an object"),
        ("null", "is JSON null, not an object"),
        ('{"a": NaN}', "is not valid JSON: expected a value, found 'N' at byte 6"),
        ('{"a": "\\ud800"}', "is not valid JSON: a lone surrogate at byte 13"),
        ("[" * 200 + "]" * 200, "is not valid JSON: nesting deeper than max_depth=127 at byte 127"),
        ('{"a": 1', "is not valid JSON: incomplete at byte 7"),
        ('{"a": 1} x', "is not valid JSON: unexpected 'x' after the JSON value at byte 9"),
    ],
)
def test_bad_frame_raises_naming_the_event_and_keeps_the_rest(
    backend: ModuleType, frame: str, problem: str
) -> None:
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(AgentScopeEventError) as info:
        assembler.feed(sse(message(), text("Hel"), frame, text("lo")))
    assert (info.value.event, info.value.problem) == (3, problem)
    assert str(info.value) == f"AgentScope event 3 {problem}"
    assert isinstance(info.value, ValueError)
    # What was assembled before survives; the events after wait for the next call.
    assert contents(assembler)[0]["text"] == "Hel"
    assembler.feed(b"")
    assert contents(assembler)[0]["text"] == "Hello"
    assert assembler.close()["status"] == "incomplete"


def test_bad_frames_skipped_and_recorded(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler(on_error="skip")
    assembler.feed(sse(text("Hel"), "{oops", "[]", text("lo")))
    assert contents(assembler)[0]["text"] == "Hello"
    assert assembler.errors == [
        {
            "event": 2,
            "code": "invalid_event",
            "message": "AgentScope event 2 is not valid JSON: expected a string key, found 'o' at byte 1",
        },
        {"event": 3, "code": "invalid_event", "message": "AgentScope event 3 is a JSON array, not an object"},
    ]
    assert assembler.event_count == 4


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ([1], "is a JSON array, not an object"),
        ({"a": {1, 2}}, "is not JSON-compatible: set is not a JSON value"),
        ({1: "x"}, "is not JSON-compatible: JSON object keys must be str, not int"),
        ({"a": float("nan")}, "is not JSON-compatible: nan is not valid JSON"),
        ({"a": "\ud800"}, "is not JSON-compatible: lone surrogate in a string"),
    ],
)
def test_feed_event_rejects_what_json_cannot_carry(backend: ModuleType, event: Any, problem: str) -> None:
    assembler = backend.AgentScopeAssembler()
    assembler.feed_event(text("ok"))
    with pytest.raises(AgentScopeEventError) as info:
        assembler.feed_event(event)
    assert (info.value.event, info.value.problem) == (2, problem)
    assert contents(assembler)[0]["text"] == "ok"


def test_feed_event_copies_its_input(backend: ModuleType) -> None:
    event = text("Hel", extra={"k": [1]})
    assembler = backend.AgentScopeAssembler()
    assembler.feed_event(event)
    event["text"] = "changed"
    event["extra"]["k"].append(2)
    assert contents(assembler)[0]["text"] == "Hel"
    assert contents(assembler)[0]["extra"] == {"k": [1]}
    # And what it hands out is a copy too.
    assembler.response["output"][0]["content"][0]["text"] = "changed"
    assert contents(assembler)[0]["text"] == "Hel"


def test_big_numbers_are_exact(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler()
    assembler.feed(
        b'data: {"object":"response","status":"in_progress","n":123456789012345678901234567890,'
        b'"f":1.5e300,"g":-0.0,"h":1E400}\n\n'
    )
    response = assembler.response
    assert response["n"] == 123456789012345678901234567890
    assert (response["f"], response["h"]) == (1.5e300, float("inf"))
    assert str(response["g"]) == "-0.0"


def test_limit_error_keeps_what_came_before(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler(max_line_bytes=200)
    with pytest.raises(SSELimitError) as info:
        assembler.feed(sse(text("Hel"), text("x" * 300)))
    assert info.value.events == []
    assert contents(assembler)[0]["text"] == "Hel"


def test_closed_assembler_refuses_input(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(ValueError, match="the stream held no AgentScope event: it held no events"):
        assembler.close()
    assert assembler.close() == {"object": "response", "status": "incomplete", "output": []}
    with pytest.raises(ValueError, match="the assembler is closed"):
        assembler.feed(b"data: {}\n\n")
    with pytest.raises(ValueError, match="the assembler is closed"):
        assembler.feed_event({})


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"data_merge": "append"}, ValueError),
        ({"on_error": "ignore"}, ValueError),
        ({"strict": 1}, TypeError),
        ({"max_line_bytes": -1}, ValueError),
    ],
)
def test_bad_options(backend: ModuleType, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        backend.AgentScopeAssembler(**kwargs)
