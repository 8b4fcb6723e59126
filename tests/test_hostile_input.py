"""Hostile input where the two backends once disagreed or lost data: each
test is a reproduction from the differential fuzz campaign, run on both
backends, and fails without its fix."""

from __future__ import annotations

import array
import enum
import json
import re
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcodec import AgentCodecError, AgentScopeError, AgentScopeEventError, SSELimitError
from conftest import NATIVE, PURE, examples, requires_native
from protocol_table import TABLE

LANGCHAIN_HEAD = b'data: {"type":"event","method":"messages","params":{"namespace":[],"node":"m","data":'


def test_a_langchain_index_written_as_negative_zero_is_block_zero(backend: ModuleType) -> None:
    """JSON's ``-0`` is the integer 0 (Python reads it so); the native
    backend once took it for no index and dropped the delta."""
    stream = b"".join(
        LANGCHAIN_HEAD + data + b"}}\n\n"
        for data in (
            b'{"event":"message-start","role":"ai","id":"m1"}',
            b'{"event":"content-block-start","index":0,"content":{"type":"text","text":""}}',
            b'{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"hello "}}',
            b'{"event":"content-block-delta","index":-0,"delta":{"type":"text-delta","text":"world"}}',
        )
    )
    assembler = backend.LangChainAssembler()
    assembler.feed(stream)
    assert assembler.messages[0]["content"] == [{"type": "text", "text": "hello world"}]


def test_close_applies_the_waiting_events_before_the_hidden_limit_error(backend: ModuleType) -> None:
    """One chunk: a bad event, a good one, then a line over the limit.
    feed() raises for the bad event (the limit error hides behind it); close()
    applies the good event, then raises the limit. The pure backend once
    lost the good event."""
    message = b'{"object":"message","id":"m1","role":"assistant","content":[{"type":"text","text":"kept"}]}'
    chunk = b"data: null\n\ndata: " + message + b"\n\ndata: " + b"x" * 200 + b"\n\n"
    assembler = backend.AgentScopeAssembler(max_line_bytes=150)
    with pytest.raises(AgentScopeEventError):
        assembler.feed(chunk)
    with pytest.raises(SSELimitError):
        assembler.close()
    assert assembler.event_count == 2
    assert [message["id"] for message in assembler.messages] == ["m1"]
    assembler.close()  # the limit was reported: now it closes
    with pytest.raises(AgentScopeError, match="closed"):
        assembler.feed(b"data: {}\n\n")


def test_a_failed_close_still_ends_the_input(backend: ModuleType) -> None:
    """close() ends the input at once, even when an event waiting behind an
    earlier error fails it: the unterminated line is discarded, as SSE
    says, and more input is refused. The native backend once kept the line
    and glued the next feed onto it, turning a valid event into invalid
    JSON; the pure one took the next feed as a new stream."""
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(AgentScopeEventError, match="event 1 is not valid JSON"):
        assembler.feed(b'data: x\n\ndata: y\n\ndata: {"object":"message","id":"z"')
    with pytest.raises(AgentScopeEventError, match="event 2 is not valid JSON"):
        assembler.close()
    with pytest.raises(AgentScopeError, match="the assembler is closed"):
        assembler.feed(b'data: {"object":"message","id":"m2"}\n\n')
    # Nothing waits any more: now it closes, and says no AgentScope event came.
    with pytest.raises(AgentScopeError, match="none of its 2 events is one"):
        assembler.close()
    assembler.close()
    assert assembler.messages == []
    assert assembler.event_count == 2


