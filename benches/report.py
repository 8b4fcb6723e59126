"""Measures agentcodec against its peers, side by side in one run, and prints
a Markdown table: workload x implementation -> MB/s, events/s, and how many
times faster agentcodec's native backend is.

    python benches/report.py            # the standard workloads
    python benches/report.py --full     # and the 1M-delta stream (minutes)
    python benches/report.py --quick    # small workloads: a smoke run
    python benches/report.py --chart docs/img  # and draw it (chart.py, matplotlib)
    python benches/report.py --bound    # each agent turn: native against its bound

Peers that are not installed are left out of the table. The implementations
a row compares are timed in turn, in five rounds of --min-time / 5 seconds
each (nine for the two lengths of a linearity stream; round_times). Its MB/s
and events/s are each one's best run; how many times faster the native
backend is, is the median of the rounds' ratios (each round's best of the
one against its best of the other), so that a slow spell of a busy host,
which lands on one round, cannot make or break a ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib.metadata
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agentcodec
import peers
import workloads

ROUNDS = 5


def round_times(
    runs: dict[Any, Callable[[], Any]], min_time: float, rounds: int = ROUNDS
) -> dict[Any, list[float]]:
    """Each run's best time in each of ``rounds`` rounds, the runs taken in
    turn within a round, each for ``min_time / rounds`` seconds (once at
    least). Measured one after the other, a spell of slowness on a busy host
    lands on one of them and reads as a difference between them; in turn,
    each has samples from across the whole time, and a spell lands on the
    same round of each. The objects alive before (the workloads, the
    results of earlier measurements) are frozen out of the cyclic GC
    meanwhile, so that the collections a run triggers cost what its own
    objects cost, whatever was measured before it in the process."""
    times: dict[Any, list[float]] = {key: [] for key in runs}
    gc.collect()
    gc.freeze()
    try:
        for _ in range(rounds):
            for key, run in runs.items():
                spent, count, best = 0.0, 0, float("inf")
                while count == 0 or spent < min_time / rounds:
                    gc.collect()
                    start = time.perf_counter()
                    run()
                    elapsed = time.perf_counter() - start
                    best = min(best, elapsed)
                    spent += elapsed
                    count += 1
                times[key].append(best)
        return times
    finally:
        gc.unfreeze()


def best_times(runs: dict[Any, Callable[[], Any]], min_time: float, rounds: int = ROUNDS) -> dict[Any, float]:
    """Each run's best time over all rounds (round_times)."""
    return {key: min(times) for key, times in round_times(runs, min_time, rounds).items()}


def median_ratio(times: list[float], reference: list[float]) -> float:
    """How many times longer the one took than the reference: the median
    of the rounds' ratios (round_times' lists, round for round)."""
    return statistics.median(mine / theirs for mine, theirs in zip(times, reference, strict=True))


def ratio_rows(
    label: str, times: dict[str, list[float]], megabytes: float, events: int
) -> list[tuple[str, str, float, float, float]]:
    """The rows of one workload: each implementation's best MB/s and
    events/s, and its median ratio to the first one's (the native
    backend's)."""
    reference = next(iter(times.values()))
    return [
        (label, name, megabytes / min(mine), events / min(mine), median_ratio(mine, reference))
        for name, mine in times.items()
    ]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = [f"agentcodec {agentcodec.__version__} ({agentcodec.backend})"]
    # The framing and decoding peers', then each protocol's.
    distributions = ["httpx-sse", "openai", "sseclient-py", "orjson"]
    for workload in workloads.rows():
        distributions += (name for name in workload.distributions if name not in distributions)
    for dist in distributions:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
        f"CPython {platform.python_version()}; " + ", ".join(versions)
    )


def copies_of(chunks: list[Any], repeat: int) -> list[list[Any]]:
    """``repeat`` copies of the chunks, each in its own memory: a stream run
    again and again from one copy is read from the CPU's cache, where a long
    one comes from memory, and a comparison of two lengths would be of the
    cache and the memory, not of the lengths."""
    return [chunks] + [[bytes(bytearray(chunk)) for chunk in chunks] for _ in range(repeat - 1)]


def run_each(impl: Callable[[list[Any]], Any], copies: list[list[Any]]) -> None:
    for copy in copies:
        impl(copy)


