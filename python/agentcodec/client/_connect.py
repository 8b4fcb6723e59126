"""Opening a stream with an HTTP client (the request, the SSE headers, a
failed status raised as the client raises it, and the same request sent
again with ``Last-Event-ID`` when the connection drops), and reading one
whole. Given an assembler, each is typed by its events and result; given a
protocol's name, by ``Any``: a type checker cannot map a name to the
protocol's types without a list of every protocol, and the protocols are
listed once, in their registry. The protocol's assembler is the typed way:
``connect(..., assembler=agentcodec.agentscope.Assembler())``."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    asynccontextmanager,
    contextmanager,
)
from typing import TYPE_CHECKING, Any, TypeVar, overload
from urllib.parse import urljoin, urlsplit

from .. import _protocols
from .._errors import SSEError
from ..events import ProtocolName
from ._stream import AsyncEventStream, EventStream

if TYPE_CHECKING:
    from .._native import _Assembler

__all__ = ["aassemble", "aconnect", "assemble", "connect"]

_E = TypeVar("_E")
_R = TypeVar("_R")


def _headers(headers: Mapping[str, str] | None, last_event_id: str, protocol: str | None) -> dict[str, str]:
    merged = {"Accept": _protocols.media_type(protocol), "Cache-Control": "no-store"}
    merged.update(headers or {})
    if last_event_id:
        merged["Last-Event-ID"] = last_event_id
    return merged


class _Where:
    """Where a dropped stream is asked for again: the request as first sent,
    or, once a response named its stream's place (``Location``, as
    an agent server names a run it created and its SDK follows), a ``GET`` of it, if
    it is on the same origin (credentials go nowhere else)."""

    __slots__ = ("method", "request", "url")

    def __init__(self, method: str, url: str, request: dict[str, Any]) -> None:
        self.method, self.url, self.request = method, url, request

    def seen(self, response_url: Any, location: str | None) -> None:
        if not location:
            return
        base = urlsplit(str(response_url))
        target = urljoin(str(response_url), location)
        place = urlsplit(target)
        if (place.scheme, place.netloc) != (base.scheme, base.netloc):
            return
        body = ("json", "content", "data", "files", "params")
        self.method, self.url = "GET", target
        self.request = {key: value for key, value in self.request.items() if key not in body}


def _is_aiohttp(client: Any) -> bool:
    return type(client).__module__.split(".")[0] == "aiohttp"


def _is_async(client: Any) -> bool:
    """Whether the client sends asynchronously: an ``httpx.AsyncClient``
    (its ``send`` is a coroutine function) or an ``aiohttp.ClientSession``."""
    return _is_aiohttp(client) or inspect.iscoroutinefunction(getattr(client, "send", None))


def _check_stream(content_type: str | None, protocol: str | None) -> None:
    """Refuses a response that is no event stream (a JSON body answers a
    request that did not ask to stream), as httpx-sse does, before reading
    it as one, where it would give no events."""
    expected = _protocols.media_type(protocol)
    media_type = (content_type or "").partition(";")[0].strip().lower()
    if media_type not in _protocols.read_media_types(protocol):
        raise SSEError(
            f"expected a response of Content-Type {expected!r}, got {content_type or 'none'!r}"
            + (": did the request ask for a stream?" if media_type == "application/json" else "")
        )


@overload
def connect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: None = None,
    assembler: _Assembler[_E, _R],
    **options: Any,
) -> AbstractContextManager[EventStream[_E, _R]]: ...
@overload
def connect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None = None,
    assembler: None = None,
    **options: Any,
) -> AbstractContextManager[EventStream[Any, Any]]: ...
def connect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None = None,
    assembler: Any = None,
    headers: Mapping[str, str] | None = None,
    max_retries: int = 3,
    retry_delay: float = 1.0,
    **request: Any,
) -> AbstractContextManager[EventStream[Any, Any]]:
    """Sends a request with an ``httpx.Client`` and reads the response as an
    ``EventStream`` of ``protocol``; on a dropped connection the request is
    sent again with ``Last-Event-ID`` and the stream goes on. Keyword
    arguments beyond the stream's go to ``client.build_request`` (``json``,
    ``params``, ...). A response with an error status raises
    ``httpx.HTTPStatusError``, its body read; one that is not an event
    stream raises ``SSEError``. Given ``assembler=`` (the protocol's
    ``Assembler``, with options of its own), the stream reads into it and is
    typed by its events and result
    (``EventStream[agentcodec.agentscope.Event, agentcodec.agentscope.AgentResponse]``
    for ``assembler=agentcodec.agentscope.Assembler()``), and the request
    asks for that protocol's media type."""
    if protocol is not None:
        _protocols.check(protocol)
    if _is_async(client):
        raise TypeError(
            f"connect() takes an httpx.Client, not {type(client).__name__}: "
            "for an asynchronous client, use `async with aconnect(...)`"
        )
    return _connect(
        client,
        method,
        url,
        protocol=protocol,
        assembler=assembler,
        headers=headers,
        max_retries=max_retries,
        retry_delay=retry_delay,
        request=request,
    )


