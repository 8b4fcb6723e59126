"""Load on the gateway: N concurrent clients each stream one agent turn from
an endpoint; prints events per second across them and the server's
resident memory per open stream, for the gateway and, side by side in the
same run, for agentscope-runtime's AgentApp serving the same turn.

The agent turn is the one recorded from an AgentApp (tests/fixtures/
agentapp/agent_turn: reasoning, a tool call, its result and a 300-chunk
answer, 330 Agent API events). The gateway fronts an Agent API server that
replays it (so that what is measured is the gateway, not an agent); the
AgentApp runs the fixture script's handler, which yields the same turn. Every
server is a uvicorn process of its own on loopback; the clients are httpx.

    python benches/gateway_load.py --streams 1 10 100
    python benches/gateway_load.py --agentapp-python /tmp/asr/bin/python   # and the AgentApp

With ``--agentapp-python`` it also measures the gateway in front of the
AgentApp itself (the AgentApp's ``/process`` as its upstream): the rate of the
chain, the memory of the gateway.

With ``--redis`` the gateway records its streams in a redis-server of its
own (started here, on a Unix socket), as replicas sharing a store do.

The AgentApp needs agentscope-runtime in its own environment (research
agentscope.md section 13 and scripts/agentapp_fixtures.py say how).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What is the weather in Paris?"


def body(endpoint: str, stream: int) -> dict[str, Any]:
    """The request of one stream: each stream is a conversation of its own (an
    AgentApp runs one request per session at a time)."""
    if endpoint == "/ag-ui":
        messages = [{"id": "u", "role": "user", "content": QUESTION}]
        return {"threadId": f"t{stream}", "runId": f"r{stream}", "messages": messages}
    if endpoint == "/compatible-mode/v1/responses":
        return {"model": "friday", "input": QUESTION, "stream": True}
    if endpoint == "/process":
        return {
            "input": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
            "session_id": f"s{stream}",
        }
    raise ValueError(f"no request for {endpoint}")


UPSTREAM = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import uvicorn
    from agent_servers import RecordedAgent
    agent = RecordedAgent.from_fixture("agent_turn", chunk=4096)
    uvicorn.run(agent, fd=int(sys.argv[1]), log_level="warning")
    """
)

AGENTAPP = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {scripts!r})
    import uvicorn
    from agentapp import make_app
    uvicorn.run(make_app(fail=False), fd=int(sys.argv[1]), log_level="warning")
    """
)


@contextlib.contextmanager
def server(command: list[str]) -> Iterator[tuple[str, int]]:
    """A server process handed a listening socket; yields its URL and pid."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    process = subprocess.Popen(
        [*command, str(sock.fileno())],
        pass_fds=[sock.fileno()],
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command[:3]} exited with {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(url + "/health", timeout=1)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{command[:3]} did not start")
            time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(10)
        sock.close()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server of its own, as the tests start one; yields its URL."""
    sys.path.insert(0, str(ROOT / "tests"))
    from servers import redis_server as tests_redis_server

    with tempfile.TemporaryDirectory() as directory, tests_redis_server(Path(directory)) as url:
        yield url


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def one_stream(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> int:
    """Reads one stream to its end; returns how many events it carried."""
    events = 0
    async with http.stream("POST", url, json=body) as response:
        response.raise_for_status()
        tail = b""
        async for chunk in response.aiter_raw():
            data = tail + chunk
            events += data.count(b"\n\n")
            tail = data[-1:]
    return events


async def load(url: str, endpoint: str, streams: int, pid: int) -> dict[str, float]:
    baseline = rss_mb(pid)
    peak = baseline
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mb(pid))
            await asyncio.sleep(0.005)

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=streams)
    async with httpx.AsyncClient(timeout=300, limits=limits) as http:
        whole = await one_stream(
            http, url + endpoint, body(endpoint, -1)
        )  # warm up: imports, first connection
        baseline = rss_mb(pid)
        sampler = asyncio.create_task(sample())
        start = time.perf_counter()
        counts = await asyncio.gather(
            *(one_stream(http, url + endpoint, body(endpoint, i)) for i in range(streams))
        )
        elapsed = time.perf_counter() - start
        done.set()
        await sampler
    return {
        "events": sum(counts),
        "events_per_s": sum(counts) / elapsed,
        "seconds": elapsed,
        "kib_per_stream": max(0.0, peak - baseline) * 1024 / streams,
        # Streams cut short (a refused or failed run) would flatter the rate.
        "short": sum(1 for count in counts if count < whole),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 10, 100], help="concurrent streams")
    parser.add_argument("--endpoints", nargs="+", default=["/ag-ui", "/compatible-mode/v1/responses"])
    parser.add_argument(
        "--agentapp-python", help="a Python with agentscope-runtime, to measure the AgentApp too"
    )
    parser.add_argument("--redis", action="store_true", help="the gateway's streams in a redis-server")
    args = parser.parse_args()
    store = contextlib.ExitStack()
    redis_options = ["--redis", store.enter_context(redis_server())] if args.redis else []

    python = sys.executable
    upstream_code = UPSTREAM.format(tests=str(ROOT / "tests"))

    def gateway(upstream: str) -> list[str]:
        return [
            python,
            "-m",
            "agentcodec",
            "gateway",
            "--upstream",
            upstream,
            *redis_options,
            "--log-level",
            "warning",
            "--fd",
        ]

    short = 0

    def measure(name: str, url: str, pid: int, endpoints: list[str] = args.endpoints) -> None:
        nonlocal short
        for endpoint in endpoints:
            for streams in args.streams:
                result = asyncio.run(load(url, endpoint, streams, pid))
                short += int(result["short"])
                rate, memory = result["events_per_s"], result["kib_per_stream"]
                print(
                    f"{name:18} {endpoint:31} {streams:4} streams: {rate:9.0f} events/s"
                    f"  {memory:7.1f} KiB/stream  ({result['events']} events"
                    f" in {result['seconds']:.2f} s)"
                    + (f"  {result['short']} streams cut short!" if result["short"] else ""),
                    flush=True,
                )

    with server([python, "-c", upstream_code]) as (upstream, _), server(gateway(upstream)) as (url, pid):
        measure("gateway", url, pid)
    if args.agentapp_python:
        agentapp_code = AGENTAPP.format(scripts=str(ROOT / "scripts"))
        with server([args.agentapp_python, "-c", agentapp_code]) as (agentapp, agentapp_pid):
            # Its /process too: the upstream of the chain below, what bounds it.
            measure("AgentApp", agentapp, agentapp_pid, [*args.endpoints, "/process"])
            # The gateway in front of the AgentApp itself: what a deployment runs; the
            # memory is the gateway's, the rate the two processes' together.
            with server(gateway(agentapp + "/process")) as (url, pid):
                measure("gateway > AgentApp", url, pid)
    store.close()
    import agentcodec

    print(
        f"\n{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"agentcodec {agentcodec.__version__} ({agentcodec.backend} backend)"
    )
    if short:
        print(f"{short} streams were cut short: their rates are not comparable", file=sys.stderr)
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