def measure(
    layer: str,
    streams: list[tuple[str, workloads.Stream, list[Any], int]],
    *,
    min_time: float,
    skip: tuple[str, ...] = (),
    only: tuple[str, ...] | None = None,
    rounds: int = ROUNDS,
) -> list[tuple[str, str, float, float, float]]:
    """Every implementation of the layer on each stream, side by side, in
    turn (best_times). A stream is ``(label, stream, chunks, repeat)``: a
    sample of it is ``repeat`` runs over as many copies of its chunks, so
    that a short stream compared with a long one (the linearity runs) is
    timed in samples as long as the long one's: best of hundreds of short
    runs against best of a few long ones would favour the short. ``skip``
    leaves out the implementations whose names have one of its words;
    ``only`` names the ones to measure alone."""
    impls = [
        (name, impl)
        for name, impl in peers.available(layer)
        if (only is None or name in only) and not any(word in name for word in skip)
    ]
    runs: dict[tuple[str, int], Callable[[], Any]] = {}
    for index, (_, _, chunks, repeat) in enumerate(streams):
        copies = copies_of(chunks, repeat)
        for name, impl in impls:
            if not getattr(impl, "reports_time", False):
                runs[name, index] = functools.partial(run_each, impl, copies)
    times = round_times(runs, min_time, rounds)
    rows = []
    for index, (label, stream, chunks, repeat) in enumerate(streams):
        native: list[float] | None = None
        for name, impl in impls:
            if (name, index) in times:
                mine = [elapsed / repeat for elapsed in times[name, index]]
            else:
                # It times itself (another runtime): as many runs as
                # min_time holds, at least three, its best as every round's.
                once = impl.timed(chunks, runs=1)  # type: ignore[attr-defined]
                mine = [impl.timed(chunks, runs=max(3, int(min_time / max(once, 1e-6))))]  # type: ignore[attr-defined]
            if name.startswith("agentcodec native") and native is None:
                native = mine
            if native is None:
                ratio = float("nan")
            elif len(mine) == len(native):
                ratio = median_ratio(mine, native)
            else:
                ratio = min(mine) / min(native)
            elapsed = min(mine)
            rows.append((label, name, stream.megabytes / elapsed, stream.events / elapsed, ratio))
    return rows


NATIVE = "agentcodec native"

# The linearity runs (--full): each protocol's stream of text deltas (a
# converted one is the agent turn), and the conversion's, made at a given
# number of deltas.
LINEARITY: dict[str, Callable[[str, int], workloads.Stream]] = {
    **{workload.layer: workload.stream for workload in workloads.rows()},
    **{
        workload.conversion.layer: workloads.agentscope_stream
        for workload in workloads.rows()
        if workload.conversion is not None
    },
}


def linearity_pair(
    layer: str,
    stream_of: Callable[[str, int], workloads.Stream],
    lengths: tuple[tuple[int, int], ...] = ((10_000, 100), (1_000_000, 1)),
) -> list[tuple[str, workloads.Stream, list[Any], int]]:
    """The short and the long stream of a linearity run, as measure() takes
    them: ``lengths`` is ``(deltas, repeat)`` for each, the short one
    repeated so that a sample of it is as long as one of the long one."""
    pair = []
    for count, repeat in lengths:
        stream = stream_of("text", count)
        label = f"{layer.partition('_')[0]} {stream.name} (linearity), network chunks"
        pair.append((label, stream, workloads.network_chunks(stream.data), repeat))
    return pair


def build_rows(count: int, min_time: float) -> list[tuple[str, str, float, float, float]]:
    tokens = workloads.tokens(count)
    size = len(b"".join(agentcodec.agentscope.ResponseBuilder().generate_streaming_sse(tokens))) / 1e6
    impls = peers.available("build")
    times = round_times({name: lambda impl=impl: impl(tokens) for name, impl in impls}, min_time)
    return ratio_rows(f"build {count} token events", times, size, count + 7)


def encode_kind_rows(count: int, min_time: float) -> list[tuple[str, str, float, float, float]]:
    """Writing events of one kind each (floats, non-ASCII text, nested
    objects, lists, integers, and all in turn), made as dicts before the
    timing, as SSE."""
    rows = []
    impls = peers.available("encode")
    for kind in workloads.ENCODED_KINDS:
        events = workloads.encoded_events(kind, count)
        size = sum(map(len, map(agentcodec.encode_sse, events))) / 1e6
        times = round_times(
            {name: lambda impl=impl, events=events: impl(events) for name, impl in impls}, min_time
        )
        rows += ratio_rows(f"write {count} {kind} events made as dicts", times, size, len(events))
    return rows


def encode_rows(count: int, min_time: float) -> list[tuple[str, str, float, float, float]]:
    """Writing the builders' events, made as dicts before the timing, as SSE."""
    events = list(
        agentcodec.agentscope.ResponseBuilder(session_id="s").generate_streaming_response(
            workloads.tokens(count)
        )
    )
    size = sum(map(len, map(agentcodec.encode_sse, events))) / 1e6
    impls = peers.available("encode")
    times = round_times({name: lambda impl=impl: impl(events) for name, impl in impls}, min_time)
    return ratio_rows(f"write {count} token events made as dicts", times, size, len(events))


