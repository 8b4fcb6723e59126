"""An ASGI response that writes a producer's events as Server-Sent Events:
the headers, keep-alive comments while the producer is quiet, a producer
stopped when its client leaves (or, recorded for resume, once no client has
read its stream for a while), a failure ended with the protocol's error
event, and ``Last-Event-ID`` resume from a replay store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Literal

from .. import _protocols
from .._backend import impl
from ..events import ProtocolName
from ._closing import closed
from ._frames import aiter_items, error_frame, item_writer, record
from ._replay import MARK_EVERY, ReplayError, ReplayStore
from ._waiting import wait_within

try:  # Starlette and FastAPI take the response as one of theirs.
    from starlette.responses import Response as _ResponseBase
except ImportError:  # pragma: no cover - any ASGI server runs it all the same

    class _ResponseBase:  # type: ignore[no-redef]
        pass


__all__ = ["EventStreamResponse"]

logger = logging.getLogger("agentcodec.server")

# The ASGI types, as Starlette spells them.
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: The keep-alive comment a quiet stream gets.
PING = impl.encode_sse_comment("ping")

# Producers that write to a store go on after their client leaves; they are
# held here so that nothing collects them before they end.
_running: set[asyncio.Task[None]] = set()
# The tasks that watch whether anyone still reads a recorded stream.
_watching: set[asyncio.Task[None]] = set()


def recording(store: ReplayStore, stream_id: str, frames: AsyncIterator[bytes]) -> asyncio.Task[None]:
    """Records ``frames`` into the store in a task of its own, held until it
    ends (``finish_recording`` waits for it)."""
    producer = asyncio.get_running_loop().create_task(record(store, stream_id, frames))
    _running.add(producer)
    producer.add_done_callback(_running.discard)
    return producer


def watch_readers(
    store: ReplayStore,
    stream_id: str,
    producer: asyncio.Task[None],
    seconds: float,
    abandon: Callable[[], object],
) -> None:
    """Calls ``abandon`` once no reader has been on the stream (live or
    resumed, on any replica sharing the store) for ``seconds``, counted from
    now, unless ``producer`` ends first."""

    async def watch() -> None:
        loop = asyncio.get_running_loop()
        since = loop.time()
        while True:
            await asyncio.sleep(max(seconds / 4, 0.05))
            if loop.time() - since < seconds:
                continue
            try:
                # A reader that is there marked the stream within MARK_EVERY.
                read = await store.read_within(stream_id, seconds + MARK_EVERY)
            except Exception as exc:  # a store gone for a moment abandons nothing
                logger.warning("could not tell whether stream %s is read: %r", stream_id, exc)
                continue
            if not read:
                logger.info("no client read stream %s for %g s: its producer is stopped", stream_id, seconds)
                abandon()
                return

    watcher = asyncio.get_running_loop().create_task(watch())
    _watching.add(watcher)
    watcher.add_done_callback(_watching.discard)
    producer.add_done_callback(lambda _: watcher.cancel())


async def finish_recording(timeout: float) -> None:
    """Waits up to ``timeout`` seconds for the streams being recorded to be
    finished in their stores."""
    if _running and timeout > 0:
        await asyncio.wait(set(_running), timeout=timeout)


def _event_id(tagged: str, number: int) -> bytes:
    return f"id: {tagged}:{number}\n".encode()


def _tagged(stream_id: str, protocol: str | None) -> str:
    """The stream's id as its events carry it: ``<protocol>.<id>`` where the
    response has a protocol, so that a resume at another protocol's endpoint
    is told apart (stream ids hold no ``.``)."""
    return stream_id if protocol is None else f"{protocol}.{stream_id}"


# An event's number is a Redis stream id's first part: a 64-bit integer.
_MAX_NUMBER = 2**63 - 1


def _parse_event_id(text: str, protocol: str | None) -> tuple[str, int]:
    """The stream and event a ``Last-Event-ID`` names, for a response of
    ``protocol``; a ValueError for one this server did not write, or wrote
    for another protocol's stream."""
    tagged, _, number = text.rpartition(":")
    if not tagged or not number.isascii() or not number.isdigit() or int(number) > _MAX_NUMBER:
        raise ValueError(f"Last-Event-ID {text!r} is not an id this server wrote")
    tag, dot, stream_id = tagged.partition(".")
    if not dot:
        return tagged, int(number)  # an id written without a protocol
    if tag != protocol:
        raise ValueError(
            f"Last-Event-ID {text!r} names a stream of {tag}, not of {protocol or 'an untyped stream'}"
        )
    return stream_id, int(number)


