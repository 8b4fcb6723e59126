"""The waits of a Redis store's readers for their streams' next entries,
all of a process's in one blocking ``XREAD``.

A reader that blocked in ``XREAD`` itself would hold one of the client's
connections for as long as it waits, seconds at a time: a hundred readers
took every connection of redis-py's pool (100 by default), and the writers
of the streams they wait for got "Too many connections". Here one task, on
one connection of its own, waits for every stream some reader waits for,
and hands the entries it reads to that stream's readers (each from where
it is); a reader that was not waiting when they came reads them itself,
with the client's other connections, each command returned at once.

The task's ``XREAD`` starts, for each stream, from the nearest entry its
waiting readers have read to, so the next entry any of them lacks wakes
it; a reader behind an entry the task has seen is woken at once. A stream
that gains a reader while the ``XREAD`` waits without it (or from further
on than that reader) is added by unblocking it (``CLIENT UNBLOCK``): it
returns as if timed out, and the task starts again. A stream whose readers
have gone stays in the ``XREAD`` for ``LINGER`` seconds, from where they
were, so that a reader that was woken, reads and waits again does not
unblock it each time; unless the last read of it was a full batch (of
``count`` entries): more may be there already, behind its readers, who read
them themselves (not woken again until they wait again), so the task leaves
it out until one does rather than read it on, for nobody, to its end.

A server that refuses ``CLIENT ID`` or ``CLIENT UNBLOCK`` (an ACL without
them, a hosted Redis that leaves them out) cannot have its waits shared
without delaying new ones: there, each reader blocks in an ``XREAD`` of its
own again, as before.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from typing import Any

from ._waiting import wait_within

__all__ = ["LINGER", "StreamWaits", "streams_read"]

#: How long a stream nobody waits for stays in the ``XREAD``, in seconds.
LINGER = 2.0

logger = logging.getLogger("agentcodec.server")

_Id = tuple[int, int]


def _entry_id(value: bytes | str) -> _Id:
    text = value.decode() if isinstance(value, bytes) else value
    major, _, minor = text.partition("-")
    return int(major), int(minor or 0)


def _text_id(entry_id: _Id) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


class _Stream:
    """A stream some reader waits for, or waited for within ``LINGER``."""

    __slots__ = ("ahead", "left_at", "resume", "seen", "waiting")

    def __init__(self) -> None:
        self.seen: _Id = (0, 0)  # the furthest entry the task has seen
        self.resume: _Id = (0, 0)  # where the readers that left were
        self.waiting: dict[asyncio.Future[list[Any]], _Id] = {}
        self.left_at = time.monotonic()
        # The last read of it was a full batch: its readers read on themselves.
        self.ahead = False

    def waited_for(self) -> bool:
        return any(not waiter.done() for waiter in self.waiting)

    def start(self) -> _Id:
        """Where the next ``XREAD`` reads this stream from."""
        waiting = [cursor for waiter, cursor in self.waiting.items() if not waiter.done()]
        return min(waiting) if waiting else max(self.seen, self.resume)


class StreamWaits:
    """The waits of one store's readers, on ``redis`` (an asyncio client)."""

    def __init__(self, redis: Any, block_ms: int, count: int) -> None:
        self._redis = redis
        self._block_ms = block_ms
        self._count = count  # the entries of a stream read at once
        self._streams: dict[str, _Stream] = {}
        self._task: asyncio.Future[None] | None = None
        self._client_id: int | None = None
        # The streams the XREAD under way reads, and from where (None
        # between two), and which round it is: an unblock is for that round.
        self._reading: dict[str, _Id] | None = None
        self._round = 0
        self._unblocking = -1
        self._unblocks: set[asyncio.Future[None]] = set()
        # Set when a reader waits: a task with no stream to read waits for it.
        self._wanted = asyncio.Event()
        # False once the server refused what sharing needs (or for a client
        # that cannot give a connection of its own).
        self._shared = callable(getattr(redis, "client", None))

    async def wait(self, key: str, after: str, timeout: float | None) -> list[Any] | None:
        """Waits until the stream ``key`` has entries after ``after`` (an
        entry id), or ``timeout`` seconds have passed. Gives the entries
        after it that the wait read (``(id, fields)``, in order, as many as
        it read at once), or ``[]`` when there are some for the reader to
        read itself; None when none came in time."""
        if not self._shared:
            return await self._wait_alone(key, after, timeout)
        cursor = _entry_id(after)
        stream = self._streams.get(key)
        if stream is None:
            stream = self._streams[key] = _Stream()
        elif stream.seen > cursor:
            return []  # entries after it exist already
        waiter: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        stream.waiting[waiter] = cursor
        self._wanted.set()
        task = self._task
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            self._task = asyncio.ensure_future(self._run())
        elif (
            self._reading is not None
            and (key not in self._reading or cursor < self._reading[key])
            and self._unblocking != self._round
        ):
            self._unblocking = self._round
            self._unblocks.add(unblock := asyncio.ensure_future(self._unblock(self._round)))
            unblock.add_done_callback(self._unblocks.discard)
        try:
            return await wait_within(waiter, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            del stream.waiting[waiter]
            stream.resume = max(stream.resume, cursor)
            if not stream.waiting:
                stream.left_at = time.monotonic()

    async def _wait_alone(self, key: str, after: str, timeout: float | None) -> list[Any] | None:
        block = 0 if timeout is None else max(1, int(timeout * 1000))  # (0: for ever)
        found = streams_read(await self._redis.xread({key: after}, count=self._count, block=block))
        return found[0][1] if found else None

    def _refused(self, exc: Exception) -> bool:
        """Whether ``exc`` is the server refusing a command sharing needs;
        if so, readers wait on their own from now on."""
        from redis.exceptions import NoPermissionError, ResponseError  # noqa: PLC0415 - optional

        said = str(exc).lower()
        if not isinstance(exc, NoPermissionError) and not (
            isinstance(exc, ResponseError) and ("unknown command" in said or "unknown subcommand" in said)
        ):
            return False
        if self._shared:
            logger.warning(
                "Redis refused a command the replay store's shared waits need (%s):"
                " each reader waits on a connection of its own",
                exc,
            )
        self._shared = False
        self._wake_all()  # to wait again, on their own
        return True

    async def _unblock(self, round_: int) -> None:
        """Ends the ``XREAD`` of round ``round_`` now, so that the next one
        waits for a stream it does not; retried until that ``XREAD`` has
        reached Redis, as long as the round goes on."""
        while self._round == round_ and self._reading is not None:
            try:
                if self._client_id is not None and await self._redis.client_unblock(self._client_id):
                    return
            except Exception as exc:  # the round ends by itself within block_ms
                if not self._refused(exc):
                    logger.debug("could not unblock the waits' XREAD", exc_info=True)
                return
            await asyncio.sleep(0.001)

    async def _run(self) -> None:
        client = None
        failing = False
        # (an event of this task's loop: a store may outlive a loop, as its task does)
        self._wanted = asyncio.Event()
        try:
            while self._streams:
                try:
                    if client is None:
                        client = self._redis.client()
                        self._client_id = await client.client_id()
                    found = await self._read_round(client)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    if self._refused(exc):
                        return
                    if not failing:
                        logger.warning("the replay store's waits could not read Redis", exc_info=True)
                    failing = True
                    await _closed(client)
                    client, self._client_id = None, None
                    self._wake_all()  # each reader reads, and meets the failure itself
                    await asyncio.sleep(0.1)
                    continue
                failing = False
                self._wake(found)
        finally:
            # Nothing to wait for (or closed): the next wait starts another task.
            if self._task is asyncio.current_task():
                self._task, self._reading, self._client_id = None, None, None
            await _closed(client)

    async def _read_round(self, client: Any) -> Any:
        gone = time.monotonic() - LINGER
        left = [key for key, stream in self._streams.items() if not stream.waiting and stream.left_at < gone]
        for key in left:
            del self._streams[key]
        if not self._streams:
            return None
        starts = {
            key: stream.start()
            for key, stream in self._streams.items()
            if not stream.ahead or stream.waited_for()
        }
        if not starts:  # every stream's readers are reading on by themselves
            self._wanted.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await wait_within(self._wanted.wait(), LINGER)
            return None
        self._round += 1
        self._reading = starts
        try:
            asked = {key: _text_id(start) for key, start in starts.items()}
            return await client.xread(asked, count=self._count, block=self._block_ms)
        finally:
            self._reading = None

    def _wake(self, found: Any) -> None:
        """Hands each stream's waiting readers the entries read after where
        each is."""
        for key, entries in streams_read(found):
            stream = self._streams.get(key.decode() if isinstance(key, bytes) else key)
            if stream is None or not entries:
                continue
            ids = [_entry_id(entry_id) for entry_id, _ in entries]
            stream.seen = max(stream.seen, ids[-1])
            stream.ahead = len(entries) >= self._count
            for waiter, cursor in stream.waiting.items():
                if cursor < ids[-1] and not waiter.done():
                    waiter.set_result(entries[bisect.bisect_right(ids, cursor) :])

    def _wake_all(self) -> None:
        for stream in self._streams.values():
            for waiter in stream.waiting:
                if not waiter.done():
                    waiter.set_result([])

    async def aclose(self) -> None:
        task = self._task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            await asyncio.wait({task})


def streams_read(found: Any) -> list[Any]:
    """An ``XREAD`` answer as ``[(key, entries)]``, from RESP2's
    ``[[key, entries]]`` or RESP3's ``{key: [entries]}``."""
    if not found:
        return []
    if isinstance(found, dict):
        return [(key, value[0]) for key, value in found.items() if value]
    return list(found)


async def _closed(client: Any) -> None:
    """Gives the client's connection back (None: nothing to give)."""
    if client is not None:
        try:
            await client.aclose()
        except Exception:  # already broken: nothing to release
            logger.debug("could not close the waits' connection", exc_info=True)