def bound_report(min_time: float) -> int:
    """Each protocol's agent turn, its native assembler beside the bound no
    reader of the same bytes goes below (peers.strict_validation): the
    bound's ratio is the share of it the assembler reaches."""
    rows = []
    for workload in workloads.rows():
        if not any(name == peers.BOUND for name, _ in peers.available(workload.layer)):
            continue
        for count in (2000, 20000):
            stream = workload.stream("agent", count)
            label = f"assemble {stream.name}, network chunks"
            print(f"measuring {workload.layer}: {label}", file=sys.stderr)
            case = [(label, stream, workloads.network_chunks(stream.data), 1)]
            rows += measure(workload.layer, case, min_time=min_time, only=(NATIVE, peers.BOUND))
    print(f"Machine: {machine()}\n")
    print("| workload | implementation | MB/s | events/s | share of the bound |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, name, mbps, eps, ratio in rows:
        if name == peers.BOUND:
            print(f"| {label} | {name} | {mbps:,.1f} | {eps:,.0f} | {ratio:.2f} |")
        else:
            print(f"| {label} | {name} | {mbps:,.1f} | {eps:,.0f} | |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="include the 1M-delta stream")
    parser.add_argument("--quick", action="store_true", help="small workloads only (a smoke run)")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds to spend on each figure")
    parser.add_argument(
        "--layer", action="append", help="measure only this layer (repeatable), e.g. assemble_chat"
    )
    parser.add_argument(
        "--chart", type=Path, metavar="DIR", help="also draw the results as PNGs in DIR (chart.py)"
    )
    parser.add_argument(
        "--bound",
        action="store_true",
        help="only each protocol's agent turns (2k and 20k tokens), the native assembler beside "
        "its strict-validation bound",
    )
    args = parser.parse_args(argv)
    if args.bound:
        return bound_report(args.min_time)
    long = 2000 if args.quick else 20000
    rows: list[tuple[str, str, float, float, float]] = []
    # Building first, in a fresh process: the dict path builds hundreds of
    # thousands of small dicts, and measured after the other workloads it
    # ran up to 2.5x slower than alone (with the older objects frozen out
    # of the GC too), which says nothing about the builders.
    print("measuring building", file=sys.stderr)
    build = build_rows(long, args.min_time) if not args.layer or "build" in args.layer else []
    if not args.layer or "encode" in args.layer:
        build += encode_rows(long, args.min_time) + encode_kind_rows(long, args.min_time)

    def add(layer: str, label: str, stream: workloads.Stream, chunks: list[Any], **kw: Any) -> None:
        if args.layer and layer not in args.layer:
            return
        print(f"measuring {layer}: {label}", file=sys.stderr)
        rows.extend(measure(layer, [(label, stream, chunks, 1)], min_time=args.min_time, **kw))

    text = workloads.agentscope_stream("text", long)
    short = workloads.agentscope_stream("text", 200)
    add(
        "framing",
        f"SSE framing, AgentScope {long} tokens, network chunks",
        text,
        workloads.network_chunks(text.data),
    )
    add("framing", f"SSE framing, AgentScope {long} tokens, one buffer", text, [text.data])
    add(
        "framing",
        "SSE framing, AgentScope 200 tokens, one byte at a time",
        short,
        [short.data[i : i + 1] for i in range(len(short.data))],
    )
    add(
        "decode",
        f"SSE + JSON to dicts, AgentScope {long} tokens, network chunks",
        text,
        workloads.network_chunks(text.data),
    )
    for workload in workloads.rows():
        for case in workload.cases(args.quick, long):
            add(workload.layer, case.label, case.stream, case.chunks, skip=case.skip)
    streams = 100 if args.quick else 1000
    served = workloads.agentscope_stream("text", 200)
    add(
        "serve_agentscope",
        f"serve {streams} concurrent {served.name} streams, interleaved",
        workloads.Stream(f"{streams} x {served.name}", served.data * streams, served.events * streams),
        workloads.interleaved(served, streams),
    )
    agent = workloads.agentscope_stream("agent", long // 10)
    for workload in workloads.rows():
        if workload.conversion is not None:
            add(
                workload.conversion.layer,
                f"convert {agent.name} to {workload.conversion.label}, network chunks",
                agent,
                workloads.network_chunks(agent.data),
            )
    if args.full:
        # Each stream at 10k and 1M deltas, timed in turn (measure), the
        # native backend alone: the peers and the pure backend would take
        # seconds a run at 1M deltas. Nine rounds, each about one run of the
        # 1M stream, so that a spell of slowness spans both lengths more
        # often than in three.
        for layer, stream_of in LINEARITY.items():
            if args.layer and layer not in args.layer:
                continue
            pair = linearity_pair(layer, stream_of)
            print(f"measuring {layer}: {pair[0][0]} against {pair[1][1].name}", file=sys.stderr)
            rows.extend(measure(layer, pair, min_time=args.min_time, only=(NATIVE,), rounds=9))
    rows.extend(build)

    print(f"Machine: {machine()}\n")
    print("| workload | implementation | MB/s | events/s | native is faster by |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, name, mbps, eps, ratio in rows:
        # Two decimals where the targets are stated in them (1.2x).
        print(f"| {label} | {name} | {mbps:,.1f} | {eps:,.0f} | {ratio:,.{2 if ratio < 10 else 1}f}x |")
    if args.chart is not None:
        import chart  # matplotlib, only when asked for

        for path in chart.draw([chart.Row(*row) for row in rows], f"Machine: {machine()}", args.chart):
            print(f"drew {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
