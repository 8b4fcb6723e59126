"""Anthropic Messages: the assembler gives the Message anthropic-sdk-python's
own ``accumulate_event`` gives, on both backends and in any chunking,
parsing each tool input once.

The judges: streams built with anthropic-sdk-python's own event classes
(scripts/anthropic_fixtures.py) and what ``accumulate_event`` builds from them;
generated streams run through the SDK live.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import conversion
import protocol_table
from agentcodec import AgentCodecError, AnthropicError, AnthropicEventError, StreamLimitError
from agentcodec._backend import impl
from conftest import NATIVE, PURE, examples, requires_native
from conversion import SOURCE_IDS, SOURCES, backends, convert, view
from protocols import sse_event
from sse_helpers import data_events

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sdk"
RECORDED = ["anthropic_every_block", "anthropic_overloaded"]
SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])

START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 4},
    },
}


def load(name: str) -> tuple[bytes, dict[str, Any]]:
    stream = (FIXTURES / f"{name}.sse").read_bytes()
    reference = json.loads((FIXTURES / f"{name}.json").read_text())
    return stream, reference["message"]


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {event.get('type')}\ndata: {json.dumps(event)}\n\n" for event in events).encode()


def wire_events(stream: bytes) -> list[dict[str, Any]]:
    return [json.loads(block.split("data: ", 1)[1]) for block in stream.decode().split("\n\n") if block]


def assemble(backend: ModuleType, chunks: list[bytes], **options: Any) -> tuple[Any, dict[str, Any]]:
    assembler = backend.AnthropicAssembler(**options)
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler, assembler.close()


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        *[
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
            for piece in pieces
        ],
        {"type": "content_block_stop", "index": index},
    ]


def tool_block(index: int, *fragments: str, stop: bool = True) -> list[dict[str, Any]]:
    start = {"type": "tool_use", "id": f"toolu_{index}", "name": "f", "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *[
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": fragment},
            }
            for fragment in fragments
        ],
        *([{"type": "content_block_stop", "index": index}] if stop else []),
    ]


END = [
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 5},
    },
    {"type": "message_stop"},
]


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_streams_give_the_sdks_message(backend: ModuleType, name: str) -> None:
    stream, reference = load(name)
    _, message = assemble(backend, [stream])
    assert message == reference
    # What anthropic-sdk-python's own model accepts, field for field.
    from anthropic.types import Message

    assert Message.model_validate(message).to_dict() == message


@pytest.mark.parametrize("name", RECORDED)
def test_any_chunking(backend: ModuleType, name: str) -> None:
    stream, _ = load(name)
    _, whole = assemble(backend, [stream])
    rng = random.Random(name)
    chunks, position = [], 0
    while position < len(stream):
        size = rng.randint(1, 300)
        chunks.append(stream[position : position + size])
        position += size
    assert assemble(backend, chunks)[1] == whole
    assert assemble(backend, [stream[i : i + 1] for i in range(len(stream))])[1] == whole


@pytest.mark.parametrize("name", RECORDED)
def test_decoded_events_and_feed_with_events(backend: ModuleType, name: str) -> None:
    stream, _ = load(name)
    events = wire_events(stream)
    _, whole = assemble(backend, [stream])
    assembler = backend.AnthropicAssembler()
    for event in events:
        assembler.feed_event(event)
    assert assembler.close() == whole
    assert assembler.event_count == len(events)
    assert backend.AnthropicAssembler().feed_with_events(stream) == events


def test_tool_input_is_parsed_once_when_the_block_stops(backend: ModuleType) -> None:
    """The SDK re-parses the whole input on every fragment (quadratic);
    agentcodec's message parses the fragments at content_block_stop, and its
    tool_calls give the input so far, each byte parsed once."""
    assembler = backend.AnthropicAssembler()
    assembler.feed(sse([START, *tool_block(0, "", '{"city": "Pa', stop=False)]))
    assert assembler.message["content"][0]["input"] == {}
    assert assembler.tool_calls == [
        {
            "index": 0,
            "id": "toolu_0",
            "type": "tool_use",
            "name": "f",
            "input": {"city": "Pa"},
            "done": False,
        },
    ]
    assembler.feed(sse(tool_block(0, 'ris"}')[1:]))
    assert assembler.message["content"][0]["input"] == {"city": "Paris"}
    assert assembler.tool_calls[0]["input"] == {"city": "Paris"}
    assert "error" not in assembler.tool_calls[0]


def test_invalid_tool_input_is_an_error_at_the_stop(backend: ModuleType) -> None:
    events = [START, *tool_block(0, '{"a": tru'), *text_block(1, "after")]
    assembler = backend.AnthropicAssembler()
    with pytest.raises(AnthropicEventError) as caught:
        assembler.feed(sse(events))
    assert str(caught.value) == "Anthropic Messages event 4 stops block 0, whose input is not valid JSON"
    # Skipped: the block keeps its input as started, the raw JSON is kept.
    assembler = backend.AnthropicAssembler(on_error="skip")
    assembler.feed(sse(events))
    message = assembler.close()
    assert message["content"][0]["input"] == {}
    assert message["content"][1]["text"] == "after"
    assert assembler.tool_calls[0]["input"] == '{"a": tru'
    assert assembler.errors[0]["event"] == 4


def test_a_cut_stream_keeps_what_streamed(backend: ModuleType) -> None:
    """A stream cut before the tool block stopped: its input stands at close
    when it is complete JSON; the text before stands too."""
    _, message = assemble(
        backend, [sse([START, *text_block(0, "Hi"), *tool_block(1, '{"a":', " 1}", stop=False)])]
    )
    assert message["content"][0]["text"] == "Hi"
    assert message["content"][1]["input"] == {"a": 1}
    assert message["stop_reason"] is None


def test_blocks_are_addressed_by_index(backend: ModuleType) -> None:
    """The SDK addresses blocks by list position: a server that numbers them
    from 1 (or skips one) makes it write into the wrong block or fail."""
    events = [START, *text_block(1, "one"), *tool_block(3, '{"x": 2}'), *END]
    _, message = assemble(backend, [sse(events)])
    assert [block.get("text", block.get("input")) for block in message["content"]] == ["one", {"x": 2}]


def test_message_delta_overwrites_cumulative_usage(backend: ModuleType) -> None:
    usage = {"output_tokens": 7, "input_tokens": None, "cache_creation_input_tokens": 3}
    finished = {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": usage}
    _, message = assemble(backend, [sse([START, *text_block(0, "x"), finished, {"type": "message_stop"}])])
    assert message["usage"] == {
        "input_tokens": 10,
        "output_tokens": 7,
        "cache_read_input_tokens": 4,
        "cache_creation_input_tokens": 3,
    }
    assert (message["stop_reason"], message["stop_sequence"], message["stop_details"]) == (
        "max_tokens",
        None,
        None,
    )


def test_citations_signatures_and_pings(backend: ModuleType) -> None:
    citation = {"type": "char_location", "cited_text": "c", "document_index": 0}
    events = [
        {"type": "ping"},
        START,
        json.loads(event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""})),
        json.loads(delta(0, type="thinking_delta", thinking="hm")),
        json.loads(delta(0, type="signature_delta", signature="s1")),
        {"type": "content_block_stop", "index": 0},
        {"type": "ping"},
        *text_block(1, "a"),
    ]  # fmt: skip
    events.insert(
        -1,
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "citations_delta", "citation": citation},
        },
    )
    events.insert(
        -1,
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "citations_delta", "citation": citation},
        },
    )
    _, message = assemble(backend, [sse(events)])
    assert message["content"] == [
        {"type": "thinking", "thinking": "hm", "signature": "s1"},
        {"type": "text", "text": "a", "citations": [citation, citation]},
    ]


def event(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields})


def delta(index: int, **fields: Any) -> str:
    return event("content_block_delta", index=index, delta=fields)


def test_errors(backend: ModuleType) -> None:
    good = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}
    head = [START, text_block(0)[0], good]
    text = {"type": "text"}
    cases = [
        ("not json", "is not valid JSON: invalid literal, expected 'null' at byte 1"),
        ("[1]", "is a JSON array, not an object"),
        ("{}", "has no type"),
        ('{"type": 1}', "has a type that is not a string"),
        (event("message_start", message={}), "is a second message_start"),
        (event("content_block_start", content_block=text), "has no index"),
        (event("content_block_start", index=1.0), "has an index that is not a 64-bit integer"),
        (
            event("content_block_start", index=0, content_block=text),
            "starts block 0, which has started already",
        ),
        (event("content_block_start", index=1), "has a content_block (block 1) that is not an object"),
        (
            event("content_block_start", index=1, content_block={}),
            "has a content_block (block 1) without a type",
        ),
        (delta(5), "has a delta for block 5, which has not started"),
        (event("content_block_delta", index=0, delta=1), "has a delta (block 0) that is not an object"),
        (delta(0), "has a delta (block 0) without a type"),
        (delta(0, type="text_delta"), "has a text_delta (block 0) whose text is not a string"),
        (delta(0, type="thinking_delta", thinking="x"), "has a thinking_delta for block 0, a text block"),
        (
            delta(0, type="input_json_delta", partial_json="x"),
            "has an input_json_delta for block 0, a text block",
        ),
        (event("content_block_stop", index=3), "stops block 3, which has not started"),
        (event("message_delta", delta=1), "has a delta that is not an object"),
        (event("message_delta", usage=[]), "has usage that is not an object"),
    ]
    for text, problem in cases:
        assembler = backend.AnthropicAssembler()
        assembler.feed(sse(head))
        with pytest.raises(AnthropicEventError) as caught:
            assembler.feed(f"data: {text}\n\ndata: {json.dumps(good)}\n\n".encode())
        assert caught.value.event == 4
        assert caught.value.problem == problem
        assert str(caught.value) == f"Anthropic Messages event 4 {problem}"
        # What came before stands; the event after the bad one is applied next.
        assert assembler.message["content"][0]["text"] == "Hi"
        assert assembler.close()["content"][0]["text"] == "HiHi"
    assembler = backend.AnthropicAssembler(on_error="skip")
    assembler.feed(sse([good, START, *text_block(0, "a"), good, *END, good]))
    assert [error["message"] for error in assembler.errors] == [
        "Anthropic Messages event 1 comes before message_start",
        "Anthropic Messages event 6 has a delta for block 0, which has stopped",
        "Anthropic Messages event 9 comes after message_stop",
    ]
    assert assembler.close()["content"][0]["text"] == "a"
    with pytest.raises(AnthropicError, match="the assembler is closed"):
        assembler.feed(b"")


def test_a_delta_of_an_unknown_type_is_ignored(backend: ModuleType) -> None:
    """As the SDK does: a delta type this version does not know."""
    unknown = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "compaction_delta", "content": "x"},
    }
    _, message = assemble(backend, [sse([START, *text_block(0, "a")[:2], unknown, *text_block(0, "b")[1:]])])
    assert message["content"] == [{"type": "text", "text": "ab"}]
    _, message = assemble(backend, [sse([START, {"type": "novel_event", "x": 1}])])
    assert message["content"] == []


def test_server_errors_are_recorded(backend: ModuleType) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assembler = backend.AnthropicAssembler()
    assembler.feed(sse([START, *text_block(0, "a"), error]))
    assert assembler.errors == [{"event": 5, "code": "overloaded_error", "message": "Overloaded"}]
    assert assembler.events == [error]
    assert assembler.close()["content"][0]["text"] == "a"


# --- generated streams -------------------------------------------------------------------

words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def message_streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Streams as the API writes them: blocks in index order, one at a time."""
    events: list[dict[str, Any]] = [START]
    for index in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "thinking", "tool_use"]))
        if kind == "tool_use":
            text = json.dumps(draw(st.dictionaries(st.text(max_size=4), json_values, max_size=3)))
            cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
            fragments = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            events += tool_block(index, *fragments)
            continue
        start: dict[str, Any] = {"type": kind, kind: ""}
        if kind == "thinking":
            start["signature"] = ""
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        for piece in draw(st.lists(words, max_size=4)):
            delta = {"type": f"{kind}_delta", kind: piece}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        if kind == "thinking" and draw(st.booleans()):
            delta = {"type": "signature_delta", "signature": draw(words)}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    if draw(st.booleans()):
        usage = {"output_tokens": draw(st.integers(0, 99))}
        if draw(st.booleans()):
            usage["input_tokens"] = draw(st.integers(0, 99))
        reason = draw(st.sampled_from(["end_turn", "max_tokens", "tool_use"]))
        events.append(
            {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}, "usage": usage}
        )
        events.append({"type": "message_stop"})
    return events


