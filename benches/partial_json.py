"""Tool-call arguments as they stream, read after every delta: agentcodec's
PartialJSON (each byte parsed once, one live tree) against what the SDK
accumulators do, re-parsing the whole buffer with jiter's partial mode on
every delta (as the providers' Python SDKs do). Prints seconds per run
and MB/s of arguments for 1 KB, 100 KB and 1 MB of arguments, so that the
growth with length shows: linear keeps its MB/s, quadratic loses it.

Two shapes: ``records`` (an array of small objects: what most tool calls
carry) and ``document`` (one long string: a file's content), where the string
being written is rebuilt on every read by both.

Then the same through an assembler, for each protocol whose benchmark row
has ``tool_arguments`` (``benches/workloads/``): a message of one tool call
(SSE bytes, as the protocol's servers frame its events) whose arguments are
read from the assembler after every delta, against the protocol's SDK where
the row names a way it has (given its event models ready-made, which
favours it).

    python benches/partial_json.py            # jiter up to 100 KB
    python benches/partial_json.py --full     # jiter at 1 MB too (minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import jiter

import agentcodec
from agentcodec import _pure
from agentcodec._protocols import encoder

try:
    from agentcodec import _native
except ImportError:  # the pure package alone
    _native = None  # type: ignore[assignment]
from agentcodec._pure.registry import PROTOCOLS
from workloads import ToolArguments, rows

DELTA = 24  # bytes per argument delta: a few tokens


def records(size: int) -> str:
    items, count = [], 0
    while count < size:
        item = {"id": len(items), "name": f"item {len(items)} ünïcode", "tags": ["a", "b"], "score": 1.25}
        items.append(item)
        count += len(json.dumps(item)) + 2
    return json.dumps({"items": items})


def document(size: int) -> str:
    line = "def handler(event):  # the agent writes a file\n"
    return json.dumps({"path": "app.py", "content": (line * (size // len(line) + 1))[:size]})


def deltas(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


def with_partial_json(make: Callable[[], Any]) -> Callable[[list[str]], Any]:
    def run(pieces: list[str]) -> Any:
        parser = make()
        value = None
        for piece in pieces:
            parser.feed(piece)
            value = parser.value
        return value

    return run


def with_jiter(pieces: list[str]) -> Any:
    buffer = ""
    value = None
    for piece in pieces:
        buffer += piece
        value = jiter.from_json(buffer.encode(), partial_mode="trailing-strings")
    return value


def with_assembler(make: Callable[[], Any], arguments: ToolArguments) -> Callable[[list[bytes]], Any]:
    def run(frames: list[bytes]) -> Any:
        assembler = make()
        value = None
        for frame in frames:
            assembler.feed(frame)
            calls = getattr(assembler, arguments.accessor)
            if calls:
                value = calls[0][arguments.field]
        return value

    return run


def timed(run: Callable[[list[str]], Any], pieces: list[str], expected: Any, budget: float) -> float:
    best = float("inf")
    spent = 0.0
    while spent < budget or best == float("inf"):
        start = time.perf_counter()
        value = run(pieces)
        elapsed = time.perf_counter() - start
        assert value == expected
        best = min(best, elapsed)
        spent += elapsed
    return best


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help="re-parse with jiter at 1 MB too")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds to spend on each figure")
    args = parser.parse_args()
    contenders: list[tuple[str, Callable[[list[str]], Any]]] = [
        (f"agentcodec PartialJSON ({agentcodec.backend})", with_partial_json(agentcodec.PartialJSON)),
        ("agentcodec PartialJSON (python)", with_partial_json(_pure.PartialJSON)),
        ("jiter partial re-parse per delta", with_jiter),
    ]
    sizes = [1_000, 100_000, 1_000_000]
    print(f"{'shape':9} {'arguments':>9}  {'implementation':36} {'seconds':>9} {'MB/s':>8}")
    for shape, make in (("records", records), ("document", document)):
        for size in sizes:
            text = make(size)
            pieces = deltas(text)
            expected = json.loads(text)
            for name, run in contenders:
                if size >= 1_000_000 and run is with_jiter and not args.full:
                    continue
                seconds = timed(run, pieces, expected, args.budget)
                rate = len(text) / 1e6 / seconds
                print(f"{shape:9} {len(text) / 1e3:7.0f}KB  {name:36} {seconds:9.4f} {rate:8.1f}", flush=True)
    print(f"\n{'through an assembler':19}  {'implementation':36} {'seconds':>9} {'MB/s':>8}")
    for workload in rows():
        arguments = workload.tool_arguments
        if arguments is None:
            continue
        protocol = workload.protocol
        exported_as = PROTOCOLS[protocol].exported_as
        frame = encoder(protocol)
        native = getattr(_native if _native is not None else _pure, exported_as)
        for size in sizes:
            text = records(size)
            events = arguments.events(deltas(text))
            frames = [bytes(frame(event)) for event in events]
            expected = json.loads(text)
            contenders = [
                (f"agentcodec {protocol} ({agentcodec.backend})", with_assembler(native, arguments), frames),
                (
                    f"agentcodec {protocol} (python)",
                    with_assembler(getattr(_pure, exported_as), arguments),
                    frames,
                ),
            ]
            if arguments.peer is not None and arguments.peer[3] and (size < 1_000_000 or args.full):
                name, prepare, read, _ = arguments.peer
                contenders.append((name, read, prepare(events)))
            for name, run, given in contenders:
                seconds = timed(run, given, expected, args.budget)
                rate = len(text) / 1e6 / seconds
                print(f"records {len(text) / 1e3:9.0f}KB  {name:36} {seconds:9.4f} {rate:8.1f}", flush=True)
    print(
        f"\n{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"agentcodec {agentcodec.__version__}, jiter {jiter.__version__}; {DELTA}-byte deltas, "
        "the value read after each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
