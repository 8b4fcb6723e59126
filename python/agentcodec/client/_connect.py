"""Opening a stream with an HTTP client: the request, the SSE headers, a
failed status raised as the client raises it, and the same request sent
again with ``Last-Event-ID`` when the connection drops."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from .. import _protocols
from .._errors import SSEError
from ..events import ProtocolName
from ._stream import AsyncEventStream, EventStream

__all__ = ["aconnect", "connect"]


def _headers(headers: Mapping[str, str] | None, last_event_id: str) -> dict[str, str]:
    merged = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
    merged.update(headers or {})
    if last_event_id:
        merged["Last-Event-ID"] = last_event_id
    return merged


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
    if media_type != expected:
        raise SSEError(
            f"expected a response of Content-Type {expected!r}, got {content_type or 'none'!r}"
            + (": did the request ask for a stream?" if media_type == "application/json" else "")
        )


@contextmanager
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
) -> Iterator[EventStream]:
    """Sends a request with an ``httpx.Client`` and reads the response as an
    ``EventStream`` of ``protocol``; on a dropped connection the request is
    sent again with ``Last-Event-ID`` and the stream goes on. Keyword
    arguments beyond the stream's go to ``client.build_request`` (``json``,
    ``params``, ...). A response with an error status raises
    ``httpx.HTTPStatusError``, its body read; one that is not an event
    stream raises ``SSEError``."""
    if protocol is not None:
        _protocols.check(protocol)
    if _is_async(client):
        raise TypeError(
            f"connect() takes an httpx.Client, not {type(client).__name__}: "
            "for an asynchronous client, use `async with aconnect(...)`"
        )

    def open_stream(last_event_id: str) -> Any:
        sent = client.build_request(method, url, headers=_headers(headers, last_event_id), **request)
        response = client.send(sent, stream=True)
        if response.is_error:
            response.read()
            response.close()
            response.raise_for_status()
        try:
            _check_stream(response.headers.get("content-type"), protocol)
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


@asynccontextmanager
async def aconnect(
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
) -> AsyncIterator[AsyncEventStream]:
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
    if _is_aiohttp(client):

        async def open_stream(last_event_id: str) -> Any:
            response = await client.request(method, url, headers=_headers(headers, last_event_id), **request)
            if response.status >= 400:
                await response.read()
                response.release()
                response.raise_for_status()
            try:
                _check_stream(response.headers.get("Content-Type"), protocol)
            except SSEError:
                response.release()
                raise
            return response

    else:

        async def open_stream(last_event_id: str) -> Any:
            sent = client.build_request(method, url, headers=_headers(headers, last_event_id), **request)
            response = await client.send(sent, stream=True)
            if response.is_error:
                await response.aread()
                await response.aclose()
                response.raise_for_status()
            try:
                _check_stream(response.headers.get("content-type"), protocol)
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
