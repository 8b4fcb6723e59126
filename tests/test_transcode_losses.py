"""What a conversion cannot carry is reported as it happens: the Transcoder's
``losses`` (the source's event, what, why), ``on_loss="error"`` to stop at
the first, and the CLI's ``convert`` on stderr. The rows' ``cannot_carry``
(the README's table) is the vocabulary of ``what``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agentcodec import ConversionLossError
from conversion import OPTIONS, SOURCE_IDS, SOURCES, backends, view
from protocol_table import TABLE

# The block kinds an encoder reports when it has no place for them.
BLOCK_KINDS = ("media", "data", "tool_result")


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
                assert loss["what"] in row.cannot_carry, (target, loss)


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
