"""Assembling an A2A stream into its Task: the pure-Python mirror of
``rust/a2a/assembler.rs``.

The rules are a2a-sdk's ``TaskManager`` (what a server holds, and answers
``tasks/get`` with), both majors:

- a ``Task`` event is the task whole: it replaces what is held;
- a status update moves the message of the status held into the history,
  merges its metadata into the task's, and becomes the status;
- an artifact update adds the artifact, or with ``append`` adds its parts
  (and merges its metadata, as 1.x does) to the artifact of that
  ``artifactId``; without ``append`` it replaces that artifact. Appended
  text chunks stay separate parts, as the SDK keeps them;
- an update before any Task makes one (``submitted``), as the server does.

A ``Message`` answers a request that made no task: it is the result when
no task came. A JSON-RPC error is the run's error: recorded, and the task
held fails, as the server records it. The stream ends on a status update
that is ``final`` (0.3) or in a final or interrupted state (1.0), a
Message, or an error; what comes after is an event error. Where the SDK
drops an event with a warning (``append`` to an artifact that never
started) or refuses it (an update of another task), this is an event error.

The spec version is the first event's; an event of the other version is an
event error. The Task is given as the wire has it: camelCase, with the
version's spelling of states and roles.
"""

from __future__ import annotations

from typing import Any

from ..accumulate import render
from ..json_values import quote
from ..protocol import check_option
from ..sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from ..stream import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_STREAM_BYTES,
    AssemblerBase,
    EventProblemError,
)
from . import wire
from .errors import A2AError, A2AEventError

__all__ = ["Assembler"]


