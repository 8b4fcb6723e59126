"""The gateway's timeouts, on uvicorn with a real upstream that stalls: no
answer, no first event, only keep-alive comments, a run without end, and a
client that stops reading. Each stalled run ends with its protocol's error
event (or a 504 before the stream begins), saying which timeout it was, and
the upstream's response is let go."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES, ScriptedAgent
from agentcodec import Transcoder, cli
from agentcodec.gateway import DemoAgent, Gateway, Timeouts
from agentcodec.server import MemoryReplayStore, RedisReplayStore
from gateway_clients import SERVED, neutral, run_at
from protocol_table import Row
from servers import command_server, redis_server, serve, wait_until
from sse_helpers import data_events

PROCESS_BODY = {
    "input": [
        {"role": "user", "content": [{"type": "text", "text": "How many words are in this question?"}]}
    ],
    "session_id": "s1",
}
# The endpoints whose stream answers the request that runs the agent.
RESENT_ROWS = [
    row for row in SERVED if row.gateway and row.gateway.read_at is None and row.name != "agentscope"
]
RESENT = [
    pytest.param(row, id=row.name)
    for row in SERVED
    if row.gateway and row.gateway.read_at is None and row.gateway.resumes
]

# The first events of a recorded run: a response, a message, some content.
RECORDED = (FIXTURES / "agent_turn.process.sse").read_bytes()
FIRST_EVENTS = RECORDED[
    : RECORDED.index(b"\n\n", RECORDED.index(b"\n\n", RECORDED.index(b"\n\n") + 2) + 2) + 2
]


def gateway_with(agent: ScriptedAgent, store: Any = None, **timeouts: Any) -> Any:
    return serve(Gateway(_serve_upstream(agent), store=store, timeouts=Timeouts(**timeouts)))


_upstreams: list[Any] = []


def _serve_upstream(agent: ScriptedAgent) -> str:
    context = serve(agent)
    url = context.__enter__()
    _upstreams.append(context)
    return str(url)


@pytest.fixture(autouse=True)
def _close_upstreams() -> Any:
    yield
    while _upstreams:
        _upstreams.pop().__exit__(None, None, None)


def event_ids(stream: bytes) -> list[str]:
    """The ids of a stream's events, in order."""
    return [line[4:].strip() for line in stream.decode().splitlines() if line.startswith("id: ")]


def the_ends(url: str) -> dict[str, tuple[str, bytes]]:
    """A run at every endpoint, one after another: each one's failure
    message (its run must have failed) and its stream, by protocol."""
    ends = {}
    with httpx.Client(timeout=10) as http:
        for row in SERVED:
            stream = run_at(http, url, row).content
            result = neutral(row, stream)
            assert result["status"] == "failed", row.name
            ends[row.name] = (result["error"]["message"], stream)
    return ends


def test_an_upstream_that_sends_no_first_event_is_timed_out() -> None:
    async def headers_then_nothing() -> AsyncIterator[bytes]:
        yield b": ping\n\n"  # a comment is no event
        await asyncio.sleep(3600)

    agent = ScriptedAgent(headers_then_nothing)
    with gateway_with(agent, first_byte=0.5) as url:
        began = time.monotonic()
        ends = the_ends(url)
        took = time.monotonic() - began
    said = "the agent sent no event within 0.5 s"
    assert {message for message, _ in ends.values()} == {said}
    assert took < 1 + len(SERVED)
    deadline = time.monotonic() + 5
    while agent.cancelled < len(SERVED) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert agent.cancelled == len(SERVED)  # the upstream's responses were let go


def test_an_upstream_that_only_pings_is_idle() -> None:
    """Keep-alive comments keep bytes coming but are no activity."""

    async def events_then_pings() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        while True:
            await asyncio.sleep(0.05)
            yield b": keep-alive\n\n"

    with gateway_with(ScriptedAgent(events_then_pings), idle=0.6) as url:
        ends = the_ends(url)
    said = "the agent sent no event for 0.6 s"
    assert {message for message, _ in ends.values()} == {said}
    # What came before the stall was passed on.
    assert data_events(ends["agentscope"][1])[:-1] == data_events(FIRST_EVENTS)


