"""Both backends convert, decode, encode and view every stream alike: real
streams of every protocol, broken the ways producers break them (events
dropped, repeated, swapped, fields removed or of the wrong type, text cut),
and generated neutral streams, including ones that make no sense."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec._pure.events import BLOCK_FIELDS, BLOCK_KINDS, EVENT_TYPES
from agentcodec.events import PROTOCOLS
from conftest import NATIVE, PURE, examples
from protocol_table import TABLE
from sse_helpers import data_events

pytestmark = pytest.mark.skipif(NATIVE is None, reason="compares the native backend with the pure one")

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIXTURES = Path(__file__).resolve().parent / "fixtures"
OPTIONS = {name: row.fixed_options for name, row in TABLE.items()}
ODD_VALUES = [None, 0, 1, "", "x", [], {}, True, 1.5, "m1", 2**40]


def _events(path: Path) -> list[Any]:
    """A recorded stream's events, whatever its framing (SSE, NDJSON, binary)."""
    return [event for event in data_events(path.read_bytes()) if isinstance(event, dict)]


STREAMS = {protocol: [_events(path) for path in row.streams()] for protocol, row in TABLE.items()}


def _mutate_value(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        value = dict(value)
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.3:
            del value[key]
        elif roll < 0.6:
            value[key] = rng.choice(ODD_VALUES)
        else:
            value[key] = _mutate_value(rng, value[key])
        return value
    if isinstance(value, list) and value and rng.random() < 0.5:
        value = list(value)
        position = rng.randrange(len(value))
        value[position] = _mutate_value(rng, value[position])
        return value
    if isinstance(value, str) and rng.random() < 0.5:
        return value[: rng.randint(0, len(value))]
    return rng.choice(ODD_VALUES) if rng.random() < 0.3 else value


def broken(rng: random.Random, events: list[Any]) -> list[Any]:
    """A real stream, broken a few times."""
    events = list(events)
    for _ in range(rng.randint(0, 4)):
        if not events:
            break
        position = rng.randrange(len(events))
        roll = rng.random()
        if roll < 0.3:
            del events[position]
        elif roll < 0.5:
            events.insert(position, events[rng.randrange(len(events))])
        elif roll < 0.6:
            other = rng.randrange(len(events))
            events[position], events[other] = events[other], events[position]
        else:
            events[position] = _mutate_value(rng, events[position])
    return events


def neutral_stream(rng: random.Random) -> list[dict[str, Any]]:
    """Neutral events over a few messages and blocks, in any order."""
    events: list[dict[str, Any]] = [
        {
            "type": "run_started",
            "run_id": rng.choice([None, "r", ""]),
            "thread_id": rng.choice([None, "t"]),
            "model": rng.choice([None, "gpt"]),
            "created_at": rng.choice([None, 5]),
        }
    ]
    for _ in range(rng.randint(1, 25)):
        message_id, index, roll = rng.choice(["m1", "m2", "m3"]), rng.randint(0, 2), rng.random()
        if roll < 0.15:
            events.append(
                {
                    "type": "message_started",
                    "message_id": message_id,
                    "role": rng.choice(["assistant", "user", "tool", "system", None]),
                    "kind": rng.choice(["message", "reasoning", "tool_call", "tool_result", None]),
                    "choice": rng.choice([None, 0, 1, -1, "1"]),
                    "namespace": rng.choice(
                        [None, [], ["inner:1"], ["outer:a", "inner:b"], "x", [1], ["a", 2]]
                    ),
                    "node": rng.choice([None, "agent", "tools", "", 5]),
                }
            )
        elif roll < 0.35:
            kind = rng.choice(BLOCK_KINDS)
            event = {"type": "block_started", "message_id": message_id, "index": index, "kind": kind}
            for name in BLOCK_FIELDS[kind]:
                event[name] = rng.choice(
                    [None, "c1", "name", True, "function", "mcp", "server", "custom", "image"]
                )
            if kind == "data" and rng.random() < 0.5:
                # A provider's own block (a server tool's result), bare or in a
                # non-standard wrapper.
                block = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}
                event["value"] = rng.choice([block, {"type": "non_standard", "value": block}])
            events.append(event)
        elif roll < 0.6:
            delta = rng.choice(["ab", '{"a":', "1}", "é", ""])
            events.append({"type": "block_delta", "message_id": message_id, "index": index, "delta": delta})
        elif roll < 0.7:
            fields = rng.choice(
                [
                    {"text": "X"},
                    {"arguments": "{}"},
                    {"output": [{"type": "text"}]},
                    {"name": "n2"},
                    {"annotations": [{"a": 1}]},
                    {"annotations": [{"type": "char_location", "cited_text": "c"}]},
                    {"encrypted": "enc"},
                    {"encrypted": "data", "redacted": True},
                    {"output": None},
                ]
            )
            events.append({"type": "block_replaced", "message_id": message_id, "index": index, **fields})
        elif roll < 0.85:
            events.append({"type": "block_finished", "message_id": message_id, "index": index})
        elif roll < 0.92:
            events.append(
                {
                    "type": "message_finished",
                    "message_id": message_id,
                    "usage": rng.choice([None, {"input_tokens": 3}]),
                    "stop_reason": rng.choice([None, "stop"]),
                }
            )
        elif roll < 0.96:
            events.append(
                {
                    "type": rng.choice(["state_snapshot", "state_patch"]),
                    "snapshot": {"a": 1},
                    "patch": [{"op": "add", "path": "/b", "value": 2}],
                }
            )
        else:
            events.append(
                {"type": "passthrough", "protocol": rng.choice(PROTOCOLS), "event": {"type": "X", "seq": 3}}
            )
    roll = rng.random()
    if roll < 0.5:
        events.append(
            {
                "type": "run_finished",
                "status": rng.choice(["completed", "incomplete", "cancelled", "interrupted", None]),
                "usage": rng.choice([None, {"input_tokens": 1}]),
                "result": rng.choice([None, {"x": 1}]),
            }
        )
    elif roll < 0.7:
        events.append(
            {
                "type": "run_failed",
                "code": rng.choice([None, "c"]),
                "message": rng.choice([None, "boom", ""]),
                "usage": rng.choice([None, {"input_tokens": 1}]),
            }
        )
    # Fields of the wrong type: no encoder may fail on them (but the type,
    # which an encoder refuses where it is no neutral one).
    for _ in range(rng.choice([0, 0, 1, 2])):
        position = rng.randrange(len(events))
        original = events[position]
        mutated = _mutate_value(rng, original)
        # (the same event may be mutated twice: the first time into no object)
        if isinstance(mutated, dict) and isinstance(original, dict):
            mutated["type"] = original["type"]
        events[position] = mutated
    return events


