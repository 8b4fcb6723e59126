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
    the losses of a target that cannot carry its kind (Anthropic carries a
    data block that holds one of its own blocks: its data is left out)."""
    stream = path.read_bytes()
    backend = backends()[0]
    blocks = [block for message in view(backend, source, stream)["messages"] for block in message["blocks"]]
    for target, row in TABLE.items():
        kinds = [kind for kind in BLOCK_KINDS if kind in row.cannot_carry]
        if target == "anthropic":
            kinds.remove("data")
        losses = losses_of(backend, source, target, stream)
        for kind in kinds:
            expected = sum(1 for block in blocks if block["kind"] == kind)
            assert sum(1 for loss in losses if loss["what"] == kind) == expected, (target, kind)


def _lossy() -> tuple[str, bytes, str]:
    """A recorded stream that loses something converted to Chat."""
    for source, path in SOURCES:
        stream = path.read_bytes()
        if losses_of(backends()[0], source, "openai-chat", stream):
            return source, stream, "openai-chat"
    raise AssertionError("no recorded stream loses anything converted to Chat")


def test_on_loss_error_stops_at_each_loss_and_keeps_what_came_before(backend: ModuleType) -> None:
    """Raised at the source's event that brought it; what was converted
    before it comes with the next call, and going on gives the bytes a
    recording conversion writes."""
    source, stream, target = _lossy()
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
    assert said == [f"event {event}: {why}" for event, _, why in raised]
    assert written == expected
    assert raised == [(loss["event"], loss["what"], loss["why"]) for loss in recording.losses]
    assert stopping.losses == recording.losses


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("ignore", ValueError, "on_loss must be 'record' or 'error', not 'ignore'"),
        (1, TypeError, "on_loss must be str, not int"),
    ],
)
def test_on_loss_takes_record_or_error(backend: ModuleType, value: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        backend.Transcoder("agui", "openai-chat", on_loss=value)


def test_a_text_stream_loses_nothing(backend: ModuleType) -> None:
    stream = (
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}\n\n'
        b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n'
        b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
    )
    for target in TABLE:
        transcoder = backend.Transcoder("agui", target, **OPTIONS[target])
        transcoder.feed(stream)
        transcoder.close()
        assert transcoder.losses == [], target


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
    events = [
        {"object": "response", "id": "r", "status": "created"},
        {"object": "message", "id": "m", "role": "assistant", "type": "message", "status": "in_progress"},
        {"object": "content", "type": "text", "index": 0, "delta": True, "msg_id": "m", "text": "Hello wrld"},
        {
            "object": "content",
            "type": "text",
            "index": 0,
            "msg_id": "m",
            "text": "Hello world",
            "status": "completed",
        },
        {"object": "message", "id": "m", "role": "assistant", "type": "message", "status": "completed"},
        {"object": "response", "id": "r", "status": "completed"},
    ]
    stream = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
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
    chunks = [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant"}}],
        },
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"refusal": "I can't."}}],
        },
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
    ]
    stream = (
        b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
    )
    for target, row in TABLE.items():
        if target == "openai-chat":
            continue
        losses = [
            loss
            for loss in losses_of(backend, "openai-chat", target, stream)
            if loss["what"] == "refusal_kind"
        ]
        if "refusal_kind" in row.cannot_carry:
            assert losses == [
                {
                    "event": 2,
                    "what": "refusal_kind",
                    "why": f"{target} has no refusal block: a refusal is written as text",
                }
            ], target
        else:
            assert losses == [], target
