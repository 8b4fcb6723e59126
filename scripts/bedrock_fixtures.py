"""Writes tests/fixtures/bedrock/: Bedrock ConverseStream responses as the
service writes them, and the response Converse gives the same request, for
the Bedrock protocol's reader to be judged by.

The service is not a package: the streams are written here in its shapes
(botocore's ``bedrock-runtime`` model and the streams AWS documents): AWS
event stream messages with the headers ``:event-type``, ``:content-type``
and ``:message-type``, each payload the event's JSON with the ``p`` field
the service pads it with; text and reasoning blocks with no
``contentBlockStart``, a tool use's input in string fragments, a reasoning
signature and redacted reasoning as deltas of their own, the usage and
metrics in a last ``metadata`` event. A failed stream ends with an
exception message (``:message-type: exception``).

Each stream's judge (``<name>.json``) holds what botocore's own parser
makes of it (``botocore.eventstream.EventStream`` with the service's model,
as ``client.converse_stream()`` gives it; blobs as base64), or the error it
raises; and the response Converse answers the same request with, written
out here by hand (text joined, tool inputs parsed, reasoning with its
signature).

    .venv-dev/bin/pip install botocore
    .venv-dev/bin/python scripts/bedrock_fixtures.py
"""

from __future__ import annotations

import base64
import json
import string
import sys
from pathlib import Path
from typing import Any

import botocore.session
from botocore.eventstream import EventStream
from botocore.exceptions import EventStreamError
from botocore.parsers import EventStreamJSONParser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
from agentcodec._pure.eventstream import encode_event_message  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "bedrock"


def pad(n: int) -> str:
    """The service's padding field: letters, of a length that varies."""
    return (string.ascii_letters * 3)[: 5 + (n * 7) % 40]


def message(n: int, name: str, payload: dict[str, Any], exception: bool = False) -> bytes:
    """One event as the service writes it."""
    body = json.dumps({**payload, "p": pad(n)}, ensure_ascii=False, separators=(",", ":")).encode()
    if exception:
        headers = {":exception-type": name, ":content-type": "application/json", ":message-type": "exception"}
        body = json.dumps(payload, separators=(",", ":")).encode()
    else:
        headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    return encode_event_message(headers, body)


def delta(index: int, piece: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "contentBlockDelta", {"contentBlockIndex": index, "delta": piece}


def stop(index: int) -> tuple[str, dict[str, Any]]:
    return "contentBlockStop", {"contentBlockIndex": index}


METRICS = {"latencyMs": 1487}


def text_run() -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    pieces = ["Hello", "! A naïve ", "answer: 数据 🙂", " <b>&</b>\nDone."]
    events = [("messageStart", {"role": "assistant"})]
    events += [delta(0, {"text": piece}) for piece in pieces]
    events += [stop(0), ("messageStop", {"stopReason": "end_turn"})]
    usage = {"inputTokens": 12, "outputTokens": 19, "totalTokens": 31}
    events.append(("metadata", {"usage": usage, "metrics": METRICS}))
    response = {
        "output": {"message": {"role": "assistant", "content": [{"text": "".join(pieces)}]}},
        "stopReason": "end_turn",
        "usage": usage,
        "metrics": METRICS,
    }
    return events, response


def tool_use() -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    fragments = ['{"city":', ' "Zürich', '", "days"', ": 3}"]
    events = [
        ("messageStart", {"role": "assistant"}),
        delta(0, {"text": "Let me look that up."}),
        stop(0),
        (
            "contentBlockStart",
            {
                "start": {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "get_weather"}},
                "contentBlockIndex": 1,
            },
        ),
        *[delta(1, {"toolUse": {"input": fragment}}) for fragment in fragments],
        stop(1),
        ("messageStop", {"stopReason": "tool_use"}),
    ]
    usage = {
        "inputTokens": 402,
        "outputTokens": 71,
        "totalTokens": 473,
        "cacheReadInputTokens": 0,
        "cacheWriteInputTokens": 0,
    }
    events.append(("metadata", {"usage": usage, "metrics": METRICS}))
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": "Let me look that up."},
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                            "name": "get_weather",
                            "input": {"city": "Zürich", "days": 3},
                        }
                    },
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": usage,
        "metrics": METRICS,
    }
    return events, response


