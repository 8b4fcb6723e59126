"""Feeding helpers shared by the SSE tests."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from types import ModuleType
from typing import Any


def as_tuples(events: Iterable[Any]) -> list[tuple[str, str, str, int | None]]:
    return [(ev.event, ev.data, ev.id, ev.retry) for ev in events]


def decode(backend: ModuleType, chunks: Iterable[bytes], **kwargs: Any) -> tuple[list[tuple], Any]:
    """Feeds every chunk, then closes; returns the events and the decoder."""
    decoder = backend.SSEDecoder(**kwargs)
    events = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return as_tuples(events), decoder


def split_at(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    bounds = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def as_sse(stream: bytes) -> bytes:
    """A stream as SSE: an NDJSON stream (a JSON text a line) becomes an
    event a line, carrying the same texts; an AWS event stream an event a
    message, carrying its event's JSON; SSE stays as it is."""
    if stream[:1] == b"\x00":
        from agentcodec._pure.eventstream import EventStreamDecoder
        from agentcodec._pure.framing import event_text

        messages = EventStreamDecoder(max_message_bytes=None).feed(stream)
        return b"".join(b"data: " + event_text(message).encode() + b"\n\n" for message in messages)
    if stream.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
        return stream
    return b"".join(b"data: " + line.rstrip(b"\r") + b"\n\n" for line in stream.split(b"\n") if line.strip())


def data_events(stream: bytes) -> list[Any]:
    """The JSON data of every event in an SSE stream (comments and ids aside)."""
    from agentcodec import SSEDecoder

    decoder = SSEDecoder(max_line_bytes=None, max_event_bytes=None)
    events = [*decoder.feed(as_sse(stream)), *decoder.close()]
    return [json.loads(event.data) for event in events if event.data != "[DONE]"]
