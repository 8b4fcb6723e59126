"""Generated LangChain protocol streams (hypothesis): the native and
pure-Python assemblers agree on everything observable, and chunking never
matters."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import AgentCodecError
from conftest import NATIVE, PURE, examples, requires_native
from sse_helpers import split_at

words = st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 2**60), st.floats(allow_nan=False), words)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=6,
)
indexes = st.one_of(st.integers(0, 2), st.integers(0, 2), st.sampled_from([-1, 2**53, 1.0, True, None, "0"]))
block_types = st.sampled_from(
    ["text", "reasoning", "tool_call_chunk", "server_tool_call_chunk", "image", "audio", "refusal", None, 1]
)
args_values = st.one_of(
    st.sampled_from(["", '{"q":', '"x"}', "{}", "[1,2]", '{"a":1}', "}", "NaN", None]), words, json_values
)


@st.composite
def blocks(draw: st.DrawFn) -> dict[str, Any]:
    block: dict[str, Any] = {"type": draw(block_types)}
    ids = st.sampled_from(["call_1", "call_2", None])
    for key, strategy, odds in (
        ("text", words, 3),
        ("reasoning", words, 3),
        ("args", args_values, 2),
        ("id", ids, 1),
        ("name", ids, 1),
        ("data", words, 3),
        ("base64", words, 3),
        ("mimeType", words, 3),
        ("extras", json_values, 3),
    ):
        if draw(st.integers(0, odds)) == 0:
            block[key] = draw(strategy)
    return block


@st.composite
def deltas(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "text-delta",
                "reasoning-delta",
                "data-delta",
                "block-delta",
                "tool-call-delta",
                "citation-delta",
                None,
            ]
        )
    )
    delta: dict[str, Any] = {"type": kind}
    if kind == "block-delta":
        delta["fields"] = draw(blocks() | json_values)
    elif kind == "data-delta":
        delta["data"] = draw(words)
        if draw(st.booleans()):
            delta["encoding"] = draw(st.sampled_from(["base64", "hex", None]))
    else:
        for key in ("text", "reasoning", "args"):
            if draw(st.booleans()):
                delta[key] = draw(args_values if key == "args" else words | st.none())
    return delta


@st.composite
def message_data(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "message-start",
                "content-block-start",
                "content-block-delta",
                "content-block-delta",
                "content-block-delta",
                "content-block-finish",
                "message-finish",
                "error",
                "usage",
            ]
        )
    )
    data: dict[str, Any] = {"event": kind}
    if kind == "message-start":
        data["role"] = draw(st.sampled_from(["ai", "tool", None]))
        data[draw(st.sampled_from(["id", "message_id", "messageId"]))] = draw(words)
        if draw(st.booleans()):
            data["metadata"] = draw(json_values)
        if draw(st.booleans()):
            data["toolCallId"] = draw(words)
    elif kind.startswith("content-block"):
        data["index"] = draw(indexes)
        if kind == "content-block-delta" and draw(st.integers(0, 4)):
            data["delta"] = draw(deltas())
        else:
            data[draw(st.sampled_from(["content", "content_block", "contentBlock"]))] = draw(blocks())
    elif kind == "message-finish":
        if draw(st.booleans()):
            data["usage"] = draw(
                st.dictionaries(
                    st.sampled_from(["inputTokens", "output_tokens", "inputTokenDetails", "cacheRead"]),
                    json_values,
                    max_size=3,
                )
            )
        for key in ("reason", "metadata", "finish_reason", "additional_kwargs"):
            if draw(st.integers(0, 2)) == 0:
                data[key] = draw(
                    st.sampled_from(["stop", None]) | st.dictionaries(st.just("finish_reason"), words)
                )
    elif kind == "error":
        data["message"] = draw(words)
        if draw(st.booleans()):
            data["code"] = draw(words | st.integers(0, 500))
    return data


@st.composite
def envelopes(draw: st.DrawFn) -> Any:
    choice = draw(st.integers(0, 12))
    if choice == 0:
        return draw(json_values)
    if choice == 1:
        return {"type": draw(st.sampled_from(["success", "error", None])), "id": 1}
    # Mostly one namespace and node, so that events meet the same message.
    namespaces = st.sampled_from([[]] * 6 + [["a"], ["a", "b"], [1], None])
    params: dict[str, Any] = {"namespace": draw(namespaces), "data": draw(message_data())}
    if draw(st.integers(0, 3)) == 0:
        params["node"] = draw(st.sampled_from(["model", "tools", 3]))
    envelope: dict[str, Any] = {
        "type": "event",
        "method": draw(st.sampled_from(["messages"] * 6 + ["values"])),
        "params": params,
    }
    if draw(st.integers(0, 2)) == 0:
        envelope[draw(st.sampled_from(["event_id", "eventId"]))] = draw(
            st.sampled_from(["e1", "e2", "e3", 4])
        )
    return envelope


frames = st.one_of(envelopes().map(json.dumps), st.sampled_from(["not json", "[1]", "null", "{}"]))
options = st.fixed_dictionaries(
    {
        "tool_args": st.sampled_from(["strict", "auto"]),
        "on_error": st.sampled_from(["raise", "skip"]),
    }
)
SETTINGS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def stream_of(texts: list[str]) -> bytes:
    return b"".join(b"event: messages\ndata: " + text.encode() + b"\n\n" for text in texts)


def observe(backend: ModuleType, chunks: list[bytes], opts: dict[str, Any], read_often: bool = True) -> list:
    assembler = backend.LangChainAssembler(**opts)
    seen: list = []
    for chunk in [*chunks, None]:
        try:
            result = assembler.close() if chunk is None else assembler.feed(chunk)
        except AgentCodecError as err:
            result = (type(err).__name__, str(err))
        if read_often or chunk is None:
            seen.append(
                (
                    result,
                    assembler.messages,
                    assembler.errors,
                    assembler.event_count,
                    assembler.duplicate_count,
                )
            )
    return seen


@requires_native
@SETTINGS
@given(texts=st.lists(frames, max_size=14), opts=options, cut=st.integers(1, 60))
def test_native_and_python_agree(texts: list[str], opts: dict[str, Any], cut: int) -> None:
    stream = stream_of(texts)
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    assert observe(NATIVE, chunks, opts) == observe(PURE, chunks, opts)


@requires_native
@SETTINGS
@given(events=st.lists(envelopes(), max_size=14), opts=options)
def test_feed_event_and_feed_frame_agree(events: list[Any], opts: dict[str, Any]) -> None:
    def run(backend: ModuleType, how: str) -> list:
        assembler = backend.LangChainAssembler(**opts)
        seen = []
        for event in events:
            try:
                if how == "event":
                    assembler.feed_event(event)
                else:
                    assembler.feed_frame(json.dumps(event))
            except AgentCodecError as err:
                seen.append((type(err).__name__, str(err)))
        return [*seen, assembler.messages, assembler.errors, assembler.duplicate_count]

    for how in ("event", "frame"):
        assert run(NATIVE, how) == run(PURE, how)


@pytest.mark.parametrize(
    "backend", [pytest.param(NATIVE, id="native", marks=requires_native), pytest.param(PURE, id="python")]
)
@SETTINGS
@given(texts=st.lists(frames, max_size=12), opts=options, cuts=st.lists(st.integers(0, 3000), max_size=6))
def test_chunking_never_matters(
    backend: ModuleType, texts: list[str], opts: dict[str, Any], cuts: list[int]
) -> None:
    opts = {**opts, "on_error": "skip"}
    stream = stream_of(texts)
    chunks = split_at(stream, [c for c in cuts if c <= len(stream)])
    assert observe(backend, chunks, opts, read_often=False) == observe(
        backend, [stream], opts, read_often=False
    )
