"""The upstream's Agent API stream on its way to a client: passed through
whole events at a time, or converted into another protocol; either way,
a stream that stops before its run ends (the upstream failed midway, or
closed early) ends the run as failed, in the client's protocol."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from .. import _protocols
from .._backend import impl
from .._vocabulary import tables
from ..server._closing import closed
from ..server._frames import frame_event
from ._timeouts import RunCancelledError, RunStoppedError

__all__ = ["converted", "passed_through"]

logger = logging.getLogger("agentcodec.gateway")


def _failed(message: str) -> dict[str, Any]:
    """The Agent API event that ends a run whose upstream failed midway:
    each target's encoder then closes what is open in its own terms."""
    return {"object": "response", "status": "failed", "error": {"code": "upstream_error", "message": message}}


def _fail_conversion(transcoder: Any, message: str = "") -> bytes:
    """The target's end of a run that failed upstream, in its own terms. Given
    decoded, so that it reaches the encoder even after the source's framing
    went past a limit (the Transcoder then takes no more bytes)."""
    frame = _protocols.encoder(transcoder.target)
    return b"".join(frame(event) for event in transcoder.feed_event(_failed(message or _DIED)))


def _cancel_conversion(transcoder: Any) -> bytes:
    """The target's end of a run its client cancelled, in its own terms (a
    cancelled status, where the target has one): an Agent API response that
    says so, given decoded."""
    frame = _protocols.encoder(transcoder.target)
    cancelled = {"object": "response", "status": "canceled"}
    return b"".join(frame(event) for event in transcoder.feed_event(cancelled))


def _why(exc: Exception) -> str:
    """What a client is told of a stream that failed midway: a run the
    gateway stopped says why (a timeout, the gateway stopping); anything
    else is the upstream's, and only the log has it."""
    return str(exc) if isinstance(exc, RunStoppedError) else _DIED


_DIED = "the agent's stream ended before its run did"
# The statuses a response event ends its run with.
_TERMINAL = frozenset(tables("agentscope")["TERMINAL_STATUSES"])


def _event_json(data: str | None) -> dict[str, Any]:
    try:
        value = json.loads(data) if data is not None else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class _RunWatch:
    """Frames the upstream's Agent API stream as it goes by, and keeps what
    ending its run needs: its first and last events, and whether a response
    event ended it. A stream that stops without that end, whether the
    upstream dropped it or closed it cleanly (an empty, JSON or HTML body
    too), is ended as failed by the gateway. Only events that name a
    response are read as JSON."""

    def __init__(self) -> None:
        self._decoder = impl.SSEDecoder(max_line_bytes=None, max_event_bytes=None)
        self.first: str | None = None
        self.last: str | None = None
        self.ended = False

    def feed(self, chunk: bytes) -> list[Any]:
        return self._seen(self._decoder.feed(chunk))

    def close(self) -> list[Any]:
        return self._seen(self._decoder.close())

    def _seen(self, events: list[Any]) -> list[Any]:
        if events:
            self.first = events[0].data if self.first is None else self.first
            self.last = events[-1].data
            for event in events:
                if '"response"' in event.data:
                    found = _event_json(event.data)
                    if found.get("object") == "response" and found.get("status") in _TERMINAL:
                        self.ended = True
        return events

    def failed_event(self, message: str = _DIED) -> bytes:
        """The same response, failed, numbered on from the last event."""
        return bytes(impl.encode_sse(self._ending(_failed(message))))

    def cancelled_event(self) -> bytes:
        """The same response, canceled, numbered on from the last event."""
        return bytes(impl.encode_sse(self._ending({"object": "response", "status": "canceled"})))

    def _ending(self, end: dict[str, Any]) -> dict[str, Any]:
        started = _event_json(self.first)
        response_id = started.get("id") if started.get("object") == "response" else None
        number = _event_json(self.last).get("sequence_number")
        event: dict[str, Any] = {}
        if isinstance(number, int) and not isinstance(number, bool):
            event["sequence_number"] = number + 1
        if isinstance(response_id, str):
            event["id"] = response_id
        event.update(end)
        return event


async def passed_through(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The upstream's Agent API events as it writes them, whole events only,
    so that a stream that stops before its run ends (the upstream failed
    midway, or closed early) ends with the same response's ``failed`` event,
    numbered on from the last one, as the converted endpoints do."""
    watch = _RunWatch()
    try:
        try:
            async for chunk in chunks:
                events = watch.feed(chunk)
                if events:
                    yield b"".join(frame_event(event) for event in events)
            tail = watch.close()
            if tail:
                yield b"".join(frame_event(event) for event in tail)
            if not watch.ended:
                logger.warning("the upstream stream ended before its run did")
                yield watch.failed_event()
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except RunCancelledError:
            yield watch.cancelled_event()
        except Exception as exc:
            logger.warning("the upstream stream failed midway: %r", exc)
            yield watch.failed_event(_why(exc))
    finally:
        await closed(chunks)


async def converted(
    chunks: AsyncIterator[bytes],
    transcoder: Any,
    on_losses: Callable[[list[dict[str, Any]]], None] | None = None,
) -> AsyncIterator[bytes]:
    """The upstream's bytes through a Transcoder. A stream that stops before
    its run ends (the upstream gone or closed early, bytes that are no Agent
    API stream) ends the run as failed in the target protocol, with
    everything converted before it. ``on_losses`` is given what the
    conversion could not carry, once it stops."""
    watch = _RunWatch()
    try:
        try:
            async for chunk in chunks:
                watch.feed(chunk)
                out = transcoder.feed(chunk)
                if out:
                    yield out
            watch.close()
            if not watch.ended:
                logger.warning("the upstream stream ended before its run did")
                yield _fail_conversion(transcoder)
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except RunCancelledError:
            yield _cancel_conversion(transcoder)
        except Exception as exc:
            # Logged, not sent: the client learns the run failed, not the gateway's internals.
            logger.warning("the upstream stream failed midway: %r", exc)
            yield _fail_conversion(transcoder, _why(exc))
        yield transcoder.close()
    finally:
        if on_losses is not None:
            on_losses(transcoder.losses)
        await closed(chunks)
