"""Converting streams between protocols through the neutral vocabulary.

Every recorded stream of every protocol (a real AgentApp's endpoints,
agentscope-runtime's builders and runner, streams built with the protocols'
own SDKs and by real producers) is converted into every protocol, on both
backends, and judged:

- by the target's own SDK: each protocol's table row has a judge (its
  models validate the output, its client's accumulator gives what the
  assembler gives), and every output assembles without an error;
- by what it carries: the neutral view of the output holds every message,
  block, text, argument and result of the source that the target can carry
  (TARGET_LOSSES says what each cannot, and docs/guides/converting.md's table repeats it);
- and round trips A -> B -> A keep what B carries.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agentcodec import AgentCodecError, SSELimitError
from agentcodec._protocols import encoder
from agentcodec._pure.registry import PROTOCOLS as PURE_PROTOCOLS
from agentcodec.events import PROTOCOLS
from conftest import PURE
from conversion import CANCELLED_RUN, OPTIONS, SOURCE_IDS, SOURCES, backends, convert, view
from protocol_table import TABLE
from sse_helpers import as_sse, data_events

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# What each target cannot carry (docs/guides/converting.md, "What a conversion loses").
TARGET_LOSSES = {name: row.cannot_carry for name, row in TABLE.items()}


def transcript(
    neutral: dict[str, Any],
    losses: set[str] = frozenset(),
    skip: set[int] = frozenset(),
    broken: set[Any] = frozenset(),
) -> list[tuple[Any, ...]]:
    """What a stream says, whatever protocol carried it: its blocks in order,
    text by kind, tool calls by id, name and parsed arguments, results by
    call and output, without what the target cannot carry (and without the
    blocks at the positions in ``skip``, or the arguments of the calls in
    ``broken``)."""
    lines: list[tuple[Any, ...]] = []
    # (positions count the blocks the target carries, as ``corrected`` counts them)
    blocks = [
        block for message in neutral["messages"] for block in message["blocks"] if block["kind"] not in losses
    ]
    for position, block in enumerate(blocks):
        kind = block["kind"]
        if position in skip:
            continue
        if kind in ("text", "reasoning", "refusal"):
            if not block.get("text"):
                continue
            shown = "text" if kind == "refusal" and "refusal_kind" in losses else kind
            lines.append((shown, block["text"]))
        elif kind == "tool_call":
            parsed = None if "block_ends" in losses and not neutral["ended"] else block.get("input")
            if block.get("call_id") in broken:
                parsed = None
            lines.append(("tool_call", block.get("call_id"), block.get("name"), parsed))
        elif kind == "tool_result":
            lines.append(("tool_result", block.get("call_id"), as_json(block.get("output"))))
        else:
            lines.append((kind,))
    if "media_order" in losses:
        # Media written whole when complete: where it lands among the blocks
        # that started meanwhile is not kept, only that it came.
        lines = [line for line in lines if line != ("media",)] + [
            line for line in lines if line == ("media",)
        ]
    # Consecutive text of one kind is one text, however it was split into blocks.
    merged: list[tuple[Any, ...]] = []
    for line in lines:
        if merged and line[0] in ("text", "reasoning") and merged[-1][0] == line[0] and len(line) == 2:
            merged[-1] = (line[0], merged[-1][1] + line[1])
        else:
            merged.append(line)
    return merged


def as_json(output: Any) -> Any:
    """A tool's output as a value: a protocol whose results are text
    (``results_as_text``) carries a structured output as its JSON."""
    if isinstance(output, str):
        try:
            return json.loads(output)
        except ValueError:
            return output
    return output


def broken_calls(neutral: dict[str, Any]) -> set[Any]:
    """The ids of the calls whose arguments are not JSON: a target whose
    inputs must be objects ends them as the JSON of their last
    clean prefix."""
    return {
        block.get("call_id")
        for message in neutral["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call" and block.get("error") == "arguments are not valid JSON"
    }


def corrected(neutral: dict[str, Any], losses: set[str] = frozenset()) -> set[int]:
    """The positions of blocks whose streamed text a snapshot corrected, among
    the blocks of kinds the target carries: an append-only target keeps
    what streamed, not the correction."""
    blocks = [
        block for message in neutral["messages"] for block in message["blocks"] if block["kind"] not in losses
    ]
    # (A tool's output given whole, not streamed, corrects nothing.)
    return {
        position
        for position, block in enumerate(blocks)
        if block.get("replaced") and block["kind"] != "tool_result"
    }


def run_outcome(neutral: dict[str, Any], target: str | None = None) -> tuple[Any, ...]:
    """The run's status and error; for a run that ended, its status as the
    target writes it."""
    status = neutral["status"]
    if target is not None and neutral["ended"]:
        status = TABLE[target].status_as_carried.get(status, status)
    error = (neutral["error"] or {}).get("message") if status == "failed" else None
    return status, error


@pytest.fixture(scope="module")
def outputs() -> dict[tuple[str, str, str], bytes]:
    """Every source converted into every target, by each backend."""
    results = {}
    for backend in backends():
        for (source, path), source_id in zip(SOURCES, SOURCE_IDS, strict=True):
            stream = path.read_bytes()
            for target in PROTOCOLS:
                results[(backend.__name__, source_id, target)] = convert(backend, source, target, stream)
    return results


@pytest.mark.parametrize("target", PROTOCOLS)
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_backends_agree_in_any_chunking(source: str, path: Path, target: str) -> None:
    stream = path.read_bytes()
    expected = convert(PURE, source, target, stream)
    for backend in backends():
        assert convert(backend, source, target, stream) == expected
        assert convert(backend, source, target, stream, chunk=500) == expected


@pytest.mark.parametrize("target", PROTOCOLS)
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_what_the_target_can_carry_comes_through(source: str, path: Path, target: str) -> None:
    stream = path.read_bytes()
    backend = backends()[0]
    original = view(backend, source, stream)
    converted = view(backend, target, convert(backend, source, target, stream))
    cut_short = TABLE[target].ends_every_stream and not original["ended"]
    if cut_short:
        # Its stream reads back as whole: what came is compared, as it came.
        converted["ended"] = False
    losses = TARGET_LOSSES[target]
    skip = corrected(original, losses) if "corrections" in losses else set()
    broken = broken_calls(original) if "broken_arguments" in losses else set()
    assert transcript(converted, losses, skip, broken) == transcript(original, losses, skip, broken)
    if cut_short:
        assert run_outcome(converted) == ("completed", None)
    else:
        assert run_outcome(converted) == run_outcome(original, target)


@pytest.mark.parametrize("middle", PROTOCOLS)
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_round_trips_keep_what_the_middle_carries(source: str, path: Path, middle: str) -> None:
    stream = path.read_bytes()
    backend = backends()[0]
    there = convert(backend, source, middle, stream)
    back = convert(backend, middle, source, there)
    losses = TARGET_LOSSES[middle] | TARGET_LOSSES[source]
    original = view(backend, source, stream)
    skip = corrected(original, losses) if "corrections" in losses else set()
    broken = broken_calls(original) if "broken_arguments" in losses else set()
    back_view = view(backend, source, back)
    if TABLE[middle].ends_every_stream and not original["ended"]:
        # Its stream reads back as whole: what came is compared, as it came.
        back_view["ended"] = False
    returned = transcript(back_view, losses, skip, broken)
    if middle != source and len(original["messages"]) > 1 and TABLE[source].carries_choices:
        # Only Chat carries choices (n > 1): through another protocol they
        # come back as one, their content interleaved as it streamed.
        assert contents(returned) == contents(transcript(original, losses, skip, broken))
    else:
        assert returned == transcript(original, losses, skip, broken)


def contents(lines: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """A transcript's text by kind, joined, and its other lines, sorted."""
    texts: dict[str, str] = {}
    others = []
    for line in lines:
        if len(line) == 2 and line[0] in ("text", "reasoning", "refusal"):
            texts[line[0]] = texts.get(line[0], "") + line[1]
        else:
            others.append(json.dumps(line, sort_keys=True))
    return texts, sorted(others)


