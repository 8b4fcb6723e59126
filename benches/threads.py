"""Throughput of many streams assembled on many threads at once: each
thread assembles its own copy of an agent turn, fed in chunks of a given
size, and the figure is the bytes all threads assembled per second of wall
time. The native backend assembles a chunk of at least 4 KiB of ``bytes``
with the GIL released, so threads run in parallel on the machine's cores;
smaller chunks (and the pure backend) take turns on the GIL.

    python benches/threads.py                      # 1 .. os.cpu_count() threads
    AGENTCODEC_BACKEND=python python benches/threads.py
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agentcodec
import workloads


def assemble_on_threads(threads: int, chunks: list[bytes], rounds: int) -> float:
    """Seconds of wall time for ``threads`` threads to each assemble the
    stream ``rounds`` times."""
    start = threading.Barrier(threads + 1)

    def work() -> None:
        start.wait()
        for _ in range(rounds):
            assembler = agentcodec.agentscope.Assembler()
            for chunk in chunks:
                assembler.feed(chunk)
            assembler.close()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    for worker in workers:
        worker.join()
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=200_000, help="tokens in the agent turn")
    parser.add_argument("--chunk", type=int, action="append", help="chunk sizes in bytes (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    stream = workloads.agentscope_stream("agent", args.tokens)
    print(f"{agentcodec.backend} backend, {stream.name} ({stream.megabytes:.1f} MB), {os.cpu_count()} CPUs")
    for size in args.chunk or [1024, 4096, 65536]:
        chunks = [stream.data[at : at + size] for at in range(0, len(stream.data), size)]
        single = None
        for threads in range(1, args.max_threads + 1):
            best = min(assemble_on_threads(threads, chunks, args.rounds) for _ in range(3))
            rate = threads * args.rounds * stream.megabytes / best
            single = single or rate
            scaling = rate / single
            print(f"  {size:>6} B chunks, {threads} threads: {rate:7.1f} MB/s ({scaling:.2f}x one thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
