"""Feeding helpers shared by the SSE tests."""

from __future__ import annotations

import itertools
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