def test_events_keep_a_slow_upstream_alive_until_the_run_timeout() -> None:
    """Events closer than ``idle`` keep the run going; ``run`` bounds it whole."""

    async def endless() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        while True:
            await asyncio.sleep(0.1)
            yield b'data: {"object": "content", "type": "text", "delta": true, "text": "x"}\n\n'

    with gateway_with(ScriptedAgent(endless), idle=0.5, run=1.5) as url:
        began = time.monotonic()
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10).content
        took = time.monotonic() - began
    last = data_events(process_stream)[-1]
    assert last["error"]["message"] == "the agent's run went on past 1.5 s"
    assert 1.4 < took < 5


def test_an_upstream_that_does_not_answer_is_a_504() -> None:
    async def never() -> AsyncIterator[bytes]:
        yield b""

    with gateway_with(ScriptedAgent(never, answer_after=2), first_byte=0.5) as url:
        answer = httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10)
    assert answer.status_code == 504
    assert answer.json()["error"]["message"] == "the agent did not answer within 0.5 s"


def test_no_timeout_lets_a_slow_upstream_be() -> None:
    async def slow() -> AsyncIterator[bytes]:
        await asyncio.sleep(0.3)
        yield RECORDED

    with gateway_with(ScriptedAgent(slow), first_byte=None, idle=None, run=None) as url:
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10).content
    assert data_events(process_stream) == data_events(RECORDED)


def test_a_client_that_stops_reading_is_let_go_after_the_send_timeout() -> None:
    """A client that sends its request and reads nothing: once the
    connection's buffers are full, the gateway waits ``send`` seconds for it,
    then closes the connection (the run goes on into the store, for the
    client to resume)."""
    big = b'data: {"object": "content", "type": "text", "delta": true, "text": "' + b"x" * 60000 + b'"}\n\n'

    async def flood() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        while True:
            yield big
            await asyncio.sleep(0.001)

    store = MemoryReplayStore(max_events=100)  # the run goes on: its memory stays small
    with gateway_with(ScriptedAgent(flood), store, send=0.5, idle=None, run=None) as url:
        host, port = httpx.URL(url).host, httpx.URL(url).port
        with socket.create_connection((host, port)) as stalled:
            body = b'{"input": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}'
            stalled.sendall(
                b"POST /process HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            time.sleep(2)  # nothing read: the gateway's writes stall, then it lets go
            stalled.settimeout(10)
            received = 0
            while True:
                data = stalled.recv(1 << 20)
                if not data:
                    break  # the gateway closed the connection
                received += len(data)
                assert received < 200_000_000, "the gateway went on writing to a client that stopped reading"


@pytest.mark.parametrize(
    ("flag", "given", "says"),
    [
        ("--idle-timeout", "0", "a timeout is a positive number of seconds, or 'none'"),
        ("--idle-timeout", "soon", "'soon' is not a number of seconds"),
        ("--abandoned-timeout", "0", "a timeout is a positive number of seconds, or 'none'"),
    ],
)
def test_the_command_refuses_a_timeout_that_is_no_number_of_seconds(flag: str, given: str, says: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "agentcodec", "gateway", flag, given],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert says in run.stderr


@pytest.mark.parametrize("field", ["connect", "first_byte", "idle", "run", "send", "abandoned"])
@pytest.mark.parametrize("value", [0, -1, True, "1"])
def test_timeouts_are_positive_seconds_or_none(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=f"the {field} timeout must be a positive number of seconds or None"):
        Timeouts(**{field: value})


# --- a replica that stops (SIGTERM) drains --------------------------------------------------


def test_a_replica_that_stops_ends_its_runs_and_a_resuming_client_gets_the_end(tmp_path: Path) -> None:
    """SIGTERM to a gateway process with a run going on: its client's stream
    ends with the protocol's error event, the process exits on its own, and
    a client resuming on another replica (one redis-server) gets the rest
    and that end at once, without running the agent again."""

    async def endless() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        while True:
            await asyncio.sleep(0.05)
            yield b'data: {"object": "content", "type": "text", "delta": true, "text": "x"}\n\n'

    agent = ScriptedAgent(endless)
    with redis_server(tmp_path) as redis_url, serve(agent) as upstream:
        arguments = [sys.executable, "-m", "agentcodec", "gateway", "--log-level", "warning"]
        arguments += ["--upstream", upstream, "--redis", redis_url]
        with command_server(arguments) as (first, process), command_server(arguments) as (second, _):
            received = b""
            stopped_at = None
            with httpx.stream("POST", f"{first}/process", json=PROCESS_BODY, timeout=30) as response:
                for chunk in response.iter_raw():
                    received += chunk
                    if received.count(b"data: ") >= 6 and stopped_at is None:
                        stopped_at = time.monotonic()
                        process.send_signal(signal.SIGTERM)
            assert stopped_at is not None
            process.wait(10)
            took = time.monotonic() - stopped_at
            end = data_events(received)[-1]
            assert (end["object"], end["status"]) == ("response", "failed")
            assert end["error"]["message"] == "the gateway stopped before the run ended"
            # (uvicorn raises the signal again once it has shut down, as the exit status)
            assert process.returncode in (0, -signal.SIGTERM)
            assert took < 4  # the runs ended at once, not after uvicorn's 5 s of grace
            # Resumed on the other replica after the third event: the rest, and the end.
            resumed = httpx.post(
                f"{second}/process",
                json=PROCESS_BODY,
                headers={"Last-Event-ID": event_ids(received)[2]},
                timeout=10,
            )
            assert data_events(resumed.content) == data_events(received)[3:]
    assert agent.runs == 1


# --- runs going on at once, in all and per key ------------------------------------------------


def slow_run() -> AsyncIterator[bytes]:
    """The recorded run, its first events now and the rest a second later."""

    async def body() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        await asyncio.sleep(1.0)
        yield RECORDED[len(FIRST_EVENTS) :]

    return body()


def test_runs_past_max_runs_are_refused_429_until_one_ends() -> None:
    with serve(ScriptedAgent(slow_run)) as upstream, serve(Gateway(upstream, max_runs=1)) as url:
        with httpx.stream("POST", f"{url}/process", json=PROCESS_BODY, timeout=10) as going_on:
            chunks = going_on.iter_raw()
            first = next(chunks)
            with httpx.Client(timeout=10) as http:
                refused = {row.name: (row, run_at(http, url, row)) for row in SERVED}
            rest = b"".join(chunks)
        # Every endpoint refuses, as its protocol answers an error.
        for row, answer in refused.values():
            assert row.gateway is not None
            assert answer.status_code == (429 if row.gateway.refused_status != 200 else 200), row.name
            assert "too many runs going on: 1 at most" in answer.text, row.name
        assert refused["agentscope"][1].json()["error"] == {
            "code": "too_many_runs",
            "message": "too many runs going on: 1 at most",
        }
        assert data_events(first + rest)[-1]["status"] == "completed"
        time.sleep(0.2)  # the run is counted until its upstream stream is closed
        assert httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10).status_code == 200


