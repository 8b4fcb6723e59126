"""The implementations the benchmarks compare, each a function of the chunks
a client receives. Peers that are not installed are left out (``available``).

Layers:

- ``framing``: bytes to SSE events (their data as ``str``).
- ``decode``: bytes to the events' JSON as Python objects.
- ``assemble_<protocol>``: bytes to what the protocol's SDK assembles, by
  agentcodec's assembler in each backend and by the peers the protocol's row
  names (``workloads/<name>.py``: its SDK's accumulator, or what a
  developer writes by hand).
- ``serve_agentscope``: many AgentScope streams at once, their chunks
  interleaved as ``(stream, chunk)``, each into its own assembler.
- ``build``: a token list to the SSE bytes an AgentScope server writes.
- ``convert_<protocol>``: an AgentScope ``/process`` stream converted into
  a protocol an AgentApp serves as another endpoint (the rows with a
  ``conversion``). agentcodec converts the bytes as they arrive;
  agentscope-runtime's adapter (the row's) converts the event objects its
  agent yields (``runtime_events``: built once, outside the timing) and
  serialises them as the AgentApp does.
"""

from __future__ import annotations

import codecs
import functools
import importlib
import json
import shlex
import subprocess
from collections.abc import Callable
from typing import Any

import workloads
from agentcodec import _pure, agentscope
from agentcodec import encode_sse as native_encode_sse
from agentcodec._pure.registry import PROTOCOLS

try:
    from agentcodec import _native
except ImportError:  # the pure wheel
    _native = None  # type: ignore[assignment]

Impl = workloads.Impl


def installed(module: str) -> bool:
    """Whether a peer can be imported (installed, with what it needs)."""
    try:
        importlib.import_module(module)
    except Exception:  # a peer that cannot be imported is a missing one
        return False
    return True


# --- framing -------------------------------------------------------------------------------


def frame_with(module: Any) -> Impl:
    def run(chunks: list[bytes]) -> int:
        decoder = module.SSEDecoder()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        return count + len(decoder.close())

    return run


def frame_httpx_sse(chunks: list[bytes]) -> int:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines, decoder, count = SSELineDecoder(), SSEDecoder(), 0
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            if decoder.decode(line) is not None:
                count += 1
    for line in lines.flush():
        if decoder.decode(line) is not None:
            count += 1
    return count


def frame_openai(chunks: list[bytes]) -> int:
    from openai._streaming import SSEDecoder

    return sum(1 for _ in SSEDecoder().iter_bytes(iter(chunks)))


def frame_sseclient(chunks: list[bytes]) -> int:
    import sseclient

    return sum(1 for _ in sseclient.SSEClient(iter(chunks)).events())


class HandRolledDecoder:
    """What a careful developer writes by hand: a bytearray buffer, bytes.find
    for the blank line, data lines joined. LF line ends only, no BOM, no
    comments handling beyond skipping: fast, not conformant."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.start = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        buffer = self.buffer
        # Where to look for the blank line: not before the last byte of
        # what was searched already, so that a large event is not rescanned
        # with every chunk.
        search = max(self.start, len(buffer) - 1)
        buffer += chunk
        start, out = self.start, []
        while True:
            end = buffer.find(b"\n\n", search)
            if end < 0:
                break
            block = bytes(buffer[start:end])
            start = search = end + 2
            data = [line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:")]
            if data:
                out.append(b"\n".join(data))
        if start > 65536:
            del buffer[:start]
            start = 0
        self.start = start
        return out


def handrolled_frames(chunks: list[bytes]) -> Any:
    decoder = HandRolledDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)


def frame_handrolled(chunks: list[bytes]) -> int:
    return sum(1 for _ in handrolled_frames(chunks))


# --- decode to Python objects ----------------------------------------------------------------


def decode_with(module: Any) -> Impl:
    """``SSEEvent.json()``, as httpx-sse users write it."""

    def run(chunks: list[bytes]) -> list[Any]:
        decoder = module.SSEDecoder()
        return [event.json() for chunk in chunks for event in decoder.feed(chunk)]

    return run


def decode_handrolled_orjson(chunks: list[bytes]) -> list[Any]:
    import orjson

    return [orjson.loads(data) for data in handrolled_frames(chunks)]


def decode_httpx_sse_json(chunks: list[bytes]) -> list[Any]:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines, decoder, out = SSELineDecoder(), SSEDecoder(), []
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            event = decoder.decode(line)
            if event is not None:
                out.append(json.loads(event.data))
    return out


def decode_agentscope_native(chunks: list[bytes]) -> list[Any]:
    """The assembler's decoded events (parsed in Rust), assembling as it goes."""
    assembler = _native.AgentScopeAssembler()
    return [event for chunk in chunks for event in assembler.feed_with_events(chunk)]


