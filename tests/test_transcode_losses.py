"""What a conversion cannot carry is reported as it happens: the Transcoder's
``losses`` (the source's event, what, why), ``on_loss="error"`` to stop at
the first, and the CLI's ``convert`` on stderr. The rows' ``cannot_carry``
(the table of docs/guides/converting.md) is the vocabulary of ``what``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec import ConversionLossError
from agentcodec._pure import stop_reasons
from agentcodec._pure.events import MAX_LOSSES
from agentcodec._pure.words import Words
from agentcodec._vocabulary import tables
from conversion import OPTIONS, SOURCE_IDS, SOURCES, backends, chunked, convert, view
from protocol_table import TABLE
from protocols import sse_event

# The block kinds an encoder reports when it has no place for them.
BLOCK_KINDS = ("media", "data", "tool_result")


def carried_words(row: Any) -> frozenset[str]:
    """The words a target's losses may say: what it cannot carry,
    ``run_status`` where it has no word for a run status,
    ``result_as_json`` where its tool results are text, ``tool_kind``
    where it writes tool calls, ``namespace`` where it has none,
    ``state`` and ``run_result`` where it has no place for them,
    ``passthrough`` where it keeps no other protocol's events, ``after_end``
    for what comes after its stream's end, ``block_not_open`` for what
    a replacement brings after its block's end, ``signatures``: few
    targets have a place for a text's or a tool call's, and ``stop_reason``:
    no target has a word for every reason."""
    words = set(row.cannot_carry) | {"after_end", "block_not_open", "signatures", "stop_reason"}
    if not row.namespaces:
        words.add("namespace")
    if not row.keeps_foreign_events:
        words.add("passthrough")
    if not row.carries_state:
        words.add("state")
    if not row.carries_run_result:
        words.add("run_result")
    if row.status_as_carried:
        words.add("run_status")
    if row.results_as_text:
        words.add("result_as_json")
    # Every target that writes tool calls has some kind of call it has not.
    if "tool_call" not in row.cannot_carry:
        words.add("tool_kind")
    return frozenset(words)


def losses_of(backend: ModuleType, source: str, target: str, stream: bytes) -> list[dict[str, Any]]:
    transcoder = backend.Transcoder(source, target, on_error="skip", **OPTIONS[target])
    transcoder.feed(stream)
    transcoder.close()
    losses: list[dict[str, Any]] = transcoder.losses
    return losses


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_both_backends_report_the_same_losses_in_what_the_target_cannot_carry(
    source: str, path: Path
) -> None:
    stream = path.read_bytes()
    for target, row in TABLE.items():
        reported = [losses_of(backend, source, target, stream) for backend in backends()]
        assert all(losses == reported[0] for losses in reported), target
        for loss in reported[0]:
            assert set(loss) == {"event", "what", "why"}
            assert loss["event"] >= 1
            assert target in loss["why"], loss
            # A block of another role's message is lost whatever its kind.
            if "another role" not in loss["why"]:
                assert loss["what"] in carried_words(row), (target, loss)


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_block_of_a_kind_the_target_has_no_place_for_is_reported(source: str, path: Path) -> None:
    """Each media, data or tool-result block of the source counts once in
    the losses of a target that cannot carry its kind (less the data blocks
    its row says it carries none the less)."""
    stream = path.read_bytes()
    backend = backends()[0]
    blocks = [block for message in view(backend, source, stream)["messages"] for block in message["blocks"]]
    for target, row in TABLE.items():
        losses = losses_of(backend, source, target, stream)
        for kind in (kind for kind in BLOCK_KINDS if kind in row.cannot_carry):
            expected = sum(
                1
                for block in blocks
                if block["kind"] == kind and not (kind == "data" and row.carries_data(block.get("value")))
            )
            assert sum(1 for loss in losses if loss["what"] == kind) == expected, (target, kind)


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_kind_of_event_of_another_protocol_a_target_drops_is_reported(source: str, path: Path) -> None:
    """The events the source's decoder passes through (no neutral meaning:
    a step marker, audio, a graph's debug output) are reported by every
    other target that keeps no other protocol's events, once for each kind
    (a stream may bring one with every step; a name's part after ``|``, a
    subgraph's namespace, names no other kind), by the source's event that
    first brought it; AG-UI writes them as RAW events, and a target of the
    same protocol writes them back, but for those its row says it drops."""
    stream = path.read_bytes()
    backend = backends()[0]
    decoder = backend.NeutralDecoder(source)
    kinds: list[str] = []
    dropped_own: list[str] = []  # the kinds the source's own encoder does not write back
    for event in decoder.feed(stream) + decoder.close():
        if event["type"] in ("run_finished", "run_failed"):
            break  # what follows the end is lost for that (below)
        if event["type"] == "passthrough":
            inner = event["event"]
            kind = next(
                (inner[key] for key in ("type", "event") if isinstance(inner.get(key), str)),
                next(iter(inner), None),
            ).split("|")[0]
            if kind not in kinds:
                kinds.append(kind)
                if TABLE[source].drops_own_event(inner):
                    dropped_own.append(kind)
    for target, row in TABLE.items():
        reported = [
            loss for loss in losses_of(backend, source, target, stream) if loss["what"] == "passthrough"
        ]
        expected = dropped_own if target == source else [] if row.keeps_foreign_events else kinds
        named = [re.search(r" an? (\S+) event of ", loss["why"]) for loss in reported]
        assert [match[1] if match else None for match in named] == expected, target
        assert all(
            loss["why"].endswith(f" event of {source}, which has no neutral meaning") for loss in reported
        )


@pytest.mark.parametrize("source", [name for name, row in TABLE.items() if row.own_event_dropped is not None])
def test_an_event_of_its_own_a_target_does_not_write_back_is_reported(
    backend: ModuleType, source: str
) -> None:
    row = TABLE[source]
    assert row.own_event_dropped is not None
    assert row.drops_own_event(row.own_event_dropped)
    # (first: after the end, the end's own rule reports it)
    stream = sse_event(row.own_event_dropped) + row.recorded()
    decoder = backend.NeutralDecoder(source)
    passed = [
        event["event"] for event in decoder.feed(stream) + decoder.close() if event["type"] == "passthrough"
    ]
    assert passed[0] == row.own_event_dropped
    reported = [loss for loss in losses_of(backend, source, source, stream) if loss["what"] == "passthrough"]
    assert len(reported) == 1
    assert re.match(rf"{re.escape(source)} has no place for an? ", reported[0]["why"])
    assert reported[0]["why"].endswith(f" event of {source}, which has no neutral meaning")


def _lossy_streams() -> list[tuple[str, bytes, str]]:
    """For each target that loses something of a recorded stream, the
    stream that loses the most in it."""
    found = []
    for target in TABLE:
        counted = [
            (len(losses_of(backends()[0], source, target, path.read_bytes())), source, path)
            for source, path in SOURCES
        ]
        count, source, path = max(counted, key=lambda entry: entry[0])
        if count:
            found.append((source, path.read_bytes(), target))
    assert found, "no recorded stream loses anything in any target"
    return found


def _lossy() -> tuple[str, bytes, str]:
    """A recorded stream, and a target that loses something of it."""
    return _lossy_streams()[0]


def test_on_loss_error_stops_at_each_loss_and_keeps_what_came_before(backend: ModuleType) -> None:
    """Raised at the end of the source's event that brought it (everything
    else that event brought is converted first); what was converted before
    it comes with the next call, and going on gives the bytes a recording
    conversion writes. For every target that loses something."""
    for source, stream, target in _lossy_streams():
        recording = backend.Transcoder(source, target, **OPTIONS[target])
        expected = recording.feed(stream) + recording.close()
        stopping = backend.Transcoder(source, target, on_loss="error", **OPTIONS[target])
        written, raised, said = b"", [], []
        data = stream
        while True:
            try:
                written += stopping.feed(data)
            except ConversionLossError as err:
                raised.append((err.event, err.what, err.why))
                said.append(str(err))
                data = b""
                continue
            break
        written += stopping.close()
        assert said == [f"event {event}: {why}" for event, _, why in raised], target
        assert written == expected, target
        # One error an event: the first of its losses.
        firsts = {}
        for loss in recording.losses:
            firsts.setdefault(loss["event"], (loss["event"], loss["what"], loss["why"]))
        assert raised == list(firsts.values()), target
        assert stopping.losses == recording.losses, target


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("ignore", ValueError, "on_loss must be 'record' or 'error', not 'ignore'"),
        (1, TypeError, "on_loss must be str, not int"),
    ],
)
def test_on_loss_takes_record_or_error(backend: ModuleType, value: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        backend.Transcoder("agentscope", "langchain", on_loss=value)


def agentscope_stream(*contents: dict[str, Any]) -> bytes:
    """An AgentScope run of one assistant message holding ``contents``."""
    events = [
        {"object": "response", "id": "r", "status": "created"},
        {"object": "message", "id": "m", "role": "assistant", "type": "message", "status": "in_progress"},
        *({"object": "content", "msg_id": "m", **content} for content in contents),
        {"object": "message", "id": "m", "role": "assistant", "type": "message", "status": "completed"},
        {"object": "response", "id": "r", "status": "completed"},
    ]
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


def test_a_text_stream_loses_nothing(backend: ModuleType) -> None:
    stream = agentscope_stream(
        {"type": "text", "index": 0, "delta": True, "text": "hi"},
        {"type": "text", "index": 0, "text": "hi", "status": "completed"},
    )
    for target in TABLE:
        assert losses_of(backend, "agentscope", target, stream) == [], target


def test_the_cli_reports_losses_on_stderr_and_can_stop_at_them(tmp_path: Path) -> None:
    source, stream, target = _lossy()
    path = tmp_path / "lossy.sse"
    path.write_bytes(stream)
    command = [sys.executable, "-m", "agentcodec", "convert", "--from", source, "--to", target, str(path)]
    going_on = subprocess.run(command, capture_output=True, check=True)
    recording = backends()[0].Transcoder(source, target)
    recording.feed(stream)
    recording.close()
    expected = [
        f"agentcodec convert: {path}: event {loss['event']}: {loss['why']}" for loss in recording.losses
    ]
    assert going_on.stderr.decode().splitlines() == expected
    stopping = subprocess.run([*command, "--fail-on-loss"], capture_output=True, check=False)
    assert stopping.returncode == 1
    assert stopping.stderr.decode().splitlines() == expected[:1]


def test_a_correction_of_streamed_text_is_reported_where_the_target_only_appends(backend: ModuleType) -> None:
    """An AgentScope content completed with other text than streamed is a
    correction (``block_replaced``): a target that only appends reports it,
    one that can replace writes it."""
    stream = agentscope_stream(
        {"type": "text", "index": 0, "delta": True, "text": "Hello wrld"},
        {"type": "text", "index": 0, "text": "Hello world", "status": "completed"},
    )
    for target, row in TABLE.items():
        if target == "agentscope":
            continue
        losses = losses_of(backend, "agentscope", target, stream)
        if "corrections" in row.cannot_carry:
            assert losses == [
                {
                    "event": 4,
                    "what": "corrections",
                    "why": f"{target} cannot replace the text of a text block that already streamed",
                }
            ], target
        else:
            assert losses == [], target


def test_a_refusal_written_as_text_is_reported(backend: ModuleType) -> None:
    """A refusal block becomes text where the target has no refusal."""
    stream = agentscope_stream(
        {"type": "refusal", "index": 0, "delta": True, "refusal": "I can't."},
        {"type": "refusal", "index": 0, "refusal": "I can't.", "status": "completed"},
    )
    for target, row in TABLE.items():
        losses = [
            loss
            for loss in losses_of(backend, "agentscope", target, stream)
            if loss["what"] == "refusal_kind"
        ]
        if "refusal_kind" in row.cannot_carry:
            assert losses == [
                {
                    "event": 3,
                    "what": "refusal_kind",
                    "why": f"{target} has no refusal block: a refusal is written as text",
                }
            ], target
        else:
            assert losses == [], target


def neutral_run(status: str) -> list[dict[str, Any]]:
    """A run of one assistant text message that ends with ``status``."""
    return [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "hi"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": status},
    ]


@pytest.mark.parametrize("status", ["completed", "incomplete", "cancelled", "interrupted"])
def test_a_run_status_the_target_has_no_word_for_is_reported(backend: ModuleType, status: str) -> None:
    """Written from a source that carries the status, into every target: a
    target reports the status it has no word for, naming what it writes
    instead (its row's ``status_as_carried``), and nothing else."""
    source = next(name for name, row in TABLE.items() if status not in row.status_as_carried)
    encoder = backend.NeutralEncoder(source, **OPTIONS[source])
    stream = b"".join(encoder.encode(event) for event in neutral_run(status)) + encoder.close()
    assert view(backend, source, stream)["status"] == status
    for target, row in TABLE.items():
        losses = [loss for loss in losses_of(backend, source, target, stream) if loss["what"] == "run_status"]
        if status in row.status_as_carried:
            written = row.status_as_carried[status]
            assert [loss["why"] for loss in losses] == [
                f"{target} has no run status {status}: the run is written as {written}"
            ], target
            assert view(backend, target, convert(backend, source, target, stream))["status"] == written
        else:
            assert losses == [], target


def tool_run(output: Any) -> list[dict[str, Any]]:
    """A run of one tool call and its result, ``output``."""
    return [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "c1", "role": "assistant", "kind": "tool_call"},
        {
            "type": "block_started",
            "message_id": "c1",
            "index": 0,
            "kind": "tool_call",
            "call_id": "c",
            "name": "f",
        },
        {"type": "block_delta", "message_id": "c1", "index": 0, "delta": "{}"},
        {"type": "block_finished", "message_id": "c1", "index": 0},
        {"type": "message_finished", "message_id": "c1"},
        {"type": "message_started", "message_id": "r1", "role": "tool", "kind": "tool_result"},
        {
            "type": "block_started",
            "message_id": "r1",
            "index": 0,
            "kind": "tool_result",
            "call_id": "c",
            "name": "f",
        },
        {"type": "block_replaced", "message_id": "r1", "index": 0, "output": output},
        {"type": "block_finished", "message_id": "r1", "index": 0},
        {"type": "message_finished", "message_id": "r1"},
        {"type": "run_finished", "status": "completed"},
    ]


