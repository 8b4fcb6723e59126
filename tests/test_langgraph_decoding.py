"""The LangGraph Agent Server's streams read into the neutral vocabulary,
on both backends: the legacy messages mode (``messages/partial``,
``messages/complete``: each message whole so far) and whole AI messages
made deltas, read as the messages mode of the same run reads."""

from __future__ import annotations

import functools
import json
import operator
from types import ModuleType
from typing import Any

import pytest

import conversion
from protocol_table import FIXTURES, TABLE


def decoded(backend: ModuleType, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    decoder = backend.NeutralDecoder("langgraph")
    out = [neutral for event in events for neutral in decoder.feed_event(event)]
    return out + decoder.close()


def neutral_messages(backend: ModuleType, data: bytes) -> list[dict[str, Any]]:
    """A stream's messages in the neutral view, ids of tool messages and the
    spelling of arguments aside (one mode sends them as the model wrote them,
    the other parsed)."""
    assembler = backend.NeutralAssembler("langgraph")
    assembler.feed(data)
    messages = assembler.close()["messages"]
    for message in messages:
        if message["role"] == "tool":
            message["id"] = None
        for block in message["blocks"]:
            if "arguments" in block:
                block["arguments"] = json.loads(block["arguments"])
    return messages


def ai(content: Any, **fields: Any) -> dict[str, Any]:
    return {
        "type": "ai",
        "id": "m1",
        "content": content,
        "tool_calls": [],
        "invalid_tool_calls": [],
        **fields,
    }


def partial(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"event": "messages/partial", "data": list(messages)}


def complete(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"event": "messages/complete", "data": list(messages)}


METADATA = {"event": "metadata", "data": {"run_id": "r1", "attempt": 1}}


def test_the_legacy_mode_reads_as_the_messages_mode_of_the_same_run(backend: ModuleType) -> None:
    """scripts/langgraph_fixtures.py ran the same agent on the same question in
    both modes: the neutral view has the same messages from either."""
    legacy = neutral_messages(backend, (FIXTURES / "langgraph" / "legacy_messages.sse").read_bytes())
    tuples = neutral_messages(backend, (FIXTURES / "langgraph" / "tool_call.sse").read_bytes())
    assert [message["role"] for message in legacy] == ["assistant", "tool", "assistant"]
    assert legacy == tuples


def test_text_is_sent_as_it_grows_and_replaced_when_it_changes(backend: ModuleType) -> None:
    events = decoded(
        backend,
        [
            METADATA,
            partial(ai("Hel")),
            partial(ai("Hello, wor")),
            partial(ai("Hello, world")),
            partial(ai("Goodbye")),  # (not what was sent: replaced)
            complete(ai("Goodbye!", response_metadata={"finish_reason": "stop"})),
        ],
    )
    text = [(e["type"], e.get("delta", e.get("text"))) for e in events if e.get("index") == 0]
    assert text == [
        ("block_started", None),
        ("block_delta", "Hel"),
        ("block_delta", "lo, wor"),
        ("block_delta", "ld"),
        ("block_replaced", "Goodbye"),
        ("block_delta", "!"),
        ("block_finished", None),
    ]
    finished = [e for e in events if e["type"] == "message_finished"]
    assert finished == [
        {"type": "message_finished", "message_id": "m1", "usage": None, "stop_reason": "stop"}
    ]
    assert events[-1] == {
        "type": "run_finished",
        "status": "completed",
        "usage": None,
        "result": None,
        "stop_reason": None,
    }


def test_parsed_arguments_are_sent_as_far_as_two_snapshots_agree(backend: ModuleType) -> None:
    """The server sends a call's arguments parsed from what streamed so far:
    their JSON's closing brackets move as they grow, so only what two
    snapshots share is sent before the message ends."""

    def call(args: Any) -> dict[str, Any]:
        return ai("", tool_calls=[{"name": "weather", "args": args, "id": "c1", "type": "tool_call"}])

    events = decoded(
        backend,
        [METADATA, partial(call({})), partial(call({"city": "Pa"})), partial(call({"city": "Paris"}))],
    )
    started = [e for e in events if e["type"] == "block_started"]
    assert started == [
        {
            "type": "block_started",
            "message_id": "m1",
            "index": 0,
            "kind": "tool_call",
            "call_id": "c1",
            "name": "weather",
            "tool": "function",
            "server": None,
        }
    ]
    deltas = [e["delta"] for e in events if e["type"] == "block_delta"]
    # "{" both the first two share; '"city":"Pa' the last two; the rest at the end.
    assert deltas == ["{", '"city":"Pa', 'ris"}']
    assert json.loads("".join(deltas)) == {"city": "Paris"}


def test_the_message_ends_at_its_complete_event_its_step_or_the_empty_message_after_it(
    backend: ModuleType,
) -> None:
    def finished(events: list[dict[str, Any]]) -> list[str]:
        return [
            e["message_id"] for e in decoded(backend, [METADATA, *events]) if e["type"] == "message_finished"
        ]

    def others(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in decoded(backend, [METADATA, *events]) if e["type"] == "passthrough"]

    end = {"type": "ai", "id": "lc_run--2", "content": "", "tool_calls": [], "invalid_tool_calls": []}
    values = {"event": "values", "data": {"messages": []}}
    two = {**ai("Bye"), "id": "m2"}
    # The empty message of a run's id ends the one before it and is none itself.
    assert finished([partial(ai("Hi")), partial(end), partial(two)]) == ["m1", "m2"]
    assert finished([partial(ai("Hi")), values, partial(two)]) == ["m1", "m2"]
    assert finished([partial(ai("Hi")), complete(ai("Hi")), partial(ai("Hi again"))]) == ["m1"]
    # A human's message is not the run's: it passes through, as the event it came in.
    human = {"type": "human", "id": "h1", "content": "Hi"}
    assert others([partial(human)]) == [
        {"type": "passthrough", "protocol": "langgraph", "event": partial(human)}
    ]


def test_list_content_reasoning_signatures_and_other_blocks(backend: ModuleType) -> None:
    def content(*blocks: dict[str, Any]) -> dict[str, Any]:
        return ai(list(blocks), response_metadata={"model_provider": "anthropic"})

    thinking = {"type": "thinking", "thinking": "Hmm", "index": 0}
    image = {"type": "image", "url": "https://example.com/a.png", "index": 2}
    events = decoded(
        backend,
        [
            METADATA,
            partial(content(thinking)),
            partial(content({**thinking, "thinking": "Hmm, yes", "signature": "s1"})),
            partial(
                content(
                    {**thinking, "thinking": "Hmm, yes", "signature": "s1"},
                    {"type": "text", "text": "A", "index": 1},
                )
            ),
            partial(
                content(
                    {**thinking, "thinking": "Hmm, yes", "signature": "s1"},
                    {"type": "text", "text": "Ab", "index": 1},
                    image,
                )
            ),
        ],
    )
    kinds = [(e["index"], e["kind"]) for e in events if e["type"] == "block_started"]
    assert kinds == [(0, "reasoning"), (1, "text")]
    replaced = [e for e in events if e["type"] == "block_replaced"]
    assert replaced == [
        {
            "type": "block_replaced",
            "message_id": "m1",
            "index": 0,
            "encrypted": "s1",
            "encrypted_by": "anthropic",
        }
    ]
    deltas = [(e["index"], e["delta"]) for e in events if e["type"] == "block_delta"]
    assert deltas == [(0, "Hmm"), (0, ", yes"), (1, "A"), (1, "b")]
    # A block of another kind passes through once, as the message last had it.
    passed = [e["event"] for e in events if e["type"] == "passthrough"]
    assert passed == [{"content_block": image, "message_id": "m1"}]


def test_a_whole_ai_message_in_the_messages_mode_is_read(backend: ModuleType) -> None:
    """A node that returns a message it did not stream: langgraph-api sends
    it whole, as a ``messages`` pair."""
    message = ai(
        "Done.",
        tool_calls=[{"name": "lookup", "args": {"q": "é"}, "id": "c1", "type": "tool_call"}],
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    )
    events = decoded(backend, [METADATA, {"event": "messages", "data": [message, {"langgraph_node": "n"}]}])
    assert [e["type"] for e in events] == [
        "run_started",
        "message_started",
        "block_started",
        "block_delta",
        "block_started",
        "block_delta",
        "block_finished",
        "block_finished",
        "message_finished",
        "run_finished",
    ]
    assert [e["delta"] for e in events if e["type"] == "block_delta"] == ["Done.", '{"q":"é"}']
    assert events[-2]["usage"] == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}