def test_a_failed_close_applies_the_rest_when_called_again(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler()
    stream = (
        b"data: x\n\ndata: y\n\n"
        b'data: {"object":"message","id":"m1","role":"assistant","content":[{"type":"text","text":"a"}]}\n\n'
    )
    with pytest.raises(AgentCodecError):
        assembler.feed(stream)
    with pytest.raises(AgentScopeEventError, match="event 2"):
        assembler.close()
    assembler.close()
    assert [message["id"] for message in assembler.messages] == ["m1"]


AGENTSCOPE_PLUGIN_CALL = b'data: {"object":"message","id":"m","type":"plugin_call","role":"assistant"}\n\n'


def test_data_deltas_without_an_index_find_their_call_without_a_scan(backend: ModuleType) -> None:
    """Data deltas with no index and a distinct call id each once scanned
    every slot of the message: quadratic on both backends (20k such events
    took about a minute). 20k of them, each its own slot."""
    events = b"".join(
        b'data: {"object":"content","type":"data","delta":true,"msg_id":"m","data":{"call_id":"c%d"}}\n\n' % i
        for i in range(20_000)
    )
    text = b"".join(
        b'data: {"object":"content","type":"text","msg_id":"t","text":"a"}\n\n' for _ in range(20_000)
    )
    assembler = backend.AgentScopeAssembler()
    assembler.feed(AGENTSCOPE_PLUGIN_CALL + events + text)
    messages = assembler.messages
    assert [block["data"]["call_id"] for block in messages[0]["content"][:3]] == ["c0", "c1", "c2"]
    assert len(messages[0]["content"]) == 20_000
    assert len(messages[1]["content"]) == 20_000  # content without an index takes the next slot


@requires_native
def test_done_messages_kept_compactly_read_and_change_alike() -> None:
    """The native backend keeps a small message that is done as its JSON
    text (a tree of maps cost 4.6 KB per short message, twice the pure
    backend): what it reads back, and what a later event does to it, is
    what the pure backend gives. Sparse slots, numbers written with their
    own digits, non-ASCII text, a message that failed, one changed after it
    completed, one completed twice, one nested as deep as events may be,
    and one too long to keep as text."""
    deep: Any = "bottom"
    for _ in range(125):  # as deep as an event's field may be
        deep = [deep]
    events: list[dict[str, Any]] = []
    for number, status in enumerate(["completed", "failed", "canceled", "completed", "incomplete"]):
        message_id = f"m{number}"
        events += [
            {
                "object": "message",
                "id": message_id,
                "status": "in_progress",
                "role": "assistant",
                "usage": {"n": 1.50},
            },
            {"object": "content", "type": "text", "index": 4, "msg_id": message_id, "text": "é\u2028"},
            {
                "object": "content",
                "type": "text",
                "index": 4,
                "delta": True,
                "msg_id": message_id,
                "text": "\U0001f600",
            },
            {"object": "content", "type": "image", "index": 9, "msg_id": message_id, "image_url": "u"},
            {"object": "message", "id": message_id, "status": status, "metadata": {"k": [1e300]}},
        ]
    events += [
        {"object": "content", "type": "text", "index": 4, "delta": True, "msg_id": "m0", "text": " later"},
        {"object": "message", "id": "m3", "status": "completed"},
        {"object": "content", "type": "text", "index": 0, "msg_id": "deep", "text": "d", "extra": deep},
        {"object": "message", "id": "deep", "status": "completed"},
        {"object": "content", "type": "text", "index": 0, "msg_id": "long", "text": "x" * 40_000},
        {"object": "message", "id": "long", "status": "completed"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "long", "text": "y"},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events[:-7])
    readers = []
    for backend in (NATIVE, PURE):
        assembler = backend.AgentScopeAssembler()
        assembler.feed(stream + b'data: {"object":"message","id":"m4","status":"completed","n":1.0E+2}\n\n')
        before = assembler.messages
        for event in events[-7:]:
            assembler.feed_event(event)
        readers.append((before, assembler.response, assembler.close()))
    assert readers[0] == readers[1]
    messages = readers[0][1]["output"]
    assert messages[0]["content"][0]["text"] == "é\u2028\U0001f600 later"
    assert messages[5]["content"][0]["extra"] == deep
    assert messages[6]["content"][0]["text"] == "x" * 40_000 + "y"


@requires_native
def test_values_of_the_wrong_type_where_a_name_goes_are_read_alike() -> None:
    """A JSON object where a code or a block type (a name from a fixed set)
    goes: the pure backend looked it up in a set and raised ``TypeError:
    unhashable type``; it is an unknown name, as on the native backend
    (found by the neutral-encoding property)."""
    failed = [
        {"type": "run_started", "run_id": "r"},
        {"type": "run_failed", "code": {"not": "a code"}, "message": "boom"},
    ]
    block = {
        "type": "event",
        "method": "messages",
        "params": {
            "namespace": [],
            "node": "m",
            "data": {"event": "content-block-start", "index": 0, "content": {"type": {"x": 1}}},
        },
    }
    start = {
        **block,
        "params": {**block["params"], "data": {"event": "message-start", "role": "ai", "id": "a"}},
    }
    seen = []
    for backend in (NATIVE, PURE):
        written = []
        for target, row in TABLE.items():
            encoder = backend.NeutralEncoder(target, **row.fixed_options)
            written.append(([encoder.encode(event) for event in failed], encoder.close()))
        decoder = backend.NeutralDecoder("langchain")
        seen.append((written, decoder.feed_event(start), decoder.feed_event(block), decoder.close()))
    assert seen[0] == seen[1]


def test_a_data_delta_without_an_index_joins_the_first_slot_of_its_call(backend: ModuleType) -> None:
    """Two slots carry the same call: the delta joins the one first in the
    content (the lower index), whatever order they came in. The pure backend
    once took the one that came first."""
    stream = AGENTSCOPE_PLUGIN_CALL + b"".join(
        b"data: " + event + b"\n\n"
        for event in (
            b'{"object":"content","type":"data","index":5,"msg_id":"m","data":{"call_id":"c","arguments":"five"}}',
            b'{"object":"content","type":"data","index":2,"msg_id":"m","data":{"call_id":"c","arguments":"two"}}',
            b'{"object":"content","type":"data","delta":true,"msg_id":"m","data":{"call_id":"c","arguments":"+"}}',
        )
    )
    assembler = backend.AgentScopeAssembler()
    assembler.feed(stream)
    assert [block["data"]["arguments"] for block in assembler.messages[0]["content"]] == ["two+", "five"]


# A text delta for every protocol, after what opens its message; `"x": 0`
# marks where a long integer goes: (assembler, what it gives, opening, delta).
TEXT_DELTAS: dict[str, tuple[str, str, list[Any], dict[str, Any]]] = {
    name: (row.assembler, row.result, list(row.text_opening), row.text_delta) for name, row in TABLE.items()
}


def _with_int(event: dict[str, Any], digits: int) -> bytes:
    """`event` as an SSE event whose `x` is an integer of `digits` digits
    (json.dumps cannot write one past the interpreter's limit)."""
    text = json.dumps(event).replace('"x": 0', '"x": -' + "9" * digits)
    return b"data: " + text.encode() + b"\n\n"


@pytest.mark.parametrize("protocol", list(TEXT_DELTAS))
def test_an_integer_past_4300_digits_is_its_events_error(backend: ModuleType, protocol: str) -> None:
    """CPython makes no int from more than 4300 digits, so such an event is
    not valid JSON on both backends (on the quick paths too) and what was
    assembled stays readable. The native backend once took it, after which
    every read raised ValueError."""
    name, view, opening, delta = TEXT_DELTAS[protocol]
    head = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in opening)
    good = b"data: " + json.dumps({**delta, "x": 1}).encode() + b"\n\n"
    plain = getattr(backend, name)(on_error="skip")
    plain.feed(head + good)
    assembler = getattr(backend, name)(on_error="skip")
    assembler.feed(head + _with_int(delta, 4301) + good)
    assert [error["event"] for error in assembler.errors] == [len(opening) + 1]
    assert "not valid JSON" in assembler.errors[0]["message"]
    assert getattr(assembler, view) == getattr(plain, view)
    assembler.close()
    # 4300 digits are an integer like any other.
    assembler = getattr(backend, name)()
    assembler.feed(head + _with_int(delta, 4300))
    json.dumps(getattr(assembler, view))


