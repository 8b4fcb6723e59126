"""What the gateway's LangGraph routes answer about threads and runs, as
langgraph-api gives them: a run as the store holds it (``Recorded``), and
from it a thread, a run and its result (its states: ``_history``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._assistants import ASSISTANT_ID, GRAPH_ID
from ._threads import Made

__all__ = [
    "NODE",
    "RUN_STATUSES",
    "Recorded",
    "messages_of",
    "new_thread",
    "run_record",
    "run_result",
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
    # The thread's values as the run started (its input applied): its first
    # ``values`` event's, None for a run that never started.
    started_values: Any = None


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
