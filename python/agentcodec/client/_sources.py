"""Where a stream's bytes come from: an httpx or aiohttp response, a file-like
object, or any (async) iterable of bytes; which errors mean the connection
dropped; and how a source is let go."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

__all__ = ["aclose_source", "aiter_chunks", "close_source", "connection_errors", "iter_chunks"]

_READ_SIZE = 64 * 1024


def _refuse_text(source: Any) -> None:
    """A str or a path is no stream: say what to pass instead (iterating a
    str gives its characters, which would be refused one by one)."""
    if isinstance(source, (str, os.PathLike)):
        kind = "a str" if isinstance(source, str) else "a path"
        raise TypeError(
            f"cannot read a stream from {kind}: pass its bytes (text.encode()), or a file "
            "opened in binary mode (open(path, 'rb'))"
        )


def iter_chunks(source: Any) -> Iterator[bytes]:
    """The bytes of a synchronous source, as they arrive."""
    _refuse_text(source)
    if hasattr(source, "iter_bytes"):  # httpx.Response
        return iter(source.iter_bytes())
    read = getattr(source, "read1", None) or getattr(source, "read", None)
    if callable(read):  # a file, urllib's response
        return iter(lambda: read(_READ_SIZE), b"")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return iter((bytes(source),))
    try:
        return iter(source)
    except TypeError:
        raise TypeError(
            f"cannot read a stream from {type(source).__name__}: expected an httpx response, "
            "a file-like object or an iterable of bytes"
        ) from None


def aiter_chunks(source: Any) -> AsyncIterator[bytes]:
    """The bytes of an asynchronous source, as they arrive."""
    _refuse_text(source)
    if hasattr(source, "aiter_bytes"):  # httpx.Response of an AsyncClient
        return aiter(source.aiter_bytes())
    content: Any = getattr(source, "content", None)
    if hasattr(content, "iter_any"):  # aiohttp.ClientResponse
        return aiter(content.iter_any())
    if hasattr(source, "__aiter__"):
        return aiter(source)
    if isinstance(source, (bytes, bytearray, memoryview)) or hasattr(source, "__iter__"):
        return _from_sync(iter_chunks(source))
    raise TypeError(
        f"cannot read a stream from {type(source).__name__}: expected an httpx or aiohttp "
        "response or an (async) iterable of bytes"
    )


async def _from_sync(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def connection_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that say a connection dropped (or could not be made),
    of the HTTP libraries in use: a reconnection may mend them. The
    libraries are looked up, never imported: using one imports it."""
    errors: list[type[BaseException]] = [OSError, EOFError]
    httpx = sys.modules.get("httpx")
    if httpx is not None:
        errors.append(httpx.TransportError)
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None:
        errors += [aiohttp.ClientConnectionError, aiohttp.ClientPayloadError]
    return tuple(errors)


def close_source(source: Any) -> None:
    """Lets a synchronous source go (closes a response), if it can be."""
    close = getattr(source, "close", None)
    if callable(close):
        close()


async def aclose_source(source: Any) -> None:
    """Lets an asynchronous source go: ``aclose()`` (httpx, async
    generators), else ``close()`` (aiohttp, which drops the connection of
    a body not read to its end)."""
    for name in ("aclose", "close"):
        method = getattr(source, name, None)
        if callable(method):
            result = method()
            if inspect.isawaitable(result):
                await result
            return