def outcome(backend: ModuleType, use: str, source: str | None, target: str, events: list[Any]) -> Any:
    """Everything a user sees of one use of the neutral classes (``source``:
    None for an encoder, which has none)."""
    try:
        if use == "transcode":
            transcoder = backend.Transcoder(source, target, on_error="skip", **OPTIONS[target])
            written = [transcoder.feed_event(event) for event in events], transcoder.close()
            return written, transcoder.errors, transcoder.losses
        if use == "decode":
            decoder = backend.NeutralDecoder(source, on_error="skip")
            return [decoder.feed_event(event) for event in events], decoder.close(), decoder.errors
        if use == "view":
            assembler = backend.NeutralAssembler(source, on_error="skip")
            for event in events:
                assembler.feed_event(event)
            return assembler.close(), assembler.errors
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        return [encoder.encode(event) for event in events], encoder.close(), encoder.losses
    except Exception as exc:
        return type(exc).__name__, str(exc)


@SETTINGS
@given(
    rng=st.randoms(use_true_random=False),
    source=st.sampled_from(PROTOCOLS),
    target=st.sampled_from(PROTOCOLS),
    use=st.sampled_from(["transcode", "decode", "view"]),
)
def test_backends_agree_on_broken_real_streams(
    rng: random.Random, source: str, target: str, use: str
) -> None:
    events = broken(rng, rng.choice(STREAMS[source]))
    assert outcome(NATIVE, use, source, target, events) == outcome(PURE, use, source, target, events)


@SETTINGS
@given(rng=st.randoms(use_true_random=False), target=st.sampled_from(PROTOCOLS))
def test_backends_encode_any_neutral_stream_alike(rng: random.Random, target: str) -> None:
    events = neutral_stream(rng)
    assert outcome(NATIVE, "encode", None, target, events) == outcome(PURE, "encode", None, target, events)