SIGNATURE = base64.b64encode(b"bedrock-signature:" + bytes(range(48))).decode()
REDACTED = base64.b64encode(b"redacted reasoning bytes").decode()


def reasoning() -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    thoughts = ["The user wants ", "a count: three r's."]
    events = [("messageStart", {"role": "assistant"})]
    events += [delta(0, {"reasoningContent": {"text": piece}}) for piece in thoughts]
    events += [delta(0, {"reasoningContent": {"signature": SIGNATURE}}), stop(0)]
    events += [delta(1, {"reasoningContent": {"redactedContent": REDACTED}}), stop(1)]
    events += [delta(2, {"text": "Three."}), stop(2), ("messageStop", {"stopReason": "end_turn"})]
    usage = {"inputTokens": 40, "outputTokens": 90, "totalTokens": 130}
    events.append(("metadata", {"usage": usage, "metrics": METRICS}))
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "reasoningContent": {
                            "reasoningText": {"text": "".join(thoughts), "signature": SIGNATURE}
                        }
                    },
                    {"reasoningContent": {"redactedContent": REDACTED}},
                    {"text": "Three."},
                ],
            }
        },
        "stopReason": "end_turn",
        "usage": usage,
        "metrics": METRICS,
    }
    return events, response


def max_tokens() -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    pieces = ["Once upon a time, ", "in a land far"]
    events = [("messageStart", {"role": "assistant"})]
    events += [delta(0, {"text": piece}) for piece in pieces]
    events += [stop(0), ("messageStop", {"stopReason": "max_tokens"})]
    usage = {"inputTokens": 5, "outputTokens": 8, "totalTokens": 13}
    events.append(("metadata", {"usage": usage, "metrics": METRICS}))
    response = {
        "output": {"message": {"role": "assistant", "content": [{"text": "".join(pieces)}]}},
        "stopReason": "max_tokens",
        "usage": usage,
        "metrics": METRICS,
    }
    return events, response


def throttled() -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    events = [
        ("messageStart", {"role": "assistant"}),
        delta(0, {"text": "Partial "}),
        delta(0, {"text": "answer"}),
    ]
    failure = {"message": "Too many tokens, please wait before trying again."}
    events.append(("throttlingException", failure))
    response = {
        "output": {"message": {"role": "assistant", "content": [{"text": "Partial answer"}]}},
        "throttlingException": failure,
    }
    return events, response


RUNS = {
    "text": text_run,
    "tool_use": tool_use,
    "reasoning": reasoning,
    "max_tokens": max_tokens,
    "throttled": throttled,
}


def encoded(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(
        message(n, name, payload, exception=name.endswith("Exception"))
        for n, (name, payload) in enumerate(events)
    )


def plain(value: Any) -> Any:
    """botocore's parsed events as JSON: blobs as base64, as on the wire."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


class _Raw:
    """What botocore reads an event stream from: a urllib3-like response."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, amt: int = 1024) -> Any:
        for at in range(0, len(self._data), 7):
            yield self._data[at : at + 7]

    def close(self) -> None:
        pass


def botocore_reads(data: bytes) -> dict[str, Any]:
    """What client.converse_stream()['stream'] yields for the stream."""
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    events: list[Any] = []
    try:
        for event in EventStream(_Raw(data), shape, EventStreamJSONParser(), "ConverseStream"):
            events.append(plain(event))
    except EventStreamError as err:
        return {"events": events, "raised": err.response["Error"]}
    return {"events": events}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in RUNS.items():
        events, response = make()
        data = encoded(events)
        (OUT / f"{name}.bin").write_bytes(data)
        judge = {"botocore": botocore_reads(data), "response": response}
        (OUT / f"{name}.json").write_text(json.dumps(judge, ensure_ascii=False, indent=2) + "\n")
        print(f"{name}: {len(events)} events")


if __name__ == "__main__":
    main()