class Assembler(AssemblerBase):
    """Assembles an A2A stream into its Task."""

    _version: str | None

    _recognizes = staticmethod(wire.recognizes)

    _event_error = A2AEventError
    _base_error = A2AError

    def __init__(
        self,
        *,
        version: str | None = None,
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        max_stream_bytes: int | None = DEFAULT_MAX_STREAM_BYTES,
        max_messages: int | None = DEFAULT_MAX_MESSAGES,
        max_blocks: int | None = DEFAULT_MAX_BLOCKS,
    ) -> None:
        check_option("version", version, wire.VERSIONS)  # as the encoder's option of that name
        super().__init__(
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
            max_stream_bytes=max_stream_bytes,
            max_messages=max_messages,
            max_blocks=max_blocks,
        )
        # Chosen, the version is the stream's from the first event: the other
        # version's events are event errors (as the first event's would be).
        self._version = version

    def _init_state(self) -> None:
        self._version = None
        # The task's fields, "artifacts" and "history" held apart.
        self._task: dict[str, Any] | None = None
        self._artifacts: list[dict[str, Any]] = []
        self._artifact_at: dict[str, int] = {}
        self._history: list[Any] = []
        self._message: dict[str, Any] | None = None
        self._error: dict[str, Any] | None = None
        self._ended = False
        self._kept: list[dict[str, Any]] = []
        self._held_parts = 0  # the parts of the artifacts held: the blocks

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any] | None:
        if self._task is not None:
            return self._render_task()
        message: dict[str, Any] | None = render(self._message)
        return message

    @property
    def task(self) -> dict[str, Any] | None:
        """The Task so far (None before any task event): a new dict on every access."""
        return None if self._task is None else self._render_task()

    @property
    def message(self) -> dict[str, Any] | None:
        """The Message that answered the request, when it made no task."""
        message: dict[str, Any] | None = render(self._message)
        return message

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error that ended the stream, if one did."""
        error: dict[str, Any] | None = render(self._error)
        return error

    @property
    def version(self) -> str | None:
        """The stream's spec version, ``"0.3"`` or ``"1.0"``, once an event said it."""
        return self._version

    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: the JSON-RPC errors, in order."""
        events: list[dict[str, Any]] = render(self._kept)
        return events

    def _render_task(self) -> dict[str, Any]:
        assert self._task is not None
        task = {}
        for key, value in self._task.items():
            if key == "artifacts":
                task[key] = render(self._artifacts)
            elif key == "history":
                task[key] = render(self._history)
            else:
                task[key] = render(value)
        return task

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._history) + len(self._artifacts)

    def _finish(self) -> None:
        pass

    def _apply_object(self, event: dict[str, Any]) -> None:
        try:
            self._apply(event)
        finally:
            self._blocks_held = self._held_parts

    def _apply(self, event: dict[str, Any]) -> None:
        what, version, body = wire.read(event)
        if self._ended:
            raise EventProblemError("comes after the stream's end (a final status, a message or an error)")
        if version is not None:
            if self._version is None:
                self._version = version
            elif version != self._version:
                raise EventProblemError(f"is an A2A {version} event in a {self._version} stream")
        if what == "error":
            self._fail_run(event, body)
        elif what == "task":
            self._replace_task(body)
        elif what == "message":
            self._message = body
            self._ended = True
        elif what == "status":
            self._status_update(body)
        else:
            self._artifact_update(body)

    def _fail_run(self, event: dict[str, Any], error: dict[str, Any]) -> None:
        code = error.get("code")
        message = error.get("message")
        self._record(
            {
                "event": self._events,
                "code": str(code) if type(code) is int else "error",
                "message": message if isinstance(message, str) else None,
            }
        )
        self._kept.append(event)
        self._error = error
        self._ended = True
        if self._task is not None:
            # As the server records a run that failed so: the status held
            # goes to the history, and the task has failed.
            self._set_status({"state": wire.spell_state("failed", self._version or "1.0")})

    def _replace_task(self, task: dict[str, Any]) -> None:
        task_id = task.get("id")
        if not isinstance(task_id, str):
            raise EventProblemError(
                "has a task without an id" if task_id is None else "has a task id that is not a string"
            )
        if self._task is not None and self._task["id"] != task_id:
            raise EventProblemError(
                f"is task {quote(task_id)}, not {quote(self._task['id'])}, the stream's task"
            )
        artifacts = _list_of_objects(task, "artifacts", "a task")
        history = task.get("history")
        if history is not None and not isinstance(history, list):
            raise EventProblemError("has a task whose history is not a list")
        at: dict[str, int] = {}
        for position, artifact in enumerate(artifacts):
            at[_artifact_id(artifact)] = position
            _list_of_objects(artifact, "parts", "an artifact")
        self._task = task
        self._artifacts = list(artifacts)
        self._artifact_at = at
        self._history = list(history or [])
        self._held_parts = sum(len(artifact.get("parts") or []) for artifact in artifacts)

    def _ensure_task(self, update: dict[str, Any]) -> dict[str, Any]:
        task_id = update.get("taskId")
        if not isinstance(task_id, str):
            raise EventProblemError(
                "has no taskId" if task_id is None else "has a taskId that is not a string"
            )
        if self._task is not None:
            if self._task["id"] != task_id:
                raise EventProblemError(
                    f"is for task {quote(task_id)}, not {quote(self._task['id'])}, the stream's task"
                )
            return self._task
        # An update before any Task: the task it updates, as the server makes it.
        version = self._version or "1.0"
        task: dict[str, Any] = {"id": task_id, "contextId": update.get("contextId") or ""}
        task["status"] = {"state": wire.spell_state("submitted", version)}
        if version == "0.3":
            task["kind"] = "task"
        self._task = task
        return task

    def _status_update(self, update: dict[str, Any]) -> None:
        status = update.get("status")
        if not isinstance(status, dict):
            raise EventProblemError("has a status that is not an object")
        state = status.get("state")
        if not isinstance(state, str):
            raise EventProblemError("has a status without a state")
        task = self._ensure_task(update)
        metadata = update.get("metadata")
        if isinstance(metadata, dict) and metadata:
            held = task.get("metadata")
            if not isinstance(held, dict):
                held = task["metadata"] = {}
            held.update(metadata)
        self._set_status(status)
        if self._version == "0.3":
            self._ended = update.get("final") is True
        else:
            name = wire.state_name(state)
            self._ended = name in wire.FINAL_STATES or name in wire.INTERRUPTED_STATES

    def _set_status(self, status: dict[str, Any]) -> None:
        task = self._task
        assert task is not None
        held = task.get("status")
        if isinstance(held, dict) and held.get("message"):
            if "history" not in task:
                task["history"] = None
            self._history.append(held["message"])
        task["status"] = status

    def _artifact_update(self, update: dict[str, Any]) -> None:
        artifact = update.get("artifact")
        if not isinstance(artifact, dict):
            raise EventProblemError("has an artifact that is not an object")
        artifact_id = _artifact_id(artifact)
        parts = _list_of_objects(artifact, "parts", "an artifact")
        task = self._ensure_task(update)
        position = self._artifact_at.get(artifact_id)
        if update.get("append") is True:
            if position is None:
                raise EventProblemError(f"appends to artifact {quote(artifact_id)}, which has not started")
            held = self._artifacts[position]
            held_parts = held.get("parts")
            if isinstance(held_parts, list):
                held_parts.extend(parts)
            else:
                held["parts"] = list(parts)
            metadata = artifact.get("metadata")
            if isinstance(metadata, dict) and metadata:
                held_metadata = held.get("metadata")
                if not isinstance(held_metadata, dict):
                    held_metadata = held["metadata"] = {}
                held_metadata.update(metadata)
            self._held_parts += len(parts)
            return
        if "artifacts" not in task:
            task["artifacts"] = None
        if position is None:
            self._artifact_at[artifact_id] = len(self._artifacts)
            self._artifacts.append(artifact)
        else:
            self._held_parts -= len(self._artifacts[position].get("parts") or [])
            self._artifacts[position] = artifact
        self._held_parts += len(parts)


def _artifact_id(artifact: dict[str, Any]) -> str:
    artifact_id = artifact.get("artifactId")
    if not isinstance(artifact_id, str):
        if artifact_id is None:
            raise EventProblemError("has an artifact without an artifactId")
        raise EventProblemError("has an artifact whose artifactId is not a string")
    return artifact_id


def _list_of_objects(holder: dict[str, Any], key: str, what: str) -> list[dict[str, Any]]:
    items = holder.get(key)
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise EventProblemError(f"has {what} whose {key} is not a list of objects")
    return items