# Every kind of tool call a decoder reads (``tool``): Chat's legacy
# ``function_call`` is a function call too.
TOOL_KINDS = ("function", "function_call", "custom", "mcp", "server", "plugin", "component")


@pytest.mark.parametrize("tool", TOOL_KINDS)
def test_a_tool_call_of_a_kind_the_target_has_not_is_written_as_a_function_call(
    backend: ModuleType, tool: str
) -> None:
    """A call of a kind the target has (its row's ``tool_kinds``) reads back
    as that kind; one of another kind reads back as a function call, and the
    target says so once, at the call's block."""
    run = tool_run("ok")
    run[2] = {**run[2], "tool": tool}
    for target, row in TABLE.items():
        if "tool_call" in row.cannot_carry:
            continue
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        stream = b"".join(encoder.encode(event) for event in run) + encoder.close()
        losses = [loss for loss in encoder.losses if loss["what"] == "tool_kind"]
        calls = [
            block
            for message in view(backend, target, stream)["messages"]
            for block in message["blocks"]
            if block["kind"] == "tool_call"
        ]
        assert len(calls) == 1, target
        if tool in row.tool_kinds or tool == "function":
            assert losses == [], target
            assert calls[0]["tool"] == tool, target
        else:
            assert calls[0]["tool"] == "function", target
            if tool == "function_call":
                assert losses == [], target
            else:
                assert losses == [
                    {
                        "event": 3,
                        "what": "tool_kind",
                        "why": f"{target} has no {tool} tool call: it is written as a function call",
                    }
                ], target


