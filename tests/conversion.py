"""Converting streams for the tests: every recorded stream of every protocol
as a source, converted with options that make runs compare, and read back
through the neutral view. Shared by the conversion suite and the protocols'
own tests of what a conversion into them writes."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from conftest import NATIVE, PURE
from protocol_table import TABLE
from protocols import sse_event

SOURCES = [(name, path) for name, row in TABLE.items() for path in row.streams()]
SOURCE_IDS = [f"{protocol}:{path.parent.name}/{path.stem}" for protocol, path in SOURCES]
# Deterministic output: the options that would otherwise come from the clock or a random id.
OPTIONS = {name: row.fixed_options for name, row in TABLE.items()}
# An Agent API run cancelled after some text: what each target must end as
# its cancelled run, keeping the text.
CANCELLED_RUN = b"".join(
    sse_event(event)
    for event in (
        {"object": "response", "id": "r1", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "partial"},
        {"object": "response", "id": "r1", "status": "canceled"},
    )
)


def backends() -> list[ModuleType]:
    return [backend for backend in (NATIVE, PURE) if backend is not None]


def chunked(data: bytes, chunk: int | None) -> Iterator[bytes]:
    """``data`` whole (``chunk`` None), or in pieces of 1 to ``chunk`` bytes,
    the same pieces on every run for one ``chunk``."""
    if chunk is None:
        yield data
        return
    rng = random.Random(chunk)
    position = 0
    while position < len(data):
        size = rng.randint(1, chunk)
        yield data[position : position + size]
        position += size


def assemble(assembler: Any, data: bytes, chunk: int | None = None) -> Any:
    """``assembler`` fed ``data`` (see ``chunked``), then closed; returns it."""
    for piece in chunked(data, chunk):
        assembler.feed(piece)
    assembler.close()
    return assembler


def convert(backend: ModuleType, source: str, target: str, stream: bytes, chunk: int | None = None) -> bytes:
    transcoder = backend.Transcoder(source, target, **OPTIONS[target])
    out = b"".join(transcoder.feed(piece) for piece in chunked(stream, chunk))
    return out + transcoder.close()


def view(backend: ModuleType, protocol: str, stream: bytes) -> dict[str, Any]:
    assembler = backend.NeutralAssembler(protocol)
    assembler.feed(stream)
    neutral = assembler.close()
    decoder = backend.NeutralDecoder(protocol)
    events = decoder.feed(stream) + decoder.close()
    neutral["ended"] = any(event["type"] in ("run_finished", "run_failed") for event in events)
    return neutral


def round_trip(backend: ModuleType, source: str, through: str, stream: bytes) -> bytes:
    """The stream converted into ``through`` and back. A reasoning signature
    the way there loses is reported there, where the row of ``through`` says
    it has no place for one, and nowhere else."""
    there = backend.Transcoder(source, through, **OPTIONS[through])
    converted = there.feed(stream) + there.close()
    lost = [loss["why"] for loss in there.losses if loss["what"] == "signatures"]
    carried = TABLE[through].carries_signatures_of(TABLE[source])
    assert lost == ([] if carried else [f"{through} has no place for a reasoning signature"])
    back = backend.Transcoder(through, source, **OPTIONS[source])
    return back.feed(converted) + back.close()  # type: ignore[no-any-return]


def signed_reasoning(**fields: Any) -> list[dict[str, Any]]:
    """Neutral events: a run of one reasoning block whose signature comes as
    ``fields`` (a ``block_replaced``'s)."""
    return [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "rs_1", "role": "assistant", "kind": "reasoning"},
        {"type": "block_started", "message_id": "rs_1", "index": 0, "kind": "reasoning"},
        {"type": "block_delta", "message_id": "rs_1", "index": 0, "delta": "thinking"},
        {"type": "block_replaced", "message_id": "rs_1", "index": 0, **fields},
        {"type": "block_finished", "message_id": "rs_1", "index": 0},
        {"type": "message_finished", "message_id": "rs_1"},
        {"type": "run_finished", "status": "completed"},
    ]


def sse(events: list[dict[str, Any]]) -> bytes:
    """Events as SSE, each named by its ``type``."""
    return b"".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events)
