"""Bedrock's ConverseStream, on both backends, judged by the response
Converse gives the same request (tests/fixtures/bedrock/, written by
scripts/bedrock_fixtures.py) and by botocore: its own event-stream parser
reads the streams agentcodec reads, and what agentcodec writes."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

import agentcodec
import conversion
from agentcodec import BedrockError, BedrockEventError, EventStreamError
from agentcodec.bedrock import MEDIA_TYPE
from agentcodec.eventstream import encode_event_message
from conversion import SOURCE_IDS, SOURCES, convert, signed_reasoning
from protocol_table import FIXTURES
from sse_helpers import as_sse

pytest.importorskip("botocore")
import botocore.session
from botocore.eventstream import EventStream
from botocore.exceptions import EventStreamError as BotocoreStreamError
from botocore.parsers import EventStreamJSONParser

STREAMS = sorted((FIXTURES / "bedrock").glob("*.bin"))
IDS = [path.stem for path in STREAMS]


def judge(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".json").read_text())  # type: ignore[no-any-return]


def assemble(backend: ModuleType, data: bytes, chunk: int | None = None, **options: Any) -> Any:
    return conversion.assemble(backend.BedrockAssembler(**options), data, chunk)


class _Raw:
    """What botocore reads an event stream from: a urllib3-like response."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, amt: int = 1024) -> Any:
        yield self._data

    def close(self) -> None:
        pass


def botocore_events(data: bytes) -> list[dict[str, Any]]:
    """What client.converse_stream()['stream'] yields for the bytes."""
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    return list(EventStream(_Raw(data), shape, EventStreamJSONParser(), "ConverseStream"))


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_the_response_is_what_converse_answers(backend: ModuleType, path: Path) -> None:
    expected = judge(path)["response"]
    assembler = assemble(backend, path.read_bytes())
    assert assembler.response == expected
    failure = expected.get("throttlingException")
    if failure is None:
        assert assembler.errors == []
    else:
        events = len(judge(path)["botocore"]["events"]) + 1
        assert assembler.errors == [
            {"event": events, "code": "throttlingException", "message": failure["message"]}
        ]


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("chunk", [1, 5, 64])
def test_any_chunking_and_the_same_events_as_sse_give_the_same_response(
    backend: ModuleType, path: Path, chunk: int
) -> None:
    data = path.read_bytes()
    whole = assemble(backend, data).response
    assert assemble(backend, data, chunk).response == whole
    assert assemble(backend, as_sse(data), chunk).response == whole


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_each_event_is_what_botocore_parses(backend: ModuleType, path: Path) -> None:
    """The events feed_with_events gives are botocore's (less the ``p``
    padding its model has no place for); it raises at the exception."""
    recorded = judge(path)["botocore"]
    events = backend.BedrockAssembler(on_error="skip").feed_with_events(path.read_bytes())
    if "raised" in recorded:
        (name, payload), *_ = events.pop().items()
        assert recorded["raised"] == {"Code": name, "Message": payload["message"]}
    unpadded = [
        {name: {k: v for k, v in body.items() if k != "p"} for name, body in e.items()} for e in events
    ]
    assert unpadded == recorded["events"]


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_events_read_from_bytes_and_given_decoded_assemble_alike(backend: ModuleType, path: Path) -> None:
    """The bytes take the quick path where an event adds a piece of text,
    reasoning or input; events given decoded take the full one: both give
    one response, also for the events the quick path must leave alone."""
    data = path.read_bytes()
    events = backend.BedrockAssembler(on_error="skip").feed_with_events(data)
    odd = [
        {"contentBlockDelta": {"delta": {"reasoningContent": {"input": "x"}}, "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": "y", "name": "n"}}, "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"text": "z", "x": 1}, "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"text": "w"}, "contentBlockIndex": 0, "extra": True}},
        {"contentBlockDelta": {"delta": {"text": "v"}, "contentBlockIndex": 7}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "u"}}, "contentBlockIndex": 7}},
    ]
    fed = backend.BedrockAssembler(on_error="skip")
    fed.feed(data)
    fed.feed(b"".join(agentcodec.bedrock.encode(event) for event in odd))
    given = backend.BedrockAssembler(on_error="skip")
    for event in [*events, *odd]:
        given.feed_event(event)
    assert fed.close() == given.close()
    assert fed.errors == given.errors