def test_runs_past_max_runs_per_key_are_refused_429_for_that_key_alone() -> None:
    with serve(ScriptedAgent(slow_run)) as upstream:
        gateway = Gateway(upstream, api_keys=["key-a", "key-b"], max_runs_per_key=1)
        with serve(gateway) as url:
            a = {"Authorization": "Bearer key-a"}
            with httpx.stream("POST", f"{url}/process", json=PROCESS_BODY, headers=a, timeout=10) as going_on:
                chunks = going_on.iter_raw()
                next(chunks)
                again = httpx.post(f"{url}/process", json=PROCESS_BODY, headers=a, timeout=10)
                other = httpx.post(
                    f"{url}/process", json=PROCESS_BODY, headers={"X-Api-Key": "key-b"}, timeout=10
                )
                b"".join(chunks)
    assert again.status_code == 429
    assert again.json()["error"]["message"] == "too many runs going on for this key: 1 at most"
    assert other.status_code == 200


@pytest.mark.parametrize("limit", [0, -1, True, 1.5])
def test_run_limits_are_positive_ints(limit: Any) -> None:
    for name in ("max_runs", "max_runs_per_key"):
        with pytest.raises(ValueError, match=f"{name} must be a positive int or None"):
            Gateway(None, **{name: limit})


# --- /metrics -------------------------------------------------------------------------------