def sdk_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        typed = construct_type(type_=RawMessageStreamEvent, value=json.loads(json.dumps(event)))
        snapshot = accumulate_event(event=typed, current_snapshot=snapshot, json_bufs=buffers)
    message: dict[str, Any] = snapshot.to_dict()
    return message


@SETTINGS
@given(events=message_streams())
def test_generated_streams_agree_with_anthropic_python(events: list[dict[str, Any]]) -> None:
    expected = sdk_message(events)
    for backend in (NATIVE, PURE):
        if backend is None:
            continue
        _, message = assemble(backend, [sse(events)])
        assert message == expected


index_values = st.one_of(st.integers(-1, 2), st.sampled_from([2**63, "0", 1.0, None, True]))


@st.composite
def hostile_events(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(
            ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
             "message_delta", "message_stop", "ping", "error", "other", None, 3]
        )
    )  # fmt: skip
    event: dict[str, Any] = {} if kind is None else {"type": kind}
    if draw(st.booleans()):
        event["index"] = draw(index_values)
    if kind == "message_start":
        event["message"] = draw(
            st.sampled_from(
                [START["message"], {"content": [{"type": "text", "text": "x"}]}, {"content": 1}, 2]
            )
        )
    elif kind == "content_block_start":
        block_type = draw(
            st.sampled_from(
                ["text", "thinking", "tool_use", "server_tool_use", "web_search_tool_result", None]
            )
        )
        block: dict[str, Any] = {} if block_type is None else {"type": block_type}
        if draw(st.booleans()):
            block[draw(st.sampled_from(["text", "thinking", "input", "citations"]))] = draw(
                words | st.just({}) | st.just([1]) | st.none()
            )
        event["content_block"] = draw(st.just(block) | st.sampled_from([None, []]))
    elif kind == "content_block_delta":
        delta_type = draw(
            st.sampled_from(
                [
                    "text_delta",
                    "thinking_delta",
                    "input_json_delta",
                    "signature_delta",
                    "citations_delta",
                    "x",
                    None,
                ]
            )
        )
        delta: dict[str, Any] = {} if delta_type is None else {"type": delta_type}
        for field in draw(
            st.lists(st.sampled_from(["text", "thinking", "partial_json", "signature", "citation"]))
        ):
            delta[field] = draw(st.sampled_from(['{"a":', "1}", "[", "", "x", 1, None, {"k": 1}]))
        event["delta"] = draw(st.just(delta) | st.sampled_from([None, 1]))
    elif kind == "message_delta":
        event["delta"] = draw(
            st.sampled_from([{"stop_reason": "end_turn"}, {"container": {"id": "c"}}, None, 1])
        )
        event["usage"] = draw(st.sampled_from([{"output_tokens": 3}, {"input_tokens": None}, {}, None, []]))
    elif kind == "error":
        event["error"] = draw(st.sampled_from([{"type": "overloaded_error", "message": "m"}, {}, "e"]))
    return json.dumps(event)  # fmt: skip


