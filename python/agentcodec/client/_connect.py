"""Opening a stream with an HTTP client: the request, the SSE headers, a
failed status raised as the client raises it, and the same request sent
again with ``Last-Event-ID`` when the connection drops."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from .. import _protocols
from ._stream import AsyncEventStream, EventStream

__all__ = ["aconnect", "connect"]


def _headers(headers: Mapping[str, str] | None, last_event_id: str) -> dict[str, str]:
    merged = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
    merged.update(headers or {})
    if last_event_id:
        merged["Last-Event-ID"] = last_event_id
    return merged


@contextmanager
def connect(
    client: Any,
    method: str,
    url: str,
    *,
    protocol: str | None = None,
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
    ``httpx.HTTPStatusError``, its body read."""
    if protocol is not None:
        _protocols.check(protocol)

    def open_stream(last_event_id: str) -> Any:
        sent = client.build_request(method, url, headers=_headers(headers, last_event_id), **request)
        response = client.send(sent, stream=True)
        if response.is_error:
            response.read()
            response.close()
            response.raise_for_status()
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
    protocol: str | None = None,
    assembler: Any = None,
    headers: Mapping[str, str] | None = None,
    max_retries: int = 3,
    retry_delay: float = 1.0,
    **request: Any,
) -> AsyncIterator[AsyncEventStream]:
    """``connect`` for an ``httpx.AsyncClient`` or an ``aiohttp.ClientSession``
    (whose error statuses raise ``aiohttp.ClientResponseError``). Keyword
    arguments beyond the stream's go to the client's request."""
    if protocol is not None:
        _protocols.check(protocol)
    if type(client).__module__.split(".")[0] == "aiohttp":

        async def open_stream(last_event_id: str) -> Any:
            response = await client.request(method, url, headers=_headers(headers, last_event_id), **request)
            if response.status >= 400:
                await response.read()
                response.release()
                response.raise_for_status()
            return response

    else:

        async def open_stream(last_event_id: str) -> Any:
            sent = client.build_request(method, url, headers=_headers(headers, last_event_id), **request)
            response = await client.send(sent, stream=True)
            if response.is_error:
                await response.aread()
                await response.aclose()
                response.raise_for_status()
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
