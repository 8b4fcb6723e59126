"""Generated AgentScope streams (hypothesis): the native and pure-Python
assemblers agree on everything observable, chunking never matters, and the
state does not depend on how it is read."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import AgentCodecError
from conftest import NATIVE, PURE, examples, requires_native
from sse_helpers import split_at

ids = st.sampled_from(["m1", "m2", "m3", None, 7, ["x"]])
kinds = st.sampled_from(["text", "data", "image", "audio", "refusal", "video", "file", "foo", None, 3])
statuses = st.sampled_from(
    ["in_progress", "completed", "failed", "canceled", "created", None, ["x"], {"x": 1}, 1]
)
words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 2**70), st.floats(allow_nan=False), words)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)
data_payloads = st.dictionaries(
    st.sampled_from(["call_id", "name", "arguments", "output", "lst", "n", "d", "x"]), json_values, max_size=4
)
indexes = st.one_of(st.none(), st.integers(-2, 4), st.sampled_from([2**70, 1.0, True, "0"]))


@st.composite
def content_events(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(kinds)
    event: dict[str, Any] = {"object": "content", "type": kind, "msg_id": draw(ids)}
    for key, strategy in (
        ("index", indexes),
        ("delta", st.sampled_from([True, False, None, 1])),
        ("status", statuses),
    ):
        if draw(st.booleans()):
            event[key] = draw(strategy)
    field = {
        "text": "text",
        "image": "image_url",
        "audio": "data",
        "refusal": "refusal",
        "video": "video_url",
        "file": "file_data",
    }.get(kind if isinstance(kind, str) else "", "text")
    event[field] = draw(words | st.none())
    if kind == "data" or draw(st.booleans()):
        event["data"] = draw(data_payloads | json_values)
    return event


@st.composite
def message_events(draw: st.DrawFn) -> dict[str, Any]:
    event: dict[str, Any] = {"object": "message", "id": draw(ids), "status": draw(statuses)}
    event["type"] = draw(st.sampled_from(["message", "reasoning", "plugin_call", "heartbeat"]))
    event["role"] = draw(st.sampled_from(["assistant", "tool", "bot", None]))
    if draw(st.booleans()):
        event["content"] = draw(st.none() | st.lists(content_events() | json_values, max_size=3))
    return event


@st.composite
def response_events(draw: st.DrawFn) -> dict[str, Any]:
    event: dict[str, Any] = {"object": "response", "id": "r", "status": draw(statuses)}
    if draw(st.booleans()):
        event["output"] = draw(st.none() | st.lists(message_events(), max_size=2))
    if draw(st.booleans()):
        event["usage"] = draw(json_values)
    return event


frames = st.one_of(
    content_events().map(json.dumps),
    content_events().map(json.dumps),
    message_events().map(json.dumps),
    response_events().map(json.dumps),
    st.dictionaries(st.sampled_from(["error", "code", "error_type", "object"]), json_values).map(json.dumps),
    st.sampled_from(["[DONE]", " [DONE] ", "not json", "[1]", '"s"', "{}", '{"object":"other"}', "NaN"]),
    json_values.map(json.dumps),
)
options = st.fixed_dictionaries(
    {
        "data_merge": st.sampled_from(["merge", "upstream"]),
        "on_error": st.sampled_from(["raise", "skip"]),
        "strict": st.booleans(),
    }
)


def stream_of(texts: list[str]) -> bytes:
    return b"".join(b"data: " + text.encode() + b"\n\n" for text in texts)


def observe(backend: ModuleType, chunks: list[bytes], opts: dict[str, Any], read_often: bool = False) -> list:
    """Everything a user can see, after each call, errors included."""
    assembler = backend.AgentScopeAssembler(**opts)
    seen: list = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        if read_often or chunk is None:
            seen.append(
                (result, assembler.response, assembler.messages, assembler.errors, assembler.event_count)
            )
    return seen


SETTINGS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@requires_native
@SETTINGS
@given(texts=st.lists(frames, max_size=12), opts=options, cut=st.integers(1, 50))
def test_native_and_python_agree(texts: list[str], opts: dict[str, Any], cut: int) -> None:
    stream = stream_of(texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, opts, read_often=True) == observe(PURE, chunks, opts, read_often=True)


@requires_native
@SETTINGS
@given(
    events=st.lists(
        st.one_of(content_events(), message_events(), response_events(), json_values), max_size=10
    ),
    opts=options,
)
def test_feed_event_agrees(events: list[Any], opts: dict[str, Any]) -> None:
    def run(backend: ModuleType) -> list:
        assembler = backend.AgentScopeAssembler(**opts)
        seen = []
        for event in events:
            try:
                assembler.feed_event(event)
            except AgentCodecError as err:
                seen.append((type(err).__name__, str(err)))
        try:
            assembler.close()
        except AgentCodecError as err:  # no AgentScope event came: said at close
            seen.append((type(err).__name__, str(err)))
        return [*seen, assembler.close(), assembler.messages, assembler.errors]

    assert run(NATIVE) == run(PURE)


@pytest.mark.parametrize(
    "backend", [pytest.param(NATIVE, id="native", marks=requires_native), pytest.param(PURE, id="python")]
)
@SETTINGS
@given(texts=st.lists(frames, max_size=10), opts=options, cuts=st.lists(st.integers(0, 2000), max_size=6))
def test_chunking_never_matters(
    backend: ModuleType, texts: list[str], opts: dict[str, Any], cuts: list[int]
) -> None:
    opts = {**opts, "on_error": "skip"}  # with "raise", where the error lands differs by design
    stream = stream_of(texts)
    chunks = split_at(stream, [c for c in cuts if c <= len(stream)])
    assert observe(backend, chunks, opts)[-1] == observe(backend, [stream], opts)[-1]


@pytest.mark.parametrize(
    "backend", [pytest.param(NATIVE, id="native", marks=requires_native), pytest.param(PURE, id="python")]
)
@SETTINGS
@given(texts=st.lists(frames, max_size=12), opts=options, cut=st.integers(1, 60))
def test_feed_and_feed_with_events_agree(
    backend: ModuleType, texts: list[str], opts: dict[str, Any], cut: int
) -> None:
    """feed() may take a quicker path than feed_with_events(): same result."""
    stream = stream_of(texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]

    def run(method: str) -> list:
        assembler = backend.AgentScopeAssembler(**opts)
        seen: list = []
        for chunk in chunks:
            try:
                getattr(assembler, method)(chunk)
            except AgentCodecError as err:
                seen.append(str(err))
        try:
            seen.append(assembler.close())
        except AgentCodecError as err:
            seen.append(str(err))
        return [*seen, assembler.response, assembler.messages, assembler.errors]

    assert run("feed") == run("feed_with_events")


@pytest.mark.parametrize("status", [["x"], {"x": 1}, None, 1, "completed"])
def test_delta_with_any_status_appends_once(backend: ModuleType, status: object) -> None:
    """A delta to an open slot appends its text once, whatever its status:
    an array or object status once made the native quick path append
    before handing the event to the full path, which appended again."""
    events = [
        {"object": "message", "id": "m", "status": "in_progress"},
        {"object": "content", "msg_id": "m", "index": 0, "type": "text", "delta": True, "text": "a"},
        {
            "object": "content",
            "msg_id": "m",
            "index": 0,
            "type": "text",
            "delta": True,
            "text": "b",
            "status": status,
        },
        {"object": "content", "msg_id": "m", "index": 0, "type": "text", "delta": True, "text": "c"},
    ]
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream_of([json.dumps(event) for event in events]))
    [slot] = assembler.close()["output"][0]["content"]
    assert (slot["text"], slot["status"]) == ("abc", status)


@requires_native
@pytest.mark.parametrize("data_merge", ["merge", "upstream"])
def test_argument_deltas_assemble_alike_in_every_form_they_come(data_merge: str) -> None:
    """A data delta whose data is its arguments alone takes the native quick
    path; every other form (other keys, a repeated key, escapes, a value
    that is not a string, arguments not yet held) takes the full one. Both
    backends, read after every chunk, tool calls included, must agree."""
    head = '{"object":"content","status":"in_progress","type":"data","index":0,"delta":true,"msg_id":"c",'
    lines = [
        '{"object":"message","id":"c","type":"plugin_call","role":"assistant","status":"in_progress"}',
        head + '"data":{"call_id":"k1","name":"search"}}',
        head + '"data":{"arguments":"{\\"q\\": "}}',  # not held yet: the merge decides
        '{"object":"content","status":"in_progress","type":"data","index":0,"delta":false,"msg_id":"c",'
        '"data":{"call_id":"k1","name":"search","arguments":"{\\"q\\": "}}',
        head + '"data":{"arguments":"\\"caf\\u00e9"}}',
        head + '"data":{"arguments":"lost"},"data":{"arguments":" \\\\n\\""}}',
        head + '"data":{"arguments":"lost","arguments":", \\"n\\": 1"}}',
        head + ' "data" : { "arguments" : ", \\"k\\": " } , "status" : "streaming" }',
        head + '"data":{"arguments":"2","name":"_more"}}',
        head + '"data":{"arguments":null}}',
        head + '"data":{"arguments":"}"},"status":["odd"]}',
        '{"object":"content","status":"completed","type":"data","index":0,"delta":true,"msg_id":"c",'
        '"data":{"arguments":""}}',
        head[:-1].replace('"index":0', '"index":1') + ',"data":{"call_id":"k2","arguments":"{}"}}',
        head.replace('"index":0', '"index":1') + '"data":{"arguments":7}}',
        head.replace('"index":0', '"index":1') + '"data":{"arguments":"{\\"a\\":1}"}}',
        '{"object":"message","id":"c","type":"plugin_call","status":"completed"}',
    ]
    for line in lines:
        json.loads(line)
    stream = stream_of(lines)
    seen = {}
    for backend in (NATIVE, PURE):
        assembler = backend.AgentScopeAssembler(data_merge=data_merge)
        reads = []
        for at in range(0, len(stream), 37):
            assembler.feed(stream[at : at + 37])
            reads.append((assembler.messages, assembler.tool_calls))
        assembler.close()
        seen[backend.__name__] = (reads, assembler.response, assembler.tool_calls)
    assert seen[NATIVE.__name__] == seen[PURE.__name__]
    calls = seen[PURE.__name__][2]
    assert calls[0]["arguments"] == {"q": "café \n", "n": 1, "k": 2}
