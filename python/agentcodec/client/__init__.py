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

Each is typed by the protocol's result: ``assemble(source, "agentscope")``
is an ``agentcodec.agentscope.AgentResponse``, ``connect(..., protocol=NAME)`` an
``EventStream`` of the protocol's events and result.

Nothing here imports an HTTP library: the one you pass in is used.
"""

from __future__ import annotations

from ._connect import aassemble, aconnect, assemble, connect
from ._stream import AsyncEventStream, EventStream

__all__ = ["AsyncEventStream", "EventStream", "aassemble", "aconnect", "assemble", "connect"]
