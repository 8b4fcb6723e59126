"""Every assembler's tool calls on the recorded streams: read after every
event, the arguments only ever grow toward their final value, and once the
stream ends they are what the protocol's own SDK assembled from the same
bytes (its recording beside the stream); both backends give the same reads."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import agentcodec
from conftest import NATIVE, PURE, requires_native
from protocol_table import TABLE
from protocols import loaded
from test_partial_json import reference

FIXTURES = Path(__file__).resolve().parent / "fixtures"

Judge = Callable[[dict[str, Any]], list[Any]]


# (stream, assembler, its tool-call view, the judge's file for it, what the judge assembled)
CASES = [
    (path, row.assembler, "tool_calls", judged.judge_file(path), judged.judge)
    for row in TABLE.values()
    for judged in row.judged_tool_calls
    for path in sorted(FIXTURES.glob(judged.pattern))
]
STREAMS = [pytest.param(*case, id=str(case[0].relative_to(FIXTURES))) for case in CASES]


def _events(data: bytes) -> Iterator[bytes]:
    for frame in data.replace(b"\r\n", b"\n").split(b"\n\n"):
        if frame.strip():
            yield frame + b"\n\n"


def _reads(backend: ModuleType, path: Path, assembler: str, view: str) -> list[list[dict[str, Any]]]:
    """The tool calls read after every event of the stream and after close."""
    reader = getattr(backend, assembler)(on_error="skip")
    reads = []
    for event in _events(path.read_bytes()):
        reader.feed(event)
        reads.append(getattr(reader, view))
    reader.close()
    reads.append(getattr(reader, view))
    return reads


def _grows_into(partial: Any, final: Any) -> bool:
    """Whether a value read while streaming is on the way to the final one:
    its keys and items a prefix of the final's, its last string a prefix,
    every other scalar already final."""
    if isinstance(partial, dict):
        return isinstance(final, dict) and all(
            key in final and _grows_into(partial[key], final[key]) for key in partial
        )
    if isinstance(partial, list):
        return (
            isinstance(final, list)
            and len(partial) <= len(final)
            and all(_grows_into(item, whole) for item, whole in zip(partial, final, strict=False))
        )
    if isinstance(partial, str) and isinstance(final, str):
        return final.startswith(partial)
    return bool(partial == final)


def _arguments(call: dict[str, Any]) -> Any:
    return next(call[field] for field in ("arguments", "input", "args") if field in call)


#: The fields that say which call an entry is (its state and type may change as it streams).
IDENTITY = ("id", "call_id", "toolCallId", "index", "choice", "messageId", "message_id", "msg_id")


def _same_call(call: dict[str, Any], other: dict[str, Any]) -> bool:
    return all(call.get(field) == other.get(field) for field in IDENTITY)


@pytest.mark.parametrize(("path", "assembler", "view", "judge_file", "judge"), STREAMS)
def test_tool_calls_end_as_the_sdk_assembled_them(  # noqa: PLR0917 (pytest parameters)
    backend: ModuleType, path: Path, assembler: str, view: str, judge_file: Path, judge: Judge
) -> None:
    reads = _reads(backend, path, assembler, view)
    final = reads[-1]
    assert [_arguments(call) for call in final] == judge(json.loads(judge_file.read_text()))
    for call in final:
        assert call["done"] is True
        # An error where, and only where, the text is not JSON.
        arguments = _arguments(call)
        assert ("error" in call) == (isinstance(arguments, str) and loaded(arguments) is arguments)
    # Calls that end as JSON got there by growing. (Others: a snapshot may
    # drop a call, and text that breaks keeps what parsed before the break.)
    ended = [call for call in final if "error" not in call]
    for read in reads[:-1]:
        for call in read:
            if "error" in call or _arguments(call) is None:
                continue
            for whole in (done for done in ended if _same_call(call, done)):
                assert _grows_into(_arguments(call), _arguments(whole)), call


def test_the_recordings_hold_tool_calls() -> None:
    """The judged streams above are not all without calls: the test would pass on nothing."""
    calls = [
        arguments
        for *_, judge_file, judge in CASES
        for arguments in judge(json.loads(judge_file.read_text()))
    ]
    assert len(calls) >= 20
    assert any(isinstance(arguments, str) for arguments in calls)  # and some that are not JSON


@requires_native
@pytest.mark.parametrize(("path", "assembler", "view", "judge_file", "judge"), STREAMS)
def test_backends_read_the_same_after_every_event(
    path: Path, assembler: str, view: str, judge_file: Path, judge: Judge
) -> None:
    assert _reads(NATIVE, path, assembler, view) == _reads(PURE, path, assembler, view)


def _argument_texts(recorded: Any) -> Iterator[str]:
    """Every call's arguments a recording holds, as JSON text."""
    if isinstance(recorded, list):
        for item in recorded:
            yield from _argument_texts(item)
    elif isinstance(recorded, dict):
        for key, value in recorded.items():
            if key in ("delta", "tool_call_chunks", "invalid_tool_calls"):
                # pieces of the arguments, not the whole (deltas; LangChain
                # message chunks, whose pieces also stand as invalid calls until whole)
                continue
            if key in ("arguments", "args", "input", "rawInput", "partial_json"):
                if isinstance(value, str) and value:
                    yield value
                elif isinstance(value, (dict, list)):
                    yield json.dumps(value, ensure_ascii=False)
            yield from _argument_texts(value)


ARGUMENT_TEXTS = sorted(
    {text for path in FIXTURES.glob("*/*.json") for text in _argument_texts(json.loads(path.read_text()))}
)


def test_every_prefix_of_the_recorded_arguments_gives_what_jiter_gives(backend: ModuleType) -> None:
    """The recorded argument texts fed byte by byte: after each byte the value
    is jiter's for the prefix, until the first byte that is not JSON."""
    assert len(ARGUMENT_TEXTS) >= 20
    for text in ARGUMENT_TEXTS:
        data = text.encode()
        parser = backend.PartialJSON()
        for end in range(1, len(data) + 1):
            try:
                parser.feed(data[end - 1 : end])
            except agentcodec.PartialJSONError:
                with pytest.raises(json.JSONDecodeError):
                    json.loads(text)
                break
            assert parser.value == reference(data[:end]), data[:end]
        else:
            assert parser.value == json.loads(text)
