"""The LangChain protocol conformance cases (research notes, section 9),
numbered as there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcodec import LangChainEventError, langchain
from conftest import BACKENDS

Assembler: Any = None


@pytest.fixture(autouse=True, params=BACKENDS)
def _backend_assembler(request: pytest.FixtureRequest) -> None:
    """Every test here runs on both backends: ``Assembler`` is the backend's."""
    global Assembler  # noqa: PLW0603
    Assembler = request.param.LangChainAssembler


MS = {"event": "message-start", "role": "ai", "id": "m1"}
MF = {"event": "message-finish"}


def S(i: int, content: dict) -> dict:  # noqa: N802
    return {"event": "content-block-start", "index": i, "content": content}


def D(i: int, delta: dict) -> dict:  # noqa: N802
    return {"event": "content-block-delta", "index": i, "delta": delta}


def F(i: int, content: dict) -> dict:  # noqa: N802
    return {"event": "content-block-finish", "index": i, "content": content}


def text(t: str) -> dict:
    return {"type": "text-delta", "text": t}


def tcd(args: Any) -> dict:
    return {"type": "tool-call-delta", "args": args}


def bd(**fields: Any) -> dict:
    return {"type": "block-delta", "fields": fields}


CHUNK = {"type": "tool_call_chunk", "id": "call_1", "name": "search", "args": ""}


def envelope(data: dict, namespace: list[str] | None = None, node: str | None = None, **extra: Any) -> dict:
    params: dict[str, Any] = {"namespace": namespace or [], "timestamp": 1, "data": data}
    if node is not None:
        params["node"] = node
    return {"type": "event", "method": "messages", "params": params, **extra}


def run(*datas: dict, **options: Any) -> list[dict]:
    assembler = Assembler(**options)
    for data in datas:
        assembler.feed_event(envelope(data))
    return assembler.close()


def content(*datas: dict, **options: Any) -> list[dict]:
    (message,) = run(*datas, **options)
    return message["content"]


def test_01_basic_text() -> None:
    assert content(
        MS,
        S(0, {"type": "text", "text": ""}),
        D(0, text("Hel")),
        D(0, text("lo")),
        F(0, {"type": "text", "text": "Hello"}),
        MF,
    ) == [{"type": "text", "text": "Hello"}]


def test_02_finish_is_authoritative() -> None:
    assert (
        content(
            MS,
            S(0, {"type": "text", "text": ""}),
            D(0, text("Hel")),
            F(0, {"type": "text", "text": "Goodbye"}),
            MF,
        )[0]["text"]
        == "Goodbye"
    )


def test_03_non_empty_start() -> None:
    assert (
        content(MS, S(0, {"type": "text", "text": "Hi"}), D(0, text(" there")), MF)[0]["text"] == "Hi there"
    )


def test_04_reasoning_and_signature() -> None:
    blocks = content(
        MS,
        S(0, {"type": "reasoning", "reasoning": ""}),
        D(0, {"type": "reasoning-delta", "reasoning": "Let me"}),
        D(0, {"type": "reasoning-delta", "reasoning": " think"}),
        D(0, bd(type="reasoning", signature="sig")),
        F(0, {"type": "reasoning", "reasoning": "", "signature": "sig"}),
        MF,
    )
    assert blocks == [{"type": "reasoning", "reasoning": "Let me think", "signature": "sig"}]


def test_05_cumulative_block_delta_args() -> None:
    blocks = content(
        MS,
        S(0, CHUNK),
        D(0, bd(type="tool_call_chunk", args='{"q":')),
        D(0, bd(type="tool_call_chunk", args='{"q":"weather"}')),
        MF,
    )
    assert blocks == [{"type": "tool_call", "id": "call_1", "name": "search", "args": {"q": "weather"}}]


def test_06_tool_call_delta_appends() -> None:
    blocks = content(MS, S(0, CHUNK), D(0, tcd('{"query":')), D(0, tcd('"weather"}')), MF)
    assert blocks[0]["args"] == {"query": "weather"}


