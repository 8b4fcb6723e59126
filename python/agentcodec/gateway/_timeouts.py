"""How long the gateway waits: for its upstream to connect, to send its
first event, between events and for the whole run; for a client to take
what is written to it; for a client to come back to a run it left. A
stalled upstream ends the run as failed in the client's protocol; a client
that stops reading is let go; a run no client reads any more is cancelled
upstream. A gateway that stops ends its runs the same way, at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, fields
from typing import TypeVar

from ..server._closing import closed
from ..server._waiting import wait_within

__all__ = [
    "GatewayStoppingError",
    "RunAbandonedError",
    "RunCancelledError",
    "RunStoppedError",
    "Timeouts",
    "UpstreamTimeoutError",
    "paced",
    "within",
]

_T = TypeVar("_T")


@dataclass(frozen=True)
class Timeouts:
    """Seconds the gateway waits, each None for no limit.

    - ``connect``: for a connection to the upstream (``ProcessUpstream``).
    - ``first_byte``: from the request to the upstream's first event.
    - ``idle``: between two of the upstream's events. Keep-alive comments
      are not events: an upstream that only pings is idle.
    - ``run``: for the whole run, from the request to its last event.
    - ``send``: for a client to take one write; a client that stops
      reading is let go (its stream stays in the store for resume).
    - ``abandoned``: for a client to come back to a run whose stream it
      left (resuming with ``Last-Event-ID``, on any replica sharing the
      store); a run nobody reads for that long is cancelled upstream.
      Runs that outlive their streams by their protocol's design (a
      LangChain thread's runs; a protocol endpoint's runs that it starts
      without ``abandoned``, as tasks and server-side runs are) are never
      abandoned.
    """

    connect: float | None = 10.0
    first_byte: float | None = 120.0
    idle: float | None = 300.0
    run: float | None = 3600.0
    send: float | None = 30.0
    abandoned: float | None = 60.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0
            ):
                raise ValueError(
                    f"the {field.name} timeout must be a positive number of seconds or None, not {value!r}"
                )


class RunStoppedError(Exception):
    """The gateway stopped a run: the message says why, in words a client may read."""


class UpstreamTimeoutError(RunStoppedError):
    """The upstream took longer than a timeout allows: the message says which."""


class RunCancelledError(RunStoppedError):
    """A client asked for the run to be cancelled (its task cancelled)."""

    def __init__(self) -> None:
        super().__init__("the run was cancelled")


class RunAbandonedError(RunCancelledError):
    """No client read the run's stream for the ``abandoned`` timeout."""

    def __init__(self, seconds: float) -> None:
        RunStoppedError.__init__(self, f"no client read the run's stream for {seconds:g} s: it was cancelled")


class GatewayStoppingError(RunStoppedError):
    """The gateway is stopping (SIGTERM): its runs end now, recorded as
    ended, so that a client resuming on another replica gets the end."""

    def __init__(self) -> None:
        super().__init__("the gateway stopped before the run ended")


async def within(waiting: Awaitable[_T], timeout: float | None, message: str) -> _T:
    """``waiting``, or ``UpstreamTimeoutError(message)`` after ``timeout`` seconds."""
    if timeout is None:
        return await waiting
    try:
        return await wait_within(waiting, timeout)
    except asyncio.TimeoutError:
        raise UpstreamTimeoutError(message) from None


class _Activity:
    """Whether a chunk of an SSE stream holds more than keep-alive comments
    and blank lines, its lines cut anywhere by the chunking."""

    def __init__(self) -> None:
        # Where the last chunk ended: at a line's start, or inside a comment
        # line or another line (a field: data, event, id, retry).
        self._state = "start"

    def seen_in(self, chunk: bytes) -> bool:
        found = self._state == "field"  # a field line going on
        position, size = 0, len(chunk)
        while position < size:
            if self._state == "start":
                first = chunk[position : position + 1]
                if first in (b"\n", b"\r"):  # a blank line (or a CR of one)
                    position += 1
                    continue
                self._state = "comment" if first == b":" else "field"
                found = found or self._state == "field"
            end = chunk.find(b"\n", position)
            if end == -1:
                break
            self._state = "start"
            position = end + 1
        return found


async def paced(
    chunks: AsyncIterator[bytes],
    timeouts: Timeouts,
    started: float,
    stopping: asyncio.Event | None = None,
    *,
    cancelled: asyncio.Event | None = None,
    abandoned: asyncio.Event | None = None,
) -> AsyncIterator[bytes]:
    """The upstream's chunks, as long as its first event comes within
    ``first_byte`` seconds of ``started`` (the loop's time the request went
    out), each next within ``idle`` seconds of the last, the run ends within
    ``run`` seconds, and none of ``stopping`` (the gateway's), ``cancelled``
    (the run's) and ``abandoned`` (no client reads it: set after the
    ``abandoned`` timeout) is set; otherwise ``UpstreamTimeoutError``,
    ``GatewayStoppingError``, ``RunCancelledError`` or ``RunAbandonedError``,
    and the upstream's response is closed."""
    loop = asyncio.get_running_loop()
    activity = _Activity()
    iterator = chunks.__aiter__()
    last_event: float | None = None
    no_first_event = (
        f"the agent sent no event within {timeouts.first_byte:g} s" if timeouts.first_byte else ""
    )
    idle = f"the agent sent no event for {timeouts.idle:g} s" if timeouts.idle else ""
    too_long = f"the agent's run went on past {timeouts.run:g} s" if timeouts.run else ""
    stop = asyncio.ensure_future(stopping.wait()) if stopping is not None else None
    cancel = asyncio.ensure_future(cancelled.wait()) if cancelled is not None else None
    left_alone = asyncio.ensure_future(abandoned.wait()) if abandoned is not None else None
    following: asyncio.Future[bytes] | None = None
    try:
        while True:
            now = loop.time()
            limits: list[tuple[float, str]] = []
            if last_event is None and timeouts.first_byte is not None:
                limits.append((started + timeouts.first_byte - now, no_first_event))
            if last_event is not None and timeouts.idle is not None:
                limits.append((last_event + timeouts.idle - now, idle))
            if timeouts.run is not None:
                limits.append((started + timeouts.run - now, too_long))
            left, message = min(limits) if limits else (None, "")
            following = asyncio.ensure_future(iterator.__anext__())
            waiting = {following, *(future for future in (stop, cancel, left_alone) if future is not None)}
            await asyncio.wait(
                waiting, timeout=None if left is None else max(left, 0.0), return_when=asyncio.FIRST_COMPLETED
            )
            if not following.done():
                if stop is not None and stop.done():
                    raise GatewayStoppingError
                if cancel is not None and cancel.done():
                    raise RunCancelledError
                if left_alone is not None and left_alone.done():
                    raise RunAbandonedError(timeouts.abandoned or 0.0)
                raise UpstreamTimeoutError(message)
            try:
                chunk = following.result()
            except StopAsyncIteration:
                return
            finally:
                following = None
            if activity.seen_in(chunk):
                last_event = loop.time()
            yield chunk
    finally:
        for future in (stop, cancel, left_alone):
            if future is not None:
                future.cancel()
        if following is not None and not following.done():
            # Timed out, stopped, or this generator cancelled while waiting.
            following.cancel()
            with contextlib.suppress(BaseException):
                await following
        await closed(iterator)