@pytest.mark.parametrize(
    "target", [name for name, row in TABLE.items() if "tool_call" not in row.cannot_carry]
)
def test_a_legacy_stream_converts_with_its_messages(target: str) -> None:
    """What the neutral view reads is what other protocols are written:
    the same from either mode of the same run."""
    for backend in conversion.backends():
        read = {}
        for name in ("legacy_messages", "tool_call"):
            written = conversion.convert(
                backend, "langgraph", target, (FIXTURES / "langgraph" / f"{name}.sse").read_bytes()
            )
            assembler = backend.NeutralAssembler(target)
            assembler.feed(written)
            read[name] = [
                [
                    block.get("text") or block.get("output")
                    for block in message["blocks"]
                    if "arguments" not in block
                ]
                for message in assembler.close()["messages"]
            ]
        assert read["legacy_messages"] == read["tool_call"]
        assert any("It is 21 °C in Paris, 日本 too." in texts for texts in read["legacy_messages"])


def _chunk(message_id: str, *, content: Any = "", calls: Any = (), position: Any = None) -> dict[str, Any]:
    return {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "AIMessageChunk",
        "name": None,
        "id": message_id,
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": None,
        "tool_call_chunks": list(calls),
        "chunk_position": position,
    }


def _server_event(chunk: dict[str, Any], node: str) -> bytes:
    """A messages event as langgraph-api writes it: compact JSON, the
    chunk, then the run's metadata naming the node."""
    metadata = {"langgraph_step": 1, "langgraph_node": node, "checkpoint_ns": f"{node}:1"}
    data = json.dumps([chunk, metadata], separators=(",", ":"), ensure_ascii=False)
    return f"event: messages\ndata: {data}\n\n".encode()