# --- assembling AgentScope ------------------------------------------------------------------


def assemble_with(module: Any, assembler: str) -> Impl:
    """Any protocol's assembler in a backend, by its class name there: the
    bytes fed as they come, then closed. Without the limit on a stream's
    size: the 1M-delta streams of the linearity runs may pass its 256 MiB
    default (a protocol that repeats the run's metadata beside every chunk
    writes some 1 kB a delta)."""

    def run(chunks: list[bytes]) -> Any:
        instance = getattr(module, assembler)(max_stream_bytes=None)
        for chunk in chunks:
            instance.feed(chunk)
        return instance.close()

    return run


def strict_validation(protocol: str) -> Impl:
    """The bound no reader of the protocol goes below: each event framed as
    its assembler frames it and its JSON validated (serde_json into
    IgnoredAny), nothing built. Fed as the assemblers are fed."""

    def run(chunks: list[bytes]) -> Any:
        reader = _native._StrictValidation(protocol)
        for chunk in chunks:
            reader.feed(chunk)
        return reader.close()

    return run


#: The bound's row in each assembling layer: its ratio is the share of it
#: the native assembler reaches (its time over the assembler's).
BOUND = "strict-validation bound (serde_json, nothing built)"


# The field each content type's deltas append to.
_APPENDED = {"text": "text", "audio": "data", "image": "image_url", "refusal": "refusal"}


def _assemble_events_python(events: Any) -> dict[str, Any]:
    """The least a pure-Python client does to assemble: route by msg_id,
    append deltas to the field of their type, replace on completion
    (pieces joined at the end)."""
    messages: dict[str, dict[str, list[str]]] = {}
    for event in events:
        if event.get("object") == "content":
            slots = messages.setdefault(event["msg_id"], {})
            key = str(event.get("index"))
            piece = event.get(_APPENDED.get(event.get("type"), "text")) or ""
            if event.get("delta"):
                slots.setdefault(key, []).append(piece)
            else:
                slots[key] = [piece]
    return {mid: {k: "".join(v) for k, v in slots.items()} for mid, slots in messages.items()}


def assemble_agentscope_handrolled(chunks: list[bytes]) -> Any:
    import orjson

    return _assemble_events_python(orjson.loads(data) for data in handrolled_frames(chunks))


def assemble_agentscope_httpx_sse(chunks: list[bytes]) -> Any:
    return _assemble_events_python(decode_httpx_sse_json(chunks))


def assemble_agentscope_upstream(chunks: list[bytes]) -> Any:
    """agentscope-runtime's own models: Message.add_delta_content on pydantic
    objects, fed by httpx-sse and json."""
    from agentscope_runtime.engine.schemas.agent_schemas import Message, TextContent

    messages: dict[str, Any] = {}
    for event in decode_httpx_sse_json(chunks):
        if event.get("object") == "content" and event.get("type") == "text" and event.get("delta"):
            content = TextContent(**event)
            message = messages.get(event["msg_id"])
            if message is None:
                message = messages[event["msg_id"]] = Message(id=event["msg_id"])
                content.index = None  # upstream opens a slot with index None
            message.add_delta_content(content)
    return messages


# --- serving many AgentScope streams at once -------------------------------------------------

Interleaved = list[tuple[int, bytes]]


def serve_agentscope_with(module: Any) -> Callable[[Interleaved], Any]:
    def run(pieces: Interleaved) -> Any:
        assemblers: dict[int, Any] = {}
        for which, chunk in pieces:
            assembler = assemblers.get(which)
            if assembler is None:
                assembler = assemblers[which] = module.AgentScopeAssembler()
            assembler.feed(chunk)
        return [assembler.close() for assembler in assemblers.values()]

    return run