def namespaced_run(namespace: list[str]) -> list[dict[str, Any]]:
    """A run whose answer a subgraph wrote (``namespace``), after one of
    the run's own."""
    run: list[dict[str, Any]] = [{"type": "run_started", "run_id": "run-1"}]
    for message_id, where in (("m0", None), ("m1", namespace)):
        run += [
            {"type": "message_started", "message_id": message_id, "role": "assistant", "namespace": where},
            {"type": "block_started", "message_id": message_id, "index": 0, "kind": "text"},
            {"type": "block_delta", "message_id": message_id, "index": 0, "delta": f"from {message_id}"},
            {"type": "block_finished", "message_id": message_id, "index": 0},
            {"type": "message_finished", "message_id": message_id},
        ]
    return [*run, {"type": "run_finished", "status": "completed"}]


@pytest.mark.parametrize(
    "namespace", [["inner:1"], ["outer:a", "inner:b"]], ids=["subgraph", "nested_subgraph"]
)
def test_a_message_keeps_its_namespace_where_the_target_has_namespaces(
    backend: ModuleType, namespace: list[str]
) -> None:
    """A subgraph's message reads back in its namespace from a target that
    has namespaces (its row's ``namespaces``), beside the run's own message
    in none; every other target writes it as the run's, and says so once,
    at the message's start."""
    for target, row in TABLE.items():
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        stream = b"".join(encoder.encode(event) for event in namespaced_run(namespace)) + encoder.close()
        losses = [loss for loss in encoder.losses if loss["what"] == "namespace"]
        texts = {
            "".join(block["text"] for block in message["blocks"] if block["kind"] == "text"): message[
                "namespace"
            ]
            for message in view(backend, target, stream)["messages"]
        }
        path = "/".join(namespace)
        if row.namespaces:
            assert losses == [], target
            assert texts == {"from m0": None, "from m1": namespace}, target
        else:
            assert losses == [
                {
                    "event": 7,
                    "what": "namespace",
                    "why": f"{target} has no namespaces: a message of {path} is written as the run's",
                }
            ], target
            assert set(texts.values()) == {None}, target
            assert "from m1" in "".join(texts), target


def side_by_side_run(by_node: bool = False) -> list[dict[str, Any]]:
    """Two subgraphs' answers streaming at once, a word of each in turn (or,
    ``by_node``, two nodes' of one graph, in the run's namespace)."""
    run: list[dict[str, Any]] = [{"type": "run_started", "run_id": "run-1"}]
    for message_id, where in (("m1", "weather:1"), ("m2", "news:2")):
        run += [
            {
                "type": "message_started",
                "message_id": message_id,
                "role": "assistant",
                "namespace": None if by_node else [where],
                "node": where.partition(":")[0] if by_node else None,
            },
            {"type": "block_started", "message_id": message_id, "index": 0, "kind": "text"},
        ]
    for word in range(3):
        for message_id in ("m1", "m2"):
            run.append(
                {
                    "type": "block_delta",
                    "message_id": message_id,
                    "index": 0,
                    "delta": f"{message_id}.{word} ",
                }
            )
    for message_id in ("m1", "m2"):
        run += [
            {"type": "block_finished", "message_id": message_id, "index": 0},
            {"type": "message_finished", "message_id": message_id},
        ]
    return [*run, {"type": "run_finished", "status": "completed"}]


@pytest.mark.parametrize("by_node", [False, True], ids=["subgraphs", "nodes"])
def test_messages_that_stream_at_once_stay_apart_in_every_target(backend: ModuleType, by_node: bool) -> None:
    """Each answer reads back whole, never a word of one between two of the
    other's: as messages or blocks of their own, as choices or candidates,
    or one after the other where an answer is one message."""
    for target in TABLE:
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        stream = b"".join(encoder.encode(event) for event in side_by_side_run(by_node)) + encoder.close()
        text = "".join(
            block["text"]
            for message in view(backend, target, stream)["messages"]
            for block in message["blocks"]
            if block["kind"] == "text"
        )
        assert "m1.0 m1.1 m1.2 " in text, target
        assert "m2.0 m2.1 m2.2 " in text, target


def two_messages(kind: str, *, tool_between: bool = False) -> list[dict[str, Any]]:
    """A run of two assistant messages, each one block of ``kind``:
    ``first.`` then ``second.``; with ``tool_between``, one message of
    both, a tool call between them."""
    run: list[dict[str, Any]] = [{"type": "run_started", "run_id": "r", "thread_id": "t"}]
    for number, text in enumerate(("first.", "second.")):
        message_id = "m" if tool_between else f"m{number}"
        index = 2 * number
        if not tool_between or number == 0:
            run.append({"type": "message_started", "message_id": message_id, "role": "assistant"})
        run += [
            {"type": "block_started", "message_id": message_id, "index": index, "kind": kind},
            {"type": "block_delta", "message_id": message_id, "index": index, "delta": text},
            {"type": "block_finished", "message_id": message_id, "index": index},
        ]
        if tool_between and number == 0:
            call = {"message_id": message_id, "index": 1}
            run += [
                {"type": "block_started", **call, "kind": "tool_call", "call_id": "c", "name": "f"},
                {"type": "block_delta", **call, "delta": "{}"},
                {"type": "block_finished", **call},
            ]
        if not tool_between or number == 1:
            run.append({"type": "message_finished", "message_id": message_id})
    return [*run, {"type": "run_finished", "status": "completed"}]


