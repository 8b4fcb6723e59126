"""Where a long stream's rate falls short of a short one's, and why: for each
linearity stream of ``report.py --full`` (10k and 1M deltas), the native
backend's rate at both lengths, timed in turn, next to the minor page faults
a run of each takes (fresh memory the kernel maps and zeroes) and what a
fault costs on this machine. Then, where the C library is glibc, the same
with its allocator told to keep the memory it is given back (``mallopt``:
no ``mmap`` below 32 MiB, no trimming), so that the 1M stream's run reuses
the heap as each of the 10k stream's hundred runs a sample does.

    python benches/linearity.py             # every stream, 10k and 1M deltas
    python benches/linearity.py --layer assemble_agentscope
    python benches/linearity.py --quick     # 1k and 10k deltas: a smoke run
    python benches/linearity.py --phases    # and where an assembler's time goes

A 1M-delta stream's large values (the answer's text, and the snapshots that
carry it again at the end) are each an allocation of megabytes, which glibc
maps fresh from the kernel and unmaps when freed; the 10k stream's are below
its ``mmap`` threshold and come from a heap its earlier runs warmed. The
faults are the kernel's work, not agentcodec's, and cost what the host makes
them cost; and glibc raises its threshold as large blocks are freed, so what
a stream takes depends on what the process did before it.

The last column is the ratio of the two rates with each run's faults, at
what a fault costs here, taken out of its time: the assembler's own work,
which is what linear or not is said of. Where a result is made of many
small objects (a part for every chunk, a dict each), those are pymalloc's arenas,
which CPython maps and unmaps itself, so no ``mallopt`` keeps them.

``--phases`` times an assembler's three phases apart, per MB of stream:
reading the stream (``feed``), making the result (``close()``) and freeing
it, each with the faults it takes. A phase that is linear costs the same a
MB at both lengths, once its faults are taken out.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import gc
import mmap
import platform
import re
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agentcodec
import peers
import report
import workloads
from agentcodec import _protocols

# mallopt's parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def faults_of(run: Callable[[], Any]) -> int:
    """The minor page faults one call of ``run`` takes."""
    gc.collect()
    before = minor_faults()
    run()
    return minor_faults() - before


def fault_seconds(megabytes: int = 64, tries: int = 5) -> float:
    """What a minor fault costs here: a byte written to each page of fresh
    anonymous memory, less the same writes to the pages once mapped (the
    loop's own cost); the best of ``tries``."""
    size = megabytes << 20
    pages = range(0, size, mmap.PAGESIZE)
    best = float("inf")
    for _ in range(tries):
        with mmap.mmap(-1, size) as memory:
            start = time.perf_counter()
            for offset in pages:
                memory[offset] = 1
            first = time.perf_counter() - start
            start = time.perf_counter()
            for offset in pages:
                memory[offset] = 2
            again = time.perf_counter() - start
        best = min(best, (first - again) / len(pages))
    return best


def rate_less_faults(rate: float, faults_per_megabyte: float, fault: float) -> float:
    """MB/s with the time the run's page faults took (``fault`` seconds
    each) taken out of it."""
    return 1 / (1 / rate - faults_per_megabyte * fault)


def keep_freed_memory() -> bool:
    """Tells glibc's allocator to serve allocations up to 32 MiB (its most)
    from the heap and never to give the heap back; ``False`` where the C
    library is not glibc."""
    if platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(None)
    return bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1))


def measure(
    layer: str,
    pair: list[tuple[str, Any, list[Any], int]],
    min_time: float,
) -> list[tuple[float, float]]:
    """(MB/s, faults per MB) of the native backend on each stream of the
    pair, the two timed in turn in nine rounds, as report.py --full does."""
    impl = dict(peers.available(layer))[report.NATIVE]
    runs = {
        index: functools.partial(report.run_each, impl, report.copies_of(chunks, repeat))
        for index, (_, _, chunks, repeat) in enumerate(pair)
    }
    best = report.best_times(runs, min_time, rounds=9)
    results = []
    for index, (_, stream, _, repeat) in enumerate(pair):
        megabytes = stream.megabytes * repeat
        results.append((megabytes / best[index], faults_of(runs[index]) / megabytes))
    return results


def phase_times(protocol: str, copies: list[list[bytes]]) -> tuple[list[float], list[int]]:
    """Seconds and faults of reading each copy, making its result and
    freeing it, summed over the copies."""
    seconds = [0.0, 0.0, 0.0]
    faults = [0, 0, 0]
    for chunks in copies:
        marks = [(time.perf_counter(), minor_faults())]
        assembler = _protocols.assembler(protocol, max_stream_bytes=None)
        for chunk in chunks:
            assembler.feed(chunk)
        marks.append((time.perf_counter(), minor_faults()))
        result = assembler.close()
        marks.append((time.perf_counter(), minor_faults()))
        del result, assembler
        marks.append((time.perf_counter(), minor_faults()))
        for phase in range(3):
            seconds[phase] += marks[phase + 1][0] - marks[phase][0]
            faults[phase] += marks[phase + 1][1] - marks[phase][1]
    return seconds, faults


