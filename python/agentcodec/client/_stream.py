"""A stream read from a source: its events as they arrive, assembled as they
pass, and a dropped connection mended by resuming after the last event ID."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from .. import _protocols
from .._backend import impl
from ..events import ProtocolName
from ._sources import aclose_source, aiter_chunks, close_source, connection_errors, iter_chunks

if TYPE_CHECKING:
    from .._native import _Assembler

__all__ = ["AsyncEventStream", "EventStream"]

_UNSET: Any = object()
#: The protocol's events, what iterating gives, and the assembler's final
#: result, what ``until_done()`` gives.
_E = TypeVar("_E")
_R = TypeVar("_R")


class _Reading:
    """What both streams share: the assembler (or, with no protocol, an SSE
    decoder) the bytes go into, and how long to wait before reconnecting."""

    def __init__(self, protocol: ProtocolName | None, assembler: Any, retry_delay: float) -> None:
        if assembler is None and protocol is not None:
            assembler = _protocols.assembler(protocol)
        if assembler is not None and not hasattr(assembler, "feed_with_events"):
            raise TypeError(f"{type(assembler).__name__} cannot be read event by event (no feed_with_events)")
        if isinstance(retry_delay, bool) or not isinstance(retry_delay, (int, float)) or retry_delay < 0:
            raise ValueError(f"retry_delay must be a non-negative number of seconds, not {retry_delay!r}")
        self.assembler: Any = assembler
        self.decoder: Any = impl.SSEDecoder() if assembler is None else None
        # What the bytes go into: both keep the last event ID and retry.
        reader: Any = assembler if assembler is not None else self.decoder
        # What the bytes go into: both keep the last event ID and retry.
        self._reader = reader
        #: A chunk in, the events it completed out (a list), per chunk with no detour.
        self.feed: Callable[[bytes], list[Any]] = (
            reader.feed if assembler is None else reader.feed_with_events
        )
        self.retry_delay = float(retry_delay)
        self.result: Any = _UNSET

    def cut(self) -> list[Any]:
        """The connection dropped: an unterminated event is dropped with it."""
        if self.assembler is not None:
            self.assembler.reconnect()
            return []
        return list(self.decoder.close())

    def end(self) -> list[Any]:
        """The stream ended: the events it still holds."""
        if self.assembler is not None:
            if self.result is _UNSET:
                self.result = self.assembler.close()
            return []
        return list(self.decoder.close())

    @property
    def last_event_id(self) -> str:
        return str(self._reader.last_event_id)

    def delay(self) -> float:
        """Seconds to wait before reconnecting: the stream's `retry`, if it set one."""
        retry = self._reader.retry
        return self.retry_delay if retry is None else retry / 1000


def _check_retries(max_retries: int) -> int:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a non-negative int, not {max_retries!r}")
    return max_retries