def test_a_message_that_reopens_adds_its_usage_on_without_changing_what_was_sent(
    backend: ModuleType,
) -> None:
    """A message ended by its last chunk, then more of it (a server that
    sends a step again): it reopens, and its usage adds on from where it was,
    as langchain-core adds chunks. The first ``message_finished`` keeps the
    usage it was sent with (the pure backend once added into that very dict,
    which showed when one ``feed`` brought both)."""
    usage = {"input_tokens": 12, "output_tokens": 9, "total_tokens": 21}
    chunks = [
        _chunk("m1", content="Hi"),
        {**_chunk("m1", position="last"), "usage_metadata": usage},
        _chunk("m1", content=" again"),
        {**_chunk("m1", position="last"), "usage_metadata": usage},
    ]
    decoder = backend.NeutralDecoder("langgraph")
    events = decoder.feed(b"".join(_server_event(chunk, "agent") for chunk in chunks)) + decoder.close()
    finished = [event["usage"] for event in events if event["type"] == "message_finished"]
    # The judge: langchain-core adding the message's chunks.
    messages = pytest.importorskip("langchain_core.messages")
    added = functools.reduce(
        operator.add,
        (
            messages.AIMessageChunk(content=chunk["content"], id="m1", usage_metadata=chunk["usage_metadata"])
            for chunk in chunks
        ),
    )
    assert finished == [usage, added.usage_metadata]


def test_two_nodes_streaming_side_by_side_read_alike_on_every_path() -> None:
    """Two nodes' messages interleaved chunk by chunk (text, a content
    block, tool-call arguments), then an empty last chunk from one node
    that ends its message: the native backend reads most chunks without a
    tree of values, the pure one every chunk in full, and both give the
    same events in any chunking (the end finds the message each node
    streamed last)."""
    reasoning = [{"type": "reasoning", "reasoning": "hm", "index": 0}]
    call = [{"type": "tool_call_chunk", "index": 0, "id": "c1", "name": "f", "args": ""}]
    events = [b'event: metadata\ndata: {"run_id":"r1","attempt":1}\n\n']
    events += [
        _server_event(_chunk("a", content="A0"), "left"),
        _server_event(_chunk("b", content=reasoning), "right"),
    ]
    events += [_server_event(_chunk("b", calls=call), "right")]
    for step in range(3):
        events.append(_server_event(_chunk("a", content=f" a{step}é"), "left"))
        events.append(
            _server_event(
                _chunk("b", content=[{"type": "reasoning", "reasoning": f" r{step}", "index": 0}]), "right"
            )
        )
        args = [{"type": "tool_call_chunk", "index": 0, "id": None, "name": None, "args": f'"{step}"'}]
        events.append(_server_event(_chunk("b", calls=args), "right"))
    # The left node starts another message, then goes on with the first:
    # that is the one it streamed last, which an empty last chunk
    # (langchain-core ends a message with one named by its run) ends.
    events.append(_server_event(_chunk("c", content="C0"), "left"))
    events.append(_server_event(_chunk("a", content=" a3"), "left"))
    events.append(_server_event(_chunk("lc_run--1", position="last"), "left"))
    events.append(_server_event(_chunk("b", content=" done", position="last"), "right"))
    stream = b"".join(events)
    read = []
    for backend in conversion.backends():
        for chunk in (None, 1, 13, 4096):
            decoder = backend.NeutralDecoder("langgraph")
            out = [event for piece in conversion.chunked(stream, chunk) for event in decoder.feed(piece)]
            read.append(out + decoder.close())
    assert all(events == read[0] for events in read)
    ended = [event["message_id"] for event in read[0] if event["type"] == "message_finished"]
    assert ended == ["a", "b", "c"]
    deltas = [
        event["delta"] for event in read[0] if event["type"] == "block_delta" and event["message_id"] == "a"
    ]
    assert deltas == ["A0", " a0é", " a1é", " a2é", " a3"]
