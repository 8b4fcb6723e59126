"""Converting streams between protocols through the neutral vocabulary.

Every recorded stream of every protocol (a real AgentApp's three endpoints,
agentscope-runtime's builders and runner, streams built with ag-ui-protocol's
and openai-python's own classes, langchain-core's bridge) is converted into
every protocol, on both backends, and judged:

- by the target's own SDK: AG-UI output validates with ag-ui-protocol's
  models and passes the client's verifier; Responses output runs through
  openai-python's ``ResponseStreamState`` to the Response agentcodec's own
  assembler gives; every output assembles without an error;
- by what it carries: the neutral view of the output holds every message,
  block, text, argument and result of the source that the target can carry
  (TARGET_LOSSES says what each cannot, and docs/guides/converting.md's table repeats it);
- and round trips A -> B -> A keep what B carries.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from agentcodec import AgentCodecError, SSELimitError
from agentcodec._protocols import encoder
from agentcodec._pure.registry import PROTOCOLS as PURE_PROTOCOLS
from agentcodec.events import PROTOCOLS
from agui_reference import apply_events, verify_events
from conftest import PURE
from conversion import OPTIONS, SOURCE_IDS, SOURCES, agui_stream, backends, convert, view
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
    """A tool's output as a value: a protocol whose results are text (AG-UI)
    carries a structured output as its JSON."""
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
    the blocks of kinds the target carries: an append-only target (AG-UI)
    keeps what streamed, not the correction."""
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


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_agui_output_validates_and_the_client_follows_it(source: str, path: Path) -> None:
    ag_ui = pytest.importorskip("ag_ui.core")
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ag_ui.Event)
    for backend in backends():
        stream = convert(backend, source, "agui", path.read_bytes())
        events = data_events(stream)
        for event in events:
            # What ag-ui-protocol's EventEncoder would write for it, byte for byte.
            model = adapter.validate_python(event)
            assert json.loads(model.model_dump_json(by_alias=True)) == event
        verify_events(events)
        reference = apply_events(events)
        assembler = backend.AGUIAssembler()
        assembler.feed(stream)
        run = assembler.close()
        assert run["messages"] == reference["messages"]
        assert (reference["warnings"] == [] and assembler.errors == []) or run["status"] == "error"


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_responses_output_is_what_openai_python_accumulates(source: str, path: Path) -> None:
    streaming = pytest.importorskip("openai.lib.streaming.responses._responses")
    from openai._models import construct_type
    from openai._types import omit
    from openai.types.responses import ResponseStreamEvent

    for backend in backends():
        stream = convert(backend, source, "openai-responses", path.read_bytes())
        events = data_events(stream)
        assert [event["sequence_number"] for event in events] == list(range(len(events)))
        state = streaming.ResponseStreamState(input_tools=omit, text_format=omit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for event in events:
                state.handle_event(construct_type(type_=ResponseStreamEvent, value=event))
            completed = state._completed_response
            expected = completed.to_dict() if completed is not None else None
        assembler = backend.OpenAIResponsesAssembler()
        assembler.feed(stream)
        response = assembler.close()
        assert assembler.errors == [] or response["status"] == "failed"
        if expected is not None:
            from test_openai_responses import without_sdk_extras

            assert response == without_sdk_extras(expected)


@pytest.mark.parametrize("target", ["agentscope", "langchain"])
@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_agentscope_and_langchain_output_assembles_cleanly(source: str, path: Path, target: str) -> None:
    for backend in backends():
        stream = convert(backend, source, target, path.read_bytes())
        if target == "agentscope":
            assembler = backend.AgentScopeAssembler(strict=True)
        else:
            assembler = backend.LangChainAssembler()
        assembler.feed(stream)
        assembler.close()
        assert all(error["code"] != "invalid_event" for error in assembler.errors)


# --- what the AgentApp's own adapters do, and what they should ---------------------------------


def test_agentscope_to_agui_does_what_the_agentapp_does_and_what_it_should() -> None:
    process = (FIXTURES / "agentapp" / "agent_turn.process.sse").read_bytes()
    theirs = data_events((FIXTURES / "agentapp" / "agent_turn.agui.sse").read_bytes())
    for backend in backends():
        ours = data_events(convert(backend, "agentscope", "agui", process))
        kinds = [event["type"] for event in ours]
        # Reasoning is reasoning, not text (agentscope-runtime #504).
        assert "REASONING_MESSAGE_START" in kinds
        assert kinds.count("TEXT_MESSAGE_START") == 1
        assert [event["type"] for event in theirs].count("TEXT_MESSAGE_START") == 2
        # Tool arguments stream (the AgentApp sends them once, whole).
        args = [event["delta"] for event in ours if event["type"] == "TOOL_CALL_ARGS"]
        assert len(args) > 1
        assert "".join(args) == '{"city": "Paris", "unit": "C"}'

        # The same text, results and run as the AgentApp's, event for event.
        def texts(events: list[dict[str, Any]], kind: str) -> str:
            return "".join(event["delta"] for event in events if event["type"] == kind)

        assert (
            texts(ours, "TEXT_MESSAGE_CONTENT")
            == json.loads((FIXTURES / "agentapp" / "agent_turn.json").read_text())["answer"]
        )
        result = next(event for event in ours if event["type"] == "TOOL_CALL_RESULT")
        their_result = next(event for event in theirs if event["type"] == "TOOL_CALL_RESULT")
        assert (result["toolCallId"], result["content"], result["role"]) == (
            their_result["toolCallId"],
            their_result["content"],
            their_result["role"],
        )
        assert kinds[0] == "RUN_STARTED"
        assert kinds[-1] == "RUN_FINISHED"


def test_agentscope_to_responses_keeps_tool_calls_and_failed_runs() -> None:
    for name, status in (("agent_turn", "completed"), ("agent_fails", "failed")):
        process = (FIXTURES / "agentapp" / f"{name}.process.sse").read_bytes()
        for backend in backends():
            assembler = backend.OpenAIResponsesAssembler()
            assembler.feed(convert(backend, "agentscope", "openai-responses", process))
            response = assembler.close()
            assert response["status"] == status
            types = [item["type"] for item in response["output"]]
            # The AgentApp drops plugin calls and their results (agentscope-runtime #486).
            assert "function_call" in types
            assert "function_call_output" in types
            assert "reasoning" in types
            assert assembler.function_calls[0]["arguments"] == {"city": "Paris", "unit": "C"}


def test_a_cancelled_run_ends_every_target_properly() -> None:
    events = [
        {"object": "response", "id": "r1", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "partial"},
        {"object": "response", "id": "r1", "status": "canceled"},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    for backend in backends():
        agui = data_events(convert(backend, "agentscope", "agui", stream))
        assert [event["type"] for event in agui][-3:] == [
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED",
        ]
        assert agui[-1]["outcome"] == {"type": "cancelled"}
        responses = data_events(convert(backend, "agentscope", "openai-responses", stream))
        assert responses[-1]["type"] == "response.incomplete"
        assert responses[-1]["response"]["status"] == "cancelled"
        assert responses[-1]["response"]["output"][0]["content"][0]["text"] == "partial"


INTERLEAVED_CALLS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '{"city": '},
    {"type": "TOOL_CALL_END", "toolCallId": "a"},
    {"type": "TOOL_CALL_START", "toolCallId": "b", "toolCallName": "weather"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "b", "delta": '{"city": "Zürich"}'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '"東'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '京"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "b"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


@pytest.mark.parametrize(
    "target", [t for t in PROTOCOLS if t != "agui" and "tool_call" not in TARGET_LOSSES[t]]
)
@pytest.mark.parametrize("chunk", [None, 5])
def test_arguments_after_a_calls_end_reach_every_target_as_the_agui_client_keeps_them(
    target: str, chunk: int | None
) -> None:
    """Producers that interleave parallel calls (pydantic-ai) may send a
    call's arguments after its TOOL_CALL_END; the AG-UI client appends them.
    A call whose end comes before its arguments are whole finishes when they
    are (or when the run ends), so that every target gets them whole. (The
    Transcoder once dropped them.)"""
    stream = agui_stream(INTERLEAVED_CALLS)
    client = backends()[0].AGUIAssembler()
    client.feed(stream)
    kept = {
        call["id"]: json.loads(call["function"]["arguments"])
        for message in client.close()["messages"]
        for call in message.get("toolCalls") or []
    }
    assert kept == {"a": {"city": "東京"}, "b": {"city": "Zürich"}}
    converted = {convert(backend, "agui", target, stream, chunk) for backend in backends()}
    assert len(converted) == 1
    calls = {
        block["call_id"]: block["input"]
        for message in view(backends()[0], target, converted.pop())["messages"]
        for block in message["blocks"]
        if block["kind"] == "tool_call"
    }
    assert calls == kept


@pytest.mark.parametrize("ending", ["RUN_FINISHED", "RUN_ERROR"])
def test_a_call_whose_arguments_never_become_whole_finishes_when_the_run_ends(ending: str) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "a", "toolCallName": "weather"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "a", "delta": '{"city": "Par'},
        {"type": "TOOL_CALL_END", "toolCallId": "a"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "then"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": ending, "threadId": "t", "runId": "r", "message": "boom"},
    ]
    outputs = []
    for backend in backends():
        decoder = backend.NeutralDecoder("agui")
        neutral = decoder.feed(agui_stream(events)) + decoder.close()
        outputs.append(neutral)
        kinds = [(event["type"], event.get("message_id")) for event in neutral]
        # The call's block (in a message of its own) stays open past its end...
        assert kinds.index(("block_finished", "a")) > kinds.index(("message_finished", "m"))
        # ...and finishes, with its message, before the run ends.
        assert kinds[-3:-1] == [("block_finished", "a"), ("message_finished", "a")]
        assert kinds[-1][0] == ("run_finished" if ending == "RUN_FINISHED" else "run_failed")
    assert outputs[0] == outputs[-1]


TEXT_THEN_CALL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Let me check 東京."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "weather", "parentMessageId": "m1"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"city": "東京"}'},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "sunny", "role": "tool"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "It is sunny."},
    {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def agentscope_output(stream: bytes) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """The AgentScope events of a converted stream, by (object, type,
    status), and the response its assembler closes to."""
    events = data_events(stream)
    assembler = backends()[0].AgentScopeAssembler()
    assembler.feed(stream)
    final = assembler.close()
    assert assembler.errors == [] or final["status"] == "failed"
    return [(event["object"], event.get("type"), event["status"]) for event in events], final


def test_a_call_in_a_message_that_ended_completes_before_its_result_in_agentscope() -> None:
    """AG-UI producers (pydantic-ai, ag-ui-langgraph) end the text message,
    then start the tool call naming it as parent. Converted to AgentScope,
    the call's message completes when its block does, so that the output
    lists the call before its result (it once completed at the run's end)."""
    stream = agui_stream(TEXT_THEN_CALL)
    converted = {convert(backend, "agui", "agentscope", stream) for backend in backends()}
    assert len(converted) == 1
    events, final = agentscope_output(converted.pop())
    completed = [kind for obj, kind, status in events if obj == "message" and status == "completed"]
    assert completed == ["message", "function_call", "function_call_output", "message"]
    assert [item["type"] for item in final["output"]] == completed
    assert final["output"][1]["content"][0]["data"]["arguments"] == '{"city": "東京"}'


def test_a_failed_run_keeps_what_streamed_in_agentscopes_failed_response() -> None:
    """A run that fails after a call, with an answer half written: the
    failed response holds the call and the text so far (incomplete), as the
    Responses encoder's failed response does."""
    events = [*TEXT_THEN_CALL[:10], {"type": "RUN_ERROR", "message": "boom", "code": "x"}]
    converted = {convert(backend, "agui", "agentscope", agui_stream(events)) for backend in backends()}
    assert len(converted) == 1
    _, final = agentscope_output(converted.pop())
    assert final["status"] == "failed"
    assert [(item["type"], item["status"]) for item in final["output"]] == [
        ("message", "completed"),
        ("function_call", "completed"),
        ("function_call_output", "completed"),
        ("message", "incomplete"),
    ]
    assert final["output"][3]["content"][0]["text"] == "It is sunny."
    assert final["error"] == {"code": "x", "message": "boom"}


def test_a_failed_run_keeps_its_unfinished_items_in_the_failed_response() -> None:
    """A client that reads only ``response.failed`` keeps the text and the
    arguments streamed before the failure: the open items are in its output,
    as far as they got, with status ``incomplete``."""
    events = [
        {"object": "response", "id": "r1", "status": "created", "session_id": "s"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "half an "},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "answer"},
        {
            "object": "message",
            "id": "m2",
            "type": "plugin_call",
            "role": "assistant",
            "status": "in_progress",
        },
        {
            "object": "content",
            "type": "data",
            "index": 0,
            "delta": True,
            "msg_id": "m2",
            "data": {"call_id": "c1", "name": "weather", "arguments": '{"city": "Par'},
        },
        {"object": "response", "id": "r1", "status": "failed", "error": {"code": "boom", "message": "gone"}},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    written = {
        backend.__name__: convert(backend, "agentscope", "openai-responses", stream) for backend in backends()
    }
    assert len(set(written.values())) == 1  # byte for byte, on both backends
    failed = data_events(next(iter(written.values())))[-1]
    assert failed["type"] == "response.failed"
    message, call = failed["response"]["output"]
    assert message["status"] == "incomplete"
    assert message["content"][0]["text"] == "half an answer"
    assert (call["type"], call["status"], call["name"]) == ("function_call", "incomplete", "weather")
    assert call["arguments"] == '{"city": "Par'
    from openai.types.responses import Response

    Response.model_validate(failed["response"])  # as openai-python reads it
    # Its error code is one the API has: "boom" is none.
    assert failed["response"]["error"] == {"code": "server_error", "message": "gone"}


def test_feed_event_returns_the_targets_events() -> None:
    for backend in backends():
        transcoder = backend.Transcoder("agui", "openai-responses", created_at=5)
        out = transcoder.feed_event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
        assert [event["type"] for event in out] == ["response.created", "response.in_progress"]
        out = transcoder.feed_event({"type": "TEXT_MESSAGE_START", "messageId": "m"})
        out += transcoder.feed_event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"})
        assert [event["type"] for event in out] == [
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
        ]
        assert out[-1]["delta"] == "hi"
        assert out[-1]["item_id"] == "m"


def test_errors_name_the_source_event() -> None:
    for backend in backends():
        transcoder = backend.Transcoder("agui", "agentscope", created_at=1)
        with pytest.raises(AgentCodecError, match=r"AG-UI event 2 is not valid JSON"):
            transcoder.feed(b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {oops\n\n')
        with pytest.raises(ValueError, match="unknown source protocol"):
            backend.Transcoder("nope", "agui")
        with pytest.raises(TypeError, match="takes no option"):
            backend.Transcoder("agui", "agui", session_id="x")
        # An encoder without options says so (as the registry lists them).
        bare = next(name for name, protocol in PURE_PROTOCOLS.items() if not protocol.options)
        takes_none = rf"^the {bare} encoder takes no option 'model' \(it takes none\)$"
        with pytest.raises(TypeError, match=takes_none):
            backend.Transcoder("agui", bare, model="m")


@pytest.mark.parametrize(
    ("target", "options"),
    [
        ("agui", {"zeta": 1, "model": "m"}),  # the first unknown name in sorted order
        ("agui", {"run_id": 1}),
        ("agui", {"run_id": ("r",)}),
        ("agentscope", {"created_at": True}),  # a bool is no int
        ("agentscope", {"created_at": 1.0}),
        ("agentscope", {"created_at": 2**64}),
        ("agentscope", {"response_id": "r", "created_at": "1"}),
        ("langchain", {"namespace": ["a", 1]}),
        ("langchain", {"namespace": "a"}),
        ("agui", {"thread_id": object()}),
    ],
)
def test_encoder_options_are_refused_alike(target: str, options: dict[str, Any]) -> None:
    refusals = []
    for backend in backends():
        with pytest.raises((TypeError, ValueError)) as refused:
            backend.Transcoder("agui", target, **options)
        refusals.append((type(refused.value), str(refused.value)))
    assert len(set(refusals)) == 1, refusals


def test_encoder_options_reach_the_encoder() -> None:
    for backend in backends():
        transcoder = backend.Transcoder(
            "agui", "langchain", namespace=("graph", "agent"), node=None, timestamp=7
        )
        out = transcoder.feed_event({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
        out += transcoder.feed_event({"type": "TEXT_MESSAGE_START", "messageId": "m"})
        out += transcoder.feed_event({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"})
        params = [event["params"] for event in out if event.get("method") == "messages"]
        assert params, out
        assert all(param["namespace"] == ["graph", "agent"] for param in params)
        assert all(param["timestamp"] == 7 for param in params)
        # node=None: no node, where the default names the model's.
        assert all("node" not in param for param in params), params


def test_what_was_converted_before_an_error_comes_with_the_next_call() -> None:
    events = [
        {"object": "response", "id": "r", "status": "created", "session_id": "s"},
        {"object": "message", "id": "m1", "type": "message", "role": "assistant", "status": "in_progress"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "Hel"},
    ]
    stream = (
        b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events) + b"data: nope\n\n"
    )
    last = {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m1", "text": "lo"}
    for backend in backends():
        # By bytes, then by events: the deltas written straight to bytes come back as events.
        transcoder = backend.Transcoder("agentscope", "agui")
        with pytest.raises(AgentCodecError, match="AgentScope event 4 is not valid JSON"):
            transcoder.feed(stream)
        converted = transcoder.feed_event(last)
        assert [event["type"] for event in converted] == [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
        ]
        assert "".join(event["delta"] for event in converted[2:]) == "Hello"
        # By bytes throughout.
        transcoder = backend.Transcoder("agentscope", "agui")
        with pytest.raises(AgentCodecError):
            transcoder.feed(stream)
        rest = transcoder.feed(b"data: " + json.dumps(last).encode() + b"\n\n") + transcoder.close()
        assert rest.count(b"TEXT_MESSAGE_CONTENT") == 2
        # The source was cut: the target is not ended for it (no RUN_FINISHED made up).
        assert rest.endswith(b'"messageId":"m1","delta":"lo"}\n\n')


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
        transcoder = backend.Transcoder("agentscope", "agui", max_line_bytes=200)
        with pytest.raises(SSELimitError, match="max_line_bytes=200"):
            transcoder.feed(stream)
        with pytest.raises(SSELimitError):
            transcoder.feed(b"data: {}\n\n")  # nothing more is read
        converted = data_events(transcoder.close())
        assert [event["type"] for event in converted] == [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
        ]
        assert converted[-1]["delta"] == "Hello"
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
        converted = convert(backend, "agentscope", "openai-responses", stream)
        neutral = view(backend, "openai-responses", converted)
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