def observe(backend: ModuleType, chunks: list[bytes], on_error: str) -> list[Any]:
    assembler = backend.AnthropicAssembler(on_error=on_error)
    seen: list[Any] = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        seen.append(
            (
                result,
                assembler.message,
                assembler.tool_calls,
                assembler.events,
                assembler.errors,
                assembler.event_count,
            )
        )
    return seen


frames = st.one_of(hostile_events(), st.sampled_from(["not json", "[1]", "{}", json.dumps(START)]))


@requires_native
@SETTINGS
@given(
    texts=st.lists(frames, max_size=20), on_error=st.sampled_from(["raise", "skip"]), cut=st.integers(1, 80)
)
def test_native_and_python_agree(texts: list[str], on_error: str, cut: int) -> None:
    stream = b"".join(b"data: " + text.encode() + b"\n\n" for text in texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, on_error) == observe(PURE, chunks, on_error)


@pytest.mark.parametrize("given", ["", "{", 7, [1], None, {"q": 1}], ids=repr)
@pytest.mark.parametrize("backend", [b for b in (NATIVE, PURE) if b is not None], ids=lambda b: b.__name__)
def test_a_tool_blocks_own_input_is_a_value_however_odd(backend: ModuleType, given: Any) -> None:
    """``content_block_start`` gives a tool block's input as a value (``{}``
    from servers); one of another type, a string included, is that value,
    not JSON text to read, on both backends (the pure one read a string as
    arguments; found by the backends' property test)."""
    start = {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "input": given}}
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in (START, start))
    assembler = backend.AnthropicAssembler()
    assembler.feed(stream)
    assert assembler.tool_calls == [
        {"index": 0, "id": None, "type": "tool_use", "name": None, "input": given, "done": False}
    ]
    assembler.close()
    assert assembler.tool_calls == [
        {"index": 0, "id": None, "type": "tool_use", "name": None, "input": given, "done": True}
    ]


