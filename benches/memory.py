"""Peak memory while assembling a large stream of any protocol. The stream
is written to a file first, by a separate process, then read back in network
chunks, so that only the assembler holds its content. Prints the peak
resident size above the baseline next to the size of the assembled output.

    python benches/memory.py --megabytes 100
    python benches/memory.py --megabytes 100 --protocol NAME   # or --protocol all
    python benches/memory.py --messages 100000   # many small messages: bytes per message
    python benches/memory.py --blocks 200000 --protocol all   # many tiny blocks: bytes per block

The AgentScope stream is one long answer, one token an event; another
protocol's is that stream as agentcodec converts it (its target's framing
and ids, the same text).

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
from agentcodec._protocols import assembler as assembler_of
from agentcodec.agentscope import ResponseBuilder
from agentcodec.events import PROTOCOLS


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


def converted(chunks: Iterator[bytes], protocol: str) -> Iterator[bytes]:
    """The stream as agentcodec converts it into ``protocol``, as it goes."""
    if protocol == "agentscope":
        yield from chunks
        return
    transcoder = agentcodec.Transcoder("agentscope", protocol, **workloads.row(protocol).options)
    for chunk in chunks:
        yield transcoder.feed(chunk)
    yield transcoder.close()


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
    parser.add_argument("--blocks", type=int, help="measure one message of this many tiny blocks instead")
    parser.add_argument(
        "--protocol",
        default="agentscope",
        choices=[*PROTOCOLS, "all"],
        help="the stream's protocol (all: each in a process of its own)",
    )
    parser.add_argument("--write", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.protocol == "all":
        size = ["--blocks", str(args.blocks)] if args.blocks else ["--megabytes", str(args.megabytes)]
        for protocol in PROTOCOLS:
            subprocess.run([sys.executable, __file__, *size, "--protocol", protocol], check=True)
        return 0
    if args.messages:
        size = ["--messages", str(args.messages)]
    elif args.blocks:
        size = ["--blocks", str(args.blocks)]
    else:
        size = ["--megabytes", str(args.megabytes)]
    if args.write:
        with open(args.write, "wb") as out:
            if args.messages:
                chunks = small_messages(args.messages)
            elif args.blocks:
                chunks = iter([workloads.tiny_blocks_stream(args.protocol, args.blocks).data])
            else:
                # The AgentScope stream that converts to about the size asked for.
                sample = sum(map(len, converted(stream(1.0), args.protocol))) / 1e6
                chunks = converted(stream(args.megabytes / sample), args.protocol)
            for chunk in chunks:
                out.write(chunk)
        return 0
    with tempfile.TemporaryDirectory() as directory:
        capture = Path(directory) / "stream.sse"
        command = [sys.executable, __file__, *size, "--protocol", args.protocol, "--write", str(capture)]
        subprocess.run(command, check=True)
        if args.messages:
            return measure_messages(capture, args.messages)
        if args.blocks:
            return measure_blocks(capture, args.protocol, args.blocks)
        return measure(capture, args.protocol)


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


def measure_blocks(capture: Path, protocol: str, count: int) -> int:
    gc.collect()
    baseline = peak_rss_mb()
    assembler = assembler_of(protocol, max_blocks=None)
    fed = feed_file(assembler, capture)
    grown = peak_rss_mb() - baseline
    result = assembler.close()
    assert len(json.dumps(result)) > count  # each block is in it
    print(
        f"{protocol}, {agentcodec.backend} backend: fed {fed / 1e6:.1f} MB, {count} blocks,"
        f" {fed / count:.0f} bytes a block; peak RSS above baseline {grown:.1f} MB,"
        f" {grown * 1024 * 1024 / count:.0f} bytes per block"
    )
    return 0


def longest_text(value: Any) -> str:
    """The longest string in an assembled result: the answer."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return max((longest_text(item) for item in value), key=len, default="")
    return ""


def measure(capture: Path, protocol: str) -> int:
    gc.collect()
    baseline = peak_rss_mb()
    assembler = assembler_of(protocol)
    fed = feed_file(assembler, capture)
    result = assembler.close()
    # Measured before anything else copies the result.
    grown = peak_rss_mb() - baseline
    text = longest_text(result)
    output_mb = len(json.dumps(result, ensure_ascii=False).encode()) / 1e6
    # The targets: the native backend at most twice the output, the pure one
    # four times (its per-token pieces are joined in bounded batches).
    factor = 2 if agentcodec.backend == "native" else 4
    limit = factor * output_mb + 32
    print(
        f"{protocol}, {agentcodec.backend} backend: fed {fed / 1e6:.1f} MB;"
        f" assembled text {len(text.encode()) / 1e6:.1f} MB,"
        f" result JSON {output_mb:.1f} MB; peak RSS above baseline {grown:.1f} MB"
        f" (target: at most {factor} x output + 32 = {limit:.1f} MB: {'met' if grown <= limit else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