@pytest.mark.parametrize("kind", ["text", "reasoning"])
@pytest.mark.parametrize("target", TABLE)
def test_a_messages_text_that_runs_on_from_the_last_ones_is_reported(
    backend: ModuleType, target: str, kind: str
) -> None:
    """Two assistant messages' texts read back apart (as messages or blocks
    of their own), or the target, which writes a run's messages into one
    text of each kind, reports that the later runs on from the earlier,
    once. (Three targets wrote an agent's "Let me check." and
    "It is sunny." as "Let me check.It is sunny.", without a word.)"""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in two_messages(kind)) + encoder.close()
    texts = [
        block["text"]
        for message in view(backend, target, written)["messages"]
        for block in message["blocks"]
        if block["kind"] == kind
    ]
    reported = [loss["why"] for loss in encoder.losses if loss["what"] == "message_boundary"]
    if texts in ([], ["first.", "second."]):  # (no place for the kind, or apart)
        assert reported == [], target
    else:
        assert texts == ["first.second."], target
        assert "message_boundary" in TABLE[target].cannot_carry, target
        runs_on = f"a message's {kind} runs on from the one before"
        assert reported == [f"{target} writes a run's messages into one {kind}: {runs_on}"]


@pytest.mark.parametrize("kind", ["text", "reasoning"])
@pytest.mark.parametrize(
    "target", [name for name, row in TABLE.items() if "message_boundary" in row.cannot_carry]
)
def test_a_message_separator_goes_between_messages_whose_text_runs_on(
    backend: ModuleType, target: str, kind: str
) -> None:
    """Given ``message_separator``, a target that writes a run's messages
    into one text writes it before a message's text that runs on from the
    one before, and reports nothing; one message's blocks get none."""

    def joined(events: list[dict[str, Any]]) -> str:
        encoder = backend.NeutralEncoder(target, **OPTIONS[target], message_separator="\n\n")
        written = b"".join(encoder.encode(event) for event in events) + encoder.close()
        assert [loss for loss in encoder.losses if loss["what"] == "message_boundary"] == []
        return "".join(
            block["text"]
            for message in view(backend, target, written)["messages"]
            for block in message["blocks"]
            if block["kind"] == kind
        )

    assert joined(two_messages(kind)) == "first.\n\nsecond."
    if kind == "text":
        assert joined(two_messages(kind, tool_between=True)) == "first.second."


@pytest.mark.parametrize("target", TABLE)
def test_one_messages_text_around_a_tool_call_loses_nothing_of_its_boundaries(
    backend: ModuleType, target: str
) -> None:
    """Text, a tool call, then text, of one message: a target that writes a
    message's text as one (Chat's content) joins them as its own servers do,
    and its reader gives them so from any server: that is no loss."""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    for event in two_messages("text", tool_between=True):
        encoder.encode(event)
    encoder.close()
    assert [loss for loss in encoder.losses if loss["what"] == "message_boundary"] == []


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_a_protocols_own_stream_written_back_loses_no_message_boundary(source: str, path: Path) -> None:
    """A target's own recorded streams, read and written back: where its
    messages' texts ran together they already did at the source."""
    for backend in backends():
        losses = losses_of(backend, source, source, path.read_bytes())
        assert [loss for loss in losses if loss["what"] == "message_boundary"] == [], backend.__name__


@pytest.mark.parametrize(
    "output", [{"temp": 21.5}, [1, 2], 3, True], ids=["object", "array", "number", "bool"]
)
def test_a_tool_result_that_is_a_json_value_is_reported_where_results_are_text(
    backend: ModuleType, output: Any
) -> None:
    """Written from AgentScope, which keeps it a value, a tool's result that
    is not text is written as its JSON where the target's results are text
    (and reads back so), and is kept or lost as a block elsewhere."""
    encoder = backend.NeutralEncoder("agentscope")
    stream = b"".join(encoder.encode(event) for event in tool_run(output)) + encoder.close()
    for target, row in TABLE.items():
        losses = [
            loss
            for loss in losses_of(backend, "agentscope", target, stream)
            if loss["what"] == "result_as_json"
        ]
        results = [
            block["output"]
            for message in view(backend, target, convert(backend, "agentscope", target, stream))["messages"]
            for block in message["blocks"]
            if block["kind"] == "tool_result"
        ]
        if row.results_as_text:
            assert [loss["why"] for loss in losses] == [
                f"{target} carries tool results as text: a JSON value is written as its JSON"
            ], target
            assert results == [json.dumps(output, separators=(",", ":"))], target
        else:
            assert losses == [], target
            assert results in ([output], []), target


def test_a_tool_result_that_is_text_loses_nothing(backend: ModuleType) -> None:
    encoder = backend.NeutralEncoder("agentscope")
    stream = b"".join(encoder.encode(event) for event in tool_run("21.5 degrees")) + encoder.close()
    for target in TABLE:
        assert (
            losses_of(backend, "agentscope", target, stream) == []
            or "tool_result" in TABLE[target].cannot_carry
        )


@pytest.mark.parametrize(
    "end",
    [
        {"type": "run_finished", "status": "completed", "usage": {"input_tokens": 3, "output_tokens": 5}},
        {
            "type": "run_failed",
            "code": "boom",
            "message": "it broke",
            "usage": {"input_tokens": 3, "output_tokens": 5},
        },
    ],
    ids=["finished", "failed"],
)
def test_the_usage_of_a_run_is_reported_where_it_does_not_read_back(
    backend: ModuleType, end: dict[str, Any]
) -> None:
    """Written from AgentScope, which keeps a run's usage: a target reports
    the usage it has no place for exactly when its reader gives none back."""
    encoder = backend.NeutralEncoder("agentscope")
    stream = (
        b"".join(encoder.encode(event) for event in [*neutral_run("completed")[:-1], end]) + encoder.close()
    )
    assert view(backend, "agentscope", stream)["usage"] == end["usage"]
    run = "a failed run" if end["type"] == "run_failed" else "a run"
    for target, row in TABLE.items():
        losses = [
            loss["why"]
            for loss in losses_of(backend, "agentscope", target, stream)
            if loss["what"] == "usage"
        ]
        read_back = view(backend, target, convert(backend, "agentscope", target, stream))["usage"] or {}
        if {key: read_back.get(key) for key in end["usage"]} == end["usage"]:
            assert losses == [], target
        else:
            assert "usage" in row.cannot_carry, target
            assert losses == [f"{target} has no place for the usage of {run}"], target


def annotated_run(*annotations: dict[str, Any]) -> list[dict[str, Any]]:
    """A run of one text block given ``annotations`` one at a time, each
    ``block_replaced`` holding the list so far (as readers give them)."""
    events = neutral_run("completed")
    replaced = [
        {"type": "block_replaced", "message_id": "m", "index": 0, "annotations": list(annotations[: n + 1])}
        for n in range(len(annotations))
    ]
    return [*events[:4], *replaced, *events[4:]]


# A citation of a URL (as the Responses API and the AI SDK have them).
URL_CITATION = {
    "type": "url_citation",
    "url": "https://example.org",
    "title": "E",
    "start_index": 0,
    "end_index": 2,
}


@pytest.mark.parametrize("source", [name for name, row in TABLE.items() if row.own_annotation is not None])
def test_annotations_are_reported_where_they_do_not_read_back(backend: ModuleType, source: str) -> None:
    """Each event that brings annotations a target has no place for is one
    loss; a target that keeps them reads them back. (The source's own kind
    of annotation, twice: two events.)"""
    own = TABLE[source].own_annotation
    assert own is not None
    annotations = [own, {**own, "end_index" if "end_index" in own else "end_char_index": 1}]
    encoder = backend.NeutralEncoder(source, **OPTIONS[source])
    stream = b"".join(encoder.encode(event) for event in annotated_run(*annotations)) + encoder.close()

    def read(protocol: str, data: bytes) -> list[Any]:
        blocks = [
            block for message in view(backend, protocol, data)["messages"] for block in message["blocks"]
        ]
        return [block.get("annotations") for block in blocks if block["kind"] == "text"]

    assert read(source, stream) == [annotations]
    for target, row in TABLE.items():
        losses = [
            loss["why"]
            for loss in losses_of(backend, source, target, stream)
            if loss["what"] == "annotations"
        ]
        if read(target, convert(backend, source, target, stream)) == [annotations]:
            assert losses == [], target
        else:
            assert "annotations" in row.cannot_carry, target
            assert losses == [f"{target} has no place for these annotations of a text block"] * len(
                annotations
            ), target


