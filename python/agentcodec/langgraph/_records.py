"""What the gateway's LangGraph routes answer about threads and runs, as
langgraph-api gives them: a run as the store holds it (``Recorded``), and
from it a thread, a run, its result and the thread's state."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ._assistants import ASSISTANT_ID, GRAPH_ID
from ._threads import Made

__all__ = [
    "NODE",
    "NO_STATE",
    "RUN_STATUSES",
    "Recorded",
    "messages_of",
    "new_thread",
    "run_record",
    "run_result",
    "state_record",
    "thread_not_found",
    "thread_record",
]

# The node the agent's run is, in the graph the gateway serves (its one node).
NODE = "agent"
RUN_STATUSES = ("pending", "running", "error", "success", "timeout", "interrupted")


@dataclass
class Recorded:
    """A run as the store holds it: assembled, whether it has ended (and
    was cancelled), and when it began and last changed (as a record gives
    times)."""

    stream_id: str
    assembler: Any
    finished: bool
    cancelled: bool
    created_at: str
    updated_at: str


def new_thread(thread_id: str, made: Made) -> dict[str, Any]:
    """A thread no run has run on, as langgraph-api gives one."""
    return {
        "thread_id": thread_id,
        "created_at": made.created_at,
        "updated_at": made.changed_at,
        "state_updated_at": made.changed_at,
        "metadata": made.metadata,
        "status": "idle",
        "config": {},
        "values": None,
    }


def thread_record(thread_id: str, last_run: Recorded, made: Made | None) -> dict[str, Any]:
    """A thread as langgraph-api gives one, from its last run and its own
    record (``made``; None for one the store no longer keeps, made when the
    run began): ``busy`` while the run goes on; ``interrupted`` after an
    interrupt, or a cancel (the node it cut short is still to run, as
    langgraph-api sees it); updated when its last run or its record last
    changed; its graph and assistant named in its metadata, as langgraph-api
    names them once a run has run on it."""
    assembler = last_run.assembler
    if not last_run.finished:
        status = "busy"
    elif assembler.interrupts or last_run.cancelled:
        status = "interrupted"
    else:
        status = "error" if assembler.error else "idle"
    if made is None:
        made = Made({}, last_run.created_at, last_run.created_at)
    return new_thread(thread_id, made) | {
        "updated_at": max(last_run.updated_at, made.changed_at),
        "state_updated_at": last_run.updated_at,
        "metadata": made.metadata | {"graph_id": GRAPH_ID, "assistant_id": ASSISTANT_ID},
        "status": status,
        "values": assembler.values or {},
        "error": assembler.error if status == "error" else None,
        "interrupts": {},
    }


def run_result(assembler: Any) -> dict[str, Any]:
    """A run's result, as ``runs.wait`` and ``runs.join`` answer it: the
    thread's values, ``__interrupt__`` beside them for a run that was
    interrupted, ``{"__error__": ...}`` (its ``error`` event) for one that
    failed."""
    if assembler.error is not None:
        return {"__error__": assembler.error}
    values = dict(assembler.values or {})
    if assembler.interrupts:
        values["__interrupt__"] = assembler.interrupts
    return values


def run_record(thread_id: str, run_id: str, status: str, created_at: str, updated_at: str) -> dict[str, Any]:
    """A run, as langgraph-api gives one."""
    return {
        "run_id": run_id,
        "thread_id": thread_id,
        "assistant_id": ASSISTANT_ID,
        "created_at": created_at,
        "updated_at": updated_at,
        "status": status,
        "metadata": {"created_by": "system", "graph_id": GRAPH_ID, "assistant_id": ASSISTANT_ID},
        "multitask_strategy": "enqueue",
        "kwargs": {},
        "langsmith_session_name": None,
    }


def thread_not_found(thread_id: str) -> str:
    return f"Thread with ID {thread_id} not found"


def messages_of(last_run: Recorded | None) -> list[Any]:
    """The messages a thread's last run left it (none without one)."""
    values = last_run.assembler.values if last_run is not None else None
    messages = values.get("messages") if isinstance(values, dict) else None
    return list(messages) if isinstance(messages, list) else []


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


def state_record(thread_id: str, last_run: Recorded) -> dict[str, Any]:
    """A thread's state after a run, as ``GET /threads/{thread_id}/state``
    gives it: its checkpoint the run's end (named by the run), made when
    the run last changed. A run cut short by a cancel leaves its node to run
    next, a task, as langgraph-api's state says."""
    assembler, run_id = last_run.assembler, last_run.assembler.run_id
    cut_short = [NODE] if last_run.cancelled else []
    return {
        "values": assembler.values or {},
        "next": cut_short,
        "tasks": [
            {
                "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{run_id}/{node}")),
                "name": node,
                "path": ["__pregel_pull", node],
                "error": None,
                "interrupts": [],
                "checkpoint": None,
                "state": None,
                "result": None,
            }
            for node in cut_short
        ],
        # (LangGraph's own keys; not the platform's langgraph_* description of itself)
        "metadata": {
            "source": "loop",
            "step": 1,
            "parents": {},
            "run_id": run_id,
            "thread_id": thread_id,
            "graph_id": GRAPH_ID,
            "assistant_id": ASSISTANT_ID,
            "created_by": "system",
            "run_attempt": 1,
            "user_id": "",
        },
        "created_at": last_run.updated_at,
        "checkpoint": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": run_id},
        "checkpoint_id": run_id,
        "parent_checkpoint": None,
        "parent_checkpoint_id": None,
        "interrupts": assembler.interrupts,
    }
