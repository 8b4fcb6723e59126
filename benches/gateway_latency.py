"""Latency the gateway adds, measured as streaming gateways are benchmarked:
a mock upstream sends 64 text deltas 20 ms apart; N concurrent clients
stream them directly from it and through the gateway, passed through
(``/process``) and converted (``/ag-ui``), and the script prints the time
to the first delta and the gaps between deltas (p50 and p99, across every
stream of every round), what the gateway adds to each (through minus direct,
at each percentile), and the gateway's resident memory per open stream.

Every server is a uvicorn process of its own on loopback; the clients are
httpx, in this process. Direct and through are measured in the same run,
one after the other, each concurrency level ``--rounds`` times.

    python benches/gateway_latency.py                      # 1, 10, 50 and 100 streams
    python benches/gateway_latency.py --streams 50 --rounds 5
    python benches/gateway_latency.py --back-to-back       # bursts through the gateway alone

``--back-to-back`` sends each concurrency's bursts through the gateway one
right after the other (``/process``), as a busy gateway meets them, and
prints each burst's time to the first delta: what the connections a burst
leaves behind cost the next.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import statistics
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateway_load import body, rss_mb, server

DELTAS = 64
GAP = 0.020

# The mock upstream: an Agent API stream of one message whose text comes in
# 64 deltas 20 ms apart, its response and message events around them.
UPSTREAM = textwrap.dedent(
    """
    import asyncio, json, sys
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    def frame(event):
        return b"data: " + json.dumps(event).encode() + b"\\n\\n"

    async def events():
        number = 0
        def numbered(event):
            nonlocal number
            event = {{"sequence_number": number, **event}}
            number += 1
            return frame(event)
        yield numbered({{"object": "response", "id": "r", "status": "created"}})
        yield numbered({{"object": "message", "id": "m", "role": "assistant", "type": "message",
                         "status": "in_progress"}})
        for n in range({deltas}):
            await asyncio.sleep({gap})
            yield numbered({{"object": "content", "msg_id": "m", "type": "text", "index": 0, "delta": True,
                             "text": "tok%d " % n, "status": "in_progress"}})
        yield numbered({{"object": "content", "msg_id": "m", "type": "text", "index": 0,
                         "text": "".join("tok%d " % n for n in range({deltas})), "status": "completed"}})
        yield numbered({{"object": "message", "id": "m", "role": "assistant", "type": "message",
                         "status": "completed"}})
        yield numbered({{"object": "response", "id": "r", "status": "completed"}})

    async def process(request):
        await request.body()
        return StreamingResponse(events(), media_type="text/event-stream")

    async def health(request):
        return JSONResponse({{"status": "ok"}})

    app = Starlette(routes=[Route("/process", process, methods=["POST"]), Route("/health", health)])
    uvicorn.run(app, fd=int(sys.argv[1]), log_level="warning")
    """
).format(deltas=DELTAS, gap=GAP)

# How each endpoint's delta events are told apart from its other events.
DELTA_MARK = {"/process": b'"delta": true', "/ag-ui": b"TEXT_MESSAGE_CONTENT"}


async def one_stream(http: httpx.AsyncClient, url: str, request: dict[str, Any], mark: bytes) -> list[float]:
    """The arrival times of a stream's deltas, from the request."""
    arrivals: list[float] = []
    start = time.perf_counter()
    async with http.stream("POST", url, json=request) as response:
        response.raise_for_status()
        buffered = b""
        async for chunk in response.aiter_raw():
            now = time.perf_counter()
            buffered += chunk
            *events, buffered = buffered.split(b"\n\n")
            arrivals.extend(now - start for event in events if mark in event)
    return arrivals


