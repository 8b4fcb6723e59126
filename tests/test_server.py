"""Serving streams for real: uvicorn on loopback, httpx and aiohttp clients,
replicas in processes of their own sharing one redis-server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import agentcodec
from agentcodec import _protocols, agentscope, client, events
from agentcodec.server import EventStreamResponse, MemoryReplayStore
from servers import redis_server, serve, serve_process, wait_until
from stream_app import PROTOCOL, agent_run, make_app, text_delta


def _expected(count: int) -> dict[str, Any]:
    assembler = agentscope.Assembler()
    for event in agent_run(count):
        assembler.feed(agentscope.encode(event))
    return assembler.close()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(make_app(MemoryReplayStore())) as base:
        yield base


def test_a_stream_is_served_with_sse_headers_and_ids(url: str) -> None:
    with httpx.Client() as http, http.stream("POST", f"{url}/run?n=3") as response:
        body = response.read()
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    frames = [frame for frame in body.split(b"\n\n") if frame]
    assert len(frames) == len(agent_run(3))
    assert all(frame.startswith(b"id: ") for frame in frames)
    numbers = [int(frame.split(b"\n")[0].rsplit(b":", 1)[1]) for frame in frames]
    assert numbers == list(range(1, len(frames) + 1))


def test_httpx_connect_assembles_the_run(url: str) -> None:
    with httpx.Client() as http, client.connect(http, "POST", f"{url}/run?n=50", protocol=PROTOCOL) as stream:
        seen = list(stream)
        result = stream.until_done()
    assert seen == agent_run(50)
    assert result == _expected(50)


def test_a_response_that_is_no_event_stream_is_refused_by_every_client(url: str) -> None:
    """A JSON body (a request sent without asking to stream) was read as a
    stream of no events; as httpx-sse does, the clients say what came."""
    aiohttp = pytest.importorskip("aiohttp")
    message = r"expected a response of Content-Type 'text/event-stream', got 'application/json': did the"
    with (
        httpx.Client() as http,
        pytest.raises(agentcodec.SSEError, match=message),
        client.connect(http, "POST", f"{url}/json", protocol=PROTOCOL),
    ):
        pass

    async def main() -> None:
        async with httpx.AsyncClient() as http:
            with pytest.raises(agentcodec.SSEError, match=message):
                async with client.aconnect(http, "POST", f"{url}/json", protocol=PROTOCOL):
                    pass
        async with aiohttp.ClientSession() as session:
            with pytest.raises(agentcodec.SSEError, match=message):
                async with client.aconnect(session, "POST", f"{url}/json"):
                    pass

    asyncio.run(main())


def test_a_client_of_the_other_kind_is_told_which_function_to_use(url: str) -> None:
    with (
        pytest.raises(TypeError, match=r"connect\(\) takes an httpx.Client, not AsyncClient: .*aconnect"),
        client.connect(httpx.AsyncClient(), "GET", f"{url}/run"),
    ):
        pass

    async def main() -> None:
        with httpx.Client() as http, pytest.raises(TypeError, match=r"not Client: .*`with connect"):
            async with client.aconnect(http, "GET", f"{url}/run"):
                pass

    asyncio.run(main())


def test_async_httpx_and_aiohttp_assemble_alike(url: str) -> None:
    aiohttp = pytest.importorskip("aiohttp")

    async def main() -> list[Any]:
        results = []
        async with (
            httpx.AsyncClient() as http,
            client.aconnect(http, "GET", f"{url}/run?n=40", protocol=PROTOCOL) as s,
        ):
            results.append(await s.until_done())
        async with (
            aiohttp.ClientSession() as session,
            client.aconnect(session, "GET", f"{url}/run?n=40", protocol=PROTOCOL) as s,
        ):
            results.append(await s.until_done())
        return results

    assert asyncio.run(main()) == [_expected(40), _expected(40)]


def test_many_concurrent_streams(url: str) -> None:
    async def one(http: httpx.AsyncClient, count: int) -> Any:
        async with client.aconnect(
            http, "GET", f"{url}/run?n={count}&delay=0.001", protocol=PROTOCOL
        ) as stream:
            return await stream.until_done()

    async def main() -> list[Any]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(limits=limits, timeout=30) as http:
            return await asyncio.gather(*(one(http, 10 + i) for i in range(60)))

    assert asyncio.run(main()) == [_expected(10 + i) for i in range(60)]


def test_pings_arrive_while_the_producer_is_idle(url: str) -> None:
    with httpx.Client() as http, http.stream("GET", f"{url}/idle?seconds=0.4") as response:
        body = response.read()
    assert body.count(b": ping\n") >= 3
    assert client.assemble([body], PROTOCOL)["status"] == "completed"


@pytest.mark.parametrize("protocol", events.PROTOCOLS)
def test_a_failing_producer_ends_with_the_protocol_error(url: str, protocol: str) -> None:
    with httpx.Client() as http:
        body = http.get(f"{url}/fail", params={"protocol": protocol}).content
    assert b"secret" not in body
    assert b"the stream failed on the server" in body
    if protocol == PROTOCOL:  # (failed after its first event)
        assert client.assemble([body], PROTOCOL)["status"] == "failed"
    neutral = events.Assembler(protocol)
    neutral.feed(body)
    assert neutral.close()["status"] == "failed"


def test_a_client_that_leaves_stops_the_producer(url: str) -> None:
    with httpx.Client() as http:
        with http.stream("GET", f"{url}/endless") as response:
            for _ in response.iter_bytes():
                break
        deadline = time.monotonic() + 5
        while "endless" not in http.get(f"{url}/state").text.split("|")[0]:
            assert time.monotonic() < deadline, "the producer went on after its client left"
            time.sleep(0.02)


def test_a_slow_client_holds_the_producer_back(url: str) -> None:
    size = 64 * 1024
    with httpx.Client(timeout=30) as http, http.stream("GET", f"{url}/big?size={size}") as response:
        chunks = response.iter_bytes()
        next(chunks)
        time.sleep(1.0)  # the client reads nothing
        produced = int(http.get(f"{url}/state").text.split("|")[1])
    # Without backpressure the producer would have written 100,000 events
    # (6 GiB) into memory by now; with it, about what the sockets buffer.
    assert produced * size < 64 * 1024 * 1024, f"{produced} events produced for a client that read one"


def test_resuming_with_an_unknown_id_is_gone(url: str) -> None:
    with httpx.Client() as http:
        response = http.get(f"{url}/run", headers={"Last-Event-ID": "nosuchstream:3"})
        assert response.status_code == 410
        assert "not stored" in response.json()["error"]["message"]
        response = http.get(f"{url}/run", headers={"Last-Event-ID": "garbage"})
        assert response.status_code == 410


def test_a_dropped_stream_resumes_on_the_same_server(tmp_path: Path) -> None:
    from stream_app import DropFirstConnection

    app = DropFirstConnection(make_app(MemoryReplayStore()), after_bytes=700)
    with (
        serve(app) as base,
        httpx.Client() as http,
        client.connect(http, "GET", f"{base}/run?n=30&delay=0.005", protocol=PROTOCOL, retry_delay=0.01) as s,
    ):
        seen = list(s)
        result = s.until_done()
        assert s.reconnections == 1
    assert app.dropped == 1
    assert seen == agent_run(30)
    assert result == _expected(30)


def test_a_dropped_stream_resumes_on_another_replica(tmp_path: Path) -> None:
    """Two server processes share one redis-server: a client cut off from
    the first (mid-event) resumes on the second, which follows the stream
    the first is still producing: every event exactly once, in order."""
    with redis_server(tmp_path) as redis_url:
        env = {"AGENTCODEC_TEST_REDIS_URL": redis_url, "AGENTCODEC_TEST_DROP_AFTER": "900"}
        with (
            serve_process("stream_app:app", env) as first,
            serve_process("stream_app:app", env) as second,
            httpx.Client(timeout=30) as http,
        ):

            def on_second_replica(last_event_id: str) -> httpx.Response:
                response = http.send(
                    http.build_request("GET", f"{second}/run", headers={"Last-Event-ID": last_event_id}),
                    stream=True,
                )
                response.raise_for_status()
                return response

            source = http.send(http.build_request("GET", f"{first}/run?n=200&delay=0.002"), stream=True)
            stream = client.EventStream(source, PROTOCOL, reconnect=on_second_replica, retry_delay=0.01)
            seen = list(stream)
            result = stream.until_done()
            assert stream.reconnections == 1
    assert seen == agent_run(200)
    assert result == _expected(200)


@pytest.mark.parametrize("protocol", events.PROTOCOLS)
def test_the_response_sends_the_headers_the_protocols_clients_look_for(protocol: str) -> None:
    """The protocol's own headers (a version header, say), beside the
    event stream's: its content type (an NDJSON protocol's its own), no caching,
    no proxy buffering."""
    own = getattr(_protocols.module(protocol), "HEADERS", {})
    headers = dict(EventStreamResponse([], protocol=protocol).raw_headers)
    media_type = getattr(_protocols.module(protocol), "MEDIA_TYPE", None)
    expected = media_type or "text/event-stream; charset=utf-8"
    assert headers[b"content-type"] == expected.encode()
    assert headers[b"cache-control"] == b"no-store"
    assert headers[b"x-accel-buffering"] == b"no"
    for key, value in own.items():
        if key.lower() not in ("content-type", "cache-control", "connection", "x-accel-buffering"):
            assert headers[key.lower().encode()] == value.encode()


def test_an_assembler_given_alone_asks_for_its_protocols_media_type() -> None:
    """``connect(..., assembler=...)`` with no protocol named: the request
    asks for the assembler's protocol's media type and takes a response in
    it (an NDJSON stream was refused as no event stream), and the stream
    assembles as the protocol's name would make it."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from agentcodec._pure.api import NeutralAssembler as PureNeutralAssembler
    from agentcodec._pure.registry import PROTOCOLS as PURE_PROTOCOLS
    from protocol_table import TABLE

    fixtures = Path(__file__).parent / "fixtures"
    accepted: dict[str, str] = {}

    async def recorded(request: Request) -> Response:
        protocol = request.path_params["protocol"]
        accepted[protocol] = request.headers["accept"]
        body = (fixtures / TABLE[protocol].stream).read_bytes()
        return Response(body, media_type=_protocols.media_type(protocol))

    app = Starlette(routes=[Route("/{protocol}", recorded)])
    with serve(app) as base, httpx.Client(timeout=30) as http:
        for protocol in events.PROTOCOLS:
            with client.connect(http, "GET", f"{base}/{protocol}", protocol=protocol) as named:
                expected = named.until_done()
            # The protocol's assembler, on the backend in use and on the pure one.
            for assembler in (_protocols.assembler(protocol), PURE_PROTOCOLS[protocol].assembler()):
                accepted.pop(protocol, None)
                with client.connect(http, "GET", f"{base}/{protocol}", assembler=assembler) as stream:
                    assert stream.until_done() == expected, protocol
                assert accepted[protocol] == _protocols.media_type(protocol), protocol
            # The neutral view of it, on the backend in use and on the pure one.
            for view_class in (events.Assembler, PureNeutralAssembler):
                neutral = view_class(protocol)
                neutral.feed((fixtures / TABLE[protocol].stream).read_bytes())
                accepted.pop(protocol, None)
                with client.connect(
                    http, "GET", f"{base}/{protocol}", assembler=view_class(protocol)
                ) as view:
                    assert view.until_done() == neutral.close(), protocol
                assert accepted[protocol] == _protocols.media_type(protocol), protocol