UNLISTED = {"what": "losses", "why": f"more than {MAX_LOSSES} losses: the rest are not listed"}


def test_an_encoder_lists_its_losses_up_to_a_bound(backend: ModuleType) -> None:
    """A stream may bring a loss with every event (here, annotations a
    target has no place for): the list stops at ``MAX_LOSSES``, and one more
    entry, at the event of the first not listed, says so."""
    target = next(name for name, row in TABLE.items() if "annotations" in row.cannot_carry)
    replaced = {"type": "block_replaced", "message_id": "m", "index": 0, "annotations": [URL_CITATION]}
    run = neutral_run("completed")
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    for event in [*run[:4], *[replaced] * (MAX_LOSSES + 10), *run[4:]]:
        encoder.encode(event)
    encoder.close()
    losses = encoder.losses
    assert len(losses) == MAX_LOSSES + 1
    assert {loss["what"] for loss in losses[:-1]} == {"annotations"}
    assert losses[-1] == {"event": 4 + MAX_LOSSES + 1, **UNLISTED}


def test_a_transcoder_lists_its_losses_up_to_a_bound(backend: ModuleType) -> None:
    """The same for a conversion: a source stream of more signed reasoning
    messages than the bound, into a target with no place for a signature."""
    source, row = next(
        (name, row)
        for name, row in TABLE.items()
        if row.encrypted_by and "signatures" not in row.cannot_carry
    )
    target = next(name for name, row in TABLE.items() if not row.carries_signatures_of(TABLE[source]))
    events: list[dict[str, Any]] = [{"type": "run_started", "run_id": "r", "thread_id": "t"}]
    for n in range(MAX_LOSSES + 10):
        block = {"message_id": f"m{n}", "index": 0}
        events += [
            {"type": "message_started", "message_id": f"m{n}", "role": "assistant", "kind": "reasoning"},
            {"type": "block_started", **block, "kind": "reasoning"},
            {"type": "block_delta", **block, "delta": "hm"},
            {"type": "block_replaced", **block, "encrypted": f"s{n}", "encrypted_by": row.encrypted_by},
            {"type": "block_finished", **block},
            {"type": "message_finished", "message_id": f"m{n}"},
        ]
    events.append({"type": "run_finished", "status": "completed"})
    encoder = backend.NeutralEncoder(source, **OPTIONS[source])
    stream = b"".join(encoder.encode(event) for event in events) + encoder.close()
    losses = losses_of(backend, source, target, stream)
    assert len(losses) == MAX_LOSSES + 1
    assert {loss["what"] for loss in losses[:-1]} == {"signatures"}
    assert {key: losses[-1][key] for key in UNLISTED} == UNLISTED
    assert losses[-1]["event"] > losses[-2]["event"]


def tool_calls_run(*arguments: str) -> list[dict[str, Any]]:
    """A run of one message of tool calls, one a block, given ``arguments``."""
    events: list[dict[str, Any]] = [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "m", "role": "assistant", "kind": "tool_call"},
    ]
    for index, text in enumerate(arguments):
        events += [
            {
                "type": "block_started",
                "message_id": "m",
                "index": index,
                "kind": "tool_call",
                "call_id": f"c{index}",
                "name": "f",
            },
            {"type": "block_delta", "message_id": "m", "index": index, "delta": text},
            {"type": "block_finished", "message_id": "m", "index": index},
        ]
    return [
        *events,
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": "completed"},
    ]


def test_tool_arguments_that_are_no_object_are_reported_where_the_target_takes_objects(
    backend: ModuleType,
) -> None:
    """A target whose tool input is an object ends broken arguments at
    their last clean point, and says so for each call; the others carry
    the text as it came."""
    arguments = ['{"city": "Paris"}', '{"city": "Par', "[1, 2]", "", '{"a": 1} trailing']
    encoder = backend.NeutralEncoder("agentscope")
    stream = b"".join(encoder.encode(event) for event in tool_calls_run(*arguments)) + encoder.close()
    for target, row in TABLE.items():
        losses = [
            loss["why"]
            for loss in losses_of(backend, "agentscope", target, stream)
            if loss["what"] == "broken_arguments"
        ]
        if "broken_arguments" in row.cannot_carry:
            assert (
                losses
                == [
                    f"{target} takes a tool's input as a JSON object: "
                    "arguments that are not one end at their last clean point"
                ]
                * 3
            ), target
        else:
            assert losses == [], target


def test_the_usage_of_a_message_is_reported_where_it_does_not_read_back(backend: ModuleType) -> None:
    """Written from AgentScope, which keeps a message's usage: a target
    reports it exactly when its reader gives the message no such usage."""
    usage = {"input_tokens": 3, "output_tokens": 5}
    events = neutral_run("completed")
    events[5] = {**events[5], "usage": usage}
    encoder = backend.NeutralEncoder("agentscope")
    stream = b"".join(encoder.encode(event) for event in events) + encoder.close()
    assert [message["usage"] for message in view(backend, "agentscope", stream)["messages"]] == [usage]
    for target, row in TABLE.items():
        losses = [
            loss["why"]
            for loss in losses_of(backend, "agentscope", target, stream)
            if loss["what"] == "usage"
        ]
        messages = view(backend, target, convert(backend, "agentscope", target, stream))["messages"]
        kept = [{key: (message.get("usage") or {}).get(key) for key in usage} for message in messages]
        if kept == [usage]:
            assert losses == [], target
        else:
            assert "usage" in row.cannot_carry, target
            assert losses == [f"{target} has no place for the usage of a message"], target


def late_run(message_id: str, text: str) -> list[dict[str, Any]]:
    """A second run's events, a message of ``text``, for after a stream's end."""
    return [
        {"type": "run_started", "run_id": "r2", "thread_id": "t"},
        {"type": "message_started", "message_id": message_id, "role": "assistant"},
        {"type": "block_started", "message_id": message_id, "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": message_id, "index": 0, "delta": text},
        {"type": "block_delta", "message_id": message_id, "index": 0, "delta": text},
        {"type": "block_finished", "message_id": message_id, "index": 0},
        {"type": "passthrough", "protocol": "elsewhere", "event": {"type": "step"}},
        {"type": "message_finished", "message_id": message_id},
        {"type": "run_failed", "code": "late", "message": "after the end"},
        {"type": "run_finished", "status": "completed"},
    ]


def after_end(target: str, kind: str) -> str:
    """A loss's ``why`` for an event of ``kind`` (or a passed-through one,
    named as its protocol names it) after ``target``'s end."""
    named = kind if " event of " in kind else f"{kind} event"
    return f"{target} writes nothing after its stream's end: a {named} that came after it has no place"


