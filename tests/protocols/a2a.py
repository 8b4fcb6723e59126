"""A2A, for the cross-cutting tests."""

from __future__ import annotations

from typing import Any

from . import GatewayCase, Row, list_length


def response(field: str, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A 1.0 JSON-RPC response of a stream, its result holding ``body``."""
    return {"jsonrpc": "2.0", "id": 1, "result": {field: body}, **extra}


def chunk(artifact_id: str, text: str, append: bool = False, **extra: Any) -> dict[str, Any]:
    """A 1.0 artifact update that adds a text part."""
    body: dict[str, Any] = {
        "taskId": "t",
        "contextId": "c",
        "artifact": {"artifactId": artifact_id, "parts": [{"text": text}]},
    }
    if append:
        body["append"] = True
    return response("artifactUpdate", body, **extra)


TASK = response("task", {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}})


def _parts(assembler: Any) -> int:
    task = assembler.task or {}
    return sum(list_length(artifact.get("parts")) for artifact in task.get("artifacts") or ())


ROW = Row(
    name="a2a",
    assembler="A2AAssembler",
    result="result",
    stream="a2a/v1_answer.sse",
    # (a2a-sdk 0.3's crash, a task and no more, is its own test's: a Chat
    # stream of a run that said nothing holds no chunk to read back)
    recorded_streams=("a2a/v1_*.sse", "a2a/v0_[!c]*.sse"),
    reads=("result", "task", "message", "error"),
    three_messages=tuple(chunk(f"a{i}", "x") for i in range(3)),
    fixed_options={"version": "1.0", "task_id": "t", "context_id": "c", "request_id": "1"},
    # (what its decoder passes through of its own is none a2a-sdk reads)
    drops_own_event=lambda event: True,
    # (a result of a kind a later version may add)
    own_event_dropped=response("taskPreview", {"id": "t"}),
    # (reasoning, tool calls and their results have no place in A2A; media
    # is written whole, once it is complete)
    cannot_carry=frozenset(
        {
            "error_code",
            "reasoning",
            "signatures",
            "tool_call",
            "tool_result",
            "refusal_kind",
            "corrections",
            "media_order",
            "usage",
            "annotations",
        }
    ),
    status_as_carried={"incomplete": "completed"},
    count_blocks=_parts,
    block_opening=(TASK,),
    one_block=lambda n: chunk(f"a{n}", "x"),
    text_opening=(TASK, chunk("a", "a")),
    text_delta=chunk("a", "b", append=True, x=0),
    gateway=GatewayCase(
        "/a2a",
        lambda question: {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/stream",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": "m1",
                    "parts": [{"kind": "text", "text": question}],
                }
            },
        },
        refused_status=200,
        # (a task goes on when its client leaves: tasks/resubscribe reads it on)
        cancels_abandoned=False,
    ),
)