def metric_samples(text: str) -> dict[str, float]:
    """The samples of a Prometheus text exposition, by name and labels."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


@pytest.mark.parametrize("row", RESENT)
def test_metrics_count_runs_streams_events_and_resumes(row: Row) -> None:
    assert row.gateway is not None
    path, body = row.gateway.path, row.gateway.body("How many words are in this question?")
    with serve(Gateway(DemoAgent(delay=0))) as url:
        stream = httpx.post(f"{url}{path}", json=body, timeout=10).content
        ids = event_ids(stream)
        hit = httpx.post(f"{url}{path}", json=body, headers={"Last-Event-ID": ids[1]}, timeout=10)
        nowhere = ids[1].rpartition(":")[0] + "-nothing:1"
        miss = httpx.post(f"{url}{path}", json=body, headers={"Last-Event-ID": nowhere}, timeout=10)
        answer = httpx.get(f"{url}/metrics", timeout=10)
    assert hit.status_code == 200
    assert miss.status_code == 410
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    samples = metric_samples(answer.text)
    assert samples["agentcodec_gateway_runs"] == 0
    assert samples["agentcodec_gateway_runs_started_total"] == 1
    # Every event sent, the resumed stream's too (what followed the second event).
    protocol = f'{{protocol="{row.name}"}}'
    assert samples[f"agentcodec_gateway_events_sent_total{protocol}"] == len(ids) + len(ids) - 2
    assert samples[f"agentcodec_gateway_streams_open{protocol}"] == 0
    assert samples['agentcodec_gateway_resumes_total{outcome="hit"}'] == 1
    assert samples['agentcodec_gateway_resumes_total{outcome="miss"}'] == 1


def test_metrics_count_what_each_protocols_conversion_could_not_carry() -> None:
    """Per run, by the client's protocol and what: the Transcoder's losses
    for the upstream's stream (the demo agent's turn, the same each run),
    counted once the conversion stops."""
    with serve(Gateway(DemoAgent(delay=0))) as url:
        process = httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10).content
        expected: Counter[str] = Counter()
        for row in RESENT_ROWS:
            assert row.gateway is not None
            path, body = row.gateway.path, row.gateway.body("How many words are in this question?")
            assert httpx.post(f"{url}{path}", json=body, timeout=10).status_code == 200
            transcoder = Transcoder("agentscope", row.name, **row.gateway.converts_with)
            transcoder.feed(process)
            transcoder.close()
            for loss in transcoder.losses:
                labels = f'protocol="{row.name}",what="{loss["what"]}"'
                expected[f"agentcodec_gateway_conversion_losses_total{{{labels}}}"] += 1
        assert expected, "the demo agent's turn loses nothing in any protocol"

        def counted() -> dict[str, float]:
            samples = metric_samples(httpx.get(f"{url}/metrics", timeout=10).text)
            return {name: value for name, value in samples.items() if "conversion_losses_total" in name}

        wait_until(lambda: counted() == expected, 5, f"{counted()} != {dict(expected)}")


def test_metrics_count_runs_refused_and_failed() -> None:
    async def stalls() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        await asyncio.sleep(3600)

    with (
        serve(ScriptedAgent(stalls)) as upstream,
        serve(Gateway(upstream, timeouts=Timeouts(idle=0.3))) as url,
    ):
        httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10)
        samples = metric_samples(httpx.get(f"{url}/metrics", timeout=10).text)
    assert samples['agentcodec_gateway_runs_failed_total{reason="timeout"}'] == 1
    with serve(Gateway("http://127.0.0.1:9/process")) as url:  # nothing listens there
        assert httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=10).status_code == 502
        samples = metric_samples(httpx.get(f"{url}/metrics", timeout=10).text)
    assert samples['agentcodec_gateway_runs_refused_total{reason="upstream"}'] == 1
    assert samples["agentcodec_gateway_runs_started_total"] == 0


# --- a Redis that restarts ------------------------------------------------------------------


class HeldAgent(DemoAgent):
    """The demo agent, held at each token while ``held`` is set: a run
    that is still streaming, however slow the machine, when the test acts."""

    def __init__(self) -> None:
        super().__init__(delay=0.01)
        self.held = threading.Event()

    async def _pause(self) -> None:
        await super()._pause()
        while self.held.is_set():
            await asyncio.sleep(0.01)


def test_a_redis_restart_ends_the_stream_in_flight_with_its_error_and_the_gateway_recovers(
    tmp_path: Path,
) -> None:
    """redis-server stopped and started again (nothing kept) under a stream:
    its client gets the protocol's error event, not a clean end; the next
    requests stream whole, with no restart of the gateway (gateway.md 9)."""
    url = f"unix://{tmp_path / 'redis.sock'}"
    agent = HeldAgent()
    with serve(Gateway(agent, store=RedisReplayStore(url))) as gateway:
        first_redis = contextlib.ExitStack()
        first_redis.enter_context(redis_server(tmp_path))
        whole = data_events(httpx.post(f"{gateway}/process", json=PROCESS_BODY, timeout=20).content)
        assert whole[-1]["status"] == "completed"
        received = b""
        # (held at its first token: what came before it is the run's start)
        agent.held.set()
        with httpx.stream("POST", f"{gateway}/process", json=PROCESS_BODY, timeout=20) as response:
            chunks = response.iter_raw()
            while received.count(b"data:") < 3:
                received += next(chunks)
            first_redis.close()  # gone, and its streams with it
            with redis_server(tmp_path):
                agent.held.clear()
                received += b"".join(chunks)
                last = data_events(received)[-1]
                assert (last["object"], last["status"]) == ("response", "failed")
                assert last["error"]["message"] == "the stream could not be read on from the server's store"
                for _ in range(2):
                    again = data_events(
                        httpx.post(f"{gateway}/process", json=PROCESS_BODY, timeout=20).content
                    )
                    assert [again[0]["status"], again[-1]["status"]] == ["created", "completed"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--store-max-bytes", "0"], "--store-max-bytes: max_bytes must be a positive int or None"),
        (["--redis", "redis://127.0.0.1:9", "--store-max-bytes", "10"], "Redis's is its maxmemory"),
    ],
)
def test_the_command_checks_the_store_budget(arguments: list[str], says: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "agentcodec", "gateway", *arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert says in run.stderr


# --- the access log -------------------------------------------------------------------------


def test_the_access_log_has_a_record_for_each_request_its_fields_as_attributes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="agentcodec.gateway.access")
    with serve(Gateway(DemoAgent(delay=0))) as url:
        stream = httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"X-Request-Id": "req-1"}, timeout=10
        )
        httpx.get(f"{url}/health", timeout=10)
        time.sleep(0.1)  # the record is written once the response has ended
    records = [record for record in caplog.records if record.name == "agentcodec.gateway.access"]
    streamed, health = records[-2:]
    events = len(event_ids(stream.content))
    assert (streamed.method, streamed.path, streamed.status, streamed.protocol) == (
        "POST",
        "/process",
        200,
        "agentscope",
    )
    assert (streamed.events, streamed.request_id) == (events, "req-1")
    assert streamed.duration_ms > 0
    assert streamed.getMessage().startswith("POST /process 200 ")
    assert streamed.getMessage().endswith(f" ms {events} events")
    assert (health.path, health.status, health.protocol, health.events) == ("/health", 200, None, None)


def test_the_command_writes_the_access_log_as_json_lines() -> None:
    record = logging.LogRecord(
        "agentcodec.gateway.access", logging.INFO, __file__, 1, "GET /health 200", (), None
    )
    for name, value in {"method": "GET", "path": "/health", "status": 200, "protocol": None}.items():
        setattr(record, name, value)
    line = json.loads(cli._JSONLines().format(record))
    assert {key: line[key] for key in ("level", "message", "method", "path", "status", "protocol")} == {
        "level": "info",
        "message": "GET /health 200",
        "method": "GET",
        "path": "/health",
        "status": 200,
        "protocol": None,
    }
    refused = subprocess.run(
        [sys.executable, "-m", "agentcodec", "gateway", "--access-log", "xml"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
    assert "invalid choice: 'xml'" in refused.stderr


# --- a run nobody reads any more ------------------------------------------------------------


def endless_run() -> AsyncIterator[bytes]:
    """The recorded run's first events (a response, a reasoning message),
    then that message's text, a delta every 20 ms, without end."""
    message_id = data_events(FIRST_EVENTS)[-1]["id"]

    async def body() -> AsyncIterator[bytes]:
        yield FIRST_EVENTS
        number = len(data_events(FIRST_EVENTS))
        while True:
            await asyncio.sleep(0.02)
            delta = {
                "sequence_number": number,
                "object": "content",
                "status": "in_progress",
                "type": "text",
                "index": 0,
                "delta": True,
                "msg_id": message_id,
                "text": "x",
            }
            number += 1
            yield b"data: " + json.dumps(delta).encode() + b"\n\n"

    return body()