def test_07_mixed_append_and_replace() -> None:
    blocks = content(
        MS,
        S(0, CHUNK),
        D(0, tcd('{"a"')),
        D(0, bd(type="tool_call_chunk", args='{"a":1')),
        D(0, tcd("}")),
        MF,
    )
    assert blocks[0]["args"] == {"a": 1}


def test_08_null_id_and_name_do_not_clobber() -> None:
    blocks = content(MS, S(0, CHUNK), D(0, bd(type="tool_call_chunk", id=None, name=None, args="{}")), MF)
    assert blocks == [{"type": "tool_call", "id": "call_1", "name": "search", "args": {}}]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "strict",
            {
                "type": "invalid_tool_call",
                "id": "call_1",
                "name": "search",
                "args": '"x"}',
                "error": "Failed to parse tool call arguments as JSON",
            },
        ),
        ("auto", {"type": "tool_call", "id": "call_1", "name": "search", "args": {"q": "x"}}),
    ],
)
def test_09_incremental_block_delta(mode: str, expected: dict) -> None:
    events = [
        MS,
        S(0, CHUNK),
        D(0, bd(type="tool_call_chunk", args='{"q":')),
        D(0, bd(type="tool_call_chunk", args='"x"}')),
    ]
    assert content(*events, MF, tool_args=mode) == [expected]
    final = {"type": "tool_call", "id": "call_1", "name": "search", "args": {"q": "x"}}
    assert content(*events, F(0, final), MF, tool_args=mode) == [final]


def test_10_invalid_json_at_message_end() -> None:
    block = content(MS, S(0, CHUNK), D(0, tcd('{"q": ')), MF)[0]
    assert block == {
        "type": "invalid_tool_call",
        "id": "call_1",
        "name": "search",
        "args": '{"q": ',
        "error": "Failed to parse tool call arguments as JSON",
    }


def test_11_non_object_args() -> None:
    block = content(MS, S(0, CHUNK), D(0, tcd("[1,2]")), MF)[0]
    assert (block["type"], block["args"], block["error"]) == (
        "invalid_tool_call",
        "[1,2]",
        "Tool call arguments are not a JSON object",
    )


@pytest.mark.parametrize("args", ["", None])
def test_12_empty_or_null_args(args: Any) -> None:
    assert content(MS, S(0, {**CHUNK, "args": args}), MF)[0] == {
        "type": "tool_call",
        "id": "call_1",
        "name": "search",
        "args": {},
    }


def test_13_interleaved_blocks() -> None:
    blocks = content(
        MS,
        S(0, {"type": "text", "text": ""}),
        S(1, CHUNK),
        D(0, text("A")),
        D(1, tcd('{"x":')),
        D(0, text("B")),
        D(1, tcd("2}")),
        F(0, {"type": "text", "text": "AB"}),
        F(1, {"type": "tool_call", "id": "call_1", "name": "search", "args": {"x": 2}}),
        MF,
    )
    assert blocks == [
        {"type": "text", "text": "AB"},
        {"type": "tool_call", "id": "call_1", "name": "search", "args": {"x": 2}},
    ]


def test_14_block_data() -> None:
    (block,) = content(
        MS,
        S(0, {"type": "audio", "mime_type": "audio/wav"}),
        D(0, {"type": "data-delta", "data": "UklG"}),
        D(0, {"type": "data-delta", "data": "RiQA"}),
        MF,
    )
    assert block["base64"] == "UklGRiQA"
    assert langchain.block_bytes(block) == b"RIFF$\x00"


def test_15_unaligned_and_padded_base64() -> None:
    (block,) = content(
        MS,
        S(0, {"type": "image"}),
        D(0, {"type": "data-delta", "data": "UklGR"}),
        D(0, {"type": "data-delta", "data": "iQA"}),
        MF,
    )
    assert langchain.block_bytes(block) == b"RIFF$\x00"
    (padded,) = content(
        MS,
        S(0, {"type": "image"}),
        D(0, {"type": "data-delta", "data": "QUI="}),
        D(0, {"type": "data-delta", "data": "Qw=="}),
        MF,
    )
    with pytest.raises(langchain.LangChainError, match="not valid base64"):
        langchain.block_bytes(padded)