def test_a_bad_crc_is_an_error_naming_the_message_and_what_came_before_stands(backend: ModuleType) -> None:
    data = bytearray((FIXTURES / "bedrock" / "text.bin").read_bytes())
    messages = agentcodec.EventStreamDecoder().feed(bytes(data))
    third = sum(len(encode_event_message(m.headers, m.payload)) for m in messages[:2])
    data[third + 20] ^= 0x01  # inside the third message's headers
    assembler = backend.BedrockAssembler()
    with pytest.raises(EventStreamError) as caught:
        assembler.feed(bytes(data))
    assert caught.value.offset == third
    assert caught.value.reason.startswith("its message CRC is 0x")
    assert str(caught.value).startswith(f"event stream message at byte offset {third}: its message CRC")
    # The two messages before it stand.
    assert assembler.response["output"]["message"]["content"] == [{"text": "Hello"}]
    with pytest.raises(EventStreamError):
        assembler.feed(b"")
    assert isinstance(caught.value, agentcodec.AgentCodecError)
    # botocore refuses it too.
    with pytest.raises(Exception, match=r"[Cc]hecksum"):
        botocore_events(bytes(data))


def test_bad_events_say_which_and_why_and_what_came_before_stands(backend: ModuleType) -> None:
    good = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "a"}, "contentBlockIndex": 0}},
    ]
    for event, problem in [
        (
            {"contentBlockDelta": {"delta": {"text": 5}, "contentBlockIndex": 0}},
            "its contentBlockDelta.delta.text is a JSON number, not a string",
        ),
        (
            {"contentBlockDelta": {"delta": {"text": "b"}}},
            "its contentBlockDelta.contentBlockIndex is JSON null, not an index",
        ),
        (
            {"contentBlockStop": {"contentBlockIndex": -1}},
            "its contentBlockStop.contentBlockIndex is a JSON number, not an index",
        ),
        ({"messageStop": []}, "its messageStop is a JSON array, not an object"),
        (
            {"contentBlockDelta": {"delta": {"toolUse": {"input": {}}}, "contentBlockIndex": 1}},
            "its contentBlockDelta.delta.toolUse.input is a JSON object, not a string",
        ),
    ]:
        stream = b"".join(agentcodec.bedrock.encode(e) for e in [*good, event])
        assembler = backend.BedrockAssembler()
        with pytest.raises(BedrockEventError) as caught:
            assembler.feed(stream)
        assert str(caught.value) == f"Bedrock event 3 {problem}"
        assert assembler.response["output"]["message"]["content"] == [{"text": "a"}]
        assert isinstance(caught.value, BedrockError)


def test_a_tool_use_reads_as_its_start_until_it_stops(backend: ModuleType) -> None:
    path = FIXTURES / "bedrock" / "tool_use.bin"
    events = backend.BedrockAssembler().feed_with_events(path.read_bytes())
    assembler = backend.BedrockAssembler()
    seen = []
    for event in events:
        assembler.feed_event(event)
        content = (assembler.response.get("output") or {"message": {"content": []}})["message"]["content"]
        seen.append([block.get("toolUse", {}).get("input") for block in content if "toolUse" in block])
    assert seen[3:9] == [[{}], [{}], [{}], [{}], [{}], [{"city": "Zürich", "days": 3}]]
    # A stream cut short: the input is what came, parsed where it can be.
    cut = backend.BedrockAssembler()
    for event in events[:6]:
        cut.feed_event(event)
    # (two fragments came: '{"city":' and ' "Zürich', which is no JSON: kept as text)
    assert cut.close()["output"]["message"]["content"][1]["toolUse"]["input"] == '{"city": "Zürich'


def test_the_run_decodes_with_its_usage_and_reason(backend: ModuleType) -> None:
    decoder = backend.NeutralDecoder("bedrock")
    events = decoder.feed((FIXTURES / "bedrock" / "max_tokens.bin").read_bytes()) + decoder.close()
    assert events[0] == {
        "type": "run_started",
        "run_id": None,
        "thread_id": None,
        "model": None,
        "created_at": None,
    }
    assert events[-3:] == [
        {
            "type": "message_finished",
            "message_id": "bedrock-message",
            "usage": None,
            "stop_reason": "max_tokens",
        },
        {
            "type": "passthrough",
            "protocol": "bedrock",
            "event": {"metadata": {"metrics": {"latencyMs": 1487}}},
        },
        {
            "type": "run_finished",
            "status": "incomplete",
            "usage": {"input_tokens": 5, "output_tokens": 8, "total_tokens": 13},
            "result": None,
            "stop_reason": None,
        },
    ]
    decoder = backend.NeutralDecoder("bedrock")
    events = decoder.feed((FIXTURES / "bedrock" / "reasoning.bin").read_bytes()) + decoder.close()
    signed = [event for event in events if event["type"] == "block_replaced"]
    # the signature of the first reasoning block, and the second, redacted
    assert [(event["index"], event["encrypted_by"], event.get("redacted")) for event in signed] == [
        (0, "bedrock", None),
        (1, "bedrock", True),
    ]