@contextmanager
def _connect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None,
    assembler: Any,
    headers: Mapping[str, str] | None,
    max_retries: int,
    retry_delay: float,
    request: dict[str, Any],
) -> Iterator[EventStream[Any, Any]]:
    where = _Where(method, url, request)
    # What is asked for and accepted: the protocol's media type, the
    # assembler's protocol's when an assembler is given alone.
    spoken = protocol if protocol is not None else _protocols.of_assembler(assembler)

    def open_stream(last_event_id: str) -> Any:
        sent = client.build_request(
            where.method, where.url, headers=_headers(headers, last_event_id, spoken), **where.request
        )
        response = client.send(sent, stream=True)
        where.seen(response.url, response.headers.get("location"))
        if response.is_error:
            response.read()
            response.close()
            response.raise_for_status()
        try:
            _check_stream(response.headers.get("content-type"), spoken)
        except SSEError:
            response.close()
            raise
        return response

    stream = EventStream(
        open_stream(""),
        protocol,
        assembler=assembler,
        reconnect=open_stream,
        max_retries=max_retries,
        retry_delay=retry_delay,
    )
    try:
        yield stream
    finally:
        stream.close()


@overload
def aconnect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: None = None,
    assembler: _Assembler[_E, _R],
    **options: Any,
) -> AbstractAsyncContextManager[AsyncEventStream[_E, _R]]: ...
@overload
def aconnect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None = None,
    assembler: None = None,
    **options: Any,
) -> AbstractAsyncContextManager[AsyncEventStream[Any, Any]]: ...
def aconnect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None = None,
    assembler: Any = None,
    headers: Mapping[str, str] | None = None,
    max_retries: int = 3,
    retry_delay: float = 1.0,
    **request: Any,
) -> AbstractAsyncContextManager[AsyncEventStream[Any, Any]]:
    """``connect`` for an ``httpx.AsyncClient`` or an ``aiohttp.ClientSession``
    (whose error statuses raise ``aiohttp.ClientResponseError``). Keyword
    arguments beyond the stream's go to the client's request. A response
    that is not an event stream raises ``SSEError``."""
    if protocol is not None:
        _protocols.check(protocol)
    if not _is_async(client):
        raise TypeError(
            f"aconnect() takes an httpx.AsyncClient or an aiohttp.ClientSession, not "
            f"{type(client).__name__}: for a synchronous client, use `with connect(...)`"
        )
    return _aconnect(
        client,
        method,
        url,
        protocol=protocol,
        assembler=assembler,
        headers=headers,
        max_retries=max_retries,
        retry_delay=retry_delay,
        request=request,
    )


@asynccontextmanager
async def _aconnect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: ProtocolName | None,
    assembler: Any,
    headers: Mapping[str, str] | None,
    max_retries: int,
    retry_delay: float,
    request: dict[str, Any],
) -> AsyncIterator[AsyncEventStream[Any, Any]]:
    where = _Where(method, url, request)
    # What is asked for and accepted: the protocol's media type, the
    # assembler's protocol's when an assembler is given alone.
    spoken = protocol if protocol is not None else _protocols.of_assembler(assembler)
    if _is_aiohttp(client):

        async def open_stream(last_event_id: str) -> Any:
            response = await client.request(
                where.method, where.url, headers=_headers(headers, last_event_id, spoken), **where.request
            )
            where.seen(response.url, response.headers.get("Location"))
            if response.status >= 400:
                await response.read()
                response.release()
                response.raise_for_status()
            try:
                _check_stream(response.headers.get("Content-Type"), spoken)
            except SSEError:
                response.release()
                raise
            return response

    else:

        async def open_stream(last_event_id: str) -> Any:
            sent = client.build_request(
                where.method, where.url, headers=_headers(headers, last_event_id, spoken), **where.request
            )
            response = await client.send(sent, stream=True)
            where.seen(response.url, response.headers.get("location"))
            if response.is_error:
                await response.aread()
                await response.aclose()
                response.raise_for_status()
            try:
                _check_stream(response.headers.get("content-type"), spoken)
            except SSEError:
                await response.aclose()
                raise
            return response

    stream = AsyncEventStream(
        await open_stream(""),
        protocol,
        assembler=assembler,
        reconnect=open_stream,
        max_retries=max_retries,
        retry_delay=retry_delay,
    )
    try:
        yield stream
    finally:
        await stream.aclose()


@overload
def assemble(source: Any, protocol: None = None, *, assembler: _Assembler[_E, _R], **options: Any) -> _R: ...
@overload
def assemble(
    source: Any, protocol: ProtocolName | None = None, *, assembler: None = None, **options: Any
) -> Any: ...
def assemble(
    source: Any, protocol: ProtocolName | None = None, *, assembler: Any = None, **options: Any
) -> Any:
    """Reads a whole stream from a synchronous source into the protocol's
    assembler (or the ``assembler`` given); returns its final result.
    ``options`` are the assembler's."""
    return EventStream(source, assembler=_assembler(protocol, assembler, options)).until_done()


@overload
async def aassemble(
    source: Any, protocol: None = None, *, assembler: _Assembler[_E, _R], **options: Any
) -> _R: ...
@overload
async def aassemble(
    source: Any, protocol: ProtocolName | None = None, *, assembler: None = None, **options: Any
) -> Any: ...
async def aassemble(
    source: Any, protocol: ProtocolName | None = None, *, assembler: Any = None, **options: Any
) -> Any:
    """``assemble`` for an asynchronous source."""
    return await AsyncEventStream(source, assembler=_assembler(protocol, assembler, options)).until_done()


def _assembler(protocol: ProtocolName | None, assembler: Any, options: dict[str, Any]) -> Any:
    """The assembler ``assemble`` reads into: the protocol's, or the one given."""
    if protocol is not None and assembler is None:
        return _protocols.assembler(protocol, **options)
    if protocol is None and assembler is not None:
        if options:
            raise TypeError("assemble() takes the assembler's options with a protocol, not with an assembler")
        return assembler
    raise TypeError("assemble() takes a protocol or an assembler, one of the two")
