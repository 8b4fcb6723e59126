"""Peak memory while assembling a large AgentScope stream. The stream is
written to a file first, by a separate process, then read back in network
chunks, so that only the assembler holds its content. Prints the peak
resident size above the baseline next to the size of the assembled output.

    python benches/memory.py --megabytes 100
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agentcodec
import workloads
from agentcodec.agentscope import ResponseBuilder


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def stream(megabytes: float) -> Iterator[bytes]:
    """The stream, in network-sized chunks, generated as it goes."""
    builder = ResponseBuilder(session_id="memory")
    budget = int(megabytes * 1e6)
    produced = 0

    def tokens() -> Iterator[str]:
        nonlocal produced
        while produced < budget:
            yield from workloads.tokens(1000, seed=produced)

    pending = bytearray()
    sizes = iter(workloads.network_chunks(b"\0" * 1_000_000))
    for frame in builder.generate_streaming_sse(tokens()):
        produced += len(frame)
        pending += frame
        while len(pending) >= 4096:
            size = len(next(sizes, b"\0" * 4096)) or 1
            yield bytes(pending[:size])
            del pending[:size]
    yield bytes(pending)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=100.0)
    parser.add_argument("--write", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write:
        with open(args.write, "wb") as out:
            for chunk in stream(args.megabytes):
                out.write(chunk)
        return 0
    with tempfile.TemporaryDirectory() as directory:
        capture = Path(directory) / "stream.sse"
        command = [sys.executable, __file__, "--megabytes", str(args.megabytes), "--write", str(capture)]
        subprocess.run(command, check=True)
        return measure(capture)


def measure(capture: Path) -> int:
    gc.collect()
    baseline = peak_rss_mb()
    assembler = agentcodec.agentscope.Assembler()
    fed = 0
    sizes = [len(chunk) for chunk in workloads.network_chunks(b"\0" * 100_000)]
    with open(capture, "rb") as source:
        for position in itertools.count():
            chunk = source.read(sizes[position % len(sizes)])
            if not chunk:
                break
            assembler.feed(chunk)
            fed += len(chunk)
    response = assembler.close()
    # Measured before anything else copies the result.
    grown = peak_rss_mb() - baseline
    text = response["output"][0]["content"][0]["text"]
    output_mb = len(json.dumps(response, ensure_ascii=False).encode()) / 1e6
    print(
        f"{agentcodec.backend} backend: fed {fed / 1e6:.1f} MB;"
        f" assembled text {len(text.encode()) / 1e6:.1f} MB,"
        f" response JSON {output_mb:.1f} MB; peak RSS above baseline {grown:.1f} MB"
        f" (target: at most 2 x output + 32 = {2 * output_mb + 32:.1f} MB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
