"""Serving streams: an ASGI response that writes any producer's events as
Server-Sent Events, with keep-alive comments, a producer stopped when its
client leaves, and ``Last-Event-ID`` resume from a replay store.

- ``EventStreamResponse(content, protocol=..., store=...)``: return it from
  a Starlette or FastAPI endpoint, or call it as any ASGI app.
- ``MemoryReplayStore`` (this process) and ``RedisReplayStore`` (Redis
  Streams, shared by replicas; ``pip install agentcodec[redis]``) behind
  one interface, ``ReplayStore``.
"""

from __future__ import annotations

from ._redis import RedisReplayStore
from ._replay import MemoryReplayStore, ReplayError, ReplayStore
from ._response import EventStreamResponse

__all__ = ["EventStreamResponse", "MemoryReplayStore", "RedisReplayStore", "ReplayError", "ReplayStore"]
