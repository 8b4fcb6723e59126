"""The gateway on uvicorn, called by real clients (httpx, aiohttp), in front
of real upstreams on uvicorn: the demo agent, and an Agent API server that
answers with the streams agentscope-runtime's AgentApp wrote
(tests/fixtures/agentapp/). What every endpoint does alike is tested here,
each protocol the gateway serves a row of the table (its ``gateway`` case):
the run it streams, its failures, its body limits, its keys; what one
protocol's endpoint does of its own is in that protocol's gateway tests
(test_<protocol>_gateway.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_servers import FIXTURES, RecordedAgent
from agentcodec import agentscope, client, events
from agentcodec.gateway import DemoAgent, Gateway, ProcessUpstream, RequestError, agent_request_from_process
from agentcodec.gateway._endpoints import HeaderRoute
from agentcodec.server import MemoryReplayStore
from gateway_clients import (
    ANSWER,
    QUESTION,
    SERVED,
    event_numbers,
    gateway_before,
    gateway_process,
    neutral,
    reading_request,
    run_at,
    texts,
    two_replicas,
)
from protocol_table import Row
from servers import self_signed_certificate, serve, serve_command
from sse_helpers import data_events

PROCESS_BODY = {
    "input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
    "session_id": "s1",
}
# Each protocol's endpoint, by its name.
ENDPOINTS = [pytest.param(row, id=row.name) for row in SERVED]
# Those whose stream answers the request that runs the agent, resumed by
# resending it with Last-Event-ID.
# The endpoints whose stream answers the request that runs the agent, and
# those of them a dropped client resumes.
ANSWERED = [pytest.param(row, id=row.name) for row in SERVED if row.gateway and row.gateway.read_at is None]
RESENT = [param for param in ANSWERED if param.values[0].gateway.resumes]


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve(Gateway(DemoAgent(delay=0))) as url:
        yield url


# --- the demo agent, on every endpoint ------------------------------------------------------


@pytest.mark.parametrize("row", ENDPOINTS)
def test_every_endpoint_streams_the_agents_run(demo: str, row: Row) -> None:
    with httpx.Client(timeout=30) as http:
        response = run_at(http, demo, row)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(("text/event-stream", "application/"))
    result = neutral(row, response.content)
    assert result["status"] == "completed"
    assert texts(result)[-1] == ANSWER
    calls = [
        block for message in result["messages"] for block in message["blocks"] if block["kind"] == "tool_call"
    ]
    # (the demo agent's tool call, where the protocol has a place for one and
    # its clients would not run it again)
    assert row.gateway is not None
    omitted = row.gateway.converts_with.get("executed_tool_calls") == "omit"
    left_out = "tool_call" in row.cannot_carry or omitted
    expected = [] if left_out else [{"text": QUESTION}]
    assert [json.loads(call["arguments"]) for call in calls] == expected


def test_process_endpoint_is_the_agent_api_stream(demo: str) -> None:
    response = httpx.post(f"{demo}/process", json=PROCESS_BODY)
    assembler = agentscope.Assembler()
    assembler.feed(response.content)
    final = assembler.close()
    assert final["status"] == "completed"
    assert [message["type"] for message in final["output"]] == [
        "reasoning",
        "plugin_call",
        "plugin_call_output",
        "message",
    ]
    assert final["session_id"] == "s1"
    numbers = [event["sequence_number"] for event in data_events(response.content)]
    assert numbers == list(range(len(numbers)))


@pytest.mark.parametrize(
    "path", [pytest.param(row.gateway.path, id=row.name) for row in SERVED if row.gateway]
)
@pytest.mark.parametrize(
    ("content_type", "says"),
    [
        (None, "not without a Content-Type"),
        ("text/plain", "not 'text/plain'"),
        ("application/x-www-form-urlencoded", "not 'application/x-www-form-urlencoded'"),
    ],
)
def test_a_body_not_sent_as_json_is_a_415(demo: str, path: str, content_type: str | None, says: str) -> None:
    """A browser posts text/plain or a form cross-origin without CORS's
    preflight: every endpoint takes JSON only, and says so."""
    headers = {} if content_type is None else {"content-type": content_type}
    response = httpx.post(f"{demo}{path}", content=json.dumps(PROCESS_BODY).encode(), headers=headers)
    assert response.status_code == 415
    assert says in response.text
    # A JSON type with parameters, or of the +json family, is JSON (read, and
    # refused as the endpoint refuses a body it cannot take).
    for given in ("application/json; charset=utf-8", "application/vnd.agent+json"):
        taken = httpx.post(f"{demo}{path}", content=b"[", headers={"content-type": given})
        assert taken.status_code != 415, given


def test_bad_requests_are_answered_400_saying_what_and_where(demo: str) -> None:
    response = httpx.post(f"{demo}/process", json=[1, 2])
    assert response.status_code == 400
    assert response.json() == {
        "error": {"code": "invalid_request", "message": "the request body must be a JSON object, not list"}
    }
    not_json = httpx.post(f"{demo}/process", content=b"{nope", headers={"content-type": "application/json"})
    assert not_json.status_code == 400
    assert not_json.json()["error"]["message"].startswith("the request body is not JSON")
    deep = httpx.post(
        f"{demo}/process", content=b"[" * 5000 + b"]" * 5000, headers={"content-type": "application/json"}
    )
    assert deep.status_code == 400, deep.text
    with pytest.raises(RequestError, match=r"input\[0\] must be a JSON object"):
        agent_request_from_process({"input": [1]})


@pytest.mark.parametrize("row", ENDPOINTS)
def test_a_body_past_max_body_bytes_is_a_413_read_no_further(row: Row) -> None:
    assert row.gateway is not None
    with serve(Gateway(DemoAgent(delay=0), max_body_bytes=1000)) as url, httpx.Client(timeout=30) as http:
        assert run_at(http, url, row).status_code == 200
        big = row.gateway.body("x" * 2000)
        refused = http.post(f"{url}{row.gateway.path}", json=big)
        assert refused.status_code == 413
        assert "the request body is larger than 1,000 bytes, the gateway's limit" in refused.text

        # Without a Content-Length (chunked), the body is read no further than the limit.
        def chunks() -> Iterator[bytes]:
            yield json.dumps(big).encode()

        chunked = http.post(
            f"{url}{row.gateway.path}", content=chunks(), headers={"content-type": "application/json"}
        )
        assert chunked.status_code == 413
    with pytest.raises(ValueError, match="max_body_bytes must be a positive int or None"):
        Gateway(DemoAgent(), max_body_bytes=0)


def test_many_concurrent_streams_with_aiohttp_and_httpx(demo: str) -> None:
    """Forty runs at once on each HTTP client, spread over the endpoints
    whose answer is the stream, each read by the client helpers."""
    aiohttp = pytest.importorskip("aiohttp")
    rows = [param.values[0] for param in ANSWERED]

    async def run(http: Any, n: int) -> Any:
        row = rows[n % len(rows)]
        path, body = reading_request(row, "word " * n)
        # Read by the client helpers into the protocol-neutral view.
        async with client.aconnect(
            http, "POST", f"{demo}{path}", json=body, assembler=events.Assembler(row.name)
        ) as stream:
            return await stream.until_done()

    async def main() -> tuple[list[Any], list[Any]]:
        async with httpx.AsyncClient(timeout=60) as http, aiohttp.ClientSession() as session:
            return await asyncio.gather(
                asyncio.gather(*(run(http, n) for n in range(1, 41))),
                asyncio.gather(*(run(session, n) for n in range(1, 41))),
            )

    for results in asyncio.run(main()):
        for n, result in enumerate(results, start=1):
            plural = "word" if n == 1 else "words"
            assert result["status"] == "completed"
            assert texts(result)[-1].endswith(f"that is {n} {plural}.")


@pytest.mark.parametrize("row", RESENT)
def test_a_dropped_client_resumes_with_last_event_id(row: Row) -> None:
    path, body = reading_request(row)
    with serve(Gateway(DemoAgent(delay=0.002))) as url, httpx.Client(timeout=30) as http:
        head = b""
        with http.stream("POST", f"{url}{path}", json=body) as response:
            for chunk in response.iter_raw():
                head += chunk
                if len(event_numbers(head)) >= 6:
                    break  # the client goes away mid-stream
        whole = head[: head.rfind(b"\n\n") + 2]
        last_id = [line for line in whole.split(b"\n") if line.startswith(b"id: ")][-1][4:].decode()
        rest = http.post(f"{url}{path}", json=body, headers={"Last-Event-ID": last_id}).content
    # Only whole events count from the first connection; the rest follows them.
    numbers = event_numbers(whole) + event_numbers(rest)
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    result = neutral(row, whole + rest)
    assert result["status"] == "completed"
    assert texts(result)[-1] == ANSWER


@pytest.mark.parametrize("row", RESENT)
def test_an_unknown_last_event_id_is_gone(demo: str, row: Row) -> None:
    path, body = reading_request(row)
    response = httpx.post(f"{demo}{path}", json=body, headers={"Last-Event-ID": "nothing-here:3"})
    assert response.status_code == 410


@pytest.mark.parametrize("row", [param for param in RESENT if param.values[0].name != "agentscope"])
def test_a_last_event_id_resumes_only_its_own_protocols_stream(demo: str, row: Row) -> None:
    """A stream's Last-Event-ID sent to another protocol's endpoint once
    replayed the first protocol's events there (gateway.md 8); a number past
    what a store can hold broke the stream after its headers (gateway.md 3).
    Both are gone, saying why, before anything is sent."""
    path, body = reading_request(row)
    stream = httpx.post(f"{demo}{path}", json=body).content
    last_id = [line for line in stream.decode().splitlines() if line.startswith("id: ")][-1][4:]
    response = httpx.post(f"{demo}/process", json=PROCESS_BODY, headers={"Last-Event-ID": last_id})
    assert response.status_code == 410
    assert "not of agentscope" in response.json()["error"]["message"]
    process = httpx.post(f"{demo}/process", json=PROCESS_BODY).content
    process_id = [line for line in process.decode().splitlines() if line.startswith("id: ")][-1][4:]
    response = httpx.post(f"{demo}{path}", json=body, headers={"Last-Event-ID": process_id})
    assert response.status_code == 410
    assert "names a stream of agentscope, not of " in response.text
    resumed = httpx.post(f"{demo}{path}", json=body, headers={"Last-Event-ID": last_id})
    assert resumed.status_code == 200
    huge = last_id.rpartition(":")[0] + ":99999999999999999999999"
    response = httpx.post(f"{demo}{path}", json=body, headers={"Last-Event-ID": huge})
    assert response.status_code == 410
    assert "not an id this server wrote" in response.text


def test_pings_keep_a_quiet_stream_open() -> None:
    with serve(Gateway(DemoAgent(delay=0.06), ping_interval=0.02)) as url:
        stream = httpx.post(f"{url}/process", json=PROCESS_BODY, timeout=30).content
    assert b"\n: ping\n" in stream
    assert data_events(stream)[-1]["status"] == "completed"


# --- in front of the AgentApp's /process, failing as it may ---------------------------------


def test_process_passes_the_agentapp_stream_through() -> None:
    agent = RecordedAgent.from_fixture("agent_turn")
    with gateway_before(agent) as url:
        stream = httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer k"}
        ).content
    assert data_events(stream) == data_events(agent.stream)
    assert agent.requests == [PROCESS_BODY]
    assert agent.headers[0]["authorization"] == "Bearer k"


@pytest.mark.parametrize("row", ENDPOINTS)
def test_a_failing_agent_fails_the_run_in_every_protocol(row: Row) -> None:
    with gateway_before(RecordedAgent.from_fixture("agent_fails")) as url, httpx.Client(timeout=30) as http:
        result = neutral(row, run_at(http, url, row).content)
    assert result["status"] == "failed"
    assert result["error"]["message"] == "Unknown agent error: RuntimeError: the weather service went away"


@pytest.mark.parametrize("cut_after", [3000, 3001, 9000])
@pytest.mark.parametrize("row", ENDPOINTS)
def test_an_upstream_that_dies_midway_fails_the_run_in_the_target_protocol(row: Row, cut_after: int) -> None:
    agent = RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    with gateway_before(agent) as url, httpx.Client(timeout=30) as http:
        result = neutral(row, run_at(http, url, row).content)
    assert result["status"] == "failed"


def _cut_at_an_event(stream: bytes, events: int) -> bytes:
    """The stream's first ``events`` events, ending cleanly at a blank line."""
    at = 0
    for _ in range(events):
        at = stream.index(b"\n\n", at) + 2
    return stream[:at]