# serde_json gives a number to a reader as an object of this one key.
NUMBER_MARK = {"$serde_json::private::Number": "770077"}


@requires_native
@pytest.mark.parametrize("protocol", list(TEXT_DELTAS))
def test_an_object_keyed_like_serde_jsons_number_mark_is_an_object(protocol: str) -> None:
    """An object whose key is the one serde_json marks its numbers with
    once read as that number on the native backend (or failed its event),
    where json.loads and the pure backend keep the object. Every event of a
    text stream carries one, read from bytes and from dicts."""
    name, view, opening, delta = TEXT_DELTAS[protocol]
    events = [{**event, "x": NUMBER_MARK} for event in [*opening, delta]]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    readers = []
    for backend in (NATIVE, PURE):
        from_bytes = getattr(backend, name)()
        from_bytes.feed(stream)
        from_dicts = getattr(backend, name)()
        for event in events:
            from_dicts.feed_event(event)
        assert getattr(from_bytes, view) == getattr(from_dicts, view)
        readers.append(json.dumps(getattr(from_bytes, view)))
    assert readers[0] == readers[1]
    assert "770077" not in readers[0].replace(json.dumps(NUMBER_MARK), "")


def test_a_message_keeps_metadata_keyed_like_serde_jsons_number_mark(backend: ModuleType) -> None:
    """The case the fuzzer found: a message's metadata, also when the
    message is kept as text once done and changed after."""
    events = [
        {"object": "message", "id": "m", "role": "assistant", "metadata": NUMBER_MARK},
        {"object": "content", "type": "text", "index": 0, "msg_id": "m", "text": "a"},
        {"object": "message", "id": "m", "status": "completed"},
    ]
    assembler = backend.AgentScopeAssembler()
    assembler.feed(b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events))
    assert assembler.messages[0]["metadata"] == NUMBER_MARK
    assembler.feed_event(
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": "b"}
    )
    message = assembler.close()["output"][0]
    assert message["metadata"] == NUMBER_MARK
    assert message["content"][0]["text"] == "ab"


