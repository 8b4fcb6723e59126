"""Coverage-guided differential fuzzing of the Python API (atheris): every
input is fed, cut into chunks, to each protocol's assembler and neutral
decoder, to one ``Transcoder`` (its source, target and treatment of executed
tool calls picked by the input) and to ``PartialJSON``, on both backends,
which must agree on every call's outcome (the value returned, or the
exception's type and message) and on everything read afterwards. The pure
backend's code is instrumented, so inputs that reach new branches of it are
kept.

    python fuzz/backends.py -max_total_time=60 fuzz/corpus/backends tests/fixtures/sdk ...

A disagreement raises, and atheris writes the input that caused it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

with atheris.instrument_imports(include=["agentcodec"]):
    import agentcodec._pure as pure

    # The package loads its API on first use; loaded here, the modules that
    # do the work are instrumented too, not only the package's own.
    import agentcodec._pure.api  # noqa: F401

import agentcodec._native as native

# The encoders' ids and times, fixed by the tests' table of protocols, so
# that both backends write the same bytes.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from protocol_table import TABLE

PROTOCOLS = tuple(TABLE)
OPTIONS = {name: row.fixed_options for name, row in TABLE.items()}
LIMITS = {"max_line_bytes": 4096, "max_event_bytes": 8192}


# Each protocol's assembler by its name in the backends (the neutral one
# takes a protocol and is fuzzed through the others).
def assemblers(backend: Any) -> list[str]:
    return sorted(name for name in dir(backend) if name.endswith("Assembler") and name != "NeutralAssembler")


ASSEMBLERS = assemblers(native)
assert assemblers(pure) == ASSEMBLERS, "the backends have the same assemblers"


def reads_of(name: str) -> tuple[str, ...]:
    """Everything an assembler of the class gives to read (its properties):
    the same on both backends, as the stubs have them."""
    cls = getattr(native, name)
    return tuple(
        sorted(
            read
            for read in dir(cls)
            if not read.startswith("_")
            and not callable(getattr(cls, read))
            and hasattr(getattr(cls, read), "__get__")
        )
    )


READS = {name: reads_of(name) for name in ASSEMBLERS}
COMMON = ("errors", "event_count", "error_count", "last_event_id", "retry")


def outcome(call: Callable[[], Any]) -> Any:
    """What a call gives: its value, or its exception's type and message."""
    try:
        return ("ok", call())
    except Exception as exc:  # every outcome is compared, errors included
        return ("raised", type(exc).__name__, str(exc))


def chunks(seed: bytes, data: bytes) -> list[bytes]:
    """``data`` cut where the seed's bytes say: each a piece's length."""
    pieces, at = [], 0
    for size in seed or b"\xff":
        if at >= len(data):
            break
        pieces.append(data[at : at + size + 1])
        at += size + 1
    if at < len(data):
        pieces.append(data[at:])
    return pieces


def run_assembler(backend: Any, name: str, on_error: str, pieces: list[bytes]) -> list[Any]:
    assembler = getattr(backend, name)(on_error=on_error, **LIMITS)
    seen = [outcome(lambda piece=piece: assembler.feed(piece)) for piece in pieces]
    reads = (*READS[name], *(read for read in COMMON if read not in READS[name]))
    seen += [outcome(lambda read=read: getattr(assembler, read)) for read in reads]
    seen.append(outcome(assembler.close))
    seen += [outcome(lambda read=read: getattr(assembler, read)) for read in reads]
    return seen


def run_stream(stream: Any, pieces: list[bytes], reads: tuple[str, ...]) -> list[Any]:
    """What feeding a neutral decoder or a transcoder gives, and then ends it."""
    seen = [outcome(lambda piece=piece: stream.feed(piece)) for piece in pieces]
    seen.append(outcome(stream.close))
    seen += [outcome(lambda read=read: getattr(stream, read)) for read in reads]
    return seen


def run_decoder(backend: Any, source: str, on_error: str, pieces: list[bytes]) -> list[Any]:
    decoder = backend.NeutralDecoder(source, on_error=on_error, **LIMITS)
    return run_stream(decoder, pieces, COMMON)


def run_transcoder(backend: Any, route: tuple[str, ...], on_error: str, pieces: list[bytes]) -> list[Any]:
    source, target, executed = route
    transcoder = backend.Transcoder(
        source, target, on_error=on_error, executed_tool_calls=executed, **LIMITS, **OPTIONS[target]
    )
    return run_stream(transcoder, pieces, (*COMMON, "losses"))


def run_partial_json(backend: Any, pieces: list[bytes]) -> list[Any]:
    parser = backend.PartialJSON()
    seen = []
    for piece in pieces:
        seen.append(outcome(lambda piece=piece: parser.feed(piece)))
        seen.append(outcome(lambda: (parser.value, parser.done, parser.offset)))
    seen.append(outcome(parser.close))
    seen.append(outcome(lambda: (parser.value, parser.done, parser.offset)))
    return seen


def agree(what: str, ours: list[Any], theirs: list[Any]) -> None:
    if ours != theirs:
        raise AssertionError(f"{what}: the backends disagree\nnative: {ours}\npure:   {theirs}")


def test_one_input(data: bytes) -> None:
    seed, data = data[:8], data[8:]
    pieces = chunks(seed, data)
    on_error = "skip" if seed[:1] and seed[0] & 1 else "raise"
    for name in ASSEMBLERS:
        ours = run_assembler(native, name, on_error, pieces)
        agree(name, ours, run_assembler(pure, name, on_error, pieces))
    for source in PROTOCOLS:
        ours = run_decoder(native, source, on_error, pieces)
        agree(f"NeutralDecoder({source!r})", ours, run_decoder(pure, source, on_error, pieces))
    picks = seed.ljust(3, b"\0")
    route = (
        PROTOCOLS[picks[1] % len(PROTOCOLS)],
        PROTOCOLS[picks[2] % len(PROTOCOLS)],
        "omit" if picks[0] & 2 else "write",
    )
    ours = run_transcoder(native, route, on_error, pieces)
    agree(f"Transcoder{route}", ours, run_transcoder(pure, route, on_error, pieces))
    agree("PartialJSON", run_partial_json(native, pieces), run_partial_json(pure, pieces))


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
