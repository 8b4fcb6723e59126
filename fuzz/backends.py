"""Coverage-guided differential fuzzing of the Python API (atheris): every
input is fed, cut into chunks, to each protocol's assembler and to
``PartialJSON`` on both backends, which must agree on every call's outcome
(the value returned, or the exception's type and message) and on everything
read afterwards. The pure backend's code is instrumented, so inputs that
reach new branches of it are kept.

    python fuzz/backends.py -max_total_time=60 fuzz/corpus/backends tests/fixtures/sdk ...

A disagreement raises, and atheris writes the input that caused it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import atheris

with atheris.instrument_imports(include=["agentcodec"]):
    import agentcodec._pure as pure

import agentcodec._native as native


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
    assembler = getattr(backend, name)(on_error=on_error, max_line_bytes=4096, max_event_bytes=8192)
    seen = [outcome(lambda piece=piece: assembler.feed(piece)) for piece in pieces]
    reads = (*READS[name], *(read for read in COMMON if read not in READS[name]))
    seen += [outcome(lambda read=read: getattr(assembler, read)) for read in reads]
    seen.append(outcome(assembler.close))
    seen += [outcome(lambda read=read: getattr(assembler, read)) for read in reads]
    return seen


def run_partial_json(backend: Any, pieces: list[bytes]) -> list[Any]:
    parser = backend.PartialJSON()
    seen = []
    for piece in pieces:
        seen.append(outcome(lambda piece=piece: parser.feed(piece)))
        seen.append(outcome(lambda: (parser.value, parser.done, parser.offset)))
    seen.append(outcome(parser.close))
    seen.append(outcome(lambda: (parser.value, parser.done, parser.offset)))
    return seen


def test_one_input(data: bytes) -> None:
    seed, data = data[:8], data[8:]
    pieces = chunks(seed, data)
    on_error = "skip" if seed[:1] and seed[0] & 1 else "raise"
    for name in ASSEMBLERS:
        ours = run_assembler(native, name, on_error, pieces)
        theirs = run_assembler(pure, name, on_error, pieces)
        if ours != theirs:
            raise AssertionError(f"{name}: the backends disagree\nnative: {ours}\npure:   {theirs}")
    ours, theirs = run_partial_json(native, pieces), run_partial_json(pure, pieces)
    if ours != theirs:
        raise AssertionError(f"PartialJSON: the backends disagree\nnative: {ours}\npure:   {theirs}")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
