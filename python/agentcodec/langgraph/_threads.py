"""A thread's own record, beside its runs: its metadata and when it was made,
and the thread search's checks (``threads.search``, ``threads.count``).

The record is a stream of one entry that the thread's made-alias names,
written by ``threads.create``, by the run that makes a thread with metadata
of its own, or by ``threads.update``, which writes a new one holding the
metadata merged and when the thread was first made. The stream's opening
dates the making, or the update. A thread a run made with no metadata of
its own names that run's stream instead: its metadata is a run's, and the
run dates it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..gateway._requests import RequestError
from ..server import ReplayError, ReplayStore
from ._assistants import ASSISTANT_ID, GRAPH_ID
from ._replies import checked_count, dated

__all__ = ["THREAD_MADE_ALIAS", "Made", "ThreadSearch", "contains", "checked_metadata", "made", "make"]

# The stream of a thread's own record: the prefix + the thread's id.
THREAD_MADE_ALIAS = "langgraph-thread-made:"
#: The metadata a thread made by a run starts with, as langgraph-api's does.
MADE_BY_A_RUN = {"graph_id": GRAPH_ID, "assistant_id": ASSISTANT_ID}
# Keys a search's metadata filter holds for every thread: the gateway's one
# agent is every assistant and every graph.
_AGENTS_METADATA = frozenset({"graph_id", "assistant_id"})
_THREAD_STATUSES = ("idle", "busy", "interrupted", "error")
_SORTED_BY = ("thread_id", "status", "created_at", "updated_at", "state_updated_at")
_FIELDS = (
    "thread_id",
    "created_at",
    "updated_at",
    "state_updated_at",
    "metadata",
    "config",
    "status",
    "values",
    "interrupts",
    "error",
)


@dataclass
class Made:
    """A thread's own record: its metadata, when it was made and when the
    record last changed (made, or updated)."""

    metadata: dict[str, Any]
    created_at: str
    changed_at: str


def checked_metadata(value: Any, name: str = "metadata") -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RequestError(f"{name} must be a JSON object")
    return dict(value)


async def make(
    store: ReplayStore, thread_id: str, metadata: Mapping[str, Any], created_at: str | None = None
) -> Made:
    """Writes the thread's record (``created_at``: when it was first made,
    for an update; None: now) and names it the thread's."""
    record: dict[str, Any] = {"metadata": dict(metadata)}
    if created_at is not None:
        record["created_at"] = created_at
    stream_id = await store.open()
    await store.append(stream_id, json.dumps(record, separators=(",", ":")).encode())
    await store.finish(stream_id)
    await store.set_alias(THREAD_MADE_ALIAS + thread_id, stream_id)
    opened = None
    with contextlib.suppress(NotImplementedError, ReplayError):  # (a store may keep no times)
        opened = (await store.times(stream_id))[0]
    changed_at = dated(opened)
    return Made(dict(metadata), created_at or changed_at, changed_at)


async def made(store: ReplayStore, thread_id: str) -> Made | None:
    """The thread's record, if the store keeps the thread (None: unknown).
    A run's stream in its place gives the metadata a run gives a thread it
    makes; an empty stream (a thread made before records held metadata),
    none."""
    stream_id = await store.resolve_alias(THREAD_MADE_ALIAS + thread_id)
    if stream_id is None:
        return None
    try:
        entries, _ = await store.stored(stream_id)
        opened = (await store.times(stream_id))[0]
    except ReplayError:
        return None
    except NotImplementedError:  # (a store may keep no times, or give no snapshot)
        entries, opened = [], None
    record: Any = {}
    if entries:
        try:
            record = json.loads(entries[0][1])
        except ValueError:  # (a run's events)
            record = {"metadata": dict(MADE_BY_A_RUN)}
    if not isinstance(record, dict) or not isinstance(record.get("metadata"), dict):
        record = {"metadata": {}}
    changed_at = dated(opened)
    created_at = record.get("created_at")
    return Made(record["metadata"], created_at if isinstance(created_at, str) else changed_at, changed_at)