# --- the builder ---------------------------------------------------------------------------


def test_the_builder_writes_what_the_sdk_assembles() -> None:
    from agentcodec.anthropic import MessageStreamBuilder

    builder = MessageStreamBuilder(message_id="msg_b", model="claude-x")
    out = (
        builder.add_thinking_delta("Let me ")
        + builder.add_thinking_delta("see.")
        + builder.add_signature("sig")
    )
    out += builder.add_text_delta("Hel") + builder.add_text_delta("lo")
    out += builder.add_tool_use("lookup", '{"q": ', tool_use_id="toolu_9") + builder.add_input_json_delta(
        '"x"}'
    )
    out += builder.finish(usage={"input_tokens": 12, "output_tokens": 30, "cached_input_tokens": 2})
    events = wire_events(out)
    assert [event["type"] for event in events][:3] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
    ]
    assert sdk_message(events) == builder.message
    assert builder.message == {
        "id": "msg_b",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "Let me see.", "signature": "sig"},
            {"type": "text", "text": "Hello"},
            {"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {"q": "x"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 30, "cache_read_input_tokens": 2},
        "stop_details": None,
    }
    # Each frame names its event, as the API writes it.
    assert out.startswith(b"event: message_start\ndata: {")
    with pytest.raises(ValueError, match="needs a tool_use block"):
        MessageStreamBuilder().add_input_json_delta("{}")
    failed = MessageStreamBuilder()
    wire = failed.add_text_delta("a") + failed.fail("Overloaded", "overloaded_error")
    assert wire_events(wire)[-1] == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert failed.message["content"] == [{"type": "text", "text": "a"}]


