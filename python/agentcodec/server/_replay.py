"""Replay stores: where a server keeps the events of its streams, so that a
client that reconnects with ``Last-Event-ID`` gets what it missed, from this
process or, with a shared store, from any replica.

A stream is a sequence of events numbered from 1, written by one producer
and ended once; readers replay it after a number and follow it live. An alias
names the latest stream of something that runs again and again (a thread's
runs), so that any replica finds it, or waits for it to start. A reader
following a stream marks it read as it goes, so that a producer can tell a
stream nobody reads any more (on any replica) from one whose client stepped
away for a moment.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Collection, Sequence

from ._waiting import wait_within

__all__ = ["MemoryReplayStore", "ReplayError", "ReplayStore", "StreamEntry"]

#: One stored event: its number and its SSE bytes (without an ``id`` line).
StreamEntry = tuple[int, bytes]

#: How often a reader following a stream marks it read, at the most (and,
#: in the memory store, at the least while it waits for events): a reader
#: that is there has marked the stream within this long (Redis: within its
#: ``block_seconds`` while it waits), which a watcher allows for.
MARK_EVERY = 0.5


class ReplayError(LookupError):
    """A stream cannot be replayed after the number asked for: it is not
    (or no longer) stored, or events after that number were dropped.

    Attributes:
        stream_id: the stream asked for.
        after: the number the client has seen.
        first_available: the oldest number still stored, or None when the
            stream is not stored at all.
    """

    def __init__(self, stream_id: str, after: int, first_available: int | None) -> None:
        self.stream_id = stream_id
        self.after = after
        self.first_available = first_available
        if first_available is None:
            reason = f"stream {stream_id!r} is not stored (unknown, or expired)"
        else:
            reason = (
                f"stream {stream_id!r} cannot be replayed after event {after}: "
                f"the oldest event stored is {first_available}"
            )
        super().__init__(reason)


class ReplayStore(abc.ABC):
    """Where streams' events are kept for replay. ``open`` a stream,
    ``append`` its events (numbered from 1 in order), ``finish`` it;
    ``replay(stream_id, after)`` gives the events after a number, then
    those appended later, until the stream is finished."""

    @abc.abstractmethod
    async def open(self) -> str:
        """A new stream; returns its id (letters, digits, ``-`` and ``_``)."""

    @abc.abstractmethod
    async def append(self, stream_id: str, event: bytes) -> int:
        """Stores one event's SSE bytes; returns its number."""

    async def extend(self, stream_id: str, events: Sequence[bytes]) -> int:
        """Stores several events' SSE bytes (at least one), in order;
        returns the last one's number. This appends each; a store that can
        store many in one round trip does."""
        if not events:
            raise ValueError("extend stores at least one event")
        for event in events:
            last = await self.append(stream_id, event)
        return last

    @abc.abstractmethod
    async def finish(self, stream_id: str) -> None:
        """Ends the stream: readers stop after its last event."""

    @abc.abstractmethod
    async def replay(self, stream_id: str, after: int) -> AsyncIterator[StreamEntry]:
        """The events after ``after``, then the live ones until the stream
        finishes. Raises ``ReplayError`` at once, before any event, when
        the stream is not stored or events after ``after`` were dropped,
        and later if a reader falls so far behind that the next event was
        dropped before it was read."""

    async def stored(self, stream_id: str) -> tuple[list[StreamEntry], bool]:
        """The events stored now, without waiting for more, and whether the
        stream has finished: what a snapshot of a running stream (such as
        a task's state, asked while it runs) is made from. Raises
        ``ReplayError`` when the stream is not stored or its first events
        were dropped."""
        raise NotImplementedError(f"{type(self).__name__} gives no snapshot of a stream")

    async def times(self, stream_id: str) -> tuple[float | None, float | None]:
        """When the stream was opened and when it finished, in seconds since
        the epoch (``time.time()``): None for a stream still running, and
        for an opening the store no longer knows (Redis: a stream still
        running whose first events its bound dropped, or one written before
        it kept times). What a server dates the things it names by
        streams from (a run's ``created_at``). Raises ``ReplayError`` when
        the stream is not stored."""
        raise NotImplementedError(f"{type(self).__name__} keeps no times")

    async def finished(self, stream_id: str) -> bool:
        """Whether the stream has finished, without reading its events.
        Raises ``ReplayError`` when the stream is not stored. A store that
        gives snapshots answers it from one; the stores here look at the
        stream's end alone."""
        return (await self.stored(stream_id))[1]

    @abc.abstractmethod
    async def set_alias(self, alias: str, stream_id: str) -> None:
        """Points ``alias`` at a stream (replacing where it pointed); those
        waiting in ``resolve_alias`` for it wake."""

    @abc.abstractmethod
    async def resolve_alias(self, alias: str, *, timeout: float | None = 0.0) -> str | None:
        """The stream ``alias`` points at. When it points nowhere, waits up
        to ``timeout`` seconds (None: until it does) for ``set_alias``, then
        gives None. Each store says how long it keeps aliases."""

    async def compare_and_set_alias(self, alias: str, stream_id: str, *, expected: str | None) -> bool:
        """Points ``alias`` at a stream if it points at ``expected`` now, as
        ``resolve_alias`` gives it (None: nowhere); True if it did. What a
        server claims a thing with that one stream at a time may hold (a
        thread's run): of replicas claiming it at once, one wins. The stores
        here do it in one step; this default, which other stores inherit,
        looks then sets, and is not atomic across replicas."""
        if await self.resolve_alias(alias) != expected:
            return False
        await self.set_alias(alias, stream_id)
        return True

    async def delete_aliases(self, aliases: Collection[str]) -> None:
        """Points each of ``aliases`` nowhere (their streams are kept till
        they expire): what a server forgets a thing it names by them with
        (a thread deleted). Aliases that point nowhere already are left be."""
        raise NotImplementedError(f"{type(self).__name__} does not delete aliases")

    async def aliases(self, prefix: str) -> list[tuple[str, str]]:
        """The aliases that start with ``prefix`` and point at a stream, each
        with the stream it points at, the one set last first: what a server
        lists the things it names so from (a task listing, say)."""
        raise NotImplementedError(f"{type(self).__name__} does not list its aliases")

    async def mark_read(self, stream_id: str) -> None:  # noqa: B027 - a store may keep no marks
        """Notes that a reader is on the stream now. The stores' own readers
        (``replay``) mark as they follow, every ``MARK_EVERY`` seconds at the
        most; a store that keeps no marks ignores it."""

    async def read_within(self, stream_id: str, seconds: float) -> bool:
        """Whether a reader was on the stream within the last ``seconds``:
        how a producer (``EventStreamResponse(abandon_after=...)``) tells a
        stream nobody reads any more. A store that keeps no marks says True,
        so that no stream of it is ever taken for abandoned."""
        return True

    async def request_stop(self, stream_id: str) -> None:
        """Asks the stream's producer, on whichever replica it runs, to stop:
        a run cancelled at another replica than its own. ``stop_requested``
        tells the producer, which watches for it. Raises ``ReplayError`` when
        the stream is not stored; a store that carries no requests raises
        NotImplementedError."""
        raise NotImplementedError(f"{type(self).__name__} carries no requests to stop a stream")

    async def stop_requested(self, stream_id: str) -> bool:
        """Whether ``request_stop`` was called for the stream (False for an
        unknown one, and from a store that carries no requests)."""
        return False

    async def stops_requested(self, stream_ids: Collection[str]) -> set[str]:
        """Those of ``stream_ids`` whose stop was requested: what a replica
        asks about every stream it runs, at once. This asks
        ``stop_requested`` of each; a store that can ask for many in one
        request does."""
        return {stream_id for stream_id in stream_ids if await self.stop_requested(stream_id)}

    async def aclose(self) -> None:  # noqa: B027 - most stores hold nothing to release
        """Releases what the store holds (connections)."""


