"""A2A: the assembler gives the Task a real a2a-sdk server holds after the
stream (what ``tasks/get`` answers), and what the encoder writes is what
a2a-sdk's own types accept and its ``TaskManager`` assembles alike.

The judges: streams a real a2a-sdk server wrote over HTTP, 0.3.26 and 1.3.0,
and the task it held afterwards (scripts/a2a_fixtures.py); a2a-sdk's
protobuf types (1.0), pydantic types (0.3) and ``TaskManager``, run here.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec import A2AError, A2AEventError, AgentCodecError, a2a
from conftest import NATIVE, PURE
from conversion import SOURCE_IDS, SOURCES, backends, convert
from protocols.a2a import TASK, chunk, response
from sse_helpers import data_events

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "a2a"
RECORDED = sorted(path.stem for path in FIXTURES.glob("*.sse"))


def without_timestamps(value: Any) -> Any:
    """The value without its status timestamps: the server stamps the task
    it keeps apart from the events it streams."""
    if isinstance(value, dict):
        return {key: without_timestamps(item) for key, item in value.items() if key != "timestamp"}
    if isinstance(value, list):
        return [without_timestamps(item) for item in value]
    return value


def assemble(backend: ModuleType, data: bytes, size: int | None = None, **options: Any) -> Any:
    assembler = backend.A2AAssembler(**options)
    pieces = [data] if size is None else [data[i : i + size] for i in range(0, len(data), size)]
    for piece in pieces:
        assembler.feed(piece)
    return assembler, assembler.close()


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


# --- what a real server streams and holds ------------------------------------------------


@pytest.mark.parametrize("name", RECORDED)
@pytest.mark.parametrize("size", [None, 7])
def test_a_recorded_stream_assembles_to_the_task_the_server_holds(
    backend: ModuleType, name: str, size: int | None
) -> None:
    recorded = json.loads((FIXTURES / f"{name}.task.json").read_text(encoding="utf-8"))
    assembler, task = assemble(backend, (FIXTURES / f"{name}.sse").read_bytes(), size)
    assert without_timestamps(task) == without_timestamps(recorded["task"])
    assert assembler.version == ("0.3" if name.startswith("v0_") else "1.0")
    assert assembler.result == task


@pytest.mark.parametrize("name", ["agent_turn", "agent_fails"])
def test_an_agentapps_a2a_answer_is_read_as_a2a_sdk_reads_it(backend: ModuleType, name: str) -> None:
    """agentscope-runtime's AgentApp on its /a2a (a2a-sdk 0.3's server, its
    card saying it cannot stream): message/send answers the run's last
    message, or an internal error when the run failed; message/stream is
    refused with an error (scripts/agentapp_a2a_fixtures.py)."""
    agentapp = FIXTURES.parent / "agentapp"
    answer = json.loads((agentapp / f"{name}.a2a.json").read_text(encoding="utf-8"))
    reference = json.loads((agentapp / f"{name}.a2a.reference.json").read_text(encoding="utf-8"))
    assembler, result = assemble(backend, sse([answer]))
    assert result == reference["result"]
    assert assembler.error == answer.get("error")
    refused, _ = assemble(backend, sse([reference["message/stream"]]))
    assert refused.error == {"code": -32603, "message": "Streaming is not supported by the agent"}
    assert [error["code"] for error in refused.errors] == ["-32603"]


def test_a_crash_is_the_servers_json_rpc_error_and_fails_the_task(backend: ModuleType) -> None:
    """1.x sends the executor's exception as a JSON-RPC error (``event:
    error``) and records the task as failed; the error is kept."""
    assembler, task = assemble(backend, (FIXTURES / "v1_crash.sse").read_bytes())
    assert assembler.error == {"code": -32603, "message": "the executor crashed"}
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert [event["error"]["code"] for event in assembler.events] == [-32603]


def test_a_message_answers_without_a_task(backend: ModuleType) -> None:
    message = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}
    assembler, result = assemble(backend, sse([response("message", message)]))
    assert result == message == assembler.message
    assert assembler.task is None


def test_updates_before_any_task_make_one_submitted_as_the_server_does(backend: ModuleType) -> None:
    _, task = assemble(backend, sse([chunk("a", "x"), chunk("a", "y", append=True)]))
    assert task == {
        "id": "t",
        "contextId": "c",
        "status": {"state": "TASK_STATE_SUBMITTED"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "x"}, {"text": "y"}]}],
    }


def test_a_status_update_moves_the_held_message_into_the_history(backend: ModuleType) -> None:
    def status(state: str, text: str) -> dict[str, Any]:
        message = {"messageId": text, "role": "ROLE_AGENT", "parts": [{"text": text}]}
        body = {"taskId": "t", "contextId": "c", "status": {"state": state, "message": message}}
        return response("statusUpdate", body)

    _, task = assemble(
        backend, sse([TASK, status("TASK_STATE_WORKING", "a"), status("TASK_STATE_COMPLETED", "b")])
    )
    assert [message["messageId"] for message in task["history"]] == ["a"]
    assert task["status"]["message"]["messageId"] == "b"


def test_events_named_jsonrpc_are_read_as_the_java_runtime_writes_them(backend: ModuleType) -> None:
    """agentscope-java's /a2a names every event ``jsonrpc``; a2a-sdk 1.x
    names an error ``error``: the name does not change what an event is."""
    named = b"".join(b"event: jsonrpc\n" + sse([event]) for event in (TASK, chunk("a", "x")))
    _, task = assemble(backend, named)
    assert task["artifacts"] == [{"artifactId": "a", "parts": [{"text": "x"}]}]


def test_bare_results_are_read_when_their_shape_says_what_they_are(backend: ModuleType) -> None:
    """Results without their JSON-RPC envelope, as some clients hand them on."""
    bare = [event["result"] for event in (TASK, chunk("a", "x"))]
    _, task = assemble(backend, sse(bare))
    assert task["artifacts"] == [{"artifactId": "a", "parts": [{"text": "x"}]}]


@pytest.mark.parametrize(
    ("events", "says"),
    [
        (
            [{"jsonrpc": "2.0", "id": 1}],
            "A2A event 1 is a JSON-RPC response with neither a result nor an error",
        ),
        ([{"x": 1}], "A2A event 1 has no type"),
        ([TASK, chunk("zz", "x", append=True)], "A2A event 2"),
        (
            [
                TASK,
                response(
                    "statusUpdate",
                    {"taskId": "other", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}},
                ),
            ],
            "A2A event 2",
        ),
        (
            [
                TASK,
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {"kind": "task", "id": "t", "contextId": "c", "status": {"state": "working"}},
                },
            ],
            "A2A event 2",
        ),
        (
            [
                TASK,
                response(
                    "statusUpdate",
                    {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}},
                ),
                chunk("a", "x"),
            ],
            "A2A event 3",
        ),
    ],
    ids=["empty-response", "no-type", "append-to-unknown", "other-task", "mixed-versions", "after-the-end"],
)
def test_bad_events_are_refused_saying_which_and_keeping_what_came_before(
    events: list[dict[str, Any]], says: str
) -> None:
    messages = set()
    for backend in backends():
        assembler = backend.A2AAssembler()
        with pytest.raises(A2AEventError) as caught:
            assembler.feed(sse(events))
        assert isinstance(caught.value, A2AError)
        assert isinstance(caught.value, AgentCodecError)
        assert str(caught.value).startswith(says)
        messages.add(str(caught.value))
        if len(events) > 1:
            assert assembler.task is not None  # what came before the bad event survives
    assert len(messages) == 1, messages  # both backends say it alike


def test_a_version_chosen_refuses_the_others_events_and_spells_what_it_makes(backend: ModuleType) -> None:
    update = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "kind": "artifact-update",
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]},
        },
    }
    assembler = backend.A2AAssembler(version="0.3")
    assert assembler.version == "0.3"
    assembler.feed(sse([update]))
    assert assembler.task["status"] == {"state": "submitted"}
    with pytest.raises(A2AEventError, match=r"^A2A event 2 is an A2A 1\.0 event in a 0\.3 stream$"):
        assembler.feed(sse([chunk("b", "y")]))
    # A stream that begins with an error is spelt as chosen too.
    assembler = backend.A2AAssembler(version="0.3")
    assembler.feed(sse([{"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}]))
    assert assembler.version == "0.3"


@pytest.mark.parametrize(
    ("version", "error", "says"),
    [
        ("2", ValueError, r"^version must be one of '1\.0', '0\.3' or None, not '2'$"),
        (1.0, TypeError, r"^version must be str or None, not float$"),
    ],
)
def test_the_assemblers_version_is_one_of_the_specs(
    backend: ModuleType, version: Any, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        backend.A2AAssembler(version=version)


def test_skipped_events_are_kept_as_errors(backend: ModuleType) -> None:
    assembler, task = assemble(backend, sse([TASK, {"x": 1}, chunk("a", "x")]), on_error="skip")
    assert task["artifacts"] == [{"artifactId": "a", "parts": [{"text": "x"}]}]
    assert len(assembler.errors) == 1


# --- what a2a-sdk makes of what the encoder writes ----------------------------------------


def sdk_task_1_0(results: list[dict[str, Any]]) -> Any:
    """The Task a2a-sdk 1.x's server TaskManager holds after these results,
    each first parsed by a2a-sdk's protobuf type (which refuses an unknown
    field or a misspelt enum)."""
    json_format = pytest.importorskip("google.protobuf.json_format")
    from a2a.server.context import ServerCallContext
    from a2a.server.tasks import InMemoryTaskStore, TaskManager
    from a2a.types import StreamResponse

    async def run() -> Any:
        manager = TaskManager(InMemoryTaskStore(), ServerCallContext(), None, None, None)
        answered = None
        for result in results:
            parsed = json_format.Parse(json.dumps(result), StreamResponse())
            event = getattr(parsed, parsed.WhichOneof("payload"))
            if parsed.WhichOneof("payload") == "message":
                answered = event
            else:
                await manager.process(event)
        task = await manager.get_task()
        return json_format.MessageToDict(task if task is not None else answered)

    return asyncio.run(run())


def sdk_task_0_3(events: list[dict[str, Any]]) -> Any:
    """The same for 0.3: each event validated by a2a-sdk's 0.3 types (and
    nothing in it left unread), then taken through a2a-sdk's own 0.3 to 1.0
    conversion into the TaskManager, and the Task converted back."""
    types = pytest.importorskip("a2a.compat.v0_3.types")
    from a2a.compat.v0_3 import conversions
    from a2a.server.context import ServerCallContext
    from a2a.server.tasks import InMemoryTaskStore, TaskManager

    to_core = {
        "task": conversions.to_core_task,
        "status-update": conversions.to_core_task_status_update_event,
        "artifact-update": conversions.to_core_task_artifact_update_event,
    }

    async def run() -> Any:
        manager = TaskManager(InMemoryTaskStore(), ServerCallContext(), None, None, None)
        answered = None
        for event in events:
            validated = types.SendStreamingMessageResponse.model_validate(event).root
            assert validated.model_dump(mode="json", exclude_none=True) == event
            result = validated.result
            if result.kind == "message":
                answered = result
            else:
                await manager.process(to_core[result.kind](result))
        task = await manager.get_task()
        if task is None:
            return answered.model_dump(mode="json", exclude_none=True)
        return conversions.to_compat_task(task).model_dump(mode="json", exclude_none=True)

    return asyncio.run(run())


def encoded(source: str, stream: bytes, version: str) -> tuple[bytes, list[dict[str, Any]]]:
    """The stream written as A2A, alike by both backends, and its events."""
    outputs = set()
    for backend in backends():
        transcoder = backend.Transcoder(
            source, "a2a", version=version, task_id="t", context_id="c", request_id="1"
        )
        outputs.add(transcoder.feed(stream) + transcoder.close())
    assert len(outputs) == 1
    written = outputs.pop()
    return written, data_events(written)


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_stream_written_as_a2a_1_0_is_what_a2a_sdk_reads_and_assembles_alike(
    source: str, path: Path
) -> None:
    written, events = encoded(source, path.read_bytes(), "1.0")
    assert all(event["jsonrpc"] == "2.0" and event["id"] == "1" for event in events)
    results = [event["result"] for event in events if "result" in event]
    errors = [event for event in events if "error" in event]
    assert len(results) + len(errors) == len(events)
    for backend in backends():
        _, ours = assemble(backend, written)
        if results:
            assert ours == sdk_task_1_0(results), "a2a-sdk's TaskManager holds what we assemble"


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_stream_written_as_a2a_0_3_is_what_a2a_sdk_reads_and_assembles_alike(
    source: str, path: Path
) -> None:
    written, events = encoded(source, path.read_bytes(), "0.3")
    successes = [event for event in events if "result" in event]
    for backend in backends():
        _, ours = assemble(backend, written)
        if successes:
            assert ours == sdk_task_0_3(successes)


def test_appends_of_every_shape_keep_their_order_as_a2a_sdk_does() -> None:
    """Text appended plainly (which the native backend reads on its quick
    path) between appends it reads whole (metadata, another kind of part),
    a replacement, and the task read midway: the parts stay in order, the
    same on both backends as in a2a-sdk's TaskManager."""

    def update(artifact: dict[str, Any], append: bool = True) -> dict[str, Any]:
        body = {"taskId": "t", "contextId": "c", "artifact": artifact}
        if append:
            body["append"] = True
        return {"artifactUpdate": body}

    def text(artifact_id: str, *texts: str, **extra: Any) -> dict[str, Any]:
        return {"artifactId": artifact_id, "parts": [{"text": t} for t in texts], **extra}

    results = [
        {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
        update(text("a", "1"), append=False),
        update(text("b", "x"), append=False),
        update(text("a", "2", "3")),
        update(text("b", "y")),
        update(text("a", "4", metadata={"k": 1})),
        update(text("a", "5")),
        update({"artifactId": "a", "parts": [{"data": {"n": 6}}]}),
        update(text("a", "7")),
        update(text("b", "z"), append=False),
        update(text("b", "w")),
    ]
    stream = sse([{"jsonrpc": "2.0", "id": 1, "result": result} for result in results])
    outcomes = []
    for backend in backends():
        for size in (None, 1):
            _, task = assemble(backend, stream, size)
            outcomes.append(task)
            midway = backend.A2AAssembler()
            midway.feed(sse([{"jsonrpc": "2.0", "id": 1, "result": result} for result in results[:5]]))
            assert [len(artifact["parts"]) for artifact in midway.task["artifacts"]] == [3, 2]
    assert all(outcome == outcomes[0] for outcome in outcomes)
    assert outcomes[0] == sdk_task_1_0(results)
    texts = [part.get("text", part.get("data")) for part in outcomes[0]["artifacts"][0]["parts"]]
    assert texts == ["1", "2", "3", "4", "5", {"n": 6}, "7"]


def test_what_cannot_be_carried_is_reported_not_lost_silently(backend: ModuleType) -> None:
    turn = [
        {"type": "run_started", "run_id": "r"},
        {"type": "message_started", "message_id": "m", "role": "assistant", "kind": "message"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "reasoning"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "thinking"},
        {"type": "block_replaced", "message_id": "m", "index": 0, "encrypted": "sig"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "block_started", "message_id": "m", "index": 1, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 1, "delta": "See [1]."},
        {
            "type": "block_replaced",
            "message_id": "m",
            "index": 1,
            "annotations": [{"type": "url", "url": "u"}],
        },
        {"type": "block_finished", "message_id": "m", "index": 1},
        {
            "type": "block_started",
            "message_id": "m",
            "index": 2,
            "kind": "tool_call",
            "call_id": "c",
            "name": "f",
        },
        {"type": "block_delta", "message_id": "m", "index": 2, "delta": "{}"},
        {"type": "block_finished", "message_id": "m", "index": 2},
        {"type": "message_finished", "message_id": "m", "usage": {"input_tokens": 1, "output_tokens": 2}},
        {"type": "run_finished", "status": "completed"},
    ]
    encoder = backend.NeutralEncoder("a2a", task_id="t", context_id="c")
    for event in turn:
        encoder.encode(event)
    encoder.close()
    assert {loss["what"] for loss in encoder.losses} == {
        "reasoning",
        "signatures",
        "tool_call",
        "usage",
        "annotations",
    }
    assert "a2a has no place for a tool_call block" in {loss["why"] for loss in encoder.losses}


def test_the_version_option_is_one_of_the_spec_versions(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"version must be one of '1\.0', '0\.3' or None, not '2'"):
        backend.Transcoder("agentscope", "a2a", version="2")


def test_encode_writes_one_compact_data_line() -> None:
    assert a2a.encode(TASK) == b"data: " + json.dumps(TASK, separators=(",", ":")).encode() + b"\n\n"


def test_the_vocabulary_is_the_specs() -> None:
    assert a2a.VERSIONS == ("1.0", "0.3")
    assert set(a2a.FINAL_STATES) | set(a2a.INTERRUPTED_STATES) < set(a2a.TASK_STATES)


@pytest.mark.skipif(NATIVE is None or PURE is None, reason="needs both backends")
@pytest.mark.parametrize("name", RECORDED)
def test_both_backends_decode_a_recorded_stream_alike(name: str) -> None:
    stream = (FIXTURES / f"{name}.sse").read_bytes()
    decoded = []
    for backend in (NATIVE, PURE):
        decoder = backend.NeutralDecoder("a2a")
        decoded.append(decoder.feed(stream) + decoder.close())
    assert decoded[0] == decoded[1]
    assert convert(PURE, "a2a", "agentscope", stream) == convert(NATIVE, "a2a", "agentscope", stream)
