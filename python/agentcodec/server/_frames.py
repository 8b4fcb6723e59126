"""What a server's producer yields, as SSE bytes: its items written, cut into
single events where each needs an id of its own, and the event that ends a
stream whose producer failed."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from .. import _protocols
from .._backend import impl
from ._closing import closed
from ._replay import ReplayStore

__all__ = ["EventSplitter", "aiter_items", "error_frame", "frame_event", "item_writer", "record"]

logger = logging.getLogger("agentcodec.server")


def item_writer(protocol: str | None) -> Callable[[Any], bytes]:
    """Writes one produced item: bytes are SSE already (one or more whole
    events: a ``Transcoder``'s or builder's output); a mapping is an event
    of the protocol (a JSON ``data:`` event without one); a string is the
    data of one event (a line, in a protocol whose streams are lines)."""
    encode = _protocols.encoder(protocol) if protocol is not None else impl.encode_sse
    sse = _protocols.media_type(protocol) == "text/event-stream"

    def write(item: Any) -> bytes:
        if isinstance(item, (bytes, bytearray, memoryview)):
            return bytes(item)
        if isinstance(item, Mapping):
            return bytes(encode(item))
        if isinstance(item, str):
            # (a line, in a protocol whose streams are NDJSON)
            return bytes(impl.encode_sse(item)) if sse else (item + "\n").encode()
        raise TypeError(f"a stream item must be bytes, a mapping or a str, not {type(item).__name__}")

    return write


class EventSplitter:
    """Cuts SSE bytes into single events, each written again without its
    ``id`` (the store numbers them): what the producer writes in one
    piece, a client must be able to resume in the middle of."""

    def __init__(self) -> None:
        self._decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)

    def split(self, data: bytes) -> list[bytes]:
        return [frame_event(event) for event in self._decoder.feed(data)]

    def close(self) -> list[bytes]:
        return [frame_event(event) for event in self._decoder.close()]


def frame_event(event: Any) -> bytes:
    """A decoded SSE event written again, without its ``id``."""
    kind = None if event.event == "message" else event.event
    return bytes(impl.encode_sse(event.data, event=kind, retry=event.retry))


async def record(store: ReplayStore, stream_id: str, frames: AsyncIterator[bytes]) -> None:
    """Runs SSE bytes into the store, one event per entry, then finishes the
    stream, whatever happens: its readers must not wait for more forever."""
    splitter = EventSplitter()
    try:
        async for data in frames:
            # The events of one piece in one write (one round trip to Redis).
            events = splitter.split(data)
            if events:
                await store.extend(stream_id, events)
        events = splitter.close()
        if events:
            await store.extend(stream_id, events)
    except Exception:
        logger.exception("an event stream could not be recorded in the replay store")
    finally:
        try:
            await store.finish(stream_id)
        except Exception:
            logger.exception("an event stream could not be finished in the replay store")


def error_frame(protocol: str | None, message: str, *, started: bool) -> bytes:
    """The event that ends a stream whose producer failed: the protocol's
    own error event (RUN_ERROR, ``error``, ``response.failed``, ...), after
    the events that open a run when nothing was written yet (and what the
    protocol writes last, such as a ``[DONE]``); or an ``error`` event."""
    if protocol is not None:
        encoder = impl.NeutralEncoder(protocol)
        events = encoder.encode_events({"type": "run_failed", "code": "internal_error", "message": message})
        if events:
            write = _protocols.encoder(protocol)
            kept = events if not started else events[-1:]
            return b"".join(bytes(write(event)) for event in kept) + bytes(encoder.close())
    return bytes(impl.encode_sse({"error": {"code": "internal_error", "message": message}}, event="error"))


async def aiter_items(content: Any) -> AsyncGenerator[Any, None]:
    """The items of an async iterable, or of a synchronous one read in a
    worker thread (a blocking producer never stalls the event loop)."""
    if hasattr(content, "__aiter__"):
        try:
            async for item in content:
                yield item
        finally:
            # Leaving early closes the producer, so that its own cleanup runs now.
            await closed(content)
        return
    items: Iterator[Any] = iter(content)
    done = object()
    loop = asyncio.get_running_loop()
    pending: asyncio.Future[Any] | None = None
    try:
        while True:
            call = functools.partial(contextvars.copy_context().run, next, items, done)
            pending = loop.run_in_executor(None, call)
            # Shielded: a reader that leaves cancels the wait, not the call,
            # so that ``pending`` says when the producer is free to close.
            item = await asyncio.shield(pending)
            if item is done:
                return
            yield item
    finally:
        close = getattr(items, "close", None)
        if callable(close):
            if pending is not None and not pending.done():
                # ``next`` still runs in its thread: closing the generator
                # under it fails ("generator already executing") and leaves
                # its cleanup to the garbage collector. Close it once free.
                pending.add_done_callback(lambda _: loop.run_in_executor(None, close))
            else:
                close()
