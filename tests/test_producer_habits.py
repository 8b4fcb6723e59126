"""What real servers and the proxies between them do to a stream, on every
protocol's recorded streams and both backends: keep-alive comments and empty
events between every event, `[DONE]` early or twice, streams cut short
anywhere, a 50 MB event, and more messages than an assembler should hold.
Each assembles to what the stream says, or fails with a clear error that
keeps what came before."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec import AgentCodecError, StreamLimitError
from conftest import NATIVE, PURE, requires_native
from protocol_table import TABLE
from sse_helpers import as_sse

FIXTURES = Path(__file__).parent / "fixtures"

STREAMS = [(name, path) for name, row in TABLE.items() for path in row.streams()]
STREAM_IDS = [f"{protocol}:{path.parent.name}/{path.stem}" for protocol, path in STREAMS]


def events_of(data: bytes) -> list[bytes]:
    """The stream's events, each with the blank line that ends it (an NDJSON
    stream's lines as SSE events)."""
    data = as_sse(data)
    end = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    return [event + end for event in data.split(end) if event.strip()]


def assemble(
    backend: ModuleType, protocol: str, data: bytes, chunk: int = 0, **options: Any
) -> dict[str, Any]:
    """Everything the assembler reads after the stream, fed whole or in chunks."""
    row = TABLE[protocol]
    assembler = getattr(backend, row.assembler)(on_error="skip", **options)
    for at in range(0, len(data), chunk or max(len(data), 1)):
        assembler.feed(data[at : at + (chunk or len(data))])
    assembler.close()
    result = {read: getattr(assembler, read) for read in row.reads}
    result["errors"] = assembler.errors
    return result


@pytest.mark.parametrize(("protocol", "path"), STREAMS, ids=STREAM_IDS)
def test_keep_alives_and_empty_events_between_every_event_change_nothing(
    backend: ModuleType, protocol: str, path: Path
) -> None:
    """A comment, a blank line, and an event with no data (which SSE does not
    dispatch) between every two events, as proxies and keep-alive timers
    write them, in any chunking."""
    data = path.read_bytes()
    padding = b": keep-alive\n\n\n\nevent: ping\ndata:\n\n:\n\n"
    padded = padding + padding.join(events_of(data)) + padding
    expected = without_event_numbers(assemble(backend, protocol, data))
    # The empty events count as events: errors name later ones by their place.
    assert without_event_numbers(assemble(backend, protocol, padded)) == expected
    assert without_event_numbers(assemble(backend, protocol, padded, chunk=7)) == expected


def without_event_numbers(result: dict[str, Any]) -> dict[str, Any]:
    errors = [{**error, "event": None} for error in result["errors"]]
    return {**result, "errors": errors}


@pytest.mark.parametrize(("protocol", "path"), STREAMS, ids=STREAM_IDS)
def test_done_twice_at_the_end_is_as_once_and_as_none(backend: ModuleType, protocol: str, path: Path) -> None:
    """`[DONE]` is the OpenAI-style end some servers and proxies write after any
    protocol: every assembler takes it, once or twice (two of them
    once refused it as not JSON). An NDJSON stream is read as SSE here."""
    data = as_sse(path.read_bytes())
    expected = assemble(backend, protocol, data)
    assert assemble(backend, protocol, data + b"data: [DONE]\n\n") == expected
    assert assemble(backend, protocol, data + b"data: [DONE]\n\ndata: [DONE]\n\n") == expected


@pytest.mark.parametrize(("protocol", "path"), STREAMS, ids=STREAM_IDS)
def test_done_early(backend: ModuleType, protocol: str, path: Path) -> None:
    """`[DONE]` in the middle: where the protocol ends by it (its row's `ended_by_done`),
    what follows is refused, each event by number, and the result is the
    stream's first half; elsewhere it is nothing and the rest applies (the
    `[DONE]` counts as an event: errors name later ones by their place)."""
    events = events_of(path.read_bytes())
    half = len(events) // 2
    early = b"".join(events[:half]) + b"data: [DONE]\n\n" + b"".join(events[half:])
    got = assemble(backend, protocol, early)
    if TABLE[protocol].ended_by_done:
        first_half = assemble(backend, protocol, b"".join(events[:half]) + b"data: [DONE]\n\n")
        refused = got["errors"][len(first_half["errors"]) :]
        assert got["errors"][: len(first_half["errors"])] == first_half["errors"]
        assert [error["message"].endswith("comes after [DONE]") for error in refused] == [True] * len(refused)
        assert {**got, "errors": first_half["errors"]} == first_half
    else:
        got = without_event_numbers(got)
        assert got == without_event_numbers(assemble(backend, protocol, b"".join(events)))


@requires_native
@pytest.mark.parametrize(("protocol", "path"), STREAMS, ids=STREAM_IDS)
def test_streams_cut_short_anywhere_close_alike(protocol: str, path: Path) -> None:
    """Cut at twenty places, in the middle of events and between them, and
    closed: no error but the protocol's own, and both backends agree."""
    data = path.read_bytes()
    for cut in sorted({len(data) * part // 20 for part in range(1, 20)}):
        results = []
        for backend in (NATIVE, PURE):
            try:
                results.append(assemble(backend, protocol, data[:cut]))
            except AgentCodecError as exc:  # a clear error, the same on both
                results.append({"error": str(exc)})
        assert results[0] == results[1], cut


FIFTY_MB = base64.b64encode(bytes(range(256)) * (37_500_000 // 256)).decode()


@pytest.mark.parametrize("chunk", [0, 65_536])
def test_a_50_mb_image_in_one_event(backend: ModuleType, chunk: int) -> None:
    """A base64 image of 50 MB in one AgentScope event (under the 64 MiB
    default event limit): assembled whole, in one chunk or network-sized ones."""
    assert len(FIFTY_MB) == 49_999_872
    url = f"data:image/png;base64,{FIFTY_MB}"
    events = [
        {"object": "message", "id": "m", "role": "assistant", "status": "in_progress"},
        {"object": "content", "type": "image", "index": 0, "delta": False, "msg_id": "m", "image_url": url},
        {"object": "content", "type": "text", "index": 1, "delta": True, "msg_id": "m", "text": "here"},
    ]
    data = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    result = assemble(backend, "agentscope", data, chunk=chunk)
    content = result["messages"][0]["content"]
    assert content[0]["image_url"] == url
    assert content[1]["text"] == "here"
    assert result["errors"] == []


def test_a_stream_of_tiny_messages_stops_at_the_default_limit(backend: ModuleType) -> None:
    """100,001 one-word messages: the default max_messages ends the stream at
    the message past it, with what came before readable (a million would hold
    hundreds of MB)."""
    data = b"".join(
        b'data: {"object":"message","id":"m%d","role":"assistant","status":"completed",'
        b'"content":[{"type":"text","text":"hi"}]}\n\n' % index
        for index in range(100_001)
    )
    assembler = backend.AgentScopeAssembler()
    with pytest.raises(StreamLimitError) as info:
        assembler.feed(data)
    assert (info.value.limit, info.value.maximum, info.value.event) == ("max_messages", 100_000, 100_001)
    assembler.close()
    messages = assembler.messages
    assert len(messages) == 100_001
    assert messages[99_999]["content"] == [{"type": "text", "text": "hi"}]