def _serve_python(pieces: Interleaved, decoder: Callable[[], Callable[[bytes], list[Any]]]) -> Any:
    """One decoder and one event list per stream; each stream assembled as
    the minimal assembler above does."""
    streams: dict[int, tuple[Callable[[bytes], list[Any]], list[Any]]] = {}
    for which, chunk in pieces:
        state = streams.get(which)
        if state is None:
            state = streams[which] = (decoder(), [])
        state[1].extend(state[0](chunk))
    return [_assemble_events_python(events) for _, events in streams.values()]


def serve_agentscope_handrolled(pieces: Interleaved) -> Any:
    import orjson

    def decoder() -> Callable[[bytes], list[Any]]:
        frames = HandRolledDecoder()
        return lambda chunk: [orjson.loads(data) for data in frames.feed(chunk)]

    return _serve_python(pieces, decoder)


def serve_agentscope_httpx_sse(pieces: Interleaved) -> Any:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    def decoder() -> Callable[[bytes], list[Any]]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        lines, events = SSELineDecoder(), SSEDecoder()

        def feed(chunk: bytes) -> list[Any]:
            out = []
            for line in lines.decode(text.decode(chunk)):
                event = events.decode(line)
                if event is not None:
                    out.append(json.loads(event.data))
            return out

        return feed

    return _serve_python(pieces, decoder)


# --- building ---------------------------------------------------------------------------------


def build_fast_path(tokens: list[str]) -> int:
    return sum(
        len(frame) for frame in agentscope.ResponseBuilder(session_id="s").generate_streaming_sse(tokens)
    )


def build_events_encode(tokens: list[str]) -> int:
    builder = agentscope.ResponseBuilder(session_id="s")
    return sum(len(native_encode_sse(event)) for event in builder.generate_streaming_response(tokens))


# --- writing events made as dicts ----------------------------------------------------------------


def encode_native(events: list[dict[str, Any]]) -> int:
    return sum(len(native_encode_sse(event)) for event in events)


def encode_pure(events: list[dict[str, Any]]) -> int:
    return sum(len(_pure.encode_sse(event)) for event in events)


def encode_orjson(events: list[dict[str, Any]]) -> int:
    """orjson and the framing by hand: what a server that owns its JSON writes."""
    import orjson

    return sum(len(b"data: " + orjson.dumps(event) + b"\n\n") for event in events)


def encode_json(events: list[dict[str, Any]]) -> int:
    return sum(
        len(f"data: {json.dumps(event, ensure_ascii=False, separators=(',', ':'))}\n\n".encode())
        for event in events
    )


def build_upstream(tokens: list[str]) -> int:
    from agentscope_runtime.engine.helpers.agent_api_builder import ResponseBuilder

    builder = ResponseBuilder(session_id="s")
    return sum(
        len(f"data: {e.model_dump_json()}\n\n".encode()) for e in builder.generate_streaming_response(tokens)
    )


# --- a peer in another runtime -----------------------------------------------------------------


class NodePeer:
    """A peer in another runtime, which times itself: the command reads the
    stream on stdin and prints the best of ``runs`` times, so that starting
    Node is not counted against it."""

    reports_time = True

    def __init__(self, command: str) -> None:
        self.command = shlex.split(command)

    def __call__(self, chunks: list[bytes]) -> float:
        return self.timed(chunks, runs=1)

    def timed(self, chunks: list[bytes], runs: int) -> float:
        done = subprocess.run(
            [*self.command, str(runs)], input=b"".join(chunks), capture_output=True, check=True
        )
        seconds: float = json.loads(done.stdout)["ms"] / 1000
        return seconds


# --- converting AgentScope to the AgentApp's other endpoints -----------------------------------


def converting_layer(workload: workloads.Workload) -> list[workloads.Peer]:
    """A conversion's layer: the Transcoder in each backend, then the
    AgentApp's adapter its row names."""
    assert workload.conversion is not None
    target = workload.protocol
    return [
        ("agentcodec native", convert_with(_native, target) if _native else None, _native is not None),
        ("agentcodec pure", convert_with(_pure, target), True),
        workload.conversion.adapter,
    ]


def convert_with(module: Any, target: str) -> Impl:
    def run(chunks: list[bytes]) -> int:
        transcoder = module.Transcoder("agentscope", target)
        written = sum(len(transcoder.feed(chunk)) for chunk in chunks)
        return written + len(transcoder.close())

    return run


