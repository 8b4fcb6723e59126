"""Deterministic workloads for the benchmarks: agent streams as servers send
them, and the ways they arrive (network chunks, one buffer, byte by byte).

Every generator is seeded, so two runs measure the same text and the same
lengths; the AgentScope builders' ids (uuid4) and times differ, not in size.

What the benchmarks measure of each protocol is its row, ``WORKLOAD`` in
``workloads/<name>.py``: its streams, the peers that read them, the cases
the report measures, its instruction-count workloads and its stream of tiny
blocks. ``rows()`` collects them by the registry's names, so the report,
the pytest-benchmark suite, the instruction counts and the memory runs need
no line for a new protocol.
"""

from __future__ import annotations

import base64
import importlib
import json
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from agentcodec._protocols import encoder, media_type
from agentcodec.agentscope import ResponseBuilder
from agentcodec.events import PROTOCOLS

__all__ = [
    "Case",
    "Conversion",
    "Peer",
    "Stream",
    "ToolArguments",
    "Workload",
    "agentscope_stream",
    "assembling",
    "converted_stream",
    "ENCODED_KINDS",
    "encoded_events",
    "interleaved",
    "langchain_stream",
    "network_chunks",
    "row",
    "rows",
    "tiny_blocks_stream",
    "tokens",
]

WORDS = ["the", "agent", "streams", "tokens", "über", "naïve", "数据", "🙂", "quick", "fox", "JSON", "delta"]


@dataclass(frozen=True)
class Stream:
    name: str
    data: bytes
    events: int

    @property
    def megabytes(self) -> float:
        return len(self.data) / 1e6


