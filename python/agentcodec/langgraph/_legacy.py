"""The legacy ``messages`` stream mode, made of ``messages-tuple`` events as
langgraph-api makes it (``stream_mode="messages"`` without
``"messages-tuple"``): each message's first event is preceded by a
``messages/metadata`` event (``{id: {"metadata": ...}}``); each chunk is
answered with ``messages/partial`` holding the message so far (its chunks
added as langchain-core adds them, made a message: ``type: "ai"``, tool
calls parsed as far as their arguments go), and a whole message (a tool's)
with ``messages/complete``. A message is keyed by its id alone, as the
server keys it: the empty chunk langchain-core ends a message with, which
has its run's id, is a message of its own there."""

from __future__ import annotations

from typing import Any

from .._backend import impl
from .._pure.langgraph.wire import CHUNK_TYPES

__all__ = ["LegacyMessages"]


class LegacyMessages:
    """One run's ``messages`` events rewritten for the legacy mode."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        # Each message's chunks, added up in an assembler of its own, so that
        # writing a message costs its own size, not the run's.
        self._held: dict[str, Any] = {}

    def rewrite(self, data: Any) -> bytes:
        """The events a ``messages`` event's ``[message, metadata]`` pair
        becomes, as SSE."""
        message, metadata = data
        message_id = message.get("id")
        key = message_id if isinstance(message_id, str) else ""
        out = []
        assembler = self._held.get(key)
        if assembler is None:
            assembler = self._held[key] = impl.LangGraphAssembler()
            out.append(bytes(impl.encode_sse({key: {"metadata": metadata}}, event="messages/metadata")))
        assembler.feed_event({"event": "messages", "data": data})
        event = "messages/partial" if message.get("type") in CHUNK_TYPES else "messages/complete"
        out.append(bytes(impl.encode_sse(assembler.messages[-1:], event=event)))
        return b"".join(out)