def new_stream_id() -> str:
    return uuid.uuid4().hex


class _MemoryStream:
    __slots__ = (
        "dropped",
        "ended",
        "events",
        "finished",
        "finished_at",
        "first",
        "last",
        "opened",
        "size",
        "stop_requested",
        "wakeup",
    )

    def __init__(self, max_events: int) -> None:
        self.events: deque[bytes] = deque(maxlen=max_events)
        self.size = 0  # the bytes of the events kept
        self.first = 1  # the number of events[0]
        self.last = 0
        self.finished = False
        self.finished_at = 0.0  # (the monotonic clock: when it is forgotten)
        # When it was opened and finished, by the wall clock (``times``).
        self.opened = time.time()
        self.ended: float | None = None
        self.dropped = False  # evicted before it finished
        self.stop_requested = False
        self.wakeup = asyncio.Event()


class _AliasWaiters:
    __slots__ = ("count", "event")

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.count = 0


class MemoryReplayStore(ReplayStore):
    """Streams kept in this process: each one's last ``max_events`` events;
    a finished stream is forgotten ``ttl`` seconds after it ended, and the
    oldest streams first once more than ``max_streams`` are kept. The events
    kept weigh ``max_bytes`` at most (None: no budget): past it, the oldest
    finished streams are forgotten first, then the oldest events of the
    oldest streams (a reader behind them gets a ``ReplayError``). An alias
    is forgotten with its stream, or, past ``max_streams`` aliases, the
    oldest set first. Replicas cannot share it: that is what
    ``RedisReplayStore`` is for (whose budget is Redis's own ``maxmemory``)."""

    def __init__(
        self,
        *,
        max_events: int = 10_000,
        max_streams: int = 1_000,
        ttl: float = 600.0,
        max_bytes: int | None = 256 * 1024 * 1024,
    ) -> None:
        for name, value in (("max_events", max_events), ("max_streams", max_streams)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        if max_bytes is not None and (
            isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1
        ):
            raise ValueError(f"max_bytes must be a positive int or None, not {max_bytes!r}")
        self._max_bytes = max_bytes
        self._bytes = 0  # the bytes of every event kept
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl < 0:
            raise ValueError(f"ttl must be a non-negative number of seconds, not {ttl!r}")
        self._max_events = max_events
        self._max_streams = max_streams
        self._ttl = float(ttl)
        self._streams: OrderedDict[str, _MemoryStream] = OrderedDict()
        self._aliases: OrderedDict[str, str] = OrderedDict()
        self._alias_waiters: dict[str, _AliasWaiters] = {}
        # When a reader was last on each stream (the monotonic clock).
        self._read_at: dict[str, float] = {}

    def __len__(self) -> int:
        """How many streams are kept."""
        return len(self._streams)

    async def open(self) -> str:
        self._evict()
        stream_id = new_stream_id()
        self._streams[stream_id] = _MemoryStream(self._max_events)
        while len(self._streams) > self._max_streams:
            self._drop(next(iter(self._streams)))
        return stream_id

    async def append(self, stream_id: str, event: bytes) -> int:
        stream = self._writable(stream_id)
        if len(stream.events) == stream.events.maxlen:
            stream.first += 1
            self._forget(stream, len(stream.events[0]))
        event = bytes(event)
        stream.events.append(event)
        stream.size += len(event)
        self._bytes += len(event)
        stream.last += 1
        if self._max_bytes is not None and self._bytes > self._max_bytes:
            self._fit(self._max_bytes)
        self._wake(stream)
        return stream.last

    def _forget(self, stream: _MemoryStream, size: int) -> None:
        stream.size -= size
        self._bytes -= size

    def _fit(self, budget: int) -> None:
        """Forgets the oldest finished streams, then the oldest events of the
        oldest streams, until what is kept fits ``budget``."""
        while self._bytes > budget:
            finished = next((key for key, stream in self._streams.items() if stream.finished), None)
            if finished is not None:
                self._drop(finished)
                continue
            oldest = next((stream for stream in self._streams.values() if stream.events), None)
            if oldest is None:
                return
            self._forget(oldest, len(oldest.events.popleft()))
            oldest.first += 1
            self._wake(oldest)  # a reader behind it learns of the gap

    async def finish(self, stream_id: str) -> None:
        stream = self._writable(stream_id)
        stream.finished = True
        stream.finished_at = time.monotonic()
        stream.ended = time.time()
        self._wake(stream)

    async def replay(self, stream_id: str, after: int) -> AsyncIterator[StreamEntry]:
        self._evict()
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, after, None)
        if after + 1 < stream.first:
            raise ReplayError(stream_id, after, stream.first)
        return self._follow(stream_id, stream, after)

    async def _follow(self, stream_id: str, stream: _MemoryStream, after: int) -> AsyncIterator[StreamEntry]:
        seen = after
        marked = 0.0
        while True:
            if seen + 1 < stream.first:  # this reader fell behind the ring
                raise ReplayError(stream_id, seen, stream.first)
            while seen < stream.last:
                now = time.monotonic()
                if now - marked >= MARK_EVERY:
                    self._read_at[stream_id] = marked = now
                seen += 1
                yield seen, stream.events[seen - stream.first]
                if seen + 1 < stream.first:
                    raise ReplayError(stream_id, seen, stream.first)
            if stream.finished:
                return
            if stream.dropped:
                raise ReplayError(stream_id, seen, None)
            self._read_at[stream_id] = marked = time.monotonic()
            # Woken by the next event, or to mark again while none comes.
            with contextlib.suppress(asyncio.TimeoutError):  # not TimeoutError before 3.11
                await wait_within(stream.wakeup.wait(), MARK_EVERY)

    async def mark_read(self, stream_id: str) -> None:
        if stream_id in self._streams:
            self._read_at[stream_id] = time.monotonic()

    async def read_within(self, stream_id: str, seconds: float) -> bool:
        read_at = self._read_at.get(stream_id)
        return read_at is not None and time.monotonic() - read_at <= seconds

    async def finished(self, stream_id: str) -> bool:
        self._evict()
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, 0, None)
        return stream.finished

    async def times(self, stream_id: str) -> tuple[float | None, float | None]:
        self._evict()
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, 0, None)
        return stream.opened, stream.ended

    async def request_stop(self, stream_id: str) -> None:
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, 0, None)
        stream.stop_requested = True

    async def stop_requested(self, stream_id: str) -> bool:
        stream = self._streams.get(stream_id)
        return stream is not None and stream.stop_requested

    async def stored(self, stream_id: str) -> tuple[list[StreamEntry], bool]:
        self._evict()
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, 0, None)
        if stream.first > 1:
            raise ReplayError(stream_id, 0, stream.first)
        return list(enumerate(stream.events, stream.first)), stream.finished

    async def set_alias(self, alias: str, stream_id: str) -> None:
        if stream_id not in self._streams:
            raise ReplayError(stream_id, 0, None)
        self._aliases.pop(alias, None)
        self._aliases[alias] = stream_id
        while len(self._aliases) > self._max_streams:
            self._aliases.popitem(last=False)
        waiters = self._alias_waiters.pop(alias, None)
        if waiters is not None:
            waiters.event.set()

    async def resolve_alias(self, alias: str, *, timeout: float | None = 0.0) -> str | None:
        found = self._alias(alias)
        if found is not None or timeout == 0:
            return found
        waiters = self._alias_waiters.get(alias)
        if waiters is None:
            waiters = self._alias_waiters[alias] = _AliasWaiters()
        waiters.count += 1
        try:
            with contextlib.suppress(asyncio.TimeoutError):  # not TimeoutError before 3.11
                await wait_within(waiters.event.wait(), timeout)
        finally:
            waiters.count -= 1
            # The last one to give up takes its waiters away, so that
            # aliases nobody sets do not pile up.
            if not waiters.count and self._alias_waiters.get(alias) is waiters:
                del self._alias_waiters[alias]
        return self._alias(alias)

    async def compare_and_set_alias(self, alias: str, stream_id: str, *, expected: str | None) -> bool:
        # (one event loop: nothing runs between the look and the set)
        if self._alias(alias) != expected:
            return False
        await self.set_alias(alias, stream_id)
        return True

    async def delete_aliases(self, aliases: Collection[str]) -> None:
        for alias in aliases:
            self._aliases.pop(alias, None)

    async def aliases(self, prefix: str) -> list[tuple[str, str]]:
        self._evict()
        found = []
        for alias, stream_id in reversed(list(self._aliases.items())):
            if not alias.startswith(prefix):
                continue
            if stream_id in self._streams:
                found.append((alias, stream_id))
            else:
                del self._aliases[alias]  # its stream was forgotten
        return found

    def _alias(self, alias: str) -> str | None:
        self._evict()
        stream_id = self._aliases.get(alias)
        if stream_id is not None and stream_id not in self._streams:
            del self._aliases[alias]  # its stream was forgotten
            return None
        return stream_id

    def _writable(self, stream_id: str) -> _MemoryStream:
        stream = self._streams.get(stream_id)
        if stream is None:
            raise ReplayError(stream_id, 0, None)
        if stream.finished:
            raise ValueError(f"stream {stream_id!r} is finished")
        return stream

    @staticmethod
    def _wake(stream: _MemoryStream) -> None:
        # Everyone waiting wakes; the next wait is on a new event.
        stream.wakeup.set()
        stream.wakeup = asyncio.Event()

    def _evict(self) -> None:
        deadline = time.monotonic() - self._ttl
        expired = [
            key for key, stream in self._streams.items() if stream.finished and stream.finished_at <= deadline
        ]
        for key in expired:
            self._drop(key)

    def _drop(self, stream_id: str) -> None:
        stream = self._streams.pop(stream_id)
        self._read_at.pop(stream_id, None)
        self._bytes -= stream.size
        # Readers following a stream dropped before it finished learn that
        # the rest is lost, instead of waiting forever.
        stream.dropped = not stream.finished
        self._wake(stream)