@pytest.mark.parametrize("target", TABLE)
def test_what_comes_after_a_targets_end_is_reported(backend: ModuleType, target: str) -> None:
    """A target writes nothing after its stream's end (one whose streams may
    hold more runs, nothing but a new run): what comes after it is reported
    once for each kind of event (a passed-through event's own), at the
    first, and an end that only repeats the end loses nothing."""
    run = neutral_run("completed")
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in [*run, *late_run("late", "later words")])
    written += encoder.close()
    after = [(loss["event"], loss["why"]) for loss in encoder.losses if loss["what"] == "after_end"]
    first = len(run) + 1
    if TABLE[target].runs_follow_runs:
        # A new run is written, ended by its failure; its finish repeats the end.
        assert b"later words" in written
        assert after == []
        return
    assert b"later words" not in written
    assert after == [
        (first + number, after_end(target, kind))
        for number, kind in enumerate(("run_started", "message_started", "block_started", "block_delta"))
    ] + [
        (first + 6, after_end(target, "step event of elsewhere")),
        (first + 8, after_end(target, "run_failed")),
    ]


@pytest.mark.parametrize("chunk", [None, 7])
def test_deltas_after_a_failure_are_reported_by_every_target_that_ended(
    backend: ModuleType, chunk: int | None
) -> None:
    """An AgentScope server may go on streaming a message after an error
    event: every target that ended with the failure reports the deltas that
    follow (once, at the first), whichever path a delta takes."""
    events = [
        {"object": "response", "id": "r", "status": "created"},
        {"object": "message", "id": "m", "role": "assistant", "type": "message", "status": "in_progress"},
        {"object": "content", "msg_id": "m", "type": "text", "index": 0, "delta": True, "text": "said"},
        {"error": {"code": "upstream", "message": "reset"}},
        *[{"object": "content", "msg_id": "m", "type": "text", "index": 0, "delta": True, "text": "unsaid"}]
        * 2,
    ]
    stream = b"".join(sse_event(event) for event in events)
    for target in TABLE:
        transcoder = backend.Transcoder("agentscope", target, **OPTIONS[target])
        written = b"".join(transcoder.feed(piece) for piece in chunked(stream, chunk)) + transcoder.close()
        assert b"unsaid" not in written, target
        assert [loss for loss in transcoder.losses if loss["what"] == "after_end"] == [
            {"event": 5, "what": "after_end", "why": after_end(target, "block_delta")}
        ], target


def not_open(target: str, brought: str) -> str:
    """A loss's ``why`` for what ``brought`` to a block that is not open."""
    return (
        f"{target} writes nothing to a block that is not open (never started, or finished): "
        f"{brought} to one has no place"
    )


# A run whose blocks take replacements after their end: an encrypted value
# (twice: reported once), a correction of text.
REPLACED_AFTER_THE_END = [
    {"type": "run_started", "run_id": "r", "thread_id": "t"},
    {"type": "message_started", "message_id": "m", "role": "assistant"},
    {"type": "block_started", "message_id": "m", "index": 0, "kind": "reasoning"},
    {"type": "block_delta", "message_id": "m", "index": 0, "delta": "thinking"},
    {"type": "block_finished", "message_id": "m", "index": 0},
    {"type": "block_started", "message_id": "m", "index": 1, "kind": "text"},
    {"type": "block_delta", "message_id": "m", "index": 1, "delta": "said"},
    {"type": "block_finished", "message_id": "m", "index": 1},
    {
        "type": "block_replaced",
        "message_id": "m",
        "index": 0,
        "encrypted": "sealed-1",
        "encrypted_by": "openai",
    },
    {"type": "block_replaced", "message_id": "m", "index": 1, "text": "said otherwise"},
    {
        "type": "block_replaced",
        "message_id": "m",
        "index": 0,
        "encrypted": "sealed-2",
        "encrypted_by": "openai",
    },
    {"type": "message_finished", "message_id": "m"},
    {"type": "run_finished", "status": "completed"},
]


@pytest.mark.parametrize("target", TABLE)
def test_a_replacement_after_its_blocks_end_is_written_or_reported(backend: ModuleType, target: str) -> None:
    """What a replacement brings after its block's end is written where the
    target has a place for it then (an encrypted value that names its
    message, not the block), and reported where not, once for what it
    brings: never dropped without a word. (Every encoder once dropped it.)"""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in REPLACED_AFTER_THE_END) + encoder.close()
    assert b"said otherwise" not in written
    sealed = b"sealed-1" in written
    assert (b"sealed-2" in written) == sealed
    reported = [(loss["event"], loss["why"]) for loss in encoder.losses if loss["what"] == "block_not_open"]
    encrypted = [] if sealed else [(9, not_open(target, "the encrypted, encrypted_by of a block_replaced"))]
    assert reported == [*encrypted, (10, not_open(target, "the text of a block_replaced"))]


@pytest.mark.parametrize("target", TABLE)
def test_a_delta_to_a_block_that_is_not_open_is_reported(backend: ModuleType, target: str) -> None:
    """An encoder given events built by hand writes nothing of a delta to a
    block never started or finished already (it could not say what kind of
    block it is), and reports it once; an empty delta brings nothing."""
    events = [
        {"type": "run_started", "run_id": "r", "thread_id": "t"},
        {"type": "message_started", "message_id": "m", "role": "assistant"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "unstarted words"},
        {"type": "block_started", "message_id": "m", "index": 0, "kind": "text"},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "kept words"},
        {"type": "block_finished", "message_id": "m", "index": 0},
        {"type": "block_delta", "message_id": "m", "index": 0, "delta": "late words"},
        {"type": "block_delta", "message_id": "m", "index": 7, "delta": ""},
        {"type": "block_delta", "index": 0, "delta": "words of no message"},
        {"type": "message_finished", "message_id": "m"},
        {"type": "run_finished", "status": "completed"},
    ]
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in events) + encoder.close()
    assert b"kept words" in written
    for lost in (b"unstarted words", b"late words", b"words of no message"):
        assert lost not in written
    assert [loss for loss in encoder.losses if loss["what"] == "block_not_open"] == [
        {"event": 3, "what": "block_not_open", "why": not_open(target, "a block_delta")}
    ]


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_decoders_write_only_to_blocks_they_started(source: str, path: Path) -> None:
    """Every recorded stream's neutral events: a block starts once while
    open, a delta and an end go to an open block, a replacement to one that
    started (it may follow the end), so that the Transcoder, which checks
    only replacements, misses no loss."""
    for backend in backends():
        decoder = backend.NeutralDecoder(source)
        events = decoder.feed(path.read_bytes()) + decoder.close()
        open_blocks: set[tuple[str, int]] = set()
        started: set[tuple[str, int]] = set()
        for event in events:
            block = (event.get("message_id"), event.get("index"))
            if event["type"] == "block_started":
                assert block not in open_blocks, event
                open_blocks.add(block)  # type: ignore[arg-type]
                started.add(block)  # type: ignore[arg-type]
            elif event["type"] == "block_replaced":
                assert block in started, event
            elif event["type"] in ("block_delta", "block_finished"):
                assert block in open_blocks, event
                if event["type"] == "block_finished":
                    open_blocks.discard(block)  # type: ignore[arg-type]


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_encrypted_value_is_carried_or_reported(source: str, path: Path) -> None:
    """A reasoning signature or encrypted reasoning (a text's or a tool
    call's too, where a provider signs them) that a source's view holds is
    in the view of what each target wrote, or reported: as a signature with
    no place, a block with none, or one after its block's end. (A target
    whose message has one reasoning item overwrote a first signature with a
    second; two targets dropped a text's or a tool call's.)"""
    stream = path.read_bytes()
    for backend in backends():
        sealed = [
            (block["kind"], block["encrypted"])
            for message in view(backend, source, stream)["messages"]
            for block in message["blocks"]
            if isinstance(block.get("encrypted"), str)
        ]
        if not sealed:
            return
        for target in TABLE:
            transcoder = backend.Transcoder(source, target, **OPTIONS[target])
            converted = transcoder.feed(stream) + transcoder.close()
            kept = {
                block.get("encrypted")
                for message in view(backend, target, converted)["messages"]
                for block in message["blocks"]
            }
            reported = {loss["what"] for loss in transcoder.losses}
            for kind, value in sealed:
                if value not in kept:
                    assert reported & {"signatures", "block_not_open", kind}, (target, kind, value)


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_the_runs_state_and_result_are_carried_or_reported(source: str, path: Path) -> None:
    """A run's state (snapshots and patches, a graph's values) and its
    result (what the agent returned) read back from a target that
    has a place for them, and are reported by every other (once a kind of
    state event). (Ten targets dropped the state, and eleven the result,
    without a word.)"""
    stream = path.read_bytes()
    backend = backends()[0]
    original = view(backend, source, stream)
    for target, row in TABLE.items():
        transcoder = backend.Transcoder(source, target, **OPTIONS[target])
        converted = view(backend, target, transcoder.feed(stream) + transcoder.close())
        reported = [loss["what"] for loss in transcoder.losses]
        # (An empty state is no state: a target writes none of it.)
        if original["state"]:
            if row.carries_state:
                assert converted["state"] == original["state"], target
                assert "state" not in reported, target
            else:
                assert 1 <= reported.count("state") <= 2, target
        else:
            assert "state" not in reported, target
        if original["result"] is not None:
            if row.carries_run_result:
                assert converted["result"] == original["result"], target
            else:
                assert reported.count("run_result") == 1, target