def contains(whole: Any, part: Any) -> bool:
    """Whether ``whole`` holds ``part``, as PostgreSQL's ``@>`` on JSON says
    (langgraph-api's metadata and values filters): an object each of the
    part's keys, with a value holding the part's; a list each of the part's
    items, in any item; any other value, the same value."""
    if isinstance(part, Mapping):
        return isinstance(whole, Mapping) and all(
            key in whole and contains(whole[key], value) for key, value in part.items()
        )
    if isinstance(part, list):
        return isinstance(whole, list) and all(
            any(contains(item, wanted) for item in whole) for wanted in part
        )
    if isinstance(part, bool) or isinstance(whole, bool):
        return part is whole
    return bool(whole == part)


class ThreadSearch:
    """A ``POST /threads/search`` or ``/threads/count`` body, checked:
    ``limit`` (10) and ``offset``, the ``metadata``, ``values``, ``status``
    and ``ids`` filters, ``sort_by`` (``updated_at``) and ``sort_order``
    (``desc``), and the fields to ``select``."""

    def __init__(self, body: Any) -> None:
        if not isinstance(body, Mapping):
            raise RequestError("a thread search is a JSON object")
        self.limit = checked_count(body.get("limit", 10), "limit", 1, 1000)
        self.offset = checked_count(body.get("offset", 0), "offset", 0, None)
        metadata = checked_metadata(body.get("metadata"))
        # (any assistant and graph is the agent's: those keys hold for every thread)
        self.metadata = {key: value for key, value in metadata.items() if key not in _AGENTS_METADATA}
        self.values = checked_metadata(body.get("values"), "values")
        self.status = body.get("status")
        if self.status is not None and self.status not in _THREAD_STATUSES:
            raise RequestError(f"status must be one of {', '.join(_THREAD_STATUSES)}, not {self.status!r}")
        ids = body.get("ids")
        if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
            raise RequestError("ids must be a list of thread ids")
        self.ids = None if ids is None else frozenset(ids)
        self.sort_by = body.get("sort_by") or "updated_at"
        if self.sort_by not in _SORTED_BY:
            raise RequestError(f"sort_by must be one of {', '.join(_SORTED_BY)}, not {self.sort_by!r}")
        self.sort_order = body.get("sort_order") or "desc"
        if self.sort_order not in ("asc", "desc"):
            raise RequestError(f"sort_order must be asc or desc, not {self.sort_order!r}")
        select = body.get("select")
        if select is not None and (not isinstance(select, list) or not set(select) <= set(_FIELDS)):
            raise RequestError(f"select must be a list of {', '.join(_FIELDS)}")
        self.select = None if select is None else tuple(select)
        if body.get("extract"):
            raise RequestError("extract is not served: select the fields, and read what they hold")
        # The store lists the threads by when their last run began, the
        # latest first: the order of their updates but for runs that overlap,
        # which the page's sort puts right; other orders read every thread.
        self.store_order = self.sort_by == "updated_at" and self.sort_order == "desc"

    def wants(self, thread_id: str) -> bool:
        """Whether a thread of this id may be found (the ``ids`` filter)."""
        return self.ids is None or thread_id in self.ids

    def matches(self, thread: Mapping[str, Any]) -> bool:
        """Whether a thread found holds what the filters ask for."""
        return (
            (self.status is None or thread["status"] == self.status)
            and contains(thread["metadata"], self.metadata)
            and (not self.values or contains(thread["values"], self.values))
        )

    def page(self, threads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The threads asked for, of those found (times are ISO 8601 in UTC,
        which sort as text), with the fields selected."""
        threads = sorted(threads, key=lambda thread: thread[self.sort_by], reverse=self.sort_order == "desc")
        threads = threads[self.offset : self.offset + self.limit]
        if self.select is None:
            return threads
        return [{field: thread.get(field) for field in self.select} for thread in threads]
