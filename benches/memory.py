"""Peak memory while assembling a large AgentScope stream. The stream is
written to a file first, by a separate process, then read back in network
chunks, so that only the assembler holds its content. Prints the peak
resident size above the baseline next to the size of the assembled output.

    python benches/memory.py --megabytes 100
    python benches/memory.py --messages 100000   # many small messages: bytes per message

``AGENTCODEC_BACKEND=python`` measures the pure backend.
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
from typing import Any

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


def small_messages(count: int) -> Iterator[bytes]:
    """``count`` short assistant messages, each streamed as an agent server
    writes one: announced, two text deltas, the content completed, the
    message completed."""
    for number in range(count):
        message = {"object": "message", "id": f"msg_{number:08d}", "type": "message", "role": "assistant"}
        content = {"object": "content", "type": "text", "index": 0, "msg_id": message["id"]}
        events = [
            {**message, "status": "in_progress"},
            {**content, "delta": True, "status": "in_progress", "text": "hello "},
            {**content, "delta": True, "status": "in_progress", "text": "there"},
            {**content, "delta": False, "status": "completed", "text": "hello there"},
            {**message, "status": "completed"},
        ]
        yield b"".join(
            b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n" for event in events
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=100.0)
    parser.add_argument("--messages", type=int, help="measure this many small messages instead")
    parser.add_argument("--write", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    size = ["--messages", str(args.messages)] if args.messages else ["--megabytes", str(args.megabytes)]
    if args.write:
        with open(args.write, "wb") as out:
            for chunk in small_messages(args.messages) if args.messages else stream(args.megabytes):
                out.write(chunk)
        return 0
    with tempfile.TemporaryDirectory() as directory:
        capture = Path(directory) / "stream.sse"
        command = [sys.executable, __file__, *size, "--write", str(capture)]
        subprocess.run(command, check=True)
        return measure_messages(capture, args.messages) if args.messages else measure(capture)


def feed_file(assembler: Any, capture: Path) -> int:
    """Feeds the capture in network-sized chunks; returns the bytes fed."""
    fed = 0
    sizes = [len(chunk) for chunk in workloads.network_chunks(b"\0" * 100_000)]
    with open(capture, "rb") as source:
        for position in itertools.count():
            chunk = source.read(sizes[position % len(sizes)])
            if not chunk:
                break
            assembler.feed(chunk)
            fed += len(chunk)
    return fed


def measure_messages(capture: Path, count: int) -> int:
    gc.collect()
    baseline = peak_rss_mb()
    assembler = agentcodec.agentscope.Assembler()
    fed = feed_file(assembler, capture)
    grown = peak_rss_mb() - baseline
    messages = assembler.messages
    assert len(messages) == count
    assert messages[-1]["content"][0]["text"] == "hello there"
    print(
        f"{agentcodec.backend} backend: fed {fed / 1e6:.1f} MB, {count} messages;"
        f" peak RSS above baseline {grown:.1f} MB, {grown * 1024 * 1024 / count:.0f} bytes per message"
    )
    return 0


def measure(capture: Path) -> int:
    gc.collect()
    baseline = peak_rss_mb()
    assembler = agentcodec.agentscope.Assembler()
    fed = feed_file(assembler, capture)
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