# --- judged by the target's SDK ---------------------------------------------------------


@pytest.mark.parametrize("target", [name for name, row in TABLE.items() if row.judge is not None])
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_the_targets_own_sdk_reads_the_output(source: str, path: Path, target: str) -> None:
    """Each target's judge (its table row's): what its SDK reads, and its
    assembler, on each backend."""
    judge = TABLE[target].judge
    assert judge is not None
    for backend in backends():
        judge(backend, convert(backend, source, target, path.read_bytes()))


@pytest.mark.parametrize("target", PROTOCOLS)
def test_a_cancelled_run_ends_every_target_properly(target: str) -> None:
    """The text so far, then the run's end as the target writes a cancelled
    run (each target's own events are its tests')."""
    for backend in backends():
        seen = view(backend, target, convert(backend, "agentscope", target, CANCELLED_RUN))
        assert seen["ended"]
        assert seen["status"] == TABLE[target].status_as_carried.get("cancelled", "cancelled")
        assert [block.get("text") for message in seen["messages"] for block in message["blocks"]] == [
            "partial"
        ]


def test_errors_name_the_source_event() -> None:
    for backend in backends():
        transcoder = backend.Transcoder("agentscope", "langchain", timestamp=1)
        with pytest.raises(AgentCodecError, match=r"AgentScope event 2 is not valid JSON"):
            transcoder.feed(b'data: {"object":"response","id":"r","status":"created"}\n\ndata: {oops\n\n')
        with pytest.raises(ValueError, match="unknown source protocol"):
            backend.Transcoder("nope", "langchain")
        with pytest.raises(TypeError, match="takes no option"):
            backend.Transcoder("agentscope", "langchain", session_id="x")
        # An encoder without options says so (as the registry lists them).
        bare = next(name for name, protocol in PURE_PROTOCOLS.items() if not protocol.options)
        takes_none = rf"^the {bare} encoder takes no option 'model' \(it takes none\)$"
        with pytest.raises(TypeError, match=takes_none):
            backend.Transcoder("agentscope", bare, model="m")


