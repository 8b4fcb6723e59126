"""Reading streams as a client: any source, any chunking, every protocol, and
a dropped connection resumed without an event lost or applied twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agentcodec
from agentcodec import client
from agentcodec.events import PROTOCOLS
from protocol_table import TABLE

FIXTURES = Path(__file__).parent / "fixtures"

# One recorded stream per protocol, and its backend class.
STREAMS = {name: row.stream for name, row in TABLE.items()}
ASSEMBLERS = {name: row.assembler for name, row in TABLE.items()}


# The protocols streamed as SSE, whose events may carry the ids a client
# resumes after (an NDJSON stream has none).
RESUMABLE = [name for name in PROTOCOLS if not TABLE[name].ndjson and not TABLE[name].binary]
# The protocol of the tests of one: what holds for one holds for every protocol.
EXAMPLE = PROTOCOLS[0]


def _stream(protocol: str) -> bytes:
    return (FIXTURES / STREAMS[protocol]).read_bytes()


def _assemble_at_once(protocol: str) -> Any:
    assembler = agentcodec._protocols.assembler(protocol)
    assembler.feed(_stream(protocol))
    return assembler.close()


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _with_ids(data: bytes) -> bytes:
    """The stream with an id on every event, as a resumable server writes it."""
    events = data.replace(b"\r\n", b"\n").split(b"\n\n")
    return b"".join(
        b"id: %d\n" % number + event + b"\n\n" for number, event in enumerate(events, 1) if event.strip()
    )


def test_every_protocol_has_a_recorded_stream() -> None:
    assert set(STREAMS) == set(PROTOCOLS)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("size", [1, 7, 4096])
def test_a_stream_in_any_chunking_assembles_as_fed_at_once(protocol: str, size: int) -> None:
    stream = client.EventStream(iter(_chunks(_stream(protocol), size)), protocol)
    events = list(stream)
    assert events, "the stream's events are yielded as they arrive"
    assert all(isinstance(event, dict) for event in events)
    assert stream.until_done() == _assemble_at_once(protocol)
    assert stream.until_done() == _assemble_at_once(protocol)  # asked again: the same result


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_async_sources_assemble_alike(protocol: str) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for chunk in _chunks(_stream(protocol), 13):
            yield chunk

    assert asyncio.run(client.aassemble(chunks(), protocol)) == _assemble_at_once(protocol)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_assembler_given_is_read_into(protocol: str) -> None:
    """``assemble(source, assembler=...)``: the assembler given, with its own
    options, takes the stream, as the protocol's would."""
    assembler = agentcodec._protocols.assembler(protocol)
    assert client.assemble(_chunks(_stream(protocol), 7), assembler=assembler) == _assemble_at_once(protocol)
    assert assembler.result == _assemble_at_once(protocol)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "assemble\\(\\) takes a protocol or an assembler, one of the two"),
        ({"protocol": EXAMPLE, "assembler": "x"}, "one of the two"),
        ({"assembler": "x", "strict": True}, "the assembler's options with a protocol"),
    ],
)
def test_assemble_takes_a_protocol_or_an_assembler(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        client.assemble([b""], **arguments)


def test_without_a_protocol_the_events_are_sse_events() -> None:
    data = b"retry: 5\nid: 1\nevent: a\ndata: x\n\ndata: y"
    stream = client.EventStream([data[:9], data[9:]])
    events = list(stream)
    assert [(e.event, e.data, e.id) for e in events] == [("a", "x", "1")]
    assert stream.until_done() is None
    assert stream.last_event_id == "1"


def test_a_file_like_source_is_read_in_pieces(tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    path.write_bytes(_stream(EXAMPLE))
    with path.open("rb") as source:
        assert client.assemble(source, EXAMPLE) == _assemble_at_once(EXAMPLE)


def test_unknown_protocols_and_sources_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'sse'"):
        client.EventStream([], "sse")
    with pytest.raises(TypeError, match="cannot read a stream from int"):
        list(client.EventStream(5, EXAMPLE))
    with pytest.raises(ValueError, match="max_retries"):
        client.EventStream([], EXAMPLE, max_retries=-1)


# --- reconnection over plain sources -------------------------------------------


class Server:
    """A stream's bytes served from any event ID, cut after ``cut_at``
    bytes on each of the first ``cuts`` connections."""

    def __init__(self, data: bytes, cut_at: list[int]) -> None:
        self.data = _with_ids(data)
        self.cut_at = list(cut_at)
        self.requests: list[str] = []

    def connect(self, last_event_id: str = "") -> Iterator[bytes]:
        self.requests.append(last_event_id)
        start = 0
        if last_event_id:
            marker = b"id: %s\n" % last_event_id.encode()
            start = self.data.index(b"\n\n", self.data.index(marker)) + 2
        rest = self.data[start:]
        cut = self.cut_at.pop(0) if self.cut_at else None
        return self._serve(rest, cut)

    @staticmethod
    def _serve(rest: bytes, cut: int | None) -> Iterator[bytes]:
        yield from _chunks(rest if cut is None else rest[:cut], 50)
        if cut is not None:
            raise ConnectionResetError("connection reset by peer")


@pytest.mark.parametrize("protocol", RESUMABLE)
def test_a_dropped_connection_resumes_after_the_last_event(protocol: str) -> None:
    # Cut midway through the second event, then at once, then midway through
    # the second event after the resumption point: wherever the events end.
    sizes = [len(event) + 2 for event in _with_ids(_stream(protocol)).split(b"\n\n") if event]
    cuts = [sizes[0] + sizes[1] // 2, 1, sizes[1] + sizes[2] // 2]
    server = Server(_stream(protocol), cut_at=cuts)
    stream = client.EventStream(server.connect(), protocol, reconnect=server.connect, retry_delay=0)
    events = list(stream)
    assert stream.reconnections == 3
    assert server.requests[0] == ""
    assert all(server.requests[1:]), "every reconnection sends the last event ID"
    # Every event once, in order: the same as reading the stream unbroken.
    unbroken = client.EventStream(iter([_with_ids(_stream(protocol))]), protocol)
    assert events == list(unbroken)
    assert stream.until_done() == unbroken.until_done()


def test_async_reconnection_awaits_the_reconnect_function() -> None:
    sizes = [len(event) + 2 for event in _with_ids(_stream(EXAMPLE)).split(b"\n\n") if event]
    server = Server(_stream(EXAMPLE), cut_at=[sizes[0] + sizes[1] // 2, sizes[1] + sizes[2] // 2])

    async def connect(last_event_id: str = "") -> AsyncIterator[bytes]:
        for chunk in server.connect(last_event_id):
            yield chunk

    async def reconnect(last_event_id: str) -> AsyncIterator[bytes]:
        await asyncio.sleep(0)
        return connect(last_event_id)

    async def main() -> Any:
        stream = client.AsyncEventStream(connect(), EXAMPLE, reconnect=reconnect, retry_delay=0)
        result = await stream.until_done()
        return result, stream.reconnections

    result, reconnections = asyncio.run(main())
    assert reconnections == 2
    assert result == _assemble_at_once(EXAMPLE)


def test_a_stream_without_event_ids_cannot_resume() -> None:
    data = _stream(EXAMPLE)
    assert b"\nid:" not in data
    assert not data.startswith(b"id:")
    head = data[: data.index(b"\n\n", data.index(b"\n\n") + 2) + 2]  # two events

    def cut() -> Iterator[bytes]:
        yield head
        raise ConnectionResetError("reset")

    stream = client.EventStream(cut(), EXAMPLE, reconnect=lambda last: iter([b""]), retry_delay=0)
    with pytest.raises(ConnectionResetError):
        list(stream)
    # What arrived before the drop is assembled.
    assert stream.assembler.event_count == 2


def test_reconnecting_gives_up_after_max_retries() -> None:
    server = Server(_stream(EXAMPLE), cut_at=[300])

    def refused(last_event_id: str) -> Iterator[bytes]:
        server.requests.append(last_event_id)
        raise ConnectionRefusedError("connection refused")

    stream = client.EventStream(server.connect(), EXAMPLE, reconnect=refused, max_retries=2, retry_delay=0)
    with pytest.raises(ConnectionRefusedError):
        list(stream)
    assert len(server.requests) == 3  # the first connection and two attempts


def test_the_stream_retry_field_sets_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr("agentcodec.client._stream.time.sleep", waits.append)
    server = Server(b"retry: 250\n\n" + _stream(EXAMPLE), cut_at=[400])
    client.EventStream(server.connect(), EXAMPLE, reconnect=server.connect).until_done()
    assert waits == [0.25]


# --- reconnect() on every assembler, both backends ------------------------------


@pytest.mark.parametrize("protocol", RESUMABLE)
def test_reconnect_drops_the_cut_event_and_keeps_everything_else(backend: ModuleType, protocol: str) -> None:
    data = _with_ids(_stream(protocol))
    cut = data.index(b"\n\n", len(data) // 2) + 2  # the end of an event in the middle
    unbroken = getattr(backend, ASSEMBLERS[protocol])()
    unbroken.feed(data)
    resumed = getattr(backend, ASSEMBLERS[protocol])()
    resumed.feed(data[: cut + 9])  # and the first bytes of the next event
    last = resumed.last_event_id
    assert last
    resumed.reconnect()
    assert resumed.last_event_id == last
    resumed.feed(data[cut:])
    assert resumed.close() == unbroken.close()
    with pytest.raises(agentcodec.AgentCodecError, match="closed"):
        resumed.reconnect()


@pytest.mark.parametrize("protocol", RESUMABLE)
def test_reconnect_on_the_neutral_readers(backend: ModuleType, protocol: str) -> None:
    data = _with_ids(_stream(protocol))
    cut = data.index(b"\n\n", len(data) // 2) + 2
    for make in (
        lambda: backend.NeutralAssembler(protocol),
        lambda: backend.NeutralDecoder(protocol),
        # Into every protocol, each without the clock or random ids: two runs compared.
        *(
            lambda target=target: backend.Transcoder(protocol, target, **TABLE[target].fixed_options)
            for target in TABLE
        ),
    ):
        unbroken, resumed = make(), make()
        whole = [unbroken.feed(data), unbroken.close()]
        parts = [resumed.feed(data[: cut + 5])]
        resumed.reconnect()
        parts += [resumed.feed(data[cut:]), resumed.close()]
        if isinstance(whole[0], bytes):
            assert b"".join(parts) == b"".join(whole)
        elif isinstance(whole[0], list):
            assert [e for p in parts for e in p] == [e for p in whole for e in p]
        else:
            assert parts[-1] == whole[-1]
        assert resumed.retry is None


def test_langchain_feed_with_events_yields_the_envelopes(backend: ModuleType) -> None:
    data = _stream("langchain")
    assembler = backend.LangChainAssembler()
    events = [event for chunk in _chunks(data, 64) for event in assembler.feed_with_events(chunk)]
    plain = backend.LangChainAssembler()
    plain.feed(data)
    assert assembler.close() == plain.close()
    assert len(events) == assembler.event_count
    assert all(event.get("method") for event in events)


@pytest.mark.parametrize("source", ["data: {}\n\n", Path("stream.sse")], ids=["str", "path"])
def test_a_str_or_a_path_is_told_what_to_pass(source: Any) -> None:
    message = r"cannot read a stream from a (str|path): pass its bytes .*open\(path, 'rb'\)"
    with pytest.raises(TypeError, match=message):
        client.assemble(source, EXAMPLE)
    with pytest.raises(TypeError, match=message):
        asyncio.run(client.aassemble(source, EXAMPLE))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_stream_is_read_into_the_neutral_view_as_it_comes(backend: ModuleType, protocol: str) -> None:
    """``events.Assembler`` reads a stream event by event as a protocol's
    assembler does (``feed_with_events`` gives the protocol's events), so a
    client reads any protocol into the neutral view. It once had no
    ``feed_with_events``: the clients refused it."""
    data = _stream(protocol)
    own = getattr(backend, ASSEMBLERS[protocol])()
    expected = [event for chunk in _chunks(data, 64) for event in own.feed_with_events(chunk)]
    neutral = backend.NeutralAssembler(protocol)
    seen = [event for chunk in _chunks(data, 64) for event in neutral.feed_with_events(chunk)]
    assert seen == expected
    at_once = backend.NeutralAssembler(protocol)
    at_once.feed(data)
    assert neutral.close() == at_once.close()
    stream = client.EventStream(iter(_chunks(data, 7)), assembler=agentcodec.events.Assembler(protocol))
    assert list(stream) == expected
    whole = agentcodec.events.Assembler(protocol)
    whole.feed(data)
    assert stream.until_done() == whole.close()
    with pytest.raises(TypeError, match=r"^events\.Assembler\.feed_with_events\(\) takes bytes-like data"):
        backend.NeutralAssembler(protocol).feed_with_events("data: {}\n\n")