def read_then_leave(
    url: str, path: str, body: Any, headers: dict[str, str] | None = None, seconds: float = 0.0
) -> tuple[str, bytes]:
    """Streams ``path`` for ``seconds`` (at least one event), then leaves;
    returns the last event id read, and the whole events read."""
    last = ""
    read = b""
    deadline = time.monotonic() + seconds
    with (
        httpx.Client(timeout=30) as http,
        http.stream("POST", f"{url}{path}", json=body, headers=headers or {}) as response,
    ):
        assert response.status_code == 200
        for chunk in response.iter_bytes():
            read += chunk
            whole = read[: read.rfind(b"\n\n") + 2]
            ids = event_ids(whole)
            last = ids[-1] if ids else last
            if last and time.monotonic() >= deadline:
                break
    return last, whole


@pytest.mark.parametrize("row", [param for param in RESENT if param.values[0].gateway.cancels_abandoned])
def test_a_run_its_client_abandoned_is_cancelled_upstream_after_the_grace_period(row: Row) -> None:
    assert row.gateway is not None
    path, body = row.gateway.path, row.gateway.body("How many words are in this question?")
    agent = ScriptedAgent(endless_run)
    with gateway_with(agent, MemoryReplayStore(), abandoned=1.0, idle=None, run=None) as url:
        last, head = read_then_leave(url, path, body)
        waited = wait_until(lambda: agent.cancelled == 1, 6, "the run went on upstream with nobody reading")
        assert waited > 0.7
        # A client that comes back after it gets the rest, and the run's end in its protocol.
        rest = httpx.post(f"{url}{path}", json=body, headers={"Last-Event-ID": last}, timeout=10).content
        samples = metric_samples(httpx.get(f"{url}/metrics", timeout=10).text)
    assert samples['agentcodec_gateway_runs_failed_total{reason="abandoned"}'] == 1
    # (as the protocol carries a cancelled run: Chat has no word for one)
    assert neutral(row, head + rest)["status"] == row.status_as_carried.get("cancelled", "cancelled")
    if row.name == "agentscope":
        end = data_events(rest)[-1]
        assert (end["object"], end["status"]) == ("response", "canceled")
        assert end["id"] == data_events(FIRST_EVENTS)[0]["id"]


