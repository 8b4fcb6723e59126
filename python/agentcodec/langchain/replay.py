"""A server's replay buffer: the recent events of one thread, replayed to a
client that reconnects with the last sequence number it saw."""

from __future__ import annotations

from collections import deque
from typing import Any

from .._pure.langchain.errors import ResumeGapError
from .subscriptions import Subscription

__all__ = ["ReplayBuffer"]


class ReplayBuffer:
    """A bounded ring of one thread's events, ordered by ``seq``.

    ``replay(since)`` returns the buffered events after ``since``. When
    events after ``since`` have already been dropped, it raises
    ``ResumeGapError`` (with ``missed`` and a ready ``resume_gap`` response)
    instead of replaying with a silent hole.
    """

    def __init__(self, maxlen: int = 10_000) -> None:
        if isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen < 1:
            raise ValueError(f"maxlen must be a positive int, not {maxlen!r}")
        self._events: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._last_seq = 0
        # The seq of the newest event dropped to make room, if any.
        self._dropped_through: int | None = None

    def __len__(self) -> int:
        return len(self._events)

    @property
    def last_seq(self) -> int:
        """The newest sequence number (0 before any event)."""
        return self._last_seq

    @property
    def min_available_seq(self) -> int:
        """The oldest sequence number that can still be replayed."""
        if self._events:
            return int(self._events[0]["seq"])
        return self._last_seq + 1

    def append(self, event: dict[str, Any]) -> dict[str, Any]:
        """Buffers an event. One without ``seq`` gets the next number; one
        with a ``seq`` must come after the last."""
        seq = event.get("seq")
        if seq is None:
            event = {**event, "seq": self._last_seq + 1}
            seq = self._last_seq + 1
        elif isinstance(seq, bool) or not isinstance(seq, int) or seq <= self._last_seq:
            raise ValueError(f"seq must be an int after {self._last_seq}, not {seq!r}")
        if len(self._events) == self._events.maxlen:
            self._dropped_through = int(self._events[0]["seq"])
        self._events.append(event)
        self._last_seq = seq
        return event

    def replay(self, since: int, subscription: Subscription | None = None) -> list[dict[str, Any]]:
        """The buffered events with ``seq > since`` that the subscription
        matches, oldest first."""
        if isinstance(since, bool) or not isinstance(since, int) or since < 0:
            raise ValueError(f"since must be a non-negative int, not {since!r}")
        if self._dropped_through is not None and since < self._dropped_through:
            raise ResumeGapError(since, self.min_available_seq)
        newer: list[dict[str, Any]] = []
        for event in reversed(self._events):
            if event["seq"] <= since:
                break
            if subscription is None or subscription.matches(event):
                newer.append(event)
        newer.reverse()
        return newer