def test_the_response_is_a_starlette_response() -> None:
    starlette = pytest.importorskip("starlette.responses")
    response = EventStreamResponse([])
    assert isinstance(response, starlette.Response)
    with pytest.raises(ValueError, match="ping_interval"):
        EventStreamResponse([], ping_interval=0)
    with pytest.raises(ValueError, match="unknown protocol"):
        EventStreamResponse([], protocol="sse")


def test_a_plain_generator_left_by_its_client_is_closed_once_free(caplog: pytest.LogCaptureFixture) -> None:
    """A blocking generator runs in a worker thread; its client leaving
    while it computes once closed it under the running ``next`` ("generator
    already executing", logged on every disconnect) and left its cleanup to
    the garbage collector (gateway.md 10). It is now closed when the call in
    flight returns: its ``finally`` runs, and nothing is logged."""
    import threading

    from starlette.applications import Starlette
    from starlette.routing import Route

    cleaned = threading.Event()

    def produce() -> Iterator[dict[str, Any]]:
        try:
            for number in range(1000):
                time.sleep(0.05)  # blocking work: why it runs in a thread
                yield text_delta(str(number))
        finally:
            cleaned.set()

    async def endpoint(request: Any) -> EventStreamResponse:
        return EventStreamResponse(produce(), protocol=PROTOCOL, ping_interval=None)

    app = Starlette(routes=[Route("/", endpoint)])
    with caplog.at_level("ERROR"), serve(app) as url:
        with httpx.Client() as http, http.stream("GET", url) as response:
            for _ in response.iter_bytes():
                break
        assert cleaned.wait(5), "the generator's cleanup did not run"
        time.sleep(0.2)
    assert "generator already executing" not in caplog.text
    assert not [record for record in caplog.records if record.levelname == "ERROR"], caplog.text


