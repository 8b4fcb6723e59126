"""Deterministic workloads for the benchmarks: agent streams as servers send
them, and the ways they arrive (network chunks, one buffer, byte by byte).

Every generator is seeded, so two runs measure the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from agentcodec.agentscope import ResponseBuilder

__all__ = [
    "Stream",
    "agentscope_stream",
    "interleaved",
    "langchain_stream",
    "network_chunks",
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


# --- AG-UI and OpenAI Responses ---------------------------------------------------------------


def converted_stream(target: str, count: int) -> Stream:
    """The AgentScope agent turn as an AgentApp's other endpoints write it:
    ``agui`` or ``openai-responses`` (or a Chat Completions server:
    ``openai-chat``, reasoning as ``reasoning_content``; the Anthropic
    Messages API: ``anthropic``; or an AI SDK route: ``ai-sdk``), converted by agentcodec's pure backend
    (deterministic: fixed ids and timestamps)."""
    from agentcodec import _pure

    source = agentscope_stream("agent", count)
    options = {
        "agui": {"thread_id": "t", "run_id": "r"},
        "openai-responses": {"created_at": 1763700000},
        "openai-chat": {"created_at": 1763700000},
        "anthropic": {},
        "ai-sdk": {},
    }[target]
    transcoder = _pure.Transcoder("agentscope", target, **options)
    data = transcoder.feed(source.data) + transcoder.close()
    return Stream(f"{target}-agent-{count}", data, data.count(b"\n\n"))


# --- many tiny blocks ------------------------------------------------------------------------


def _tiny_block_events(protocol: str, count: int) -> Iterator[dict]:
    """A message, then ``count`` events each opening one block of it (one
    letter of text, or a tool call with no arguments): what ``max_blocks``
    bounds."""
    if protocol == "agentscope":
        yield {"object": "message", "id": "m", "role": "assistant", "status": "in_progress"}
        for n in range(count):
            yield {"object": "content", "type": "text", "index": n, "delta": True, "msg_id": "m", "text": "x"}
    elif protocol == "langchain":
        start = {"event": "message-start", "id": "m"}
        yield {"method": "messages", "params": {"namespace": [], "data": start}}
        for n in range(count):
            delta = {"type": "text-delta", "text": "x"}
            data = {"event": "content-block-delta", "index": n, "delta": delta}
            yield {"method": "messages", "params": {"namespace": [], "data": data}}
    elif protocol == "agui":
        yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
        for n in range(count):
            call = {"toolCallId": f"c{n}", "toolCallName": "f", "parentMessageId": "m"}
            yield {"type": "TOOL_CALL_START", **call}
    elif protocol == "openai-responses":
        yield {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}}
        item = {"type": "message", "id": "m", "role": "assistant", "content": []}
        yield {"type": "response.output_item.added", "output_index": 0, "item": item}
        for n in range(count):
            yield {
                "type": "response.output_text.delta",
                "output_index": 0,
                "item_id": "m",
                "content_index": n,
                "delta": "x",
            }
    elif protocol == "openai-chat":
        opening = {"index": 0, "delta": {"role": "assistant"}}
        yield {"id": "c", "object": "chat.completion.chunk", "choices": [opening]}
        for n in range(count):
            call = {"index": n, "id": f"c{n}", "function": {"name": "f", "arguments": ""}}
            yield {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    elif protocol == "anthropic":
        yield {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}
        for n in range(count):
            yield {"type": "content_block_start", "index": n, "content_block": {"type": "text", "text": "x"}}
    elif protocol == "ai-sdk":
        yield {"type": "start", "messageId": "m"}
        for n in range(count):
            yield {"type": "text-start", "id": f"t{n}"}
    else:
        raise ValueError(f"no tiny-block stream for {protocol!r}")


def tiny_blocks_stream(protocol: str, count: int) -> Stream:
    """One message of ``count`` tiny blocks, in ``protocol``'s events."""
    frames = (
        b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"
        for event in _tiny_block_events(protocol, count)
    )
    data, events = _frames(frames)
    return Stream(f"{protocol}-tiny-blocks-{count}", data, events)