def test_the_public_module() -> None:
    from agentcodec import anthropic

    assert anthropic.Assembler is impl.AnthropicAssembler  # the backend in use
    assert issubclass(anthropic.AnthropicEventError, anthropic.AnthropicError)


def test_the_default_max_blocks_is_half_a_million(backend: ModuleType) -> None:
    """Five a message at the default max_messages: a message of 500,001
    blocks is past it (a stream of nothing else would hold some ten times
    what it brought)."""
    start = {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}
    block = b'data: {"type":"content_block_start","index":%d,"content_block":{"type":"text","text":"x"}}\n\n'
    data = b"data: " + json.dumps(start).encode() + b"\n\n" + b"".join(block % n for n in range(500_001))
    assembler = backend.AnthropicAssembler()
    with pytest.raises(StreamLimitError) as info:
        assembler.feed(data)
    assert (info.value.limit, info.value.maximum, info.value.event) == ("max_blocks", 500_000, 500_002)


# The source of the tool-call streams converted here: the Agent API's, a call
# whose arguments stream in pieces (its row's tool-call stream).
SOURCE = "agentscope"


def tool_call_stream(fragments: list[str]) -> bytes:
    """A stream of ``SOURCE`` with one call whose arguments come as ``fragments``."""
    start, deltas, end = protocol_table.TABLE[SOURCE].tool_calls[0].stream(fragments, "".join(fragments))
    return b"".join(sse_event(event) for event in [*start, *deltas, *end])