class EventStream(Generic[_E, _R]):
    """A stream of events read from a synchronous source (an httpx response,
    a file-like object, any iterable of bytes), in any chunking.

    With a ``protocol`` (``"agentscope"``, ``"langchain"``, ...: the names of
    ``agentcodec.events.PROTOCOLS``), iterating yields the protocol's events
    as dicts while its assembler (``.assembler``) assembles them, and
    ``until_done()`` returns what the assembler's ``close()`` gives: the
    final response, message or run. Without one, it yields ``SSEEvent``.

    ``reconnect(last_event_id)``, when given, opens the stream again after
    a dropped connection (one of the HTTP library's transport errors, or
    ``OSError``); the stream goes on after the last event ID, waiting the
    stream's ``retry`` (else ``retry_delay`` seconds) first, up to
    ``max_retries`` times in a row without an event between. A stream
    without event IDs cannot be resumed: its error is raised.

    Given an ``assembler``, the stream is typed by its result
    and events (``EventStream[agentcodec.agentscope.Event, agentcodec.agentscope.AgentResponse]``);
    ``connect`` and ``assemble`` are typed so too.
    """

    @overload
    def __init__(
        self: EventStream[_E, _R],
        source: Any,
        protocol: None = None,
        *,
        assembler: _Assembler[_E, _R],
        reconnect: Callable[[str], Any] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None: ...
    @overload
    def __init__(
        self: EventStream[Any, Any],
        source: Any,
        protocol: ProtocolName | None = None,
        *,
        assembler: None = None,
        reconnect: Callable[[str], Any] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None: ...
    def __init__(
        self,
        source: Any,
        protocol: ProtocolName | None = None,
        *,
        assembler: Any = None,
        reconnect: Callable[[str], Any] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None:
        self._reading = _Reading(protocol, assembler, retry_delay)
        self._max_retries = _check_retries(max_retries)
        self._reconnect = reconnect
        self._source = source
        self._chunks: Iterator[bytes] | None = None
        self._reading_now = False
        self._done = False
        self.reconnections = 0
        """How many times the stream was resumed on a new connection."""

    @property
    def assembler(self) -> _Assembler[_E, _R] | None:
        """The assembler the events go into (None without a protocol)."""
        assembler: _Assembler[_E, _R] | None = self._reading.assembler
        return assembler

    @property
    def last_event_id(self) -> str:
        """The last event ID seen, what a reconnection sends as ``Last-Event-ID``."""
        return self._reading.last_event_id

    def __iter__(self) -> Iterator[_E]:
        if self._reading_now:
            raise RuntimeError("the stream is already being read")
        if self._done:
            return
        self._reading_now = True
        try:
            yield from self._events()
        finally:
            self._reading_now = False

    def _events(self) -> Iterator[Any]:
        errors = connection_errors()
        failures = 0
        while True:
            try:
                if self._chunks is None:
                    self._chunks = iter_chunks(self._source)
                for chunk in self._chunks:
                    events = self._reading.feed(chunk)
                    if events:
                        failures = 0
                        yield from events
            except errors as exc:
                events, failures = self._resume(exc, failures + 1, errors)
                yield from events
                continue
            break
        self._done = True
        yield from self._reading.end()

    def _resume(
        self, exc: BaseException, failures: int, errors: tuple[type[BaseException], ...]
    ) -> tuple[list[Any], int]:
        """Opens the stream again after the last event ID, retrying while
        connecting fails; returns the events the cut released and the
        failures counted so far."""
        if self._reconnect is None or not self.last_event_id:
            raise exc
        close_source(self._source)
        self._chunks = iter(())
        events = self._reading.cut()
        while failures <= self._max_retries:
            time.sleep(self._reading.delay())
            try:
                self._source = self._reconnect(self.last_event_id)
            except errors as again:
                exc, failures = again, failures + 1
                continue
            self._chunks = None
            self.reconnections += 1
            return events, failures
        raise exc

    def until_done(self) -> _R:
        """Reads the rest of the stream; returns the assembler's final result
        (None without a protocol)."""
        for _ in self:
            pass
        self._reading.end()
        return cast(_R, None if self._reading.assembler is None else self._reading.result)

    def close(self) -> None:
        """Lets the source go (closes the response)."""
        close_source(self._source)

    def __enter__(self) -> EventStream[_E, _R]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncEventStream(Generic[_E, _R]):
    """``EventStream`` for asynchronous sources: an httpx response of an
    ``AsyncClient``, an aiohttp response, any async iterable of bytes.
    ``reconnect`` may be a coroutine function."""

    @overload
    def __init__(
        self: AsyncEventStream[_E, _R],
        source: Any,
        protocol: None = None,
        *,
        assembler: _Assembler[_E, _R],
        reconnect: Callable[[str], Any | Awaitable[Any]] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None: ...
    @overload
    def __init__(
        self: AsyncEventStream[Any, Any],
        source: Any,
        protocol: ProtocolName | None = None,
        *,
        assembler: None = None,
        reconnect: Callable[[str], Any | Awaitable[Any]] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None: ...
    def __init__(
        self,
        source: Any,
        protocol: ProtocolName | None = None,
        *,
        assembler: Any = None,
        reconnect: Callable[[str], Any | Awaitable[Any]] | None = None,
        max_retries: int = 3,
        retry_delay: float = 1.0,
    ) -> None:
        self._reading = _Reading(protocol, assembler, retry_delay)
        self._max_retries = _check_retries(max_retries)
        self._reconnect = reconnect
        self._source = source
        self._chunks: AsyncIterator[bytes] | None = None
        self._reading_now = False
        self._done = False
        self.reconnections = 0
        """How many times the stream was resumed on a new connection."""

    @property
    def assembler(self) -> _Assembler[_E, _R] | None:
        """The assembler the events go into (None without a protocol)."""
        assembler: _Assembler[_E, _R] | None = self._reading.assembler
        return assembler

    @property
    def last_event_id(self) -> str:
        """The last event ID seen, what a reconnection sends as ``Last-Event-ID``."""
        return self._reading.last_event_id

    def __aiter__(self) -> AsyncIterator[_E]:
        if self._reading_now:
            raise RuntimeError("the stream is already being read")
        return self._events()

    async def _events(self) -> AsyncIterator[Any]:
        if self._done:
            return
        self._reading_now = True
        try:
            errors = connection_errors()
            failures = 0
            while True:
                try:
                    if self._chunks is None:
                        self._chunks = aiter_chunks(self._source)
                    async for chunk in self._chunks:
                        events = self._reading.feed(chunk)
                        if events:
                            failures = 0
                            for event in events:
                                yield event
                except errors as exc:
                    events, failures = await self._resume(exc, failures + 1, errors)
                    for event in events:
                        yield event
                    continue
                break
            self._done = True
            for event in self._reading.end():
                yield event
        finally:
            self._reading_now = False

    async def _resume(
        self, exc: BaseException, failures: int, errors: tuple[type[BaseException], ...]
    ) -> tuple[list[Any], int]:
        """``EventStream._resume``, awaiting."""
        if self._reconnect is None or not self.last_event_id:
            raise exc
        await aclose_source(self._source)
        self._chunks = _nothing()
        events = self._reading.cut()
        while failures <= self._max_retries:
            await asyncio.sleep(self._reading.delay())
            try:
                source = self._reconnect(self.last_event_id)
                self._source = await source if inspect.isawaitable(source) else source
            except errors as again:
                exc, failures = again, failures + 1
                continue
            self._chunks = None
            self.reconnections += 1
            return events, failures
        raise exc

    async def until_done(self) -> _R:
        """Reads the rest of the stream; returns the assembler's final result
        (None without a protocol)."""
        async for _ in self:
            pass
        self._reading.end()
        return cast(_R, None if self._reading.assembler is None else self._reading.result)

    async def aclose(self) -> None:
        """Lets the source go (closes the response)."""
        await aclose_source(self._source)

    async def __aenter__(self) -> AsyncEventStream[_E, _R]:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield  # an async generator that yields nothing