# An encoder that takes a bool option, and the option.
BOOL_TARGET, BOOL_OPTION = next(
    (name, option)
    for name, protocol in PURE_PROTOCOLS.items()
    for option, kind in protocol.options.items()
    if kind == "bool"
)


@pytest.mark.parametrize(
    ("target", "options"),
    [
        ("agentscope", {"zeta": 1, "model": "m"}),  # the first unknown name in sorted order
        ("agentscope", {"session_id": 1}),
        ("agentscope", {"session_id": ("r",)}),
        ("agentscope", {"created_at": True}),  # a bool is no int
        ("agentscope", {"created_at": 1.0}),
        ("agentscope", {"created_at": 2**64}),
        ("agentscope", {"response_id": "r", "created_at": "1"}),
        ("langchain", {"namespace": ["a", 1]}),
        ("langchain", {"namespace": "a"}),
        ("agentscope", {"response_id": object()}),
        (BOOL_TARGET, {BOOL_OPTION: 1}),  # an int is no bool
        (BOOL_TARGET, {BOOL_OPTION: "false"}),
    ],
)
def test_encoder_options_are_refused_alike(target: str, options: dict[str, Any]) -> None:
    refusals = []
    for backend in backends():
        with pytest.raises((TypeError, ValueError)) as refused:
            backend.Transcoder("langchain", target, **options)
        refusals.append((type(refused.value), str(refused.value)))
    assert len(set(refusals)) == 1, refusals


# A run's first events: a message, and a delta of its text.
RUN_HEAD = [
    {"object": "response", "id": "r", "status": "created", "session_id": "s"},
    {"object": "message", "id": "m1", "type": "message", "role": "assistant", "status": "in_progress"},
    {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "Hel"},
]


def langchain_kinds(envelopes: list[dict[str, Any]]) -> list[str]:
    """What each LangChain envelope is: its data's event."""
    return [envelope["params"]["data"]["event"] for envelope in envelopes]


def test_feed_event_returns_the_targets_events() -> None:
    for backend in backends():
        transcoder = backend.Transcoder("agentscope", "langchain", timestamp=5)
        out = transcoder.feed_event(RUN_HEAD[0])
        assert langchain_kinds(out) == ["started"]
        out = transcoder.feed_event(RUN_HEAD[1]) + transcoder.feed_event(RUN_HEAD[2])
        assert langchain_kinds(out) == ["message-start", "content-block-start", "content-block-delta"]
        assert out[-1]["params"]["data"]["delta"] == {"type": "text-delta", "text": "Hel"}
        assert out[0]["params"]["data"]["id"] == "m1"


def test_encoder_options_reach_the_encoder() -> None:
    for backend in backends():
        transcoder = backend.Transcoder(
            "agentscope", "langchain", namespace=("graph", "agent"), node=None, timestamp=7
        )
        out = []
        for event in RUN_HEAD:
            out += transcoder.feed_event(event)
        params = [event["params"] for event in out if event.get("method") == "messages"]
        assert params, out
        assert all(param["namespace"] == ["graph", "agent"] for param in params)
        assert all(param["timestamp"] == 7 for param in params)
        # node=None: no node, where the default names the model's.
        assert all("node" not in param for param in params), params


