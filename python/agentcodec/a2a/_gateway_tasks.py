"""The tasks the gateway's A2A endpoint keeps: each one's state assembled
from its stream in the replay store, their status times, and A2A 1.0's
``ListTasks`` over them, filtered, ordered and paged as a2a-sdk's task
stores do it (the latest status first; a page token that carries the
place of the page's last task, so it stays good while tasks change).

Listing assembles every task the store still holds (``ReplayStore.aliases``
names them): the store's own bounds (its streams' count, bytes and ``ttl``)
bound the work.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from .._backend import impl
from .._pure.a2a.errors import A2AEventError
from .._pure.rfc3339 import unix_nanoseconds
from ..gateway._requests import RequestError
from ..server import ReplayError, ReplayStore
from .types import FINAL_STATES, TASK_STATES

__all__ = [
    "TASK_ALIAS",
    "ListTasks",
    "list_tasks",
    "now_timestamp",
    "stored_task",
    "timestamp",
    "timestamp_ns",
]

#: The store's alias of a task's stream is this and the task's id.
TASK_ALIAS = "a2a-task:"

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100

# The 1.0 spelling of each state (``input-required``: ``TASK_STATE_INPUT_REQUIRED``).
_STATES_1_0 = {"TASK_STATE_" + state.upper().replace("-", "_") for state in TASK_STATES}
#: The states a task ends in, both spellings.
TERMINAL_STATES = frozenset(FINAL_STATES) | {
    "TASK_STATE_" + state.upper().replace("-", "_") for state in FINAL_STATES
}


def now_timestamp() -> str:
    """The time now as a task status's ``timestamp``: see ``timestamp``."""
    return timestamp(datetime.now(timezone.utc))


def timestamp(moment: datetime) -> str:
    """A UTC time as RFC 3339 with the fraction 1.0's protobuf JSON writes
    (none, or 3 or 6 digits, as few as hold it), so that a task reads the
    same here as from a client that parsed it and wrote it again; 0.3
    reads any RFC 3339."""
    fraction = moment.microsecond
    if fraction == 0:
        spec = "seconds"
    elif fraction % 1000 == 0:
        spec = "milliseconds"
    else:
        spec = "microseconds"
    return moment.astimezone(timezone.utc).isoformat(timespec=spec).replace("+00:00", "Z")


def timestamp_ns(text: Any) -> int | None:
    """An RFC 3339 time as nanoseconds since the epoch; None for anything else."""
    return unix_nanoseconds(text) if isinstance(text, str) else None


async def stored_task(store: ReplayStore, stream_id: str, version: str) -> tuple[dict[str, Any] | None, bool]:
    """The task a stored stream assembles to now (None before its first
    event), and whether its stream has ended. Raises ``ReplayError`` when
    the stream is gone, ``A2AEventError`` when it streams in the other
    version."""
    entries, ended = await store.stored(stream_id)
    assembler = impl.A2AAssembler(version=version)
    for _, frame in entries:
        assembler.feed(frame)
    return assembler.task, ended


def _sort_key(task: Mapping[str, Any]) -> tuple[bool, int, str]:
    """a2a-sdk's order, taken descending: tasks with a status time first,
    the latest first; then by id."""
    status = task.get("status")
    stamp = timestamp_ns(status.get("timestamp")) if isinstance(status, Mapping) else None
    return stamp is not None, stamp or 0, str(task.get("id", ""))


