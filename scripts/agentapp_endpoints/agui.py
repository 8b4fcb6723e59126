"""``/ag-ui``, the AgentApp's AG-UI endpoint.

Its reference: every event validated by ag-ui-protocol's own event models
(``TypeAdapter(ag_ui.core.Event)``) and the messages the AG-UI client's
reducer builds from them (``tests/agui_reference.py``, a line-by-line port of
``@ag-ui/client``'s ``defaultApplyEvents``; the Python SDK has none).

The gateway's stream against the AgentApp's: both validate; the client's
messages carry the same answer and tool result; the gateway's reasoning is
reasoning (the AgentApp's is text, agentscope-runtime #504), and its tool
arguments come in pieces.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from agentapp import QUESTION, ROOT, Check, Endpoint, data

sys.path.insert(0, str(ROOT / "tests"))

from agui_reference import apply_events


def reference(stream: bytes) -> dict[str, Any]:
    """The events as ag-ui-protocol validates them, and the client's messages."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    events = []
    for block in stream.decode("utf-8").split("\n\n"):
        if block.startswith("data: "):
            event = adapter.validate_json(block[len("data: ") :])
            events.append(json.loads(event.model_dump_json(by_alias=True)))
    state = apply_events(events)
    return {"validated_events": events, **state}


def data_only(stream: bytes) -> bytes:
    """The stream as bare ``data:`` events: ``reference`` reads no ``id:`` lines."""
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in data(stream))


def without_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in message.items() if key != "id"} for message in messages]


def judge(label: str, theirs: bytes, ours: bytes, fail: bool, check: Check) -> None:
    # reference() raises on any event ag-ui-protocol's models reject.
    their_run, our_run = reference(data_only(theirs)), reference(data_only(ours))
    mine, yours = without_ids(our_run["messages"]), without_ids(their_run["messages"])
    answer = [m for m in mine if m["role"] == "assistant" and m.get("content")]
    check(f"{label}: /ag-ui validates with ag-ui-protocol on both", bool(our_run["validated_events"]))
    check(
        f"{label}: /ag-ui gives the AgentApp's answer",
        answer[-1:] == [m for m in yours if m["role"] == "assistant" and m.get("content")][-1:],
    )
    check(
        f"{label}: /ag-ui gives the AgentApp's tool result",
        [m for m in mine if m["role"] == "tool"] == [m for m in yours if m["role"] == "tool"],
    )
    check(f"{label}: /ag-ui keeps reasoning as reasoning", any(m["role"] == "reasoning" for m in mine))
    check(
        f"{label}: /ag-ui streams tool arguments in pieces",
        sum(e["type"] == "TOOL_CALL_ARGS" for e in our_run["validated_events"]) > 1,
    )
    check(
        f"{label}: /ag-ui ends as the AgentApp's does",
        our_run["validated_events"][-1]["type"] == their_run["validated_events"][-1]["type"],
    )


ENDPOINT = Endpoint(
    key="agui",
    path="/ag-ui",
    body={
        "threadId": "thread_1",
        "runId": "run_1",
        "messages": [{"id": "u1", "role": "user", "content": QUESTION}],
    },
    reference=reference,
    judge=judge,
)