def test_a_reader_fallen_behind_the_store_gets_the_protocols_error_event() -> None:
    """A client slower than its producer by more than the store keeps: the
    store cannot give what it dropped. The response ended cut short, a
    broken chunked body (gateway.md 3); it now ends with the protocol's
    error event, after what the client read."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    store = MemoryReplayStore(max_events=5)

    async def produce() -> Any:
        yield agent_run(0)[0]
        for number in range(200):
            yield text_delta(str(number))

    async def endpoint(request: Any) -> EventStreamResponse:
        return EventStreamResponse(produce(), protocol=PROTOCOL, store=store, ping_interval=None)

    app = Starlette(routes=[Route("/", endpoint)])
    with serve(app) as url, httpx.Client() as http, http.stream("GET", url) as response:
        pieces = response.iter_bytes()
        body = next(pieces)
        time.sleep(0.3)  # the producer writes on, past what the store keeps
        body += b"".join(pieces)
    last = [line for line in body.decode().splitlines() if line.startswith("data: ")][-1]
    assert '"status":"failed"' in last.replace(" ", "")


def test_a_stream_id_names_a_stream_of_the_store_given() -> None:
    with pytest.raises(ValueError, match=r"^stream_id names a stream of the store: give the store too$"):
        EventStreamResponse([], stream_id="x")
    with pytest.raises(ValueError, match=r"^replay_stream names a stream of the store: give the store too$"):
        EventStreamResponse([], replay_stream="x")
    with pytest.raises(ValueError, match=r"^stream_id records a run, replay_stream sends a recorded one"):
        EventStreamResponse([], store=MemoryReplayStore(), stream_id="x", replay_stream="y")
    with pytest.raises(ValueError, match=r"^replay_after is where in replay_stream to start"):
        EventStreamResponse([], store=MemoryReplayStore(), replay_after=2)
    for after in (-1, True, 1.5, "2"):
        with pytest.raises(ValueError, match=r"^replay_after must be an event number, 0 or more"):
            EventStreamResponse([], store=MemoryReplayStore(), replay_stream="y", replay_after=after)


def test_a_recorded_stream_is_replayed_from_its_start_and_followed() -> None:
    """``replay_stream``: a stream of the store sent from its first event and
    then live, its producer's content not run; an unknown one is gone."""
    store = MemoryReplayStore()

    def not_run() -> Iterator[str]:
        raise AssertionError("the replayed stream's content is not run")
        yield ""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        # (the store is written in the server's own loop, where its readers wait)
        if scope["method"] == "POST":
            text = scope["path"].strip("/")
            if text == "open":
                text = await store.open()
            elif text == "finish":
                await store.finish(opened[0])
            else:
                await store.append(opened[0], f"data: {text}\n\n".encode())
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": text.encode()})
            return
        named = scope["path"].strip("/")
        after = int(scope["query_string"] or 0)
        await EventStreamResponse(
            not_run(), store=store, replay_stream=named, replay_after=after, ping_interval=None
        )(scope, receive, send)

    with serve(app) as url, httpx.Client(timeout=10) as http:
        opened = [http.post(f"{url}/open").text]
        http.post(f"{url}/a")
        http.post(f"{url}/b")
        with http.stream("GET", f"{url}/{opened[0]}") as response:
            lines = response.iter_lines()
            ids = [f"id: {opened[0]}:{number}" for number in (1, 2, 3)]
            assert [next(lines) for _ in range(6)] == [ids[0], "data: a", "", ids[1], "data: b", ""]
            http.post(f"{url}/c")
            http.post(f"{url}/finish")
            assert list(lines) == [ids[2], "data: c", ""]
        # From after an event (``replay_after``), here the first.
        assert http.get(f"{url}/{opened[0]}?1").text.splitlines() == [
            ids[1],
            "data: b",
            "",
            ids[2],
            "data: c",
            "",
        ]
        assert http.get(f"{url}/unknown").status_code == 410


