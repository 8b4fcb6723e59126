"""Converting streams for the tests: every recorded stream of every protocol
as a source, converted with options that make runs compare, and read back
through the neutral view. Shared by the conversion suite and the protocols'
own tests of what a conversion into them writes."""

from __future__ import annotations

import json
import random
from types import ModuleType
from typing import Any

from conftest import NATIVE, PURE
from protocol_table import TABLE

SOURCES = [(name, path) for name, row in TABLE.items() for path in row.streams()]
SOURCE_IDS = [f"{protocol}:{path.parent.name}/{path.stem}" for protocol, path in SOURCES]
# Deterministic output: the options that would otherwise come from the clock or a random id.
OPTIONS = {name: row.fixed_options for name, row in TABLE.items()}


def backends() -> list[ModuleType]:
    return [backend for backend in (NATIVE, PURE) if backend is not None]


def convert(backend: ModuleType, source: str, target: str, stream: bytes, chunk: int | None = None) -> bytes:
    transcoder = backend.Transcoder(source, target, **OPTIONS[target])
    if chunk is None:
        return transcoder.feed(stream) + transcoder.close()
    out = b""
    rng = random.Random(chunk)
    position = 0
    while position < len(stream):
        size = rng.randint(1, chunk)
        out += transcoder.feed(stream[position : position + size])
        position += size
    return out + transcoder.close()


def view(backend: ModuleType, protocol: str, stream: bytes) -> dict[str, Any]:
    assembler = backend.NeutralAssembler(protocol)
    assembler.feed(stream)
    neutral = assembler.close()
    decoder = backend.NeutralDecoder(protocol)
    events = decoder.feed(stream) + decoder.close()
    neutral["ended"] = any(event["type"] in ("run_finished", "run_failed") for event in events)
    return neutral


def agui_stream(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events)