@pytest.mark.parametrize(
    "body",
    [
        _cut_at_an_event((FIXTURES / "agent_turn.process.sse").read_bytes(), 12),
        b"",
        b'{"output": []}',
        b"<html><body>Bad gateway</body></html>",
    ],
    ids=["cut-at-an-event", "empty", "json", "html"],
)
@pytest.mark.parametrize("row", ENDPOINTS)
def test_an_upstream_that_ends_cleanly_before_its_run_ends_fails_the_run(row: Row, body: bytes) -> None:
    """The upstream closes its response without error, but its run never
    ended (gateway.md 2): every protocol's stream still ends with its error
    event."""
    with gateway_before(RecordedAgent(body)) as url, httpx.Client(timeout=30) as http:
        result = neutral(row, run_at(http, url, row).content)
    assert result["status"] == "failed"


@pytest.mark.parametrize("cut_after", [3000, 3001, 9000])
def test_the_agent_api_stream_cut_midway_ends_as_the_same_response_failed(cut_after: int) -> None:
    """Passed through, the Agent API stream ends as the other protocols do:
    whole events, then the same response failed, numbered on."""
    agent = RecordedAgent.from_fixture("agent_turn", cut_after=cut_after)
    with gateway_before(agent) as url:
        process_stream = httpx.post(f"{url}/process", json=PROCESS_BODY).content
    process = data_events(process_stream)
    assert process[:-1] == data_events(agent.stream[:cut_after])[: len(process) - 1]
    assert process[-1]["object"] == "response"
    assert process[-1]["status"] == "failed"
    assert process[-1]["id"] == process[0]["id"]
    assert [event["sequence_number"] for event in process] == list(range(len(process)))
    assembler = agentscope.Assembler()
    assembler.feed(process_stream)
    assert assembler.close()["status"] == "failed"


