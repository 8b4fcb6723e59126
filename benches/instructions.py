"""Instructions the native backend executes on the core workloads, counted
by valgrind's callgrind: a figure a noisy machine cannot move, compared with
the committed baseline (benches/instructions.json) so that a regression
fails the full test command (scripts/test.sh --full).

    python benches/instructions.py            # measure, compare, fail on a regression
    python benches/instructions.py --record   # write the baseline from this machine

Record it with the release wheel (scripts/build-release.sh), which the test
command measures: a `maturin develop` build of the same source differs by up
to 2%.

Each workload (each assembler on its stream, two conversions, and `encode_sse` writing the
builders' events made as dicts) runs in a process of its own under callgrind twice: once
whole, once doing everything but the work (start-up, reading the stream,
making the object); the difference is the work's. PYTHONHASHSEED is fixed,
so the interpreter's share repeats too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

BASELINE = Path(__file__).resolve().parent / "instructions.json"
#: A workload may cost this much more than its baseline before it fails.
TOLERANCE = 0.03
CHUNK = 4096


def workloads_measured() -> dict[str, tuple[str, str]]:
    """Each workload's name: (what it runs, the stream it runs on). Each
    protocol's assembler on the streams its row names (``workloads/<name>.py``),
    then the framing, the conversions the rows name and the writing of events."""
    import workloads  # the parent process alone makes streams
    from agentcodec._pure.registry import PROTOCOLS

    measured = {"sse-decode": ("SSEDecoder", "agentscope-agent")}
    for workload in workloads.rows():
        for name, kind in workload.instructions.items():
            measured[name] = (PROTOCOLS[workload.protocol].exported_as, f"{workload.protocol}-{kind}")
    for workload in workloads.rows():
        if workload.conversion is not None:
            measured[workload.conversion.instructions] = (
                f"Transcoder:{workload.protocol}",
                "agentscope-agent",
            )
    # The builders' events of a 5,000-token answer, made as dicts, written;
    # then 5,000 events with floats, and with non-ASCII text.
    measured["encode-events"] = ("encode_sse", "tokens")
    measured["encode-floats"] = ("encode_sse", "events-floats")
    measured["encode-non-ascii"] = ("encode_sse", "events-non-ascii")
    return measured


def stream(name: str) -> bytes:
    """The stream a workload runs on: ``tokens``, ``events-<kind>`` (5,000
    events of a kind, as JSON), or ``<protocol>-<kind>`` of 5,000 deltas."""
    import workloads

    if name == "tokens":
        return json.dumps(workloads.tokens(5000)).encode()
    if name.startswith("events-"):
        return json.dumps(workloads.encoded_events(name.removeprefix("events-"), 5000)).encode()
    protocol, _, kind = name.rpartition("-")
    return workloads.row(protocol).stream(kind, 5000).data


def run(what: str, path: str, base: bool) -> None:
    """The measured process: the work on the stream at ``path``, or with
    ``base`` everything but the work."""
    from agentcodec import _native

    if what == "encode_sse":
        from agentcodec.agentscope import ResponseBuilder

        made = json.loads(Path(path).read_text())
        if Path(path).stem.startswith("events-"):
            events = made  # events of a kind, made as dicts
        else:
            events = list(ResponseBuilder(session_id="s").generate_streaming_response(made))
        if not base:
            for event in events:
                _native.encode_sse(event)
        return
    data = Path(path).read_bytes()
    chunks = [data[at : at + CHUNK] for at in range(0, len(data), CHUNK)]
    kind, _, target = what.partition(":")
    worker: Any = getattr(_native, kind)("agentscope", target) if target else getattr(_native, kind)()
    if base:
        return
    for chunk in chunks:
        worker.feed(chunk)
    worker.close()


def count(what: str, path: str, base: bool) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--run",
        what,
        path,
        *(["--base"] if base else []),
    ]
    # Whether the modules come compiled from a cache changes the work's
    # count too (by up to 3%: what was compiled in the process is laid out
    # otherwise). The baseline's processes compiled agentcodec's modules as
    # they imported them, and kept nothing: so do these, whatever the
    # environment says (scripts/test.sh keeps bytecode elsewhere).
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no count for {what}:\n{result.stderr}")
    return int(found.group(1))


def measure() -> dict[str, int]:
    counts = {}
    with tempfile.TemporaryDirectory() as directory:
        made: dict[str, str] = {}
        for name, (what, source) in workloads_measured().items():
            if source not in made:
                made[source] = str(Path(directory) / f"{source}.sse")
                Path(made[source]).write_bytes(stream(source))
            counts[name] = count(what, made[source], base=False) - count(what, made[source], base=True)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write the baseline")
    parser.add_argument("--run", nargs=2, metavar=("WHAT", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--base", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        run(*args.run, base=args.base)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 1
    counts = measure()
    if args.record:
        BASELINE.write_text(json.dumps(counts, indent=2) + "\n")
        print(f"wrote {BASELINE}")
        return 0
    baseline = json.loads(BASELINE.read_text())
    failed = []
    print(f"{'workload':<22}{'baseline':>14}{'now':>14}{'change':>9}")
    for name, now in counts.items():
        then = baseline.get(name)
        if then is None:
            print(f"{name:<22}{'-':>14}{now:>14,}{'new':>9}")
            continue
        change = now / then - 1
        print(f"{name:<22}{then:>14,}{now:>14,}{change:>+9.1%}")
        if change > TOLERANCE:
            failed.append(name)
    if failed:
        print(
            f"more than {TOLERANCE:.0%} over the baseline: {', '.join(failed)} "
            "(if the cost is meant, `python benches/instructions.py --record` and say why in the commit)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