def tokens(count: int, seed: int = 0) -> list[str]:
    """Model-like tokens: short words, some non-ASCII, a newline now and then."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        word = rng.choice(WORDS)
        out.append((" " if i else "") + word + ("\n" if rng.random() < 0.02 else ""))
    return out


#: The kinds of event ``encoded_events`` makes, each what ``encode_sse`` is
#: measured on alone, then all in turn ("mixed").
ENCODED_KINDS = ("floats", "non-ascii", "nested", "lists", "ints", "mixed")


def encoded_events(kind: str, count: int, seed: int = 3) -> list[dict[str, Any]]:
    """``count`` events of a kind, as servers make them before writing them:
    floats (latencies, scores, log probabilities: 16 or 17 digits), non-ASCII
    text, nested objects (usage with details), lists, integers; "mixed" takes
    each kind in turn."""
    rng = random.Random(seed)
    words = tokens(count, seed)

    def one(kind: str, n: int) -> dict[str, Any]:
        if kind == "floats":
            return {
                "type": "metrics",
                "latency": rng.random(),
                "score": rng.random() * 100,
                "logprob": -rng.random(),
            }
        if kind == "non-ascii":
            return {"type": "text_delta", "delta": words[n] + " naïve 数据", "index": n}
        if kind == "nested":
            details = {"cached_tokens": n % 97, "reasoning_tokens": n % 13}
            return {"type": "usage", "usage": {"input_tokens": n, "output_tokens": 2 * n, "details": details}}
        if kind == "lists":
            return {"type": "tool_args", "path": ["items", n, "tags"], "values": [n, n + 1, "a", None, True]}
        if kind == "ints":
            return {"type": "progress", "step": n, "total": count, "tokens": n * 7919, "sequence": n * 104729}
        return one(ENCODED_KINDS[n % 5], n)

    return [one(kind, n) for n in range(count)]


def network_chunks(data: bytes, seed: int = 1, smallest: int = 1, largest: int = 4096) -> list[bytes]:
    """The stream cut as a network delivers it: random sizes, 1 B to 4 KiB."""
    rng = random.Random(seed)
    chunks, position = [], 0
    while position < len(data):
        size = rng.randint(smallest, largest)
        chunks.append(data[position : position + size])
        position += size
    return chunks


def interleaved(stream: Stream, count: int, seed: int = 6) -> list[tuple[int, bytes]]:
    """What a server sees with ``count`` clients at once: each stream cut
    into network chunks of its own, the chunks of all of them interleaved at
    random (each stream's own chunks stay in order), as ``(stream, chunk)``."""
    rng = random.Random(seed)
    queues = [network_chunks(stream.data, seed=seed + i) for i in range(count)]
    positions = [0] * count
    live = list(range(count))
    out = []
    while live:
        slot = rng.randrange(len(live))
        which = live[slot]
        out.append((which, queues[which][positions[which]]))
        positions[which] += 1
        if positions[which] == len(queues[which]):
            live[slot] = live[-1]
            live.pop()
    return out


def _frames(events: Iterator[bytes]) -> tuple[bytes, int]:
    parts = list(events)
    return b"".join(parts), len(parts)


# --- AgentScope -------------------------------------------------------------------------


def _agentscope_text(count: int) -> Iterator[bytes]:
    yield from ResponseBuilder(session_id="bench").generate_streaming_sse(tokens(count))


def _agentscope_agent_turn(count: int) -> Iterator[bytes]:
    """Reasoning, a tool call whose arguments stream as data deltas, its
    output, then the answer."""
    from agentcodec import encode_sse

    builder = ResponseBuilder(session_id="bench")
    yield encode_sse(builder.created())
    yield encode_sse(builder.in_progress())
    thinking = builder.create_message_builder(message_type="reasoning")
    yield encode_sse(thinking.get_message_data())
    thought = thinking.create_content_builder()
    for token in tokens(count // 4, seed=2):
        yield thought.add_text_delta_sse(token)
    yield encode_sse(thought.complete())
    yield encode_sse(thinking.complete())
    call = builder.create_message_builder(message_type="plugin_call")
    yield encode_sse(call.get_message_data())
    args = call.create_content_builder("data")
    yield encode_sse(args.set_data({"call_id": "call_1", "name": "search", "arguments": ""}))
    arguments = json.dumps({"query": " ".join(tokens(count // 8, seed=3))}, ensure_ascii=False)
    for i in range(0, len(arguments), 7):
        yield encode_sse(args.add_data_delta({"arguments": arguments[i : i + 7]}))
    yield encode_sse(args.complete())
    yield encode_sse(call.complete())
    answer = builder.create_message_builder()
    yield encode_sse(answer.get_message_data())
    text = answer.create_content_builder()
    for token in tokens(count // 2, seed=4):
        yield text.add_text_delta_sse(token)
    yield encode_sse(text.complete())
    yield encode_sse(answer.complete())
    yield encode_sse(builder.completed())


def _agentscope_media(count: int) -> Iterator[bytes]:
    """Audio streamed as base64 ``data`` deltas of 4 KiB (``count * 3`` bytes
    of audio), then the completed content with all of it."""
    from agentcodec import encode_sse
    from agentcodec.agentscope import ContentType

    builder = ResponseBuilder(session_id="bench")
    yield encode_sse(builder.created())
    yield encode_sse(builder.in_progress())
    message = builder.create_message_builder()
    yield encode_sse(message.get_message_data())
    audio = message.create_content_builder(ContentType.AUDIO)
    head = audio.get_content_data()
    payload = base64.b64encode(random.Random(5).randbytes(count * 3)).decode()
    for i in range(0, len(payload), 4096):
        chunk = payload[i : i + 4096]
        yield encode_sse({**head, "status": "in_progress", "delta": True, "data": chunk, "format": "wav"})
    # The builders stream no audio; the completed content is theirs.
    audio.content.update(data=payload, format="wav")
    yield encode_sse(audio.complete())
    yield encode_sse(message.complete())
    yield encode_sse(builder.completed())


@cache
def agentscope_stream(kind: str, count: int) -> Stream:
    """``text`` (one streamed answer), ``agent`` (an agent turn) or
    ``media`` (base64 audio deltas of ``count * 3`` bytes)."""
    generate = {"text": _agentscope_text, "agent": _agentscope_agent_turn, "media": _agentscope_media}[kind]
    data, events = _frames(generate(count))
    return Stream(f"agentscope-{kind}-{count}", data, events)


# --- LangChain ----------------------------------------------------------------------------


def _envelope(seq: int, data: dict, namespace: list[str]) -> bytes:
    body = {
        "type": "event",
        "event_id": f"{seq}",
        "seq": seq,
        "method": "messages",
        "params": {"namespace": namespace, "timestamp": 1763700000000 + seq, "node": "model", "data": data},
    }
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return f"event: messages\nid: {seq}\ndata: {text}\n\n".encode()


def _langchain_events(kind: str, count: int) -> Iterator[dict]:
    yield {"event": "message-start", "role": "ai", "id": "run-1"}
    if kind == "media":
        payload = base64.b64encode(random.Random(5).randbytes(count * 3)).decode()
        yield {
            "event": "content-block-start",
            "index": 0,
            "content": {"type": "image", "mime_type": "image/png"},
        }
        for i in range(0, len(payload), 4096):
            yield {
                "event": "content-block-delta",
                "index": 0,
                "delta": {"type": "data-delta", "data": payload[i : i + 4096]},
            }
        yield {"event": "message-finish"}
        return
    index = 0
    if kind == "agent":
        yield {"event": "content-block-start", "index": 0, "content": {"type": "reasoning", "reasoning": ""}}
        for token in tokens(count // 4, seed=2):
            yield {
                "event": "content-block-delta",
                "index": 0,
                "delta": {"type": "reasoning-delta", "reasoning": token},
            }
        yield {"event": "content-block-finish", "index": 0, "content": {"type": "reasoning", "reasoning": ""}}
        yield {
            "event": "content-block-start",
            "index": 1,
            "content": {"type": "tool_call_chunk", "id": "call_1", "name": "search", "args": ""},
        }
        arguments = json.dumps({"query": " ".join(tokens(count // 8, seed=3))}, ensure_ascii=False)
        for i in range(0, len(arguments), 7):
            yield {
                "event": "content-block-delta",
                "index": 1,
                "delta": {"type": "tool-call-delta", "args": arguments[i : i + 7]},
            }
        index = 2
        count //= 2
    yield {"event": "content-block-start", "index": index, "content": {"type": "text", "text": ""}}
    for token in tokens(count, seed=4):
        yield {"event": "content-block-delta", "index": index, "delta": {"type": "text-delta", "text": token}}
    usage = {"input_tokens": 10, "output_tokens": count, "total_tokens": count + 10}
    yield {"event": "message-finish", "usage": usage}


@cache
def langchain_stream(kind: str, count: int) -> Stream:
    """``text``, ``agent`` (reasoning, tool-call arguments, answer) or ``media``
    (base64 data deltas of ``count * 3`` bytes)."""
    frames = (_envelope(seq, data, ["agent:1"]) for seq, data in enumerate(_langchain_events(kind, count), 1))
    data, events = _frames(frames)
    return Stream(f"langchain-{kind}-{count}", data, events)


# --- any other protocol: the agent turn converted ------------------------------------------


def converted_stream(target: str, count: int, **options: Any) -> Stream:
    """The AgentScope agent turn as a server of ``target`` writes it (an
    AgentApp's other endpoints), converted by agentcodec's pure backend with
    the encoder's ``options`` (fixed ids and timestamps make it
    deterministic)."""
    from agentcodec import _pure

    source = agentscope_stream("agent", count)
    transcoder = _pure.Transcoder("agentscope", target, **options)
    data = transcoder.feed(source.data) + transcoder.close()
    return Stream(f"{target}-agent-{count}", data, _event_count(target, data))


def _event_count(protocol: str, data: bytes) -> int:
    """The events in a stream of the protocol: SSE events, or lines."""
    if media_type(protocol) == "application/vnd.amazon.eventstream":
        from agentcodec import EventStreamDecoder

        return len(EventStreamDecoder(max_message_bytes=None).feed(data))
    if media_type(protocol) != "text/event-stream":
        return data.count(b"\n")
    # (LF line ends, or CRLF as some servers write them)
    return max(data.count(b"\n\n"), data.count(b"\r\n\r\n"))


# --- the rows ------------------------------------------------------------------------------

#: What reads a stream's chunks: a function of them.
Impl = Callable[[list[bytes]], Any]
#: A reader measured beside agentcodec: (its name in the report, the function
#: or None, whether it can run here).
Peer = tuple[str, Any, bool]


@dataclass(frozen=True)
class Case:
    """One line of the report: a stream, as it is cut for the reader."""

    label: str
    stream: Stream
    chunks: list[bytes]
    #: Leave out the peers whose names have one of these words.
    skip: tuple[str, ...] = ()


def assembling(stream: Stream, unit: str | None = None) -> Case:
    """The report's case for assembling ``stream`` in network chunks;
    ``unit`` counts its events in the label ("chunks", "events")."""
    counted = "" if unit is None else f" ({stream.events:,} {unit})"
    return Case(f"assemble {stream.name}{counted}, network chunks", stream, network_chunks(stream.data))


@dataclass(frozen=True)
class Conversion:
    """The AgentScope agent turn converted into a protocol, as an AgentApp
    serves its other endpoints: a layer of the report, agentcodec's
    Transcoder beside the AgentApp's own adapter."""

    #: The layer's name in the report, the charts and ``--layer``.
    layer: str
    #: How the layer's label names the protocol.
    label: str
    #: Its instruction-count workload's name (benches/instructions.json).
    instructions: str
    #: agentscope-runtime's adapter into the protocol, framed as its endpoint
    #: frames it: ``(name, implementation, available)``.
    adapter: Peer


@dataclass(frozen=True)
class ToolArguments:
    """A message of one tool call whose arguments stream, the arguments read
    from the assembler after every delta (``benches/partial_json.py``)."""

    #: The message's events, the call's arguments coming as ``pieces``.
    events: Callable[[list[str]], list[dict[str, Any]]]
    #: The assembler's property that lists the calls, and a call's arguments' key.
    accessor: str
    field: str
    #: The protocol's SDK reading the same, where it has a way: (its name,
    #: the events made ready for it outside the timing (its models, given
    #: ready-made, which favours it), the arguments it has after every event
    #: (the last returned), whether it can run here).
    peer: tuple[str, Callable[[list[dict[str, Any]]], Any], Callable[[Any], Any], bool] | None = None


@dataclass(frozen=True)
class Workload:
    """What the benchmarks measure of one protocol."""

    protocol: str
    #: Its assembling layer: its name in the report, the charts and ``--layer``.
    layer: str
    #: Its stream of ``count`` deltas, of a ``kind`` ("text", "agent", "media")
    #: where it has several; a converted stream is always the agent turn.
    stream: Callable[[str, int], Stream]
    #: Its streams as the report measures them: ``(quick, long)`` to cases.
    cases: Callable[[bool, int], list[Case]]
    #: ``count`` events each opening one block of one message (what
    #: ``max_blocks`` bounds), the message's opening first.
    tiny_blocks: Callable[[int], Iterator[dict[str, Any]]]
    #: Its instruction-count workloads (benches/instructions.json), each
    #: assembling its stream of a kind: ``{"chat-agent": "agent"}``.
    instructions: Mapping[str, str]
    #: The deltas of the stream the pytest-benchmark suite assembles.
    suite_count: int
    #: What reads its streams beside agentcodec's two backends: its SDK's
    #: accumulator, or what a developer writes by hand.
    peers: tuple[Peer, ...] = field(default=())
    #: The distributions of those peers, whose versions the report states.
    distributions: tuple[str, ...] = ()
    #: What its encoder is told to write the same on every run (its ids, its times).
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The agent turn converted into it, where the report measures that.
    conversion: Conversion | None = None
    #: Its tool call whose arguments are read as they stream, where the
    #: tool-argument bench measures it.
    tool_arguments: ToolArguments | None = None


def row(protocol: str) -> Workload:
    """The protocol's row: ``WORKLOAD`` in ``workloads/<name>.py``."""
    module = importlib.import_module(f"{__name__}.{protocol.replace('-', '_')}")
    workload: Workload = module.WORKLOAD
    assert workload.protocol == protocol, f"{module.__name__} declares {workload.protocol!r}"
    return workload


@cache
def rows() -> tuple[Workload, ...]:
    """Every protocol's row, in the registry's order."""
    return tuple(row(protocol) for protocol in PROTOCOLS)


def tiny_blocks_stream(protocol: str, count: int) -> Stream:
    """One message of ``count`` tiny blocks, in ``protocol``'s events (as
    lines, where its streams are)."""
    events_of = row(protocol).tiny_blocks(count)
    if media_type(protocol) != "text/event-stream":
        data = b"".join(bytes(encoder(protocol)(event)) for event in events_of)
        return Stream(f"{protocol}-tiny-blocks-{count}", data, data.count(b"\n"))
    frames = (b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n" for event in events_of)
    data, events = _frames(frames)
    return Stream(f"{protocol}-tiny-blocks-{count}", data, events)


def converted_workload(
    protocol: str,
    *,
    layer: str,
    tiny_blocks: Callable[[int], Iterator[dict[str, Any]]],
    instructions: Mapping[str, str],
    peers: tuple[Peer, ...] = (),
    distributions: tuple[str, ...] = (),
    options: Mapping[str, Any] | None = None,
    unit: str | None = None,
    conversion: Conversion | None = None,
    tool_arguments: ToolArguments | None = None,
) -> Workload:
    """The row of a protocol whose stream is the AgentScope agent turn
    converted into it (``converted_stream`` with the encoder's ``options``).
    The report assembles it at a tenth of the long stream's deltas; with a
    ``unit`` (its events counted in the label) at 2k, 20k and 200k deltas."""

    def stream(kind: str, count: int) -> Stream:
        return converted_stream(protocol, count, **(options or {}))

    def cases(quick: bool, long: int) -> list[Case]:
        if unit is None:
            return [assembling(stream("agent", long // 10))]
        counts = (200, 2000) if quick else (2000, 20000, 200000)
        return [assembling(stream("agent", count), unit) for count in counts]

    return Workload(
        protocol=protocol,
        layer=layer,
        stream=stream,
        cases=cases,
        tiny_blocks=tiny_blocks,
        instructions=instructions,
        suite_count=200,
        peers=peers,
        distributions=distributions,
        options=dict(options or {}),
        conversion=conversion,
        tool_arguments=tool_arguments,
    )
