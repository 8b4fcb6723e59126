"""A thread's states, as langgraph-api's history gives them for a graph of one
node: each run is three checkpoints, the latest first:

- its end: the thread's values after the run, nothing next (named by the
  run: what a run starting from the thread's last checkpoint names);
- the loop: the input applied, the node next, its task's result the
  messages it added;
- the input: the thread's values before the run, ``__start__`` next, its
  task's result the input;

each the parent of the one before it, a run's input the child of the run
before's end. A run cut short by a cancel, one that failed, and one going
on have no end: the loop, named by the run, is the thread's last state (a
failure's task holds its error). The checkpoints' ids other than the
end's are made from the run's id, so that a state is named alike however
often it is asked for, and in the ``checkpoints`` and ``debug`` streams.
Steps count within each run (-1, 0, 1), where langgraph-api counts on
across a thread's runs."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ..gateway._requests import RequestError
from ._assistants import ASSISTANT_ID, GRAPH_ID
from ._records import NODE, Recorded
from ._threads import contains

__all__ = ["NO_STATE", "START", "History", "checkpoint_ids", "run_states", "state_record"]

START = "__start__"

#: The state of a thread no run has run on.
NO_STATE: dict[str, Any] = {
    "values": {},
    "next": [],
    "tasks": [],
    "metadata": None,
    "created_at": None,
    "checkpoint": None,
    "checkpoint_id": None,
    "parent_checkpoint": None,
    "parent_checkpoint_id": None,
    "interrupts": [],
}


def checkpoint_ids(run_id: str) -> tuple[str, str]:
    """The ids of a run's input and loop checkpoints (its end's is its own)."""
    return tuple(  # type: ignore[return-value]
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"langgraph-run:{run_id}/{name}")) for name in ("input", "loop")
    )


def state_record(thread_id: str, run: Recorded) -> dict[str, Any]:
    """A thread's state after a run, as ``GET /threads/{thread_id}/state``
    gives it: the run's last checkpoint (named by the run)."""
    return run_states(thread_id, run, None, [])[0]


def run_states(
    thread_id: str, run: Recorded, previous_id: str | None, before: list[Any]
) -> list[dict[str, Any]]:
    """The run's checkpoints as states, the latest first; ``previous_id``
    the run before's end (None for a thread's first), ``before`` the
    thread's messages then."""
    assembler, run_id = run.assembler, run.assembler.run_id
    input_id, loop_id = checkpoint_ids(run_id)
    started = run.started_values if isinstance(run.started_values, dict) else {"messages": before}
    values = assembler.values or {}
    started_messages, ended = _messages(started), _messages(values)
    added = ended[len(started_messages) :]
    inputs = started_messages[len(before) :]

    def state(
        checkpoint_id: str,
        parent_id: str | None,
        values: Any,
        *,
        source: str,
        step: int,
        node: str | None,
        result: Any,
        created_at: str,
        error: str | None = None,
    ) -> dict[str, Any]:
        named = {"thread_id": thread_id, "checkpoint_ns": ""}
        return {
            "values": values,
            "next": [] if node is None else [node],
            "tasks": []
            if node is None
            else [
                {
                    "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpoint_id}/{node}")),
                    "name": node,
                    "path": ["__pregel_pull", node],
                    "error": error,
                    "interrupts": [],
                    "checkpoint": None,
                    "state": None,
                    "result": result,
                }
            ],
            # (LangGraph's own keys; not the platform's langgraph_* description of itself)
            "metadata": {
                "source": source,
                "step": step,
                "parents": {},
                "run_id": run_id,
                "thread_id": thread_id,
                "graph_id": GRAPH_ID,
                "assistant_id": ASSISTANT_ID,
                "created_by": "system",
                "run_attempt": 1,
                "user_id": "",
            },
            "created_at": created_at,
            "checkpoint": named | {"checkpoint_id": checkpoint_id},
            "checkpoint_id": checkpoint_id,
            "parent_checkpoint": None if parent_id is None else named | {"checkpoint_id": parent_id},
            "parent_checkpoint_id": parent_id,
            "interrupts": [],
        }

    began = run.created_at
    first = [
        state(
            input_id,
            previous_id,
            {"messages": before},
            source="input",
            step=-1,
            node=START,
            result={"messages": inputs},
            created_at=began,
        )
    ]
    if run.cancelled or not run.finished or assembler.error is not None:
        # (cut short, going on, or failed: its loop is the last, named by the run; a failure's
        # task holds its error)
        cut = state(
            run_id,
            input_id,
            values or started,
            source="loop",
            step=0,
            node=NODE,
            result=None,
            created_at=run.updated_at,
            error=None if run.cancelled or assembler.error is None else _failure(assembler.error),
        )
        return [cut | {"interrupts": assembler.interrupts}, *first]
    loop = state(
        loop_id,
        input_id,
        started,
        source="loop",
        step=0,
        node=NODE,
        result={"messages": added},
        created_at=began,
    )
    end = state(
        run_id, loop_id, values, source="loop", step=1, node=None, result=None, created_at=run.updated_at
    )
    return [end | {"interrupts": assembler.interrupts}, loop, *first]


def _failure(error: Any) -> str:
    """A failed task's error as LangGraph keeps it: the exception's repr."""
    if isinstance(error, Mapping):
        return f"{error.get('error') or 'Exception'}({str(error.get('message', ''))!r})"
    return repr(error)


def _messages(values: Mapping[str, Any]) -> list[Any]:
    messages = values.get("messages")
    return messages if isinstance(messages, list) else []


class History:
    """A ``POST /threads/{id}/history`` body (or ``GET``'s query), checked:
    ``limit`` (1, as langgraph-api's default), ``before`` (a checkpoint's
    id, or a config naming one) and the ``metadata`` filter; a
    ``checkpoint`` of a subgraph (a namespace) names none of these states."""

    def __init__(self, body: Any) -> None:
        if not isinstance(body, Mapping):
            raise RequestError("a history's request is a JSON object")
        limit = body.get("limit") or 1
        if isinstance(limit, str) and limit.isdigit():
            limit = int(limit)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise RequestError(f"Invalid limit {limit}")
        self.limit = limit
        before = body.get("before")
        if isinstance(before, Mapping):
            configurable = before.get("configurable")
            before = (configurable if isinstance(configurable, Mapping) else before).get("checkpoint_id")
        if before is not None and not isinstance(before, str):
            raise RequestError("before must be a checkpoint's id, or a config naming one")
        self.before = before or None
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise RequestError("metadata must be a JSON object")
        self.metadata = metadata
        checkpoint = body.get("checkpoint") or {}
        self.subgraph = isinstance(checkpoint, Mapping) and bool(checkpoint.get("checkpoint_ns"))

    def wants(self, state: Mapping[str, Any]) -> bool:
        return contains(state["metadata"], self.metadata)
