"""The ``debug``, ``tasks`` and ``checkpoints`` stream modes of a run of a
graph of one node, as langgraph-api streams them (LangGraph Studio's
view of a run): the thread's checkpoints, the node's task as it starts,
its result as it ends, or its error if the run fails. (Where they fall
among the other modes' events is where LangGraph writes them: the task's
result beside the node's update, a checkpoint beside the values it
holds.)

A run of such a graph has three checkpoints and one task: the input
(step -1: the thread's values before it, ``__start__`` next), the input
applied (step 0: the node next), the task (step 1: the node, on those
values), its result (the messages it added) and the last checkpoint (step
1: nothing next). ``checkpoints`` writes each checkpoint, ``tasks`` each
task and result, ``debug`` each of them wrapped with its step, time and
type, the checkpoints naming themselves and their parent too, as the
thread's history names them (``_history``).
"""

from __future__ import annotations

import uuid
from typing import Any

from .._backend import impl
from ._assistants import ASSISTANT_ID, GRAPH_ID
from ._history import START, checkpoint_ids
from ._replies import now

__all__ = ["STEP_MODES", "Steps"]

#: The stream modes made here.
STEP_MODES = frozenset({"debug", "tasks", "checkpoints"})


class Steps:
    """One run's checkpoints and task, written in the ``modes`` asked for."""

    __slots__ = (
        "_checkpoint",
        "_ended",
        "_input_id",
        "_loop_id",
        "_modes",
        "_node",
        "_previous",
        "_run_id",
        "_task_id",
        "_thread_id",
    )

    def __init__(
        self,
        modes: set[str],
        *,
        thread_id: str,
        run_id: str,
        node: str,
        previous: list[Any],
        previous_id: str | None = None,
    ) -> None:
        self._modes = modes & STEP_MODES
        self._thread_id, self._run_id, self._node = thread_id, run_id, node
        self._previous = previous
        # The last checkpoint written; before any, the thread's last (its run before's end).
        self._checkpoint: str | None = previous_id
        # (named as the thread's history names them)
        self._input_id, self._loop_id = checkpoint_ids(run_id)
        self._task_id = str(uuid.uuid4())
        self._ended = False  # (the task's result written)

    def input(self) -> bytes:
        """The input's checkpoint: the thread's values before the run."""
        return self._checkpoint_events(
            -1, "input", {"messages": self._previous}, START, checkpoint_id=self._input_id
        )

    def started(self, values: dict[str, Any]) -> bytes:
        """The input applied (``values``), and the node's task on them."""
        node = self._node
        return b"".join(
            (
                self._checkpoint_events(
                    0, "loop", values, node, checkpoint_id=checkpoint_ids(self._run_id)[1]
                ),
                self._task_events(
                    1,
                    "task",
                    {
                        "id": self._task_id,
                        "name": node,
                        "input": values,
                        "triggers": [f"branch:to:{node}"],
                        "metadata": {
                            "created_by": "system",
                            "graph_id": GRAPH_ID,
                            "assistant_id": ASSISTANT_ID,
                            "run_attempt": 1,
                            "run_id": self._run_id,
                        },
                    },
                ),
            )
        )

    def result(self, update: dict[str, Any], interrupts: Any) -> bytes:
        """The node's task's result: its ``update`` (what it wrote)."""
        return self._result(None, update, interrupts)

    def failed(self, error: Any) -> bytes:
        """The node's task's result when the run failed: its ``error`` (the
        run's ``error`` event's data), nothing written; no checkpoint
        follows, as LangGraph saves none for a step that failed."""
        return self._result(error, {}, [])

    def _result(self, error: Any, update: dict[str, Any], interrupts: Any) -> bytes:
        if self._ended:
            return b""
        self._ended = True
        result = {
            "id": self._task_id,
            "name": self._node,
            "error": error,
            "result": update,
            "interrupts": interrupts if isinstance(interrupts, list) else [],
        }
        return self._task_events(1, "task_result", result)

    def ended(self, values: dict[str, Any]) -> bytes:
        """The thread's last checkpoint, holding ``values``: named by the
        run, as the thread's state names it (a run from it is a run from the
        thread's last checkpoint)."""
        kept = {key: value for key, value in values.items() if key != "__interrupt__"}
        return self._checkpoint_events(1, "loop", kept, None, checkpoint_id=self._run_id)

    def _checkpoint_events(
        self,
        step: int,
        source: str,
        values: dict[str, Any],
        next_node: str | None,
        *,
        checkpoint_id: str,
    ) -> bytes:
        if not {"checkpoints", "debug"} & self._modes:
            return b""
        parent, self._checkpoint = self._checkpoint, checkpoint_id
        checkpoint: dict[str, Any] = {
            "config": self._config(self._checkpoint),
            "parent_config": None if parent is None else self._config(parent),
            "values": values,
            "metadata": {"source": source, "step": step, "parents": {}},
            "next": [] if next_node is None else [next_node],
            "tasks": []
            if next_node is None
            else [{"id": str(uuid.uuid4()), "name": next_node, "interrupts": [], "state": None}],
        }
        out = []
        if "checkpoints" in self._modes:
            out.append(impl.encode_sse(checkpoint, event="checkpoints"))
        if "debug" in self._modes:
            named = checkpoint | {
                "checkpoint": self._named(self._checkpoint),
                "parent_checkpoint": None if parent is None else self._named(parent),
            }
            out.append(impl.encode_sse(self._debug(step, "checkpoint", named), event="debug"))
        return b"".join(map(bytes, out))

    def _task_events(self, step: int, kind: str, payload: dict[str, Any]) -> bytes:
        out = []
        if "tasks" in self._modes:
            out.append(impl.encode_sse(payload, event="tasks"))
        if "debug" in self._modes:
            out.append(impl.encode_sse(self._debug(step, kind, payload), event="debug"))
        return b"".join(map(bytes, out))

    @staticmethod
    def _debug(step: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"step": step, "timestamp": now(), "type": kind, "payload": payload}

    def _named(self, checkpoint_id: str) -> dict[str, str]:
        return {"checkpoint_id": checkpoint_id, "thread_id": self._thread_id, "checkpoint_ns": ""}

    def _config(self, checkpoint_id: str) -> dict[str, Any]:
        # (LangGraph's own keys; not the platform's: its auth, request and timing)
        return {
            "configurable": {
                "checkpoint_ns": "",
                "run_id": self._run_id,
                "thread_id": self._thread_id,
                "graph_id": GRAPH_ID,
                "assistant_id": ASSISTANT_ID,
                "user_id": "",
                "checkpoint_id": checkpoint_id,
            }
        }