def phases_report(
    layer: str, pair: list[tuple[str, Any, list[Any], int]], fault: float, rounds: int = 7
) -> None:
    """The phases of the layer's native assembler on each stream of the
    pair (each one's best of ``rounds`` whole runs), as table rows."""
    protocol = next(workload.protocol for workload in workloads.rows() if workload.layer == layer)
    for _, stream, chunks, repeat in pair:
        copies = report.copies_of(chunks, repeat)
        best: tuple[list[float], list[int]] | None = None
        for _ in range(rounds):
            gc.collect()
            measured = phase_times(protocol, copies)
            if best is None or sum(measured[0]) < sum(best[0]):
                best = measured
        assert best is not None
        megabytes = stream.megabytes * repeat
        cells = []
        for seconds, faults in zip(*best, strict=True):
            milliseconds = seconds * 1e3 / megabytes
            cells.append(f"{milliseconds:.3f} ({milliseconds - faults * fault * 1e3 / megabytes:.3f})")
        print(
            f"| {protocol} | {stream.name} | " + " | ".join(cells) + f" | {sum(best[1]) / megabytes:,.1f} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k and 10k deltas (a smoke run)")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds to spend on each pair")
    parser.add_argument("--layer", action="append", choices=sorted(report.LINEARITY), help="this stream only")
    parser.add_argument("--phases", action="store_true", help="and each assembler's phases timed apart")
    args = parser.parse_args(argv)
    lengths = ((1_000, 10), (10_000, 1)) if args.quick else ((10_000, 100), (1_000_000, 1))
    short, long = (
        f"{count // 1000}k" if count < 1_000_000 else f"{count // 1_000_000}M" for count, _ in lengths
    )
    layers = [layer for layer in report.LINEARITY if not args.layer or layer in args.layer]
    pairs = {}
    for layer in layers:
        print(f"making {layer}'s streams", file=sys.stderr)
        pairs[layer] = report.linearity_pair(layer, report.LINEARITY[layer], lengths)
    fault = fault_seconds()
    results: dict[str, list[list[tuple[float, float]]]] = {layer: [] for layer in layers}
    settings = ["glibc's defaults"]
    for layer in layers:
        print(f"measuring {layer}", file=sys.stderr)
        results[layer].append(measure(layer, pairs[layer], args.min_time))
    if keep_freed_memory():
        settings.append("freed memory kept")
        for layer in layers:
            print(f"measuring {layer}, freed memory kept", file=sys.stderr)
            results[layer].append(measure(layer, pairs[layer], args.min_time))

    print(f"Machine: {report.machine()}\n")
    print(
        f"A minor page fault costs {fault * 1e6:.2f} µs here "
        "(fresh pages written, less the same writes again).\n"
    )
    print(
        f"| stream | allocator | {short} MB/s | {long} MB/s | {long} rate / {short} rate "
        f"| faults per MB, {short} | faults per MB, {long} | faults' share of a {long} run "
        "| the same ratio, the faults' time taken out |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for layer in layers:
        name = re.sub(r"-\d+.*", "", pairs[layer][1][1].name)  # the stream's name, less its length
        for setting, ((short_rate, short_faults), (long_rate, long_faults)) in zip(
            settings, results[layer], strict=True
        ):
            share = long_faults * fault * long_rate
            work = rate_less_faults(long_rate, long_faults, fault) / rate_less_faults(
                short_rate, short_faults, fault
            )
            print(
                f"| {layer.partition('_')[0]} {name} | {setting} | {short_rate:,.1f} | {long_rate:,.1f} "
                f"| {long_rate / short_rate:.0%} | {short_faults:,.1f} | {long_faults:,.1f} | {share:.0%} "
                f"| {work:.0%} |"
            )
    if args.phases:
        assembling = [
            layer for layer in layers if any(workload.layer == layer for workload in workloads.rows())
        ]
        print(
            f"\nThe native assembler's phases ({agentcodec.backend}), milliseconds a MB of stream, "
            "and in brackets less the time of the phase's faults:\n"
        )
        print("| protocol | stream | reading the stream | making the result | freeing it | faults per MB |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for layer in assembling:
            print(f"timing {layer}'s phases", file=sys.stderr)
            phases_report(layer, pairs[layer], fault, rounds=1 if args.quick else 7)
    return 0


if __name__ == "__main__":
    sys.exit(main())