def test_a_client_that_resumes_in_time_keeps_its_run_going() -> None:
    agent = ScriptedAgent(endless_run)
    with gateway_with(agent, MemoryReplayStore(), abandoned=1.0, idle=None, run=None) as url:
        last, _ = read_then_leave(url, "/process", PROCESS_BODY)
        for _ in range(3):  # away for half the grace, then reading for longer than it
            time.sleep(0.5)
            last, _ = read_then_leave(url, "/process", PROCESS_BODY, {"Last-Event-ID": last}, seconds=1.5)
            assert agent.cancelled == 0
        wait_until(lambda: agent.cancelled == 1, 6, "the run went on upstream with nobody reading")


def test_a_client_reading_on_another_replica_keeps_the_run_going(tmp_path: Path) -> None:
    """Two gateways sharing one redis-server: the client leaves the one that
    runs the agent and reads on from the other, which the run's replica
    learns through the store; once it leaves that one too, the run is
    cancelled upstream."""
    agent = ScriptedAgent(endless_run)
    with redis_server(tmp_path) as redis_url, serve(agent) as upstream:
        timeouts = Timeouts(abandoned=1.0, idle=None, run=None)
        stores = [RedisReplayStore(redis_url, block_seconds=0.2) for _ in range(2)]
        with (
            serve(Gateway(upstream, store=stores[0], timeouts=timeouts)) as running,
            serve(Gateway(upstream, store=stores[1], timeouts=timeouts)) as other,
        ):
            last, _ = read_then_leave(running, "/process", PROCESS_BODY)
            last, _ = read_then_leave(other, "/process", PROCESS_BODY, {"Last-Event-ID": last}, seconds=3.0)
            assert agent.cancelled == 0
            assert agent.runs == 1
            wait_until(lambda: agent.cancelled == 1, 6, "the run went on upstream with nobody reading")