def error_code_lost(target: str, code: str, written: str | None) -> str:
    """A loss's ``why`` for an error code ``target`` writes as ``written``."""
    how = f"as {written}" if written is not None else "without a code"
    return f"{target} has no error code {code}: the failure is written {how}"


@pytest.mark.parametrize("open_block", [True, False])
@pytest.mark.parametrize("target", TABLE)
def test_a_failed_runs_error_code_is_carried_or_reported(
    backend: ModuleType, target: str, open_block: bool
) -> None:
    """A failed run's error code reads back from the target as it came, or
    the target reports what it writes instead (its own word, or no code at
    all), whether or not a block was open when the run failed."""
    events = neutral_run("completed")[:-1]
    if open_block:
        events = [event for event in events if event["type"] not in ("block_finished", "message_finished")]
    events.append({"type": "run_failed", "code": "throttlingException", "message": "slow down"})
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in events) + encoder.close()
    error = view(backend, target, written)["error"]
    assert error["message"] == "slow down"
    reported = [loss["why"] for loss in encoder.losses if loss["what"] == "error_code"]
    if error["code"] == "throttlingException":
        assert reported == []
    else:
        assert "error_code" in TABLE[target].cannot_carry
        # What it is written as is what its reader gives back, or no code.
        assert reported in (
            [error_code_lost(target, "throttlingException", error["code"])],
            [error_code_lost(target, "throttlingException", None)],
        )


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_recorded_error_code_is_carried_or_reported(source: str, path: Path) -> None:
    """A recorded failure's code (a throttle, a provider's status, a
    graph's exception) reads back from each target as it came, or is
    reported. (Six targets wrote it in their own words, or dropped it,
    without a word.)"""
    stream = path.read_bytes()
    backend = backends()[0]
    original = view(backend, source, stream)
    code = (original["error"] or {}).get("code") if original["status"] == "failed" else None
    if not code:
        return
    for target, row in TABLE.items():
        transcoder = backend.Transcoder(source, target, **OPTIONS[target])
        converted = view(backend, target, transcoder.feed(stream) + transcoder.close())
        reported = [loss["why"] for loss in transcoder.losses if loss["what"] == "error_code"]
        if (converted["error"] or {}).get("code") == code:
            assert reported == [], target
        else:
            assert "error_code" in row.cannot_carry, target
            assert len(reported) == 1, target
            assert reported[0].startswith(f"{target} has no error code {code}: "), target


# Reasons of every kind, in several protocols' words, and one of no kind (a
# model's own).
STOP_REASONS = (
    "end_turn",
    "stop",
    "tool_use",
    "tool_calls",
    "stop_sequence",
    "max_tokens",
    "length",
    "refusal",
    "content_filter",
    "safety",
    "pause_turn",
    "malformed_function_call",
)


def stop_run(*reasons: str) -> list[dict[str, Any]]:
    """A run of one assistant text message for each reason, each stopping
    for it (the run incomplete where the last was cut short: out of tokens,
    or by a filter)."""
    status = "incomplete" if stop_reasons.cuts_short(reasons[-1]) else "completed"
    events = neutral_run(status)
    run = events[:1]
    for number, reason in enumerate(reasons):
        message = [{**event, "message_id": f"m{number}"} for event in events[1:-1]]
        message[-1]["stop_reason"] = reason
        run.extend(message)
    return [*run, events[-1]]


def stop_reason_of(view: dict[str, Any]) -> str | None:
    """Why a view's run stopped: its last message's reason, else the run's."""
    said = [message["stop_reason"] for message in view["messages"] if message.get("stop_reason")]
    return said[-1] if said else view["stop_reason"]


def says_as_much(reason: str, back: str | None) -> bool:
    """Whether what reads back says why as ``reason`` does: the same word,
    or one of its kind (a tool call's stop, or a stop sequence, may read
    back as the end of the turn, where a target says them so)."""
    if back is None:
        return False
    if back.lower().replace("-", "_") == reason.lower():
        return True
    kind, said = stop_reasons.kind(reason), stop_reasons.kind(back)
    return kind is not None and (said == kind or (stop_reasons.is_ordinary(reason) and said == "end"))


def assert_stop_reason_written_or_reported(
    backend: ModuleType, target: str, reason: str, events: list[dict[str, Any]], *, of_run: bool = False
) -> None:
    """What a target writes of a run that stopped for ``reason``: the
    reason as it came or the target's word of its kind, where the target
    carries stop reasons; else a loss, once, unless the reason says no more
    than the stream does. A target may say why only of a run cut short, and
    one that says why of messages alone writes nothing of a run's reason
    that the stream says otherwise (``of_run``)."""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in events) + encoder.close()
    back = stop_reason_of(view(backend, target, written))
    reported = [loss["why"] for loss in encoder.losses if loss["what"] == "stop_reason"]
    if stop_reasons.is_implied(reason):
        assert reported == [], target
        if TABLE[target].carries_stop_reasons:
            may_say_nothing = stop_reasons.is_implied(reason) if of_run else stop_reasons.is_ordinary(reason)
            assert says_as_much(reason, back) or (back is None and may_say_nothing), back
    elif says_as_much(reason, back):
        assert TABLE[target].carries_stop_reasons
        assert reported == [], target
    else:
        assert reported == [f"{target} has no place for the stop reason {reason}"], back