def test_feed_event_refuses_an_integer_past_4300_digits_alike(backend: ModuleType) -> None:
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(
        AgentScopeEventError, match="not JSON-compatible: an integer of more than 4300 digits"
    ):
        assembler.feed_event({"object": "response", "status": "in_progress", "usage": {"n": -(10**4300)}})
    assembler.feed_event({"object": "response", "status": "in_progress", "usage": {"n": 10**4300 - 1}})
    assert assembler.response["usage"]["n"] == 10**4300 - 1


class Slot(enum.IntEnum):
    ANSWER = 5


def test_an_int_enum_index_is_its_number(backend: ModuleType) -> None:
    """feed_event takes an IntEnum where JSON has an integer, as json.dumps
    would write it; the pure backend once took it for no index."""
    assembler = backend.AgentScopeAssembler()
    text = {"object": "content", "type": "text", "delta": True, "msg_id": "m"}
    assembler.feed_event({**text, "index": 0, "text": "a"})
    assembler.feed_event({**text, "index": Slot.ANSWER, "text": "b"})
    content = assembler.messages[0]["content"]
    assert [(part["index"], part["text"]) for part in content] == [(0, "a"), (5, "b")]
    assert type(content[1]["index"]) is int
    langchain = backend.LangChainAssembler()
    for data in (
        {"event": "message-start", "id": "m"},
        {"event": "content-block-delta", "index": Slot.ANSWER, "delta": {"type": "text-delta", "text": "hi"}},
    ):
        langchain.feed_event({"method": "messages", "params": {"namespace": [], "data": data}})
    assert langchain.messages[0]["content"] == [{"type": "text", "text": "hi"}]


@pytest.mark.skipif(not hasattr(sys, "set_int_max_str_digits"), reason="no int digit limit")
def test_the_digit_limit_is_4300_whatever_the_interpreter_was_set_to(backend: ModuleType) -> None:
    """The same integers are taken under a lowered or lifted interpreter
    limit: 700 digits read under a limit of 640, 4301 refused without one."""
    event = b'data: {"object":"response","status":"in_progress","usage":{"n":-' + b"7" * 700 + b"}}\n\n"
    seven_hundred_sevens = -(10**700 - 1) // 9 * 7
    before = sys.get_int_max_str_digits()
    try:
        for limit in (640, 0):
            sys.set_int_max_str_digits(limit)
            assembler = backend.AgentScopeAssembler()
            assembler.feed(event)
            assert assembler.response["usage"]["n"] == seven_hundred_sevens
            parser = backend.PartialJSON()
            parser.feed("[-" + "7" * 700 + ",")
            assert parser.value == [seven_hundred_sevens]
            with pytest.raises(AgentCodecError, match="an integer of more than 4300 digits"):
                backend.PartialJSON().feed("[" + "7" * 4301 + ",")
            assembler = backend.AgentScopeAssembler(on_error="skip")
            assembler.feed(event.replace(b"7" * 700, b"7" * 4301))
            assert [error["event"] for error in assembler.errors] == [1]
    finally:
        sys.set_int_max_str_digits(before)