class EventStreamResponse(_ResponseBase):
    """Writes ``content`` (an async or plain iterable of events) as a
    ``text/event-stream`` response, from any ASGI app (Starlette and
    FastAPI endpoints return it as they return their own responses).

    Items are bytes (SSE already: a ``Transcoder``'s output), mappings
    (events of ``protocol``, written as its SSE; JSON ``data:`` events
    without one) or strings (one event's data).

    - A comment is written every ``ping_interval`` seconds the producer
      yields nothing, so that proxies keep the connection open.
    - A producer that raises ends the stream with the protocol's error
      event (the exception is logged, not sent).
    - With a ``store`` (``MemoryReplayStore``, ``RedisReplayStore``), every
      event gets an id and is recorded; a request with ``Last-Event-ID``
      replays what followed it and follows the stream live, from any
      replica sharing the store, without running ``content``; an id that
      cannot be resumed is answered ``410 Gone``. The producer then runs to
      its end even when the client leaves (``on_disconnect="continue"``),
      so that the client can come back for the rest.
    - Without a store, the producer is stopped when the client leaves.
    - ``stream_id`` records into a stream the caller opened in the store
      (``await store.open()``), to name it elsewhere first (an alias, a
      task's id); by default the response opens one.
    - ``replay_stream`` sends a stream of the store from its first event
      (after ``Last-Event-ID``, where the request has one, or else after the
      event numbered ``replay_after``; events are numbered from 1) and
      follows it live until it finishes, in place of running ``content``: a
      client that comes back for a run it knows by another name than an
      event id.
    - ``send_timeout``: a client that takes no write for that many seconds
      (it stopped reading, and the connection's buffers are full) is let go,
      as if it had left; None waits for it.
    - ``abandon_after`` (with a store): a producer whose stream no client
      has read for that many seconds (live, or resumed on any replica
      sharing the store) is stopped, and its stream ends with the
      protocol's error event, saying so; or ``on_abandoned`` is called
      instead, for a producer that ends itself its own way. A client that
      drops and resumes within it keeps the producer going.

    A protocol whose streams are not SSE (but NDJSON) is written in its
    own media type, a line an event: with no keep-alive comments, which a
    line reader would take for a line, and no store, since its events carry
    no ids to resume after.
    """

    media_type = "text/event-stream"

    def __init__(
        self,
        content: Any,
        *,
        protocol: ProtocolName | None = None,
        store: ReplayStore | None = None,
        ping_interval: float | None = 15.0,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        on_disconnect: Literal["cancel", "continue"] | None = None,
        stream_id: str | None = None,
        send_timeout: float | None = None,
        abandon_after: float | None = None,
        on_abandoned: Callable[[], object] | None = None,
        replay_stream: str | None = None,
        replay_after: int = 0,
    ) -> None:
        for name, given in (("stream_id", stream_id), ("replay_stream", replay_stream)):
            if given is not None and store is None:
                raise ValueError(f"{name} names a stream of the store: give the store too")
        if stream_id is not None and replay_stream is not None:
            raise ValueError("stream_id records a run, replay_stream sends a recorded one: give one")
        if isinstance(replay_after, bool) or not isinstance(replay_after, int) or replay_after < 0:
            raise ValueError(f"replay_after must be an event number, 0 or more, not {replay_after!r}")
        if replay_after and replay_stream is None:
            raise ValueError("replay_after is where in replay_stream to start: give replay_stream too")
        if protocol is not None:
            _protocols.check(protocol)
        media_type = _protocols.media_type(protocol)
        if not _protocols.resumable(protocol):
            if store is not None:
                raise ValueError(f"{protocol} streams have no event ids to resume after: they take no store")
            ping_interval = None  # a comment would be no line its clients read
        for name, seconds in (
            ("ping_interval", ping_interval),
            ("send_timeout", send_timeout),
            ("abandon_after", abandon_after),
        ):
            if seconds is not None and (
                isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0
            ):
                raise ValueError(f"{name} must be a positive number of seconds or None, not {seconds!r}")
        if abandon_after is not None and store is None:
            raise ValueError(
                "abandon_after needs a store: without one, the producer stops when its client leaves"
            )
        if on_abandoned is not None and abandon_after is None:
            raise ValueError("on_abandoned is called after abandon_after seconds: give abandon_after too")
        if on_disconnect is None:
            on_disconnect = "cancel" if store is None else "continue"
        if on_disconnect not in ("cancel", "continue"):
            raise ValueError(f"on_disconnect must be 'cancel' or 'continue', not {on_disconnect!r}")
        self.content = content
        self.protocol = protocol
        self.store = store
        self.ping_interval = ping_interval
        self.status_code = status_code
        self.on_disconnect = on_disconnect
        self.stream_id = stream_id
        self.replay_stream = replay_stream
        self.replay_after = replay_after
        self.send_timeout = send_timeout
        self.abandon_after = abandon_after
        self.on_abandoned = on_abandoned
        self.background = None  # what Starlette and FastAPI look for on a response
        self.media_type = media_type
        merged = {
            "content-type": f"{media_type}; charset=utf-8" if media_type.startswith("text/") else media_type,
            "cache-control": "no-store",
            "x-accel-buffering": "no",  # nginx would hold the events back
            **_protocols.headers(protocol),
        }
        merged.update({key.lower(): value for key, value in (headers or {}).items()})
        self.raw_headers = [(key.encode("latin-1"), value.encode("latin-1")) for key, value in merged.items()]
        self._write = item_writer(protocol)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"EventStreamResponse serves http, not {scope['type']!r}")
        producer: asyncio.Task[None] | None = None
        if self.store is None:
            frames = self._produce()
        else:
            resume_from = _header(scope, b"last-event-id")
            if resume_from or self.replay_stream is not None:
                await self._discard_content()
                try:
                    if resume_from:
                        stream_id, after = _parse_event_id(resume_from, self.protocol)
                    else:
                        stream_id, after = str(self.replay_stream), self.replay_after
                    entries = await self.store.replay(stream_id, after)
                except (ValueError, ReplayError) as exc:
                    await _send_gone(send, str(exc))
                    return
            else:
                stream_id = self.stream_id if self.stream_id is not None else await self.store.open()
                abandoned: asyncio.Event | None = None
                abandon = self.on_abandoned
                if self.abandon_after is not None and abandon is None:
                    abandoned = asyncio.Event()  # the producer is stopped here (_produce)
                    abandon = abandoned.set
                producer = recording(self.store, stream_id, self._produce(abandoned))
                if self.abandon_after is not None and abandon is not None:
                    watch_readers(self.store, stream_id, producer, self.abandon_after, abandon)
                entries = await self.store.replay(stream_id, 0)
            frames = _with_ids(_tagged(stream_id, self.protocol), entries, self.protocol)
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        finished = await self._stream(frames, receive, send)
        if not finished and producer is not None and self.on_disconnect == "cancel":
            producer.cancel()
        if finished and self.background is not None:
            await self.background()

    # --- producing -----------------------------------------------------------

    async def _produce(self, abandoned: asyncio.Event | None = None) -> AsyncGenerator[bytes, None]:
        """The producer's items as SSE bytes, ended by an error event if it
        fails, or once ``abandoned`` is set (no client reads the stream)."""
        items = aiter_items(self.content)
        started = False
        try:
            async for item in items if abandoned is None else _until(items, abandoned):
                frame = self._write(item)
                started = started or bool(frame)
                yield frame
        except _AbandonedError:
            message = f"no client read the stream for {self.abandon_after:g} s"
            yield error_frame(self.protocol, message, started=started)
        except Exception:
            logger.exception("the producer of an event stream failed")
            yield error_frame(self.protocol, "the stream failed on the server", started=started)
        finally:
            await items.aclose()

    async def _discard_content(self) -> None:
        """A resumed stream does not run its producer: it is closed unstarted."""
        close = getattr(self.content, "aclose", None) or getattr(self.content, "close", None)
        if callable(close):
            result = close()
            if asyncio.iscoroutine(result):
                await result

    # --- writing -------------------------------------------------------------

    async def _stream(self, frames: AsyncGenerator[bytes, None], receive: Receive, send: Send) -> bool:
        """Writes the frames until they end (True) or the client leaves (False)."""
        writer = asyncio.ensure_future(self._write_all(frames, send))
        listener = asyncio.ensure_future(_wait_for_disconnect(receive))
        try:
            await asyncio.wait({writer, listener}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (writer, listener):
                task.cancel()
            for task in (writer, listener):
                with contextlib.suppress(asyncio.CancelledError, OSError):
                    await task
        return not writer.cancelled() and writer.exception() is None

    async def _write_all(self, frames: AsyncGenerator[bytes, None], send: Send) -> None:
        pending: asyncio.Future[bytes] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(frames))
                done, _ = await asyncio.wait({pending}, timeout=self.ping_interval)
                if not done:
                    await self._send(send, PING, more=True)
                    continue
                try:
                    frame = pending.result()
                except StopAsyncIteration:
                    break
                finally:
                    pending = None
                await self._send(send, frame, more=True)
            await self._send(send, b"", more=False)
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
            await frames.aclose()

    async def _send(self, send: Send, body: bytes, *, more: bool) -> None:
        message = {"type": "http.response.body", "body": body, "more_body": more}
        if self.send_timeout is None:
            await send(message)
            return
        try:
            await wait_within(send(message), self.send_timeout)
        except asyncio.TimeoutError:
            logger.info("a client took no write for %g s: let go", self.send_timeout)
            raise