@pytest.mark.parametrize("reason", STOP_REASONS)
@pytest.mark.parametrize("target", TABLE)
def test_a_stop_reason_is_written_in_the_targets_words_or_reported(
    backend: ModuleType, target: str, reason: str
) -> None:
    """A message's stop reason reads back from a target that carries stop
    reasons as it came or as the target's word of its kind (a filter's stop
    is one target's refusal, another's SAFETY); where the target has no word
    for it, it is reported, once, unless it says no more than the stream
    does (the turn's end, a tool call's, a stop sequence's, or running out
    of tokens, which the run's status says)."""
    assert_stop_reason_written_or_reported(backend, target, reason, stop_run(reason))


@pytest.mark.parametrize("reason", STOP_REASONS)
@pytest.mark.parametrize("target", TABLE)
def test_a_runs_stop_reason_stands_for_a_message_that_gave_none(
    backend: ModuleType, target: str, reason: str
) -> None:
    """A run's stop reason (a source that says why of the run, not of its
    message) is written where its message gave none, or reported, as a
    message's is. (Four targets that carry stop reasons wrote a filter's
    stop of the run as running out of tokens, or the turn's end, and two
    dropped it, all without a word.)"""
    *events, end = stop_run(reason)
    del events[-1]["stop_reason"]
    assert_stop_reason_written_or_reported(
        backend, target, reason, [*events, {**end, "stop_reason": reason}], of_run=True
    )


@pytest.mark.parametrize("reason", [reason for reason in STOP_REASONS if stop_reasons.cuts_short(reason)])
@pytest.mark.parametrize("target", TABLE)
def test_a_run_cut_short_reads_back_incomplete(backend: ModuleType, target: str, reason: str) -> None:
    """A run whose message ran out of tokens or a filter stopped is
    incomplete, in every protocol's reading: each target writes it so that
    its own reader gives the run back incomplete, with no word on its
    status, but a target with no incomplete run, which says what it writes.
    (Four decoders read only running out of tokens as incomplete: a filter's
    stop through them read back completed.)"""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in stop_run(reason)) + encoder.close()
    reported = [loss["why"] for loss in encoder.losses if loss["what"] == "run_status"]
    carried = TABLE[target].status_as_carried.get("incomplete")
    if carried is None:
        assert view(backend, target, written)["status"] == "incomplete"
        assert reported == []
    else:
        assert view(backend, target, written)["status"] == carried
        assert reported == [f"{target} has no run status incomplete: the run is written as {carried}"]


@pytest.mark.parametrize("target", [name for name, row in TABLE.items() if row.stop_reason_words])
def test_stop_reasons_read_back_in_each_targets_own_words(backend: ModuleType, target: str) -> None:
    """The words a target writes for other protocols' stop reasons, as its
    own reader gives them back (decoders give them lower case): its rows'
    ``stop_reason_words``."""
    for reason, word in TABLE[target].stop_reason_words.items():
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        written = b"".join(encoder.encode(event) for event in stop_run(reason)) + encoder.close()
        assert stop_reason_of(view(backend, target, written)) == word, reason


@pytest.mark.parametrize("target", [name for name, row in TABLE.items() if row.carries_stop_reasons])
def test_the_last_messages_stop_reason_is_the_runs(backend: ModuleType, target: str) -> None:
    """A later message's reason stands over an earlier one's, in a target
    whose stream ends with one reason: an answer after a tool call does not
    read back as stopping for the tool. (A target kept the tool call's when
    the last message's reason was in another protocol's words.)"""
    encoder = backend.NeutralEncoder(target, **OPTIONS[target])
    written = b"".join(encoder.encode(event) for event in stop_run("tool_calls", "stop")) + encoder.close()
    back = stop_reason_of(view(backend, target, written))
    assert back is None or stop_reasons.kind(back) == "end", back


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_recorded_stop_reason_is_carried_or_reported(source: str, path: Path) -> None:
    """A recorded run's stop reason reads back from each target that
    carries stop reasons as it came or as the target's word of its kind,
    or is reported; where a target carries none, only a reason that says
    more than the stream does is reported."""
    stream = path.read_bytes()
    for backend in backends():
        original = view(backend, source, stream)
        reason = stop_reason_of(original)
        if reason is None or original["status"] == "failed":
            return
        for target, row in TABLE.items():
            transcoder = backend.Transcoder(source, target, **OPTIONS[target])
            back = stop_reason_of(view(backend, target, transcoder.feed(stream) + transcoder.close()))
            reported = [loss for loss in transcoder.losses if loss["what"] == "stop_reason"]
            if row.carries_stop_reasons and back is not None:
                assert says_as_much(reason, back) or reported, (target, reason, back)
            if stop_reasons.is_implied(reason):
                assert reported == [], (target, reason)


def error_code_kind(code: str | None) -> str | None:
    """The kind of an error code (``rate_limit``, ``unavailable``,
    ``server_error``, ``invalid_request``), in any protocol's words."""
    kinds = Words(tables("_vocabulary")["ERROR_CODE_KINDS"], (), ())
    return kinds.kind(code) if code is not None else None


@pytest.mark.parametrize("target", [name for name, row in TABLE.items() if row.error_code_words])
def test_an_error_code_is_written_as_the_targets_code_of_its_kind(backend: ModuleType, target: str) -> None:
    """A target whose errors have a closed set of codes writes another
    protocol's code as its own of that kind (its row's
    ``error_code_words``): a throttle stays a rate limit (a client retries
    it later), an overload stays unavailable, a bad request stays one; a
    code of no kind is a server error. What does not read back as it came
    is reported, saying what it is written as; its own code is kept. (Two
    targets wrote every code not their own as a server error, and two wrote
    it as it came, which their readers reject or do not know.)"""
    for code, word in TABLE[target].error_code_words.items():
        events = [*neutral_run("completed")[:-1], {"type": "run_failed", "code": code, "message": "m"}]
        encoder = backend.NeutralEncoder(target, **OPTIONS[target])
        written = b"".join(encoder.encode(event) for event in events) + encoder.close()
        assert view(backend, target, written)["error"]["code"] == word, code
        if error_code_kind(code) is not None and word != "server_error":
            assert error_code_kind(word) == error_code_kind(code), code
        reported = [loss["why"] for loss in encoder.losses if loss["what"] == "error_code"]
        assert reported == ([] if word == code else [error_code_lost(target, code, word)]), code


@pytest.mark.parametrize(("source", "path"), SOURCES, ids=SOURCE_IDS)
def test_every_recorded_error_code_reads_back_of_its_kind(source: str, path: Path) -> None:
    """A recorded failure's code that has a kind (a throttle, an overload)
    reads back from every target that writes a code of a kind as one of the
    same kind, or at worst as a server error."""
    stream = path.read_bytes()
    for backend in backends():
        original = view(backend, source, stream)
        kind = error_code_kind((original["error"] or {}).get("code"))
        if original["status"] != "failed" or kind is None:
            return
        for target in TABLE:
            transcoder = backend.Transcoder(source, target, **OPTIONS[target])
            converted = view(backend, target, transcoder.feed(stream) + transcoder.close())
            written = error_code_kind((converted["error"] or {}).get("code"))
            assert written in (None, kind, "server_error"), (target, written)