def _page_token(task: Mapping[str, Any]) -> str:
    has_time, stamp, task_id = _sort_key(task)
    payload = json.dumps({"ts": stamp if has_time else None, "id": task_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def _after_token(token: str) -> tuple[bool, int, str]:
    """The place a page token carries (a2a-sdk's form, so that its tokens
    and ours are one); a token not of that form is a bad request."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError):
        data = None
    if not isinstance(data, dict) or data.keys() != {"ts", "id"}:
        raise RequestError(f"params.pageToken is not a page token this agent gave: {token!r}")
    stamp, task_id = data["ts"], data["id"]
    stamp_ok = stamp is None or (isinstance(stamp, int) and not isinstance(stamp, bool))
    if not stamp_ok or not isinstance(task_id, str) or not task_id:
        raise RequestError(f"params.pageToken is not a page token this agent gave: {token!r}")
    return stamp is not None, stamp or 0, task_id


def _int_param(params: Mapping[str, Any], name: str) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"params.{name} must be an integer, not {value!r}")
    return value


def history_length(params: Mapping[str, Any]) -> int | None:
    """``historyLength``, if given: a non-negative integer."""
    length = _int_param(params, "historyLength")
    if length is not None and length < 0:
        raise RequestError(f"params.historyLength must not be negative, not {length}")
    return length


def with_history_length(task: dict[str, Any], length: int | None) -> dict[str, Any]:
    """The task with its last ``length`` history messages (all when None;
    none when 0), as a2a-sdk answers it."""
    if length is None:
        return task
    history = task.pop("history", None) or []
    if length and history:
        task["history"] = history[-length:]
    return task


class ListTasks:
    """A ``ListTasks`` request's params, checked as a2a-sdk checks them."""

    def __init__(self, params: Any) -> None:
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise RequestError("params must be a JSON object")
        context_id = params.get("contextId")
        if context_id is not None and not isinstance(context_id, str):
            raise RequestError(f"params.contextId must be a string, not {context_id!r}")
        self.context_id = context_id or None
        status = params.get("status")
        if status is not None and status not in _STATES_1_0 and status != "TASK_STATE_UNSPECIFIED":
            known = ", ".join(sorted(_STATES_1_0))
            raise RequestError(f"params.status must be a task state ({known}), not {status!r}")
        self.status = None if status == "TASK_STATE_UNSPECIFIED" else status
        page_size = _int_param(params, "pageSize")
        if page_size is not None and not 1 <= page_size <= MAX_PAGE_SIZE:
            raise RequestError(f"params.pageSize must be from 1 to {MAX_PAGE_SIZE}, not {page_size}")
        self.page_size = page_size or DEFAULT_PAGE_SIZE
        token = params.get("pageToken")
        if token is not None and not isinstance(token, str):
            raise RequestError(f"params.pageToken must be a string, not {token!r}")
        self.after = _after_token(token) if token else None
        self.history_length = history_length(params)
        after = params.get("statusTimestampAfter")
        self.updated_after = None if after is None else timestamp_ns(after)
        if after is not None and self.updated_after is None:
            raise RequestError(
                f"params.statusTimestampAfter must be an RFC 3339 time (2026-01-31T12:00:00Z), not {after!r}"
            )
        include = params.get("includeArtifacts", False)
        if not isinstance(include, bool):
            raise RequestError(f"params.includeArtifacts must be true or false, not {include!r}")
        self.include_artifacts = include

    def keeps(self, task: Mapping[str, Any]) -> bool:
        if self.context_id is not None and task.get("contextId") != self.context_id:
            return False
        status = task.get("status")
        if not isinstance(status, Mapping):
            status = {}
        if self.status is not None and status.get("state") != self.status:
            return False
        if self.updated_after is not None:
            stamp = timestamp_ns(status.get("timestamp"))
            if stamp is None or stamp < self.updated_after:
                return False
        return True


async def list_tasks(store: ReplayStore, request: ListTasks) -> dict[str, Any]:
    """The ``ListTasks`` result: the page of tasks ``request`` asks for,
    among the 1.0 tasks the store holds (a task streamed as 0.3 is not
    listed: 0.3 has no ``ListTasks``)."""
    tasks = []
    for _, stream_id in await store.aliases(TASK_ALIAS):
        try:
            task, _ = await stored_task(store, stream_id, "1.0")
        except (ReplayError, A2AEventError):
            continue  # gone since it was named, or a 0.3 task
        if task is not None and request.keeps(task):
            tasks.append(task)
    tasks.sort(key=_sort_key, reverse=True)
    start = 0
    if request.after is not None:
        after = request.after
        start = next((at for at, task in enumerate(tasks) if _sort_key(task) < after), len(tasks))
    end = start + request.page_size
    page = tasks[start:end]
    for task in page:
        with_history_length(task, request.history_length)
        if not request.include_artifacts:
            task.pop("artifacts", None)
    return {
        "tasks": page,
        "nextPageToken": _page_token(tasks[end - 1]) if end < len(tasks) else "",
        "pageSize": request.page_size,
        "totalSize": len(tasks),
    }