@SETTINGS
@given(
    rng=st.randoms(use_true_random=False),
    source=st.sampled_from(PROTOCOLS),
    target=st.sampled_from(PROTOCOLS),
    chunk=st.integers(1, 400),
)
def test_any_chunking_converts_alike(rng: random.Random, source: str, target: str, chunk: int) -> None:
    events = broken(rng, rng.choice(STREAMS[source]))
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    if rng.random() < 0.5:
        stream += b"data: [DONE]\n\n"  # Chat's end of the run; the others skip it
    whole = PURE.Transcoder(source, target, on_error="skip", **OPTIONS[target])
    expected = whole.feed(stream) + whole.close()
    for backend in (NATIVE, PURE):
        transcoder = backend.Transcoder(source, target, on_error="skip", **OPTIONS[target])
        pieces = [transcoder.feed(stream[start : start + chunk]) for start in range(0, len(stream), chunk)]
        assert b"".join(pieces) + transcoder.close() == expected


EVERY_EVENT: list[dict[str, Any]] = [
    {"type": "run_started", "run_id": "r", "thread_id": "t", "model": "m", "created_at": 5},
    {"type": "message_started", "message_id": "m1", "role": "assistant", "kind": "message", "choice": 0},
    {"type": "block_started", "message_id": "m1", "index": 0, "kind": "reasoning", "summary": None},
    {"type": "block_replaced", "message_id": "m1", "index": 0, "encrypted": "e", "redacted": True},
    {"type": "block_started", "message_id": "m1", "index": 1, "kind": "tool_call", "call_id": "c",
     "name": "f", "tool": "function"},
    {"type": "block_delta", "message_id": "m1", "index": 1, "delta": "{}"},
    {"type": "block_replaced", "message_id": "m1", "index": 1, "name": "g", "annotations": [{"type": "x"}]},
    {"type": "block_finished", "message_id": "m1", "index": 1},
    {"type": "message_finished", "message_id": "m1", "usage": {"input_tokens": 1}, "stop_reason": "stop",
     "stop_sequence": "s"},
    {"type": "state_patch", "patch": []},
    {"type": "passthrough", "protocol": "(the target)", "event": {"type": "x"}},
    {"type": "run_finished", "status": "completed", "usage": {"input_tokens": 1}, "result": None},
]  # fmt: skip


@pytest.mark.parametrize("target", PROTOCOLS)
def test_encoders_take_fields_of_any_type(target: str) -> None:
    """Every field of every neutral event, given a value of another type
    (a list or an object, which cannot be a key): both backends write the
    same, and neither fails."""
    # (the pass-through is the target's own, which it writes back)
    every_event = [
        {**event, "protocol": target} if event["type"] == "passthrough" else event for event in EVERY_EVENT
    ]
    for position, event in enumerate(every_event):
        for key in event.keys() - {"type"}:  # (a type of no neutral event is refused: below)
            for odd in ([], {}, 1.5, True, None, -1):
                events = [*every_event[:position], {**event, key: odd}, *every_event[position + 1 :]]
                native = outcome(NATIVE, "encode", None, target, events)
                assert native == outcome(PURE, "encode", None, target, events), (key, odd)
                assert not isinstance(native[0], str), native


@pytest.mark.parametrize("target", PROTOCOLS)
def test_an_event_of_no_neutral_type_is_refused_by_an_encoder(target: str) -> None:
    """What a server hands an encoder by hand: an event whose type is none
    of the vocabulary's (a misspelling, a missing type) is a ValueError
    naming the types, alike on both backends, where the encoder would
    otherwise write nothing of it; every neutral type is taken."""
    refused = [{"type": "block_deltas"}, {"type": ""}, {"type": None}, {"type": 3}, {"message_id": "m"}]
    for event in refused:
        native = outcome(NATIVE, "encode", None, target, [EVERY_EVENT[0], event])
        assert native == outcome(PURE, "encode", None, target, [EVERY_EVENT[0], event]), event
        assert native[0] == "ValueError", native
        assert ", ".join(EVENT_TYPES) in native[1]
    assert outcome(PURE, "encode", None, target, [{"type": "block_deltas"}])[1].endswith(", not block_deltas")
    for backend in (NATIVE, PURE):
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        for kind in EVENT_TYPES:
            encoder.encode({"type": kind})