ARGUMENT_PIECES = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    " ",
    "1",
    "-",
    ".",
    "e",
    "tr",
    "ue",
    "null",
    "a",
    "東",
    "\\",
    "u00",
]


@requires_native
@SETTINGS
@given(
    pieces=st.lists(st.sampled_from(ARGUMENT_PIECES), max_size=40),
    valid=st.none() | st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_any_tool_arguments_convert_to_an_anthropic_input_alike_and_readable(
    pieces: list[str], valid: dict[str, Any] | None, cuts: list[int]
) -> None:
    """Whatever a call's arguments are, cut anywhere, both backends write the
    same Anthropic stream, agentcodec's assembler reads its input without an
    error, and whole object arguments arrive as they were."""
    text = json.dumps(valid, ensure_ascii=False) if valid is not None else "".join(pieces)
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    fragments = [text[start:end] for start, end in itertools.pairwise(points) if start < end]
    stream = tool_call_stream([fragment for fragment in fragments if fragment])
    outputs = []
    for backend in (NATIVE, PURE):
        transcoder = backend.Transcoder(SOURCE, "anthropic")
        outputs.append(transcoder.feed(stream) + transcoder.close())
    assert outputs[0] == outputs[1]
    for backend in (NATIVE, PURE):
        assembler = backend.AnthropicAssembler()
        assembler.feed(outputs[0])
        (block,) = assembler.close()["content"]
        assert isinstance(block["input"], dict)
        if valid is not None:
            assert block["input"] == valid


def test_feed_with_events_takes_bytes_of_one_byte_items_only(backend: ModuleType) -> None:
    with pytest.raises(TypeError) as refused:
        backend.AnthropicAssembler().feed_with_events(memoryview(b"abcd").cast("I"))
    assert str(refused.value) == (
        "Assembler.feed_with_events() takes bytes-like data (bytes, bytearray, memoryview), not memoryview"
    )


# --- what a conversion into the protocol writes, judged by its SDK (any source) ---


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_anthropic_output_ends_its_message_when_the_source_ends_its_run(source: str, path: Path) -> None:
    """What anthropic-sdk-python reads of every conversion is the row's
    judge's (test_transcode); here: ``message_stop`` closes the stream
    exactly when the source's run ended without failing."""
    for backend in backends():
        written = data_events(convert(backend, source, "anthropic", path.read_bytes()))
        failed = any(event["type"] == "error" for event in written)
        events = [event for event in written if event["type"] != "error"]
        source_view = view(backend, source, path.read_bytes())
        if events:
            assert (events[-1]["type"] == "message_stop") == (source_view["ended"] and not failed)


@pytest.mark.parametrize(
    ("fragments", "expected"),
    [
        # A producer that drops the arguments of a call's first chunk.
        (['"city": "東京"}'], {}),
        (['{"city": "東', '京", "n": 1.}'], {"city": "東京", "n": 1}),
        (['{"a": [1, {"b": tru'], {"a": [1, {}]}),
        (['{"q": "x\\u00'], {"q": "x"}),
        (["ls -la"], {}),
        # Whole arguments pass byte for byte, however they were cut.
        (['{"city": ', '"Par', 'is", "days": [1', ", 2]}"], {"city": "Paris", "days": [1, 2]}),
    ],
)
def test_broken_tool_arguments_convert_to_an_anthropic_stream_its_readers_accept(
    fragments: list[str], expected: dict[str, Any]
) -> None:
    """A Transcoder never writes what its target's own reader rejects: a
    tool's input streams only as far as it is the clean prefix of an object,
    and ends as the JSON of it. (Broken arguments once converted to
    input_json_delta fragments that agentcodec's assembler and the SDK
    refused.)"""

    stream = tool_call_stream(fragments)
    converted = {convert(backend, SOURCE, "anthropic", stream) for backend in backends()}
    assert len(converted) == 1
    stream = converted.pop()
    for backend in backends():
        assembler = backend.AnthropicAssembler()
        assembler.feed(stream)
        message = assembler.close()
        assert message["content"][0]["input"] == expected
    assert sdk_message(data_events(stream))["content"][0]["input"] == expected
    written = "".join(
        event["delta"]["partial_json"]
        for event in data_events(stream)
        if event["type"] == "content_block_delta"
    )
    whole = "".join(fragments)
    try:
        valid = isinstance(json.loads(whole), dict)
    except ValueError:
        valid = False
    assert (written == whole) == valid


def test_the_stop_reasons_literal_is_the_vocabularys_table() -> None:
    """``StopReason`` is written out for type checkers; ``STOP_REASONS``
    comes from the vocabulary both backends read: they must agree."""
    from typing import get_args

    from agentcodec import anthropic
    from agentcodec._vocabulary import tables

    assert get_args(anthropic.types.StopReason) == anthropic.types.STOP_REASONS
    assert tables("anthropic")["STOP_REASONS"] == anthropic.types.STOP_REASONS


SIGNED = conversion.sse(
    [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "let me think"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "SIG123"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "answer"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        {"type": "message_stop"},
    ]
)


@pytest.mark.parametrize("through", [name for name in protocol_table.TABLE if name != "anthropic"])
def test_a_thinking_signature_comes_back_from_every_target_with_a_place(
    backend: ModuleType, through: str
) -> None:
    """A thinking block's signature, converted into every other protocol and
    back, comes back where the target has a place for it, so that a
    conversation converted midway can go on upstream."""
    assembler = backend.AnthropicAssembler()
    assembler.feed(conversion.round_trip(backend, "anthropic", through, SIGNED))
    message = assembler.close()
    thinking_blocks = [block for block in message["content"] if block["type"] == "thinking"]
    if "reasoning" in protocol_table.TABLE[through].cannot_carry:
        assert thinking_blocks == []  # reported as a loss by the encoder
        return
    (thinking,) = thinking_blocks
    assert thinking["thinking"] == "let me think"
    carried = protocol_table.TABLE[through].carries_signatures_of(protocol_table.TABLE["anthropic"])
    assert thinking["signature"] == ("SIG123" if carried else "")


# An MCP call of Anthropic's beta (``mcp_tool_use``) names its server
# (``server_name``): the neutral ``tool_call`` carries it as its ``server``.
MCP_CALL = sse(
    [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 0},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "mcp_tool_use",
                "id": "mcptoolu_1",
                "name": "search",
                "server_name": "docs",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"q": 1}'},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
)


def test_an_mcp_call_names_its_server_in_the_neutral_view(backend: ModuleType) -> None:
    assembler = backend.NeutralAssembler("anthropic")
    assembler.feed(MCP_CALL)
    calls = [
        (block["tool"], block["name"], block["server"], block["input"])
        for message in assembler.close()["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call"
    ]
    assert calls == [("mcp", "search", "docs", {"q": 1})]