# --- a recorded stream nobody reads any more ------------------------------------------------


class _Endless:
    """A producer of a run's events without end, which says when it was closed."""

    def __init__(self) -> None:
        self.closed = False
        self.produced = 0

    async def events(self) -> Any:
        try:
            yield agent_run(0)[0]
            while True:
                await asyncio.sleep(0.02)
                self.produced += 1
                yield text_delta(str(self.produced))
        finally:
            self.closed = True


def _abandoning_app(store: Any, producer: _Endless, seconds: float) -> Any:
    from starlette.applications import Starlette
    from starlette.routing import Route

    async def endpoint(request: Any) -> EventStreamResponse:
        return EventStreamResponse(
            producer.events(), protocol=PROTOCOL, store=store, ping_interval=None, abandon_after=seconds
        )

    return Starlette(routes=[Route("/", endpoint)])


def _read_some(url: str, headers: dict[str, str] | None = None, seconds: float = 0.0) -> str:
    """Reads the stream for ``seconds`` (at least one chunk), then leaves;
    returns the last event id read."""
    last = ""
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=30) as http, http.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200
        for chunk in response.iter_bytes():
            ids = [line for line in chunk.decode().splitlines() if line.startswith("id: ")]
            last = ids[-1][4:] if ids else last
            if time.monotonic() >= deadline and last:
                break
    return last