def test_16_data_field_naming_and_unknown_encoding() -> None:
    (block,) = content(
        MS,
        S(0, {"type": "image", "data": "", "mimeType": "image/png"}),
        D(0, {"type": "data-delta", "data": "iVBO"}),
        D(0, {"type": "data-delta", "data": "AAAA", "encoding": "hex"}),
        MF,
    )
    assert block == {"type": "image", "data": "iVBO", "mime_type": "image/png"}


def test_17_legacy_content_delta_tool_mirror() -> None:
    start = {"event": "message-start", "role": "tool", "id": "tool-c", "tool_call_id": "c"}
    legacy = {"event": "content-block-delta", "index": 0, "content": {"type": "text", "text": "42"}}
    for finish in ([F(0, {"type": "text", "text": "42"})], []):
        assembler = Assembler()
        for data in [
            start,
            S(0, {"type": "text", "text": ""}),
            legacy,
            *finish,
            {"event": "message-finish", "metadata": {}},
        ]:
            assembler.feed_event(envelope(data, ["agent", "tools:c"]))
        (message,) = assembler.close()
        assert (message["role"], message["tool_call_id"], message["content"]) == (
            "tool",
            "c",
            [{"type": "text", "text": "42"}],
        )


def test_18_legacy_content_block_keys() -> None:
    events = [
        MS,
        {"event": "content-block-start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"event": "content-block-delta", "index": 0, "content_block": {"type": "text", "text": "Hel"}},
        {"event": "content-block-delta", "index": 0, "contentBlock": {"type": "text", "text": "lo"}},
        {"event": "content-block-finish", "index": 0, "content_block": {"type": "text", "text": "Hello"}},
        MF,
    ]
    assert content(*events) == [{"type": "text", "text": "Hello"}]


def test_19_legacy_tool_chunk_fragments_append() -> None:
    frag = {"event": "content-block-delta", "index": 0}
    blocks = content(
        MS,
        S(0, CHUNK),
        {**frag, "content": {"type": "tool_call_chunk", "args": '{"a":'}},
        {**frag, "content": {"type": "tool_call_chunk", "id": None, "args": "1}"}},
        MF,
    )
    assert blocks == [{"type": "tool_call", "id": "call_1", "name": "search", "args": {"a": 1}}]


def test_20_unknown_delta_type_is_ignored() -> None:
    blocks = content(
        MS,
        S(0, {"type": "text", "text": "x"}),
        D(0, {"type": "citation-delta", "citation": {}}),
        F(0, {"type": "text", "text": "xy"}),
        MF,
    )
    assert blocks == [{"type": "text", "text": "xy"}]


def test_21_unknown_block_type_is_kept() -> None:
    blocks = content(
        MS,
        S(0, {"type": "refusal", "refusal": ""}),
        D(0, bd(type="refusal", refusal="no")),
        F(0, {"type": "refusal", "refusal": "no"}),
        MF,
    )
    assert blocks == [{"type": "refusal", "refusal": "no"}]


def test_22_shallow_merge() -> None:
    blocks = content(
        MS,
        S(0, {"type": "text", "text": "a", "extras": {"a": 1}}),
        D(0, bd(type="text", extras={"b": 2})),
        MF,
    )
    assert blocks[0]["extras"] == {"b": 2}


def test_23_late_join() -> None:
    (message,) = run(D(0, text("lo")), F(0, {"type": "text", "text": "Hello"}), MF)
    assert message["content"] == [{"type": "text", "text": "Hello"}]
    assert message["status"] == "completed"
    assert content(MS, D(0, tcd('{"a":1}')), MF) == []


def test_24_unfinished_text_block_is_kept() -> None:
    (message,) = run(
        MS,
        S(0, {"type": "text", "text": ""}),
        D(0, text("A")),
        F(0, {"type": "text", "text": "A"}),
        S(1, {"type": "text", "text": ""}),
        D(1, text("B")),
        MF,
    )
    assert message["content"] == [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]
    assert message["incomplete_blocks"] == [1]


def test_25_message_error_keeps_partial_content() -> None:
    (message,) = run(
        MS,
        S(0, {"type": "text", "text": ""}),
        D(0, text("Hi")),
        {"event": "error", "message": "rate limited", "code": "429"},
    )
    assert message["status"] == "error"
    assert message["error"] == {"message": "rate limited", "code": "429"}
    assert message["content"] == [{"type": "text", "text": "Hi"}]


def test_26_usage_casing_and_finish_reason() -> None:
    snake = {
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "input_token_details": {"cache_read": 3},
    }
    camel = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, "inputTokenDetails": {"cacheRead": 3}}
    (a,) = run(MS, {"event": "message-finish", "usage": snake, "metadata": {"finish_reason": "stop"}})
    (b,) = run(MS, {"event": "message-finish", "usage": camel, "reason": "stop"})
    assert a["usage"] == b["usage"] == snake
    assert a["finish_reason"] == b["finish_reason"] == "stop"