def test_what_was_converted_before_an_error_comes_with_the_next_call() -> None:
    stream = (
        b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in RUN_HEAD) + b"data: nope\n\n"
    )
    last = {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "lo"}
    for backend in backends():
        # By bytes, then by events: the deltas written straight to bytes come back as events.
        transcoder = backend.Transcoder("agentscope", "langchain", timestamp=1)
        with pytest.raises(AgentCodecError, match="AgentScope event 4 is not valid JSON"):
            transcoder.feed(stream)
        converted = transcoder.feed_event(last)
        assert langchain_kinds(converted) == [
            "started",
            "message-start",
            "content-block-start",
            "content-block-delta",
            "content-block-delta",
        ]
        assert "".join(event["params"]["data"]["delta"]["text"] for event in converted[3:]) == "Hello"
        # By bytes throughout.
        transcoder = backend.Transcoder("agentscope", "langchain", timestamp=1)
        with pytest.raises(AgentCodecError):
            transcoder.feed(stream)
        rest = transcoder.feed(b"data: " + json.dumps(last).encode() + b"\n\n") + transcoder.close()
        assert rest.count(b"content-block-delta") == 2
        # The source was cut: the target is not ended for it (no run's end made up).
        assert data_events(rest)[-1]["params"]["data"]["delta"]["text"] == "lo"


# --- LangChain output, judged by langchain-core ------------------------------------------


JUDGED = sorted((FIXTURES / "langchain_judged").glob("*.json"))