_RUNTIME_EVENTS: dict[bytes, list[Any]] = {}


def runtime_events(chunks: list[bytes]) -> list[Any]:
    """The Agent API event objects an agent would yield for this stream,
    built once per stream (an AgentApp converts objects, not bytes)."""
    stream = b"".join(chunks)
    events = _RUNTIME_EVENTS.get(stream)
    if events is None:
        from agentscope_runtime.engine.schemas.agent_schemas import AgentContent, AgentResponse, Message
        from pydantic import TypeAdapter

        content = TypeAdapter(AgentContent)
        events = []
        for event in decode_handrolled_orjson([stream]):
            kind = event.get("object")
            if kind == "response":
                events.append(AgentResponse(**event))
            elif kind == "message":
                events.append(Message(**event))
            else:
                events.append(content.validate_python(event))
        _RUNTIME_EVENTS.clear()  # one stream at a time: bounded memory
        _RUNTIME_EVENTS[stream] = events
    return events


# --- the catalogue --------------------------------------------------------------------------------

LAYERS: dict[str, list[workloads.Peer]] = {
    # (name, implementation, available)
    "framing": [
        ("agentcodec native", frame_with(_native) if _native else None, _native is not None),
        ("agentcodec pure", frame_with(_pure), True),
        ("hand-rolled bytes.find", frame_handrolled, True),
        ("httpx-sse", frame_httpx_sse, installed("httpx_sse")),
        ("openai SSEDecoder", frame_openai, installed("openai")),
        ("sseclient-py", frame_sseclient, installed("sseclient")),
    ],
    "decode": [
        ("agentcodec native .json()", decode_with(_native) if _native else None, _native is not None),
        ("agentcodec native assembler events", decode_agentscope_native, _native is not None),
        ("agentcodec pure .json()", decode_with(_pure), True),
        ("hand-rolled bytes.find + orjson", decode_handrolled_orjson, installed("orjson")),
        ("httpx-sse + json", decode_httpx_sse_json, installed("httpx_sse")),
    ],
    "serve_agentscope": [
        ("agentcodec native", serve_agentscope_with(_native) if _native else None, _native is not None),
        ("agentcodec pure", serve_agentscope_with(_pure), True),
        ("hand-rolled bytes.find + orjson", serve_agentscope_handrolled, installed("orjson")),
        ("httpx-sse + json", serve_agentscope_httpx_sse, installed("httpx_sse")),
    ],
    "encode": [
        ("agentcodec encode_sse", encode_native, _native is not None),
        ("agentcodec pure encode_sse", encode_pure, True),
        ("orjson.dumps + framing", encode_orjson, installed("orjson")),
        ("json.dumps + framing", encode_json, True),
    ],
    "build": [
        ("agentcodec add_text_delta_sse", build_fast_path, True),
        ("agentcodec events + encode_sse", build_events_encode, True),
        ("agentscope-runtime model_dump_json", build_upstream, installed("agentscope_runtime")),
    ],
}


def assembling_layer(workload: workloads.Workload) -> list[workloads.Peer]:
    """A protocol's assembling layer: its assembler in each backend (the
    native one's bound beside it), then the peers its row names."""
    exported_as = PROTOCOLS[workload.protocol].exported_as
    return [
        ("agentcodec native", assemble_with(_native, exported_as) if _native else None, _native is not None),
        (BOUND, strict_validation(workload.protocol) if _native else None, _native is not None),
        ("agentcodec pure", assemble_with(_pure, exported_as), True),
        *workload.peers,
    ]


@functools.cache
def catalogue() -> dict[str, list[workloads.Peer]]:
    """Every layer: those above, and each protocol's assembling layer and
    conversion from its row (read when first asked for: the rows import this
    module)."""
    rows = workloads.rows()
    return {
        **LAYERS,
        **{workload.layer: assembling_layer(workload) for workload in rows},
        **{
            workload.conversion.layer: converting_layer(workload)
            for workload in rows
            if workload.conversion is not None
        },
    }


def available(layer: str) -> list[tuple[str, Any]]:
    return [(name, impl) for name, impl, ok in catalogue()[layer] if ok and impl is not None]