def test_a_recorded_stream_nobody_reads_is_stopped_and_ends_with_the_protocols_error() -> None:
    store = MemoryReplayStore()
    producer = _Endless()
    with serve(_abandoning_app(store, producer, 1.0)) as url:
        last = _read_some(url)
        waited = wait_until(lambda: producer.closed, 5, "the producer went on with nobody reading")
        assert waited > 0.8  # not before the time given
        # A client that comes back now gets the rest, and the end that says why.
        with httpx.Client(timeout=30) as http:
            rest = http.get(url, headers={"Last-Event-ID": last}).text
    ends = [line for line in rest.splitlines() if line.startswith("data: ")]
    assert '"status":"failed"' in ends[-1]
    assert "no client read the stream for 1 s" in ends[-1]


def test_a_client_that_comes_back_in_time_keeps_the_producer_going() -> None:
    store = MemoryReplayStore()
    producer = _Endless()
    with serve(_abandoning_app(store, producer, 1.0)) as url:
        last = _read_some(url)
        for _ in range(3):  # away for half the time allowed, then back for longer than it
            time.sleep(0.5)
            last = _read_some(url, {"Last-Event-ID": last}, seconds=1.5)
            assert not producer.closed
        wait_until(lambda: producer.closed, 5, "the producer went on with nobody reading")


def test_a_reader_on_another_replica_keeps_the_producer_going(tmp_path: Path) -> None:
    """Two servers sharing one redis-server: the client leaves the one that
    produces and reads on from the other; the producer goes on while it
    does, and stops once it leaves that one too."""
    from agentcodec.server import RedisReplayStore

    producer = _Endless()
    with redis_server(tmp_path) as redis_url:
        first = _abandoning_app(RedisReplayStore(redis_url, block_seconds=0.2), producer, 1.5)
        second = _abandoning_app(RedisReplayStore(redis_url, block_seconds=0.2), _Endless(), 1.5)
        with serve(first) as producing, serve(second) as other:
            last = _read_some(producing)
            last = _read_some(other, {"Last-Event-ID": last}, seconds=3.0)
            assert not producer.closed
            wait_until(lambda: producer.closed, 6, "the producer went on with nobody reading")
            with httpx.Client(timeout=30) as http:
                rest = http.get(other, headers={"Last-Event-ID": last}).text
    assert "no client read the stream for 1.5 s" in rest


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"abandon_after": 0}, "abandon_after must be a positive number of seconds or None, not 0"),
        ({"abandon_after": True, "store": MemoryReplayStore()}, "abandon_after must be a positive"),
        ({"abandon_after": 5}, "abandon_after needs a store: without one, the producer stops"),
        ({"on_abandoned": print, "store": MemoryReplayStore()}, "on_abandoned is called after abandon_after"),
    ],
)
def test_abandon_after_is_checked(options: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        EventStreamResponse([], **options)
