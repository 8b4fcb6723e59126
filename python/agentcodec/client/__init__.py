"""Reading streams as a client: events as they arrive from an httpx or
aiohttp response, a file or any (async) iterable of bytes, assembled as they
pass, resumed with ``Last-Event-ID`` when the connection drops.

- ``connect(client, method, url, protocol=...)`` (an ``httpx.Client``) and
  ``aconnect(...)`` (an ``httpx.AsyncClient`` or ``aiohttp.ClientSession``):
  context managers that send the request and give the stream, reconnecting
  on their own.
- ``EventStream`` / ``AsyncEventStream``: the same over a response or
  iterable you already have; iterate for the protocol's events, or call
  ``until_done()`` for the final result (the SDKs' ``get_final_*`` habit).
- ``assemble(source, protocol)`` / ``aassemble(...)``: a whole stream into
  its final result, in one call.

Nothing here imports an HTTP library: the one you pass in is used.
"""

from __future__ import annotations

from typing import Any

from .. import _protocols
from ..events import ProtocolName
from ._connect import aconnect, connect
from ._stream import AsyncEventStream, EventStream

__all__ = ["AsyncEventStream", "EventStream", "aassemble", "aconnect", "assemble", "connect"]


def assemble(source: Any, protocol: ProtocolName, **options: Any) -> Any:
    """Reads a whole stream from a synchronous source into the protocol's
    assembler; returns its final result. ``options`` are the assembler's."""
    return EventStream(source, assembler=_protocols.assembler(protocol, **options)).until_done()


async def aassemble(source: Any, protocol: ProtocolName, **options: Any) -> Any:
    """``assemble`` for an asynchronous source."""
    return await AsyncEventStream(source, assembler=_protocols.assembler(protocol, **options)).until_done()