def test_a_lone_surrogate_in_a_key_is_not_json_compatible(backend: ModuleType) -> None:
    """Keys are strings too; the pure backend once checked only values."""
    assembler = backend.AgentScopeAssembler(on_error="skip")
    assembler.feed_event({"object": "message", "id": "m", "metadata": {"\ud800": 1}})
    assert [error["message"] for error in assembler.errors] == [
        "AgentScope event 1 is not JSON-compatible: lone surrogate in a string"
    ]
    assert assembler.messages == []


def test_a_frame_with_a_lone_surrogate_reads_as_replaced_bytes(backend: ModuleType) -> None:
    """A str frame that is no UTF-8 is read as the bytes a lenient encoder
    makes of it, each bad byte replaced, as a bytes frame would be; the pure
    backend once kept the surrogate, which then failed to encode."""
    assembler = backend.LangChainAssembler()
    message = (
        '{"method":"messages","params":{"namespace":[],"data":{"event":"message-start","id":"m\ud800"}}}'
    )
    assembler.feed_frame(message)
    assert assembler.messages[0]["id"] == "m\ufffd\ufffd\ufffd"


ARGUMENT_ERRORS = [
    (
        lambda backend: backend.LangChainAssembler().feed_frame(10**9),
        TypeError,
        "Assembler.feed_frame() takes bytes-like data (bytes, bytearray, memoryview), not int",
    ),
    (
        lambda backend: backend.LangChainAssembler().feed_frame([123, 125]),
        TypeError,
        "Assembler.feed_frame() takes bytes-like data (bytes, bytearray, memoryview), not list",
    ),
    (
        lambda backend: backend.SSEDecoder().feed(array.array("i", [0x0A0A6161])),
        TypeError,
        "SSEDecoder.feed() takes bytes-like data (bytes, bytearray, memoryview), not array",
    ),
    (
        lambda backend: backend.SSEDecoder("\ud800"),
        UnicodeEncodeError,
        "'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed",
    ),
    (
        lambda backend: backend.AgentScopeAssembler().feed("data: {}\n\n"),
        TypeError,
        "Assembler.feed() takes bytes-like data, not str: encode it as UTF-8 first",
    ),
    (lambda backend: backend.AgentScopeAssembler(data_merge=1), TypeError, "data_merge must be str, not int"),
    (
        lambda backend: backend.LangChainAssembler(on_error=None),
        TypeError,
        "on_error must be str, not NoneType",
    ),
    (
        lambda backend: backend.LangChainAssembler(tool_args=b"auto"),
        TypeError,
        "tool_args must be str, not bytes",
    ),
    (lambda backend: backend.encode_sse("x", event=5), TypeError, "event must be str or None, not int"),
    (lambda backend: backend.encode_sse("x", id=5.0), TypeError, "id must be str or None, not float"),
    (lambda backend: backend.encode_sse_comment(5), TypeError, "text must be str, not int"),
    (lambda backend: backend.SSEEvent(id=5), TypeError, "SSEEvent id must be str, not int"),
    (lambda backend: backend.SSEDecoder(5), TypeError, "last_event_id must be str, not int"),
]


@pytest.mark.parametrize(("call", "error", "message"), ARGUMENT_ERRORS)
def test_bad_arguments_get_the_same_error_on_both_backends(
    backend: ModuleType, call: Callable[[ModuleType], object], error: type[Exception], message: str
) -> None:
    """Each refusal names the argument or method, in the same words on both
    backends (the native ones once said only "'int' object is not an
    instance of 'str'"; the pure one took any buffer, and feed_frame(10**9)
    made a gigabyte of zeros)."""
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        call(backend)


