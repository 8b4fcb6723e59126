"""Runs a client can cancel by name (a task, a response, a run), and the
recorded stream a cancel then follows.

An endpoint whose protocol has a cancel keeps one ``Cancels``. A run's
frames go through ``watched``: while they go on, the run is cancelable by
its name on this replica, and from any other replica sharing the store
(``request_stop``, which this one's ``StopWatch`` looks for). ``cancel``
asks the run to stop, wherever it runs, and says whether there was a run to
stop; what the client is answered (the task, the response as it ended, a
bare ``202``) is the protocol's, read from the store with ``follow``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..server._closing import closed
from ..server._waiting import wait_within

if TYPE_CHECKING:
    from ._app import Gateway

__all__ = ["STOP_CHECK_EVERY", "Cancels", "StopWatch", "follow"]

#: How often a replica looks in the store for requests to stop its runs
#: (cancels asked of another replica), in seconds.
STOP_CHECK_EVERY = 0.5

logger = logging.getLogger("agentcodec.gateway")


class StopWatch:
    """The runs of this replica a client may stop from another one, each
    cancelled once the store holds a request to stop its stream
    (``request_stop``). One task looks for all of them, in one request to
    the store every ``STOP_CHECK_EVERY`` seconds however many run, and only
    while some do."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._watched: dict[str, set[asyncio.Event]] = {}
        self._watcher: asyncio.Future[None] | None = None

    @contextlib.asynccontextmanager
    async def watching(self, stream_id: str, cancelled: asyncio.Event) -> AsyncIterator[None]:
        """While in it, ``cancelled`` is set once a stop of ``stream_id``
        is requested."""
        self._watched.setdefault(stream_id, set()).add(cancelled)
        watcher = self._watcher
        if watcher is None or watcher.done() or watcher.get_loop() is not asyncio.get_running_loop():
            self._watcher = asyncio.ensure_future(self._watch())
        try:
            yield
        finally:
            events = self._watched.get(stream_id)
            if events is not None:
                events.discard(cancelled)
                if not events:
                    del self._watched[stream_id]

    async def _watch(self) -> None:
        failing = False
        # Ends once nothing is watched; the next run to be watched starts another.
        while self._watched:
            await asyncio.sleep(STOP_CHECK_EVERY)
            running = [
                stream_id
                for stream_id, events in self._watched.items()
                if not all(event.is_set() for event in events)
            ]
            if not running:
                continue
            try:
                stopped = await self._store.stops_requested(running)
            except Exception:  # a store gone for a moment stops nothing
                if not failing:
                    said = "could not look for requests to stop %d streams"
                    logger.warning(said, len(running), exc_info=True)
                failing = True
                continue
            failing = False
            for stream_id in stopped:
                for event in self._watched.get(stream_id, ()):
                    event.set()

    async def aclose(self) -> None:
        """Stops looking (the gateway's shutdown)."""
        watcher = self._watcher
        if watcher is not None and not watcher.done() and watcher.get_loop() is asyncio.get_running_loop():
            watcher.cancel()
            await asyncio.wait({watcher})


class Cancels:
    """The runs going on at this replica, by name: what a cancel sets."""

    def __init__(self, gateway: Gateway) -> None:
        self._gateway = gateway
        self._running: dict[str, asyncio.Event] = {}

    def watched(
        self,
        frames: AsyncIterator[bytes],
        stream_id: str,
        cancel: asyncio.Event,
        *,
        name: str | None = None,
        named_by: Callable[[bytes], Awaitable[str | None]] | None = None,
    ) -> AsyncIterator[bytes]:
        """The run's ``frames`` (recorded in the store as ``stream_id``),
        the run cancelable until they end (``cancel`` set: the event its
        ``start_run`` took), by ``name`` from now on, or by the name
        ``named_by`` reads from its first frame (a run named by its
        upstream) from then on."""
        if name is not None:
            self._running[name] = cancel  # before a frame goes: a client may cancel at once
        return self._watched(frames, stream_id, cancel, name, named_by)

    async def _watched(
        self,
        frames: AsyncIterator[bytes],
        stream_id: str,
        cancel: asyncio.Event,
        name: str | None,
        named_by: Callable[[bytes], Awaitable[str | None]] | None,
    ) -> AsyncIterator[bytes]:
        try:
            async with self._gateway.watching_for_stop(stream_id, cancel):
                async for frame in frames:
                    if named_by is not None and frame:
                        name, named_by = await named_by(frame), None
                        if name:
                            self._running[name] = cancel
                    yield frame
        finally:
            if name and self._running.get(name) is cancel:
                del self._running[name]
            await closed(frames)

    async def cancel(self, name: str, stream_id: str) -> bool:
        """Asks the run named ``name`` (recorded as ``stream_id``) to stop:
        at once when it runs here, or through the store, which the replica
        it runs on looks in. False when its run has ended (there was nothing
        to stop). Raises ``NotImplementedError`` when it runs elsewhere and
        the store carries no such request, and ``ReplayError`` when the
        store no longer keeps the stream."""
        cancel = self._running.get(name)
        if cancel is not None:
            cancel.set()
            return True
        store = self._gateway.store
        if await store.finished(stream_id):
            return False
        await store.request_stop(stream_id)
        return True


async def follow(
    store: Any, stream_id: str, feed: Callable[[bytes], object], within: float | None = None
) -> None:
    """Gives each of the stream's recorded events to ``feed``, from its
    first, as they come, until the stream ends, ``feed`` returns True (it
    has what it waits for), or ``within`` seconds have passed (None: no
    limit), whichever is first. Raises ``ReplayError`` when the store does
    not keep the stream."""
    entries = await store.replay(stream_id, 0)

    async def fed() -> None:
        async for _, frame in entries:
            if feed(frame) is True:
                return

    feeding = asyncio.ensure_future(fed())
    try:
        await wait_within(feeding, within)
    except asyncio.TimeoutError:
        pass  # what has been fed so far
    finally:
        if not feeding.done():
            # Cancelled by the wait, it may still be inside the store's
            # iterator, which cannot be closed until it has left.
            await asyncio.wait({feeding})
        await closed(entries)