@pytest.mark.parametrize("row", ENDPOINTS)
def test_an_upstream_that_refuses_or_is_gone_is_a_bad_gateway(row: Row) -> None:
    assert row.gateway is not None
    with gateway_before(RecordedAgent(b"", status=503)) as url, httpx.Client(timeout=30) as http:
        refused = run_at(http, url, row)
    assert refused.status_code == row.gateway.refused_status
    assert "the agent answered 503" in refused.text
    with serve(Gateway("http://127.0.0.1:9/process")) as url, httpx.Client(timeout=30) as http:
        gone = run_at(http, url, row)
    assert gone.status_code == row.gateway.refused_status
    assert "127.0.0.1" not in gone.text


def test_nothing_of_the_upstream_reaches_a_client(caplog: pytest.LogCaptureFixture) -> None:
    """A refusing upstream's status is the outcome a client learns; its URL
    and body (here the agent's JSON detail) stay in the gateway's log
    (gateway.md 6)."""
    agent = RecordedAgent(b"", status=500)
    with caplog.at_level("WARNING", logger="agentcodec.gateway"), gateway_before(agent) as url:
        refused = httpx.post(f"{url}/process", json=PROCESS_BODY)
    assert refused.status_code == 502
    assert refused.json()["error"] == {"code": "upstream_error", "message": "the agent answered 500"}
    assert "not available" not in refused.text
    assert "127.0.0.1" not in refused.text
    assert "the agent is not available" in caplog.text