def test_limits_past_what_memory_holds_are_no_limit_alike(backend: ModuleType) -> None:
    assert backend.SSEDecoder(max_line_bytes=2**100).max_line_bytes == 2**64 - 1


@pytest.mark.parametrize("protocol", list(TEXT_DELTAS))
def test_skipped_events_keep_a_bounded_sample_and_a_count(backend: ModuleType, protocol: str) -> None:
    """2,500 junk events skipped: the first `max_errors` (1,000 unless told)
    are kept, all are counted. Both backends once kept every record (2M junk
    events held 320 MiB native, 630 MiB pure)."""
    name, view, opening, delta = TEXT_DELTAS[protocol]
    head = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in opening)
    good = b"data: " + json.dumps({**delta, "x": 1}).encode() + b"\n\n"
    junk = b"data: {not json\n\n" * 2500
    for options, kept in (
        ({}, 1000),
        ({"max_errors": 3}, 3),
        ({"max_errors": 0}, 0),
        ({"max_errors": None}, 2500),
    ):
        assembler = getattr(backend, name)(on_error="skip", **options)
        assembler.feed(head + junk + good)
        assert assembler.error_count == 2500
        assert [error["event"] for error in assembler.errors] == list(
            range(len(opening) + 1, len(opening) + 1 + kept)
        )
        reference = getattr(backend, name)()
        reference.feed(head + good)
        assert getattr(assembler, view) == getattr(reference, view)
    transcoder = backend.Transcoder(protocol, "langchain", on_error="skip", max_errors=2)
    transcoder.feed(head + junk)
    assert (len(transcoder.errors), transcoder.error_count) == (2, 2500)
    with pytest.raises(ValueError, match=r"^max_errors must not be negative, got -1$"):
        getattr(backend, name)(max_errors=-1)


@requires_native
@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(alphabet='{}[]":,0123456789.eE+-tfnrulas \\u\té😀\ud800', max_size=40))
def test_why_an_event_is_not_json_is_said_alike(text: str) -> None:
    """Each backend says what is wrong with an event's JSON and at which byte,
    in the same words (the reason once was only "is not valid JSON")."""
    data = b"data: " + text.encode("utf-8", "surrogatepass") + b"\n\n"
    errors = []
    for backend in (NATIVE, PURE):
        assembler = backend.AgentScopeAssembler(on_error="skip")
        assembler.feed(data)
        errors.append(assembler.errors)
    assert errors[0] == errors[1]
    if errors[0] and "not valid JSON" in errors[0][0]["message"]:
        assert " at byte " in errors[0][0]["message"] or errors[0][0]["message"].endswith("there is no value")


def test_arguments_replaced_by_a_snapshot_that_goes_on_keep_their_containers(backend: ModuleType) -> None:
    """A call's arguments streamed as deltas, then replaced by the completed
    text (AgentScope's `delta: false` snapshot): the value read before is
    updated in place, on both backends (the pure one started over with new
    containers, so a dict read earlier stayed as it was; found by fuzzing
    the backends against each other)."""

    def data(delta: bool, arguments: str, status: str = "in_progress") -> bytes:
        event = {
            "object": "content",
            "type": "data",
            "index": 0,
            "delta": delta,
            "status": status,
            "msg_id": "m",
            "data": {"call_id": "c", "name": "f", "arguments": arguments}
            if not delta
            else {"arguments": arguments},
        }
        return b"data: " + json.dumps(event).encode() + b"\n\n"

    assembler = backend.AgentScopeAssembler()
    assembler.feed(data(False, "") + data(True, '{"city": '))
    early = assembler.tool_calls[0]["arguments"]
    assert early == {}
    assembler.feed(data(False, '{"city": "Paris"}', "completed"))
    late = assembler.tool_calls[0]["arguments"]
    assert late == {"city": "Paris"}
    assert late is early
    # A replacement that does not go on from what was read starts over.
    assembler.feed(data(False, '{"town": "Lyon"}', "completed"))
    again = assembler.tool_calls[0]["arguments"]
    assert again == {"town": "Lyon"}
    assert again is not early
    assert early == {"city": "Paris"}