class _AbandonedError(Exception):
    """No client read the stream for ``abandon_after`` seconds."""


async def _until(items: AsyncIterator[Any], stop: asyncio.Event) -> AsyncGenerator[Any, None]:
    """The items, until ``stop`` is set: then ``_AbandonedError``, the item being
    waited for given up."""
    stopped = asyncio.ensure_future(stop.wait())
    following: asyncio.Future[Any] | None = None
    try:
        while True:
            following = asyncio.ensure_future(items.__anext__())
            await asyncio.wait({following, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not following.done():
                raise _AbandonedError
            try:
                item = following.result()
            except StopAsyncIteration:
                return
            finally:
                following = None
            yield item
    finally:
        stopped.cancel()
        if following is not None and not following.done():
            following.cancel()
            with contextlib.suppress(BaseException):
                await following


async def _with_ids(
    stream_id: str, entries: AsyncIterator[tuple[int, bytes]], protocol: str | None
) -> AsyncGenerator[bytes, None]:
    """The stored events with their ids. A store that fails midway (a
    reader fallen behind what it keeps, Redis gone) ends the stream with the
    protocol's error event, not a response cut short."""
    try:
        async for number, event in entries:
            yield _event_id(stream_id, number) + event
    except (asyncio.CancelledError, GeneratorExit):
        raise
    except Exception as exc:
        logger.warning("the stream %s could not be read from its store: %r", stream_id, exc)
        yield error_frame(protocol, "the stream could not be read on from the server's store", started=True)
    finally:
        await closed(entries)


async def _wait_for_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return ""


async def _send_gone(send: Send, message: str) -> None:
    body = json.dumps({"error": {"code": "stream_gone", "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 410, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