@pytest.mark.parametrize("index", [[], {}, "0", 0.0, True, None, -1, 2**64])
def test_a_block_stop_whose_index_is_no_index_closes_nothing(backend: ModuleType, index: Any) -> None:
    # The decoder takes any JSON: a stop that names no open block's index
    # closes nothing, on both backends alike, and is never an error of the
    # decoder's own (a list was once a TypeError in the pure one, and 0.0
    # closed block 0 there but not in the Rust core).
    events = [
        {"contentBlockDelta": {"delta": {"text": "a"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": index}},
        {"contentBlockDelta": {"delta": {"text": "b"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    decoder = backend.NeutralDecoder("bedrock")
    decoded = decoder.feed(b"".join(agentcodec.bedrock.encode(e) for e in events)) + decoder.close()
    kinds = [(event["type"], event.get("delta")) for event in decoded]
    assert kinds == [
        ("run_started", None),
        ("message_started", None),
        ("block_started", None),
        ("block_delta", "a"),
        ("block_delta", "b"),
        ("block_finished", None),
    ]


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_event_written_is_one_botocore_reads(backend: ModuleType, source: str, path: Path) -> None:
    written = convert(backend, source, "bedrock", path.read_bytes())
    assert written[:1] == b"\x00", (source, path)
    response = assemble(backend, written, on_error="skip").response
    failures = [key for key in response if key in agentcodec.bedrock.EXCEPTIONS]
    if failures:
        # A failed run ends with an exception message, which botocore raises.
        with pytest.raises(BotocoreStreamError) as caught:
            botocore_events(written)
        assert caught.value.response["Error"]["Code"] == failures[0]
        return
    events = botocore_events(written)
    assert list(events[0]) == ["messageStart"]
    # (a run that ended ends with metadata; one cut short, where it was cut)
    assert (list(events[-1]) == ["metadata"]) == ("stopReason" in response)
    # What botocore read assembles to what agentcodec assembled.
    replayed = backend.BedrockAssembler()
    for event in events:
        replayed.feed_event(_plain(event))
    assert replayed.close() == response


def test_the_client_helpers_read_bedrocks_event_stream(backend: ModuleType) -> None:
    """``connect(..., protocol="bedrock")`` asks for the event stream and
    reads it in any chunking."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from agentcodec import client
    from servers import serve

    accepted: list[str | None] = []

    async def stream(request: Request) -> Response:
        accepted.append(request.headers.get("accept"))
        body = (FIXTURES / "bedrock" / f"{request.path_params['name']}.bin").read_bytes()
        return StreamingResponse(
            iter([body[i : i + 7] for i in range(0, len(body), 7)]), media_type=MEDIA_TYPE
        )

    app = Starlette(routes=[Route("/model/{name}/converse-stream", stream, methods=["POST"])])
    with serve(app) as url, httpx.Client() as http:
        for path in STREAMS:
            target = f"{url}/model/{path.stem}/converse-stream"
            with client.connect(http, "POST", target, protocol="bedrock", json={}) as events:
                read = list(events)
                try:
                    response = events.until_done()
                except BedrockError:
                    response = events.assembler.response
            assert response == judge(path)["response"], path
            assert len(read) >= len(judge(path)["botocore"]["events"])
    assert set(accepted) == {MEDIA_TYPE}


def reasoning_deltas(stream: bytes) -> list[dict[str, Any]]:
    return [
        event["contentBlockDelta"]["delta"]["reasoningContent"]
        for event in botocore_events(stream)
        if "reasoningContent" in event.get("contentBlockDelta", {}).get("delta", {})
    ]


def test_a_signature_is_written_only_where_bedrock_would_take_it(backend: ModuleType) -> None:
    """Bedrock's own signature is written as one; another provider's, or
    redacted reasoning given to a block that holds text (Bedrock keeps it as
    a block of its own), is left out and reported."""
    encoder = backend.NeutralEncoder("bedrock")
    signed = signed_reasoning(encrypted="SIG", encrypted_by="bedrock")
    stream = b"".join(encoder.encode(event) for event in signed) + encoder.close()
    assert encoder.losses == []
    assert reasoning_deltas(stream) == [{"text": "thinking"}, {"signature": "SIG"}]
    for fields in (
        {"encrypted": "SIG", "encrypted_by": "openai"},
        {"encrypted": "REDACTED", "redacted": True, "encrypted_by": "bedrock"},
    ):
        encoder = backend.NeutralEncoder("bedrock")
        stream = b"".join(encoder.encode(event) for event in signed_reasoning(**fields)) + encoder.close()
        assert reasoning_deltas(stream) == [{"text": "thinking"}], fields
        assert [loss["what"] for loss in encoder.losses] == ["signatures"], fields


def test_redacted_reasoning_is_read_and_written_as_bedrock_streams_it(backend: ModuleType) -> None:
    """A block of redacted reasoning (``redactedContent``, bytes: base64 in
    the event's JSON) is the neutral block's ``encrypted`` with
    ``redacted``, and is written back as Bedrock streamed it: botocore reads
    the same bytes, and the two streams assemble alike."""
    redacted = base64.b64encode(b"\x00opaque\xff").decode()
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "thinking"}}, "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"signature": "SIG"}}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockDelta": {
                "delta": {"reasoningContent": {"redactedContent": redacted}},
                "contentBlockIndex": 1,
            }
        },
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockDelta": {"delta": {"text": "answer"}, "contentBlockIndex": 2}},
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"messageStop": {"stopReason": "end_turn"}},
        {
            "metadata": {
                "usage": {"inputTokens": 3, "outputTokens": 5, "totalTokens": 8},
                "metrics": {"latencyMs": 9},
            }
        },
    ]
    stream = b"".join(agentcodec.bedrock.encode(event) for event in events)
    decoder = backend.NeutralDecoder("bedrock")
    neutral = decoder.feed(stream) + decoder.close()
    replaced = [event for event in neutral if event["type"] == "block_replaced"]
    assert [(event["index"], event["encrypted"], event.get("redacted")) for event in replaced] == [
        (0, "SIG", None),
        (1, redacted, True),
    ]
    assert not [
        event for event in neutral if event["type"] == "passthrough" and "contentBlockDelta" in event["event"]
    ]
    written = convert(backend, "bedrock", "bedrock", stream)
    read = botocore_events(written)
    assert [_plain(event) for event in read if "reasoningContent" in str(event)] == [
        _plain(event) for event in botocore_events(stream) if "reasoningContent" in str(event)
    ]
    assert assemble(backend, written).response == assemble(backend, stream).response
    (reasoning, hidden, answer) = assemble(backend, stream).response["output"]["message"]["content"]
    assert reasoning == {"reasoningContent": {"reasoningText": {"text": "thinking", "signature": "SIG"}}}
    assert hidden == {"reasoningContent": {"redactedContent": redacted}}
    assert answer == {"text": "answer"}


def test_a_run_that_ends_on_a_tool_call_stops_for_its_tool_use(backend: ModuleType) -> None:
    """A client's tool loop runs the calls of a response whose stopReason is
    ``tool_use``: a run whose last block is a call (left to the client) says
    so; one that answers after its call ends its turn."""

    def stop_reason(tail: list[dict[str, Any]]) -> Any:
        call = {"message_id": "m", "index": 0}
        run = [
            {"type": "run_started", "run_id": "r"},
            {"type": "message_started", "message_id": "m", "role": "assistant"},
            {"type": "block_started", **call, "kind": "tool_call", "call_id": "c", "name": "f"},
            {"type": "block_delta", **call, "delta": "{}"},
            {"type": "block_finished", **call},
            *tail,
            {"type": "message_finished", "message_id": "m"},
            {"type": "run_finished", "status": "completed"},
        ]
        encoder = backend.NeutralEncoder("bedrock")
        stream = b"".join(encoder.encode(event) for event in run) + encoder.close()
        [stop] = [event["messageStop"] for event in botocore_events(stream) if "messageStop" in event]
        return stop["stopReason"]

    text = {"message_id": "m", "index": 1}
    answered = [
        {"type": "block_started", **text, "kind": "text"},
        {"type": "block_delta", **text, "delta": "Done."},
        {"type": "block_finished", **text},
    ]
    assert stop_reason([]) == "tool_use"
    assert stop_reason(answered) == "end_turn"