def without_index(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # ChatModelStream writes the wire position into a block's "index"; the
    # assembler leaves blocks as the stream finished them.
    return [{key: value for key, value in block.items() if key != "index"} for block in blocks]


def test_every_other_protocols_stream_is_judged_by_langchain_core() -> None:
    assert len(JUDGED) == len([source for source, _ in SOURCES if source != "langchain"])


@pytest.mark.parametrize("reference", JUDGED, ids=lambda path: path.stem)
def test_langchain_output_assembles_in_langchain_core_as_here(reference: Path) -> None:
    """scripts/langchain_judged_fixtures.py recorded what langchain-core's
    ChatModelStream makes of each AI message of the converted stream."""
    expected = json.loads(reference.read_text(encoding="utf-8"))
    source, name = expected["source"].split(":", 1)
    stream = (FIXTURES / name).read_bytes()
    for backend in backends():
        transcoder = backend.Transcoder(source, "langchain", timestamp=1763700000000)
        converted = transcoder.feed(stream) + transcoder.close()
        # The bytes langchain-core judged (a converter that writes others: record again).
        assert hashlib.sha256(converted).hexdigest() == expected["sha256"]
        assembler = backend.LangChainAssembler()
        assembler.feed(converted)
        ours = [message for message in assembler.close() if message["role"] == "ai"]
        assert [message["id"] for message in ours] == [message["id"] for message in expected["messages"]]
        for message, theirs in zip(ours, expected["messages"], strict=True):
            if "error" in theirs:
                # langchain-core raises for a message that failed or never
                # finished; agentcodec keeps what came, and says why.
                assert message["status"] in ("error", "incomplete")
                if message["status"] == "error":
                    assert theirs["error"].endswith(message["error"]["message"])
                continue
            assert message["status"] == "completed"
            assert without_index(message["content"]) == without_index(theirs["content"])
            if theirs["usage"]:
                assert message["usage"] == theirs["usage"]


def test_after_a_limit_error_closing_hands_on_what_came_before() -> None:
    events = [
        {"object": "response", "id": "r", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "Hello"},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    stream += b"data: " + b"x" * 500 + b"\n\n"
    for backend in backends():
        transcoder = backend.Transcoder("agentscope", "langchain", max_line_bytes=200, timestamp=1)
        with pytest.raises(SSELimitError, match="max_line_bytes=200"):
            transcoder.feed(stream)
        with pytest.raises(SSELimitError):
            transcoder.feed(b"data: {}\n\n")  # nothing more is read
        converted = data_events(transcoder.close())
        assert langchain_kinds(converted) == [
            "started",
            "message-start",
            "content-block-start",
            "content-block-delta",
        ]
        assert converted[-1]["params"]["data"]["delta"]["text"] == "Hello"
        decoder = backend.NeutralDecoder("agentscope", max_line_bytes=200)
        with pytest.raises(SSELimitError):
            decoder.feed(stream)
        assert [event["type"] for event in decoder.close()][-1] == "block_delta"
        assembler = backend.NeutralAssembler("agentscope", max_line_bytes=200)
        with pytest.raises(SSELimitError):
            assembler.feed(stream)
        view = assembler.close()
        assert view["status"] == "incomplete"
        assert view["messages"][0]["blocks"][0]["text"] == "Hello"


def test_argument_deltas_convert_alike_in_every_form_they_come() -> None:
    """Data deltas to a tool call or result take the native decoder's quick
    path when ``data`` is an object with the string it appends; every other
    form (a repeated key, extra keys, escapes, white space, a string or a
    number where the text goes) must convert as the full path does."""
    call = "msg_call"
    result = "msg_result"
    head = '{"object":"content","status":"in_progress","type":"data","index":0,"delta":true,"msg_id":'
    lines = [
        '{"object":"response","id":"r1","status":"created"}',
        '{"object":"message","id":"msg_call","type":"plugin_call","role":"assistant","status":"in_progress"}',
        head + f'"{call}","data":{{"call_id":"c1","name":"search","arguments":""}}}}',
        head + f'"{call}","data":{{"arguments":"{{\\"q\\": "}}}}',
        head + f'"{call}","data":{{"arguments":"lost"}},"data":{{"arguments":"\\"caf\\u00e9 \\\\n\\", "}}}}',
        head + f'"{call}","data":{{"name":"other","arguments":"\\"n\\": 1"}}}}',
        head + f'"{call}", "data" : {{ "arguments" : ", \\"x\\"" , "arguments" : ", \\"k\\"" }} }}',
        head + f'"{call}","data":{{"arguments":7}}}}',
        head + f'"{call}","data":"not an object"}}',
        head + f'"{call}","data":{{"output":"no"}}}}',
        head + f'"{call}","data":{{"arguments":": 2}}"}}}}',
        '{"object":"content","status":"completed","type":"data","index":0,"delta":true,"msg_id":'
        f'"{call}","data":{{"arguments":""}}}}',
        '{"object":"message","id":"msg_call","type":"plugin_call","status":"completed"}',
        '{"object":"message","id":"msg_result","type":"plugin_call_output","role":"tool","status":"in_progress"}',
        head + f'"{result}","data":{{"call_id":"c1","name":"search","output":""}}}}',
        head + f'"{result}","data":{{"output":"fo"}}}}',
        head + f'"{result}","data":{{"arguments":"ignored","output":"und"}}}}',
        '{"object":"content","status":"completed","type":"data","index":0,"delta":true,"msg_id":'
        f'"{result}","data":{{"output":""}}}}',
        '{"object":"message","id":"msg_result","type":"plugin_call_output","status":"completed"}',
        '{"object":"response","id":"r1","status":"completed"}',
    ]
    for line in lines:
        json.loads(line)  # each is JSON (a repeated key: the last wins)
    stream = "".join(f"data: {line}\n\n" for line in lines).encode()
    for target in PROTOCOLS:
        expected = convert(PURE, "agentscope", target, stream)
        for backend in backends():
            assert convert(backend, "agentscope", target, stream) == expected, target
            assert convert(backend, "agentscope", target, stream, chunk=7) == expected, target
    for backend in backends():
        converted = convert(backend, "agentscope", "langchain", stream)
        neutral = view(backend, "langchain", converted)
        blocks = [block for message in neutral["messages"] for block in message["blocks"]]
        assert blocks[0]["arguments"] == '{"q": "café \\n", "n": 1, "k": 2}'
        assert blocks[0]["input"] == {"q": "café \n", "n": 1, "k": 2}
        assert blocks[1]["output"] == "found"


@pytest.mark.parametrize("target", PROTOCOLS)
@pytest.mark.parametrize("source", PROTOCOLS)
def test_each_protocol_frames_its_events_in_one_place(source: str, target: str) -> None:
    """The Transcoder's bytes are its events written by the target package's
    public ``encode`` (what servers write events with), on both backends."""
    stream = TABLE[source].recorded()
    data = [event.data for event in backends()[0].SSEDecoder().feed(as_sse(stream))]
    events = TABLE[source].events(stream)
    # Chat ends by a marker that is no event: it goes as bytes.
    done = b"data: [DONE]\n\n" if "[DONE]" in data else b""
    options = OPTIONS[target]
    encode = encoder(target)
    for backend in backends():
        by_bytes = backend.Transcoder(source, target, **options)
        written = by_bytes.feed(stream) + by_bytes.close()
        by_events = backend.Transcoder(source, target, **options)
        converted = [out for event in events for out in by_events.feed_event(event)]
        rest = by_events.feed(done) + by_events.close()
        assert written, (source, target)
        assert b"".join(bytes(encode(event)) for event in converted) + rest == written