def test_an_https_upstream_is_trusted_by_the_cas_the_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upstream's pools share one TLS context, made as httpx makes its
    own: a certificate the default CAs do not know is refused, and one that
    ``SSL_CERT_FILE`` names is trusted."""
    tls = self_signed_certificate(tmp_path)
    agent = RecordedAgent.from_fixture("agent_turn")
    with serve(agent, tls=tls) as upstream:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        with serve(Gateway(upstream)) as url:
            refused = httpx.post(f"{url}/process", json=PROCESS_BODY)
        assert refused.status_code == 502
        assert refused.json()["error"]["message"] == "the agent cannot be reached"
        monkeypatch.setenv("SSL_CERT_FILE", str(tls[0]))
        with serve(Gateway(upstream)) as url:
            trusted = httpx.post(f"{url}/process", json=PROCESS_BODY)
    assert trusted.status_code == 200
    assert data_events(trusted.content) == data_events(agent.stream)


def test_upstream_credentials_are_headers_of_their_own_never_the_urls() -> None:
    """Credentials in the URL would go out as Basic auth in place of the
    client's Authorization, and show wherever the URL does: refused, with
    what to do instead. Headers given to the upstream go with every request,
    over what the client's forwarded."""
    with pytest.raises(ValueError, match="headers of their own"):
        ProcessUpstream("http://admin:pw@127.0.0.1:9/process")
    agent = RecordedAgent.from_fixture("agent_turn")
    with serve(agent) as upstream:
        gateway = Gateway(ProcessUpstream(upstream, headers={"authorization": "Bearer upstream-key"}))
        with serve(gateway) as url:
            httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer client"})
    assert agent.headers[-1]["authorization"] == "Bearer upstream-key"
    result = subprocess.run(
        [sys.executable, "-m", "agentcodec", "gateway", "--upstream", "http://admin:pw@127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--upstream-header" in result.stderr


def test_what_is_forwarded_upstream_is_named() -> None:
    """By default the client's authorization, cookie and tracing headers go
    upstream; ``forward_headers`` (``--forward-header``) names them instead,
    and ``()`` forwards none."""
    agent = RecordedAgent.from_fixture("agent_turn")
    sent = {"Authorization": "Bearer client", "X-Tenant": "t1", "traceparent": "00-a-b-01"}
    with serve(agent) as upstream:
        for forward, expected in (
            (None, {"authorization", "traceparent"}),
            (["X-Tenant"], {"x-tenant"}),
            ([], set()),
        ):
            options = {} if forward is None else {"forward_headers": forward}
            with serve(Gateway(ProcessUpstream(upstream, **options))) as url:
                httpx.post(f"{url}/process", json=PROCESS_BODY, headers=sent)
            got = {name for name in agent.headers[-1] if name in ("authorization", "x-tenant", "traceparent")}
            assert got == expected, forward
    with pytest.raises(TypeError, match="a list of header names"):
        ProcessUpstream("http://127.0.0.1:9", forward_headers="x-tenant")


def test_the_command_forwards_the_headers_it_is_told() -> None:
    agent = RecordedAgent.from_fixture("agent_turn")
    with (
        serve(agent) as upstream,
        gateway_process("--upstream", upstream, "--forward-header", "X-Tenant") as url,
    ):
        httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer c", "X-Tenant": "t1"}
        )
    assert agent.headers[-1].get("x-tenant") == "t1"
    assert "authorization" not in agent.headers[-1]


def test_a_request_on_a_connection_the_agent_closed_is_sent_again() -> None:
    """An agent server that closes a kept-alive connection when the next
    request arrives on it, unanswered (what a server's idle timeout does
    under a request racing it): the request goes again on a new connection,
    once, and the run streams."""
    stream = b'data: {"object": "response", "status": "completed"}\n\n'

    async def serve_once_per_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answered in (True, False):
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
            if not answered:
                break  # a second request on this connection: dropped unanswered
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(stream), stream)
            )
            await writer.drain()
        writer.close()

    async def main() -> list[bytes]:
        server = await asyncio.start_server(serve_once_per_connection, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        upstream = ProcessUpstream(f"http://127.0.0.1:{port}")
        bodies = []
        try:
            for _ in range(3):
                chunks = await upstream.stream({"input": []}, {})
                bodies.append(b"".join([chunk async for chunk in chunks]))
        finally:
            await upstream.aclose()
            server.close()
        return bodies

    assert asyncio.run(main()) == [stream] * 3


# --- replicas sharing one Redis, started as the README starts the gateway -------------------


def test_a_client_dropped_by_one_replica_resumes_on_another(tmp_path: Path) -> None:
    """Two gateway processes share one redis-server: a client that leaves
    the first mid-stream resumes on the second, which follows the run the
    first is still streaming: every event exactly once, in order."""
    with two_replicas(tmp_path) as (first, second, http):
        assembler = agentscope.Assembler()
        head = b""
        with http.stream("POST", f"{first}/process", json=PROCESS_BODY) as response:
            for chunk in response.iter_raw():
                assembler.feed(chunk)
                head += chunk
                if b"plugin_call" in head:
                    break  # the client's connection to the first replica is gone
        assembler.reconnect()
        resumed = {"Last-Event-ID": assembler.last_event_id}
        rest = http.post(f"{second}/process", json=PROCESS_BODY, headers=resumed).content
        assembler.feed(rest)
        response = assembler.close()
    whole = head[: head.rfind(b"\n\n") + 2]
    numbers = event_numbers(whole) + event_numbers(rest)
    assert numbers == list(range(1, len(numbers) + 1))
    assert response["status"] == "completed"
    assert response["output"][-1]["content"][0]["text"] == ANSWER


def test_the_demo_gateway_serves_from_the_command_line() -> None:
    with gateway_process("--demo-delay", "0") as url:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "agentcodec",
                "stream",
                f"{url}/process",
                "--protocol",
                "agentscope",
                "--assemble",
                "--data",
                json.dumps(PROCESS_BODY),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    lines = out.splitlines()
    assert json.loads(lines[0])["object"] == "response"
    response = json.loads("\n".join(lines[lines.index("{") :]))
    assert response["output"][-1]["content"][0]["text"] == ANSWER


def test_the_store_keeps_every_endpoints_runs() -> None:
    """Every run whose stream a client resumes; none other (NDJSON has no
    event ids to resume after)."""
    store = MemoryReplayStore()
    with serve(Gateway(DemoAgent(delay=0), store=store)) as url, httpx.Client(timeout=30) as http:
        for row in SERVED:
            assert run_at(http, url, row).status_code == 200
    assert len(store) == sum(1 for row in SERVED if row.gateway is not None and row.gateway.resumes)


def test_the_stream_command_reads_its_body_from_a_file(demo: str, tmp_path: Path) -> None:
    body = tmp_path / "run.json"
    body.write_text(json.dumps(PROCESS_BODY))
    command = [sys.executable, "-m", "agentcodec", "stream", f"{demo}/process", "--protocol", "agentscope"]
    out = subprocess.run(
        [*command, "--data", f"@{body}"], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(out.stdout.splitlines()[-1])["status"] == "completed"
    piped = subprocess.run(
        [*command, "--data", "@-"],
        input=json.dumps(PROCESS_BODY),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(piped.stdout.splitlines()[-1])["status"] == "completed"
    bad = subprocess.run(
        [*command, "--data", "{nope"], check=False, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2
    assert "--data is not JSON" in bad.stderr


# --- keys and origins ---------------------------------------------------------------------


def test_api_keys_guard_every_endpoint_but_health_and_stay_at_the_gateway() -> None:
    """With keys, a request needs one (Bearer or X-Api-Key); the upstream
    never sees the gateway's key; the health check needs none."""
    agent = RecordedAgent.from_fixture("agent_turn")
    with serve(agent) as upstream, serve(Gateway(upstream, api_keys=["k1", "k2"])) as url:
        missing = httpx.post(f"{url}/process", json=PROCESS_BODY)
        wrong = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer nope"})
        bearer = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Authorization": "Bearer k2"})
        health = httpx.get(f"{url}/health")
        with httpx.Client(timeout=30) as http:
            for row in SERVED:
                assert row.gateway is not None
                assert (
                    http.post(f"{url}{row.gateway.path}", json=row.gateway.body(QUESTION)).status_code == 401
                )
                keyed = run_at(http, url, row, headers={"X-Api-Key": "k1"})
                assert keyed.status_code == 200, row.name
                assert neutral(row, keyed.content)["status"] == "completed", row.name
    for refused in (missing, wrong):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["error"]["code"] == "unauthorized"
    assert bearer.status_code == 200
    assert data_events(bearer.content)[-1]["status"] == "completed"
    assert health.status_code == 200
    assert len(agent.requests) == 1 + len(SERVED)
    assert all("authorization" not in seen and "x-api-key" not in seen for seen in agent.headers)
    with pytest.raises(ValueError, match="non-empty"):
        Gateway(DemoAgent(), api_keys=[""])


def test_cors_lets_the_configured_origins_in_and_no_other() -> None:
    """Browser frontends call from their origin: a
    preflight from an allowed one is answered, before any key is asked for;
    without origins, nothing cross-origin is allowed."""
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    gateway = Gateway(DemoAgent(delay=0), cors_origins=["https://app.example"], api_keys=["k"])
    with serve(gateway) as url:
        allowed = httpx.options(
            f"{url}/process", headers={**preflight, "Access-Control-Request-Headers": "x-api-key"}
        )
        other = httpx.options(f"{url}/process", headers={**preflight, "Origin": "https://evil.example"})
        posted = httpx.post(
            f"{url}/process", json=PROCESS_BODY, headers={"Origin": "https://app.example", "X-Api-Key": "k"}
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    assert posted.headers["access-control-allow-origin"] == "https://app.example"
    with serve(Gateway(DemoAgent(delay=0))) as url:
        closed = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"Origin": "https://app.example"})
    assert "access-control-allow-origin" not in closed.headers


def test_a_header_route_needs_a_header() -> None:
    with pytest.raises(ValueError, match="at least one header"):
        HeaderRoute("/v1/models", lambda request: None, headers=[])


def test_the_command_takes_keys_from_a_flag_a_file_and_the_environment(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# the team's key\nfrom-file\n")
    command = [sys.executable, "-m", "agentcodec", "gateway", "--log-level", "warning", "--demo-delay", "0"]
    options = ["--api-key", "from-flag", "--api-keys-file", str(keys), "--cors-origin", "https://app.example"]
    with serve_command([*command, *options], env={"AGENTCODEC_GATEWAY_API_KEYS": "from-env, other"}) as url:
        for key in ("from-flag", "from-file", "from-env", "other"):
            response = httpx.post(f"{url}/process", json=PROCESS_BODY, headers={"X-Api-Key": key})
            assert response.status_code == 200, key
        assert httpx.post(f"{url}/process", json=PROCESS_BODY).status_code == 401
        preflight = httpx.options(
            f"{url}/process",
            headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
        )
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