async def round_of(
    url: str, endpoint: str, streams: int, pid: int | None
) -> tuple[list[float], list[float], float]:
    """First-delta times and gaps of ``streams`` concurrent streams, and the
    server's peak memory above its idle size per stream (KiB)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=streams)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        await one_stream(http, url + endpoint, body(endpoint, -1), DELTA_MARK[endpoint])  # warm up
        idle = rss_mb(pid) if pid is not None else 0.0
        peak = idle
        done = asyncio.Event()

        async def sample() -> None:
            nonlocal peak
            while not done.is_set():
                if pid is not None:
                    peak = max(peak, rss_mb(pid))
                await asyncio.sleep(0.01)

        sampler = asyncio.create_task(sample())
        results = await asyncio.gather(
            *(
                one_stream(http, url + endpoint, body(endpoint, n), DELTA_MARK[endpoint])
                for n in range(streams)
            )
        )
        done.set()
        await sampler
    firsts, gaps = [], []
    for arrivals in results:
        if len(arrivals) != DELTAS:
            raise RuntimeError(f"a stream carried {len(arrivals)} deltas, not {DELTAS}")
        firsts.append(arrivals[0])
        gaps.extend(later - earlier for earlier, later in itertools.pairwise(arrivals))
    return firsts, gaps, max(0.0, peak - idle) * 1024 / streams


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 10, 50, 100], help="concurrent streams")
    parser.add_argument("--rounds", type=int, default=3, help="rounds at each concurrency (default: 3)")
    parser.add_argument(
        "--back-to-back", action="store_true", help="bursts through the gateway, one after another"
    )
    args = parser.parse_args()
    python = sys.executable
    machine = platform.processor() or platform.machine()
    print(f"# {machine}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"# {DELTAS} deltas {GAP * 1000:.0f} ms apart; ms; added = through the gateway minus direct")
    print(
        "streams  endpoint   direct first p50/p99   through first p50/p99   added first p50/p99"
        "   added gap p50/p99   KiB/stream"
    )
    with server([python, "-c", UPSTREAM]) as (upstream, _):
        gateway = [
            python,
            "-m",
            "agentcodec",
            "gateway",
            "--upstream",
            upstream,
            "--log-level",
            "warning",
            "--fd",
        ]
        with server(gateway) as (through, pid):
            if args.back_to_back:
                print("streams  first delta p50/p99 of each burst, through the gateway (/process)")
                for streams in args.streams:
                    bursts = [
                        asyncio.run(round_of(through, "/process", streams, None))[0]
                        for _ in range(args.rounds)
                    ]
                    shown = [
                        f"{percentile(firsts, 0.5) * 1000:.0f}/{percentile(firsts, 0.99) * 1000:.0f}"
                        for firsts in bursts
                    ]
                    print(f"{streams:>7}  " + "  ".join(shown), flush=True)
                return 0
            for streams in args.streams:
                for endpoint in ("/process", "/ag-ui"):
                    direct: tuple[list[float], list[float]] = ([], [])
                    routed: tuple[list[float], list[float]] = ([], [])
                    memory = []
                    for _ in range(args.rounds):
                        firsts, gaps, _ = asyncio.run(round_of(upstream, "/process", streams, None))
                        direct[0].extend(firsts)
                        direct[1].extend(gaps)
                        firsts, gaps, kib = asyncio.run(round_of(through, endpoint, streams, pid))
                        routed[0].extend(firsts)
                        routed[1].extend(gaps)
                        memory.append(kib)
                    row = [f"{streams:>7}  {endpoint:<9}"]
                    for values in (direct[0], routed[0]):
                        row.append(
                            f"{percentile(values, 0.5) * 1000:>10.2f}/{percentile(values, 0.99) * 1000:<8.2f}"
                        )
                    for shown, base in ((routed[0], direct[0]), (routed[1], direct[1])):
                        added = [
                            (percentile(shown, share) - percentile(base, share)) * 1000
                            for share in (0.5, 0.99)
                        ]
                        row.append(f"{added[0]:>10.2f}/{added[1]:<8.2f}")
                    row.append(f"{statistics.median(memory):>8.1f}")
                    print("   ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