def test_27_routing_by_namespace_and_node() -> None:
    assembler = Assembler()
    for data in [MS, S(0, {"type": "text", "text": ""})]:
        for ns in (["a"], ["b"]):
            assembler.feed_event(envelope({**data, "id": f"m-{ns[0]}"} if data is MS else data, ns))
    for piece in "xyz":
        for ns in (["a"], ["b"]):
            assembler.feed_event(envelope(D(0, text(piece + ns[0])), ns))
    assembler.feed_event(envelope({**MS, "id": "m-a2"}, ["a"]))  # closes m-a
    messages = assembler.close()
    assert [(m["id"], m["status"], m["content"][0]["text"] if m["content"] else None) for m in messages] == [
        ("m-a", "incomplete", "xayaza"),
        ("m-b", "incomplete", "xbybzb"),
        ("m-a2", "incomplete", None),
    ]


@pytest.mark.parametrize("layout", ["servers", "other"])
def test_27_a_namespace_is_read_by_value_however_it_is_written(layout: str) -> None:
    """A delta's namespace, as bytes, is compared as text with the last
    delta's and read only when it differs: the same list written with
    escapes or spaces is the same namespace, another list or a list of
    anything but strings is not, exactly as the decoded events say."""

    def frame(seq: int, data: dict, namespace: str) -> bytes:
        if layout == "servers":  # the field order the quick path reads literally
            head = {"type": "event", "event_id": str(seq), "seq": seq, "method": "messages"}
            params = {"namespace": "NS", "timestamp": 1, "node": "model", "data": data}
        else:
            head = {"method": "messages", "type": "event"}
            params = {"node": "model", "data": data, "namespace": "NS"}
        body = json.dumps({**head, "params": params}, separators=(",", ":"), ensure_ascii=False)
        return f"data: {body.replace(chr(34) + 'NS' + chr(34), namespace)}\n\n".encode()

    frames = [
        frame(1, MS, '["a","b"]'),
        frame(2, S(0, {"type": "text", "text": ""}), '["a","b"]'),
        frame(3, D(0, text("1")), '["a","b"]'),
        frame(4, D(0, text("2")), '["\\u0061","b"]'),
        frame(5, D(0, text("3")), '[ "a" , "b" ]'),
        frame(6, D(0, text("x")), '["a"]'),
        frame(7, D(0, text("y")), '["a","b",1]'),
        frame(8, D(0, text("z")), '{"a":"b"}'),
        frame(9, D(0, text("4")), '["a","b"]'),
        frame(10, D(0, text("5")), '["a","b"]'),
    ]
    from_bytes = Assembler()
    for piece in frames:
        from_bytes.feed(piece)
    decoded = Assembler()
    for piece in frames:
        decoded.feed_event(json.loads(piece[len(b"data: ") :]))
    messages = from_bytes.close()
    assert messages == decoded.close()
    # ["a"] is another message's namespace (one made up for the delta, as
    # for a stream joined midway); the other two are no namespace.
    assert [m["content"][0]["text"] for m in messages if m["content"]] == ["12345", "x"]
    assert [e["message"] for e in from_bytes.errors] == [e["message"] for e in decoded.errors]


