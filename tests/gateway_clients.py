"""What the gateway tests do as clients: run the agent at a protocol's
endpoint (as its table row says), read what the run assembles to in the
protocol-neutral view, and the gateways they run against."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from agent_servers import RecordedAgent
from agentcodec import events
from agentcodec.gateway import DemoAgent, Gateway
from protocol_table import TABLE, Row
from servers import redis_server, serve, serve_command

QUESTION = "How many words are in this question?"
ANSWER = f'You wrote "{QUESTION}": that is 7 words.'

#: The protocols the gateway serves, by their rows.
SERVED = [row for row in TABLE.values() if row.gateway is not None]


@contextlib.contextmanager
def gateway_before(agent: RecordedAgent, **options: Any) -> Iterator[str]:
    """A gateway on uvicorn in front of ``agent`` on uvicorn: its URL."""
    with serve(agent) as upstream, serve(Gateway(upstream, **options)) as url:
        yield url


def reading_request(row: Row, question: str = QUESTION) -> tuple[str, Any]:
    """The request whose answer is the run's stream: ``(path, body)``."""
    assert row.gateway is not None
    return row.gateway.read_at or (row.gateway.path, row.gateway.body(question))


def run_at(
    http: httpx.Client, url: str, row: Row, question: str = QUESTION, **options: Any
) -> httpx.Response:
    """Runs the agent on ``question`` at the row's endpoint: the response
    carrying the run's stream (``options``: the request's, e.g. headers)."""
    assert row.gateway is not None
    started = http.post(f"{url}{row.gateway.path}", json=row.gateway.body(question), **options)
    if row.gateway.read_at is None or started.status_code != 200:
        return started
    path, body = row.gateway.read_at
    return http.post(f"{url}{path}", json=body, **options)


def neutral(row: Row, stream: bytes) -> dict[str, Any]:
    """What ``stream`` of the row's protocol assembles to, protocol-neutral."""
    assembler = events.Assembler(row.name)
    assembler.feed(stream)
    result: dict[str, Any] = assembler.close()
    return result


def texts(result: dict[str, Any]) -> list[str]:
    """The text blocks of a neutral result's messages, in order."""
    return [
        block["text"]
        for message in result["messages"]
        for block in message["blocks"]
        if block["kind"] == "text" and message["role"] == "assistant"
    ]


def event_numbers(stream: bytes) -> list[int]:
    """The numbers ending the ``id:`` lines of an SSE stream, in order."""
    return [int(line.rpartition(b":")[2]) for line in stream.split(b"\n") if line.startswith(b"id: ")]


def gateway_process(*arguments: str) -> contextlib.AbstractContextManager[str]:
    """``agentcodec gateway`` in a process of its own, as the README starts it."""
    return serve_command(
        [sys.executable, "-m", "agentcodec", "gateway", "--log-level", "warning", *arguments]
    )


@contextlib.contextmanager
def two_replicas(tmp_path: Path, demo_delay: float = 0.01) -> Iterator[tuple[str, str, httpx.Client]]:
    """Two ``agentcodec gateway`` processes sharing one redis-server, and a
    client; the demo agent waits ``demo_delay`` seconds between its events."""
    with redis_server(tmp_path) as redis_url:
        arguments = ("--redis", redis_url, "--demo-delay", str(demo_delay))
        with (
            gateway_process(*arguments) as first,
            gateway_process(*arguments) as second,
            httpx.Client(timeout=30) as http,
        ):
            yield first, second, http


def preflight_allows(path: str, headers: Any) -> None:
    """Check that a browser page of an allowed origin may send ``headers``
    (their names: an SDK's own, sent with every request) to ``path``: the
    CORS preflight lets each of them in, or the page's every call fails."""
    asked = sorted({str(name).lower() for name in headers})
    gateway = Gateway(DemoAgent(delay=0), cors_origins=["https://app.example"], api_keys=["k"])
    with serve(gateway) as url:
        preflight = httpx.options(
            f"{url}{path}",
            headers={
                "Origin": "https://app.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": ", ".join(asked),
            },
        )
    assert preflight.status_code == 200, preflight.text
    allowed = preflight.headers["access-control-allow-headers"].lower().split(",")
    assert {name.strip() for name in allowed} >= set(asked)