def test_28_sse_parsing() -> None:
    """The JSON split across two data lines (between tokens), CRLF, a comment."""
    envelope_text = json.dumps(envelope(MS, event_id="171-0", seq=43), separators=(",", ":"))
    head, tail = envelope_text.split(',"method"', 1)
    stream = (
        f': keepalive\r\nevent: messages\r\nid: 43\r\ndata: {head},\r\ndata: "method"{tail}\r\n\r\n'.encode()
    )
    for size in (1, 7, len(stream)):
        decoder = langchain.StreamDecoder()
        decoded = [m for i in range(0, len(stream), size) for m in decoder.feed(stream[i : i + size])]
        assert decoded == [json.loads(envelope_text)]
    assembler = Assembler()
    assembler.feed(stream)
    assert assembler.messages[0]["id"] == "m1"


def test_29_replay_dedup_by_event_id() -> None:
    events = [
        envelope(MS, event_id="e1"),
        envelope(S(0, {"type": "text", "text": ""}), event_id="e2"),
        envelope(D(0, text("Hel")), event_id="e3"),
        envelope(D(0, text("lo")), event_id="e4"),
    ]
    assembler = Assembler()
    for event in events + events[2:]:
        assembler.feed_event(event)
    (message,) = assembler.close()
    assert message["content"][0]["text"] == "Hello"
    assert assembler.duplicate_count == 2


def test_30_ws_envelopes() -> None:
    success = langchain.parse_message(
        '{"type":"success","id":1,"result":{"run_id":"r1"},"meta":{"appliedThroughSeq":42}}'
    )
    assert (langchain.message_type(success), success["meta"]) == ("success", {"applied_through_seq": 42})
    error = langchain.parse_message('{"type":"error","id":null,"error":"invalid_argument","message":"bad"}')
    assert (langchain.message_type(error), error["error"]) == ("error", "invalid_argument")
    gap = langchain.parse_message(
        '{"type":"error","id":3,"error":"resume_gap","since":5,"min_available_seq":900}'
    )
    assert (gap["error"], gap["min_available_seq"]) == ("resume_gap", 900)
    event = langchain.parse_message(json.dumps(envelope(MS, eventId="x")))
    assert event["event_id"] == "x"
    assembler = Assembler()
    for frame in [
        json.dumps(success),
        json.dumps(envelope(MS)),
        json.dumps(error),
        json.dumps(envelope(D(0, text("hi")))),
    ]:
        assembler.feed_frame(frame)
    assert assembler.messages[0]["content"] == [{"type": "text", "text": "hi"}]


# bad input ------------------------------------------------------------------------------


def test_bad_messages_raise_naming_them_and_keep_the_rest() -> None:
    ok = json.dumps(envelope(MS))
    delta = json.dumps(envelope(D(0, text("x"))))
    stream = "".join(f"data: {frame}\n\n" for frame in [ok, "{broken", "[1]", delta])
    assembler = Assembler()
    with pytest.raises(LangChainEventError) as info:
        assembler.feed(stream.encode())
    assert (info.value.event, str(info.value)) == (
        2,
        "LangChain protocol message 2 is not valid JSON: expected a string key, found 'b' at byte 1",
    )
    assert isinstance(info.value, ValueError)
    with pytest.raises(LangChainEventError, match="message 3 is a JSON array, not an object"):
        assembler.feed(b"")
    assembler.feed(b"")
    assert assembler.messages[0]["content"] == [{"type": "text", "text": "x"}]
    skipping = Assembler(on_error="skip")
    skipping.feed(stream.encode())
    assert [e["event"] for e in skipping.errors] == [2, 3]


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="tool_args"):
        Assembler(tool_args="loose")
    with pytest.raises(TypeError):
        Assembler(on_error=1)  # type: ignore[arg-type]


def test_tolerates_unknown_methods_events_and_channels() -> None:
    assembler = Assembler()
    for event in [
        {"type": "event", "method": "values", "params": {"namespace": [], "data": {"x": 1}}},
        {"type": "event", "method": "custom:progress", "params": {"namespace": [], "data": 1}},
        envelope({"event": "usage", "usage": {}}),
        envelope({"event": "provider", "payload": 1}),
        {"type": "mystery"},
        envelope(MS, node=3),
    ]:
        assembler.feed_event(event)
    assert [m["id"] for m in assembler.close()] == ["m1"]
