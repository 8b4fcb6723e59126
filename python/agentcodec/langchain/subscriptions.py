"""Which events a subscriber receives: channels, namespace prefixes, depth."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .types import CHANNELS

__all__ = ["Subscription", "event_channel"]


def event_channel(event: dict[str, Any]) -> str | None:
    """The channel an event belongs to: its method, but ``input`` for
    ``input.requested`` and ``custom:<name>`` for custom events."""
    method = event.get("method")
    if not isinstance(method, str):
        return None
    if method == "input.requested":
        return "input"
    if method == "custom":
        params = event.get("params")
        data = params.get("data") if isinstance(params, dict) else None
        name = data.get("name") if isinstance(data, dict) else None
        return f"custom:{name}" if isinstance(name, str) else "custom"
    return method


class Subscription:
    """A subscriber's filter, as an ``EventStreamRequest`` or
    ``subscription.subscribe`` gives it.

    ``namespaces`` are prefixes (``[]`` is the root, and every namespace
    starts with it); ``depth`` is how far below a prefix an event may be
    (``0``: the prefix itself). Without namespaces, the root is the prefix.
    """

    __slots__ = ("channels", "depth", "namespaces")

    def __init__(
        self,
        channels: Iterable[str],
        namespaces: Iterable[Sequence[str]] | None = None,
        depth: int | None = None,
    ) -> None:
        # What a request gives comes from JSON: any type, each refused with a ValueError.
        if isinstance(channels, (str, bytes)) or not isinstance(channels, Iterable):
            raise ValueError(f"channels is a list of channel names, not {channels!r}")
        listed = list(channels)
        for channel in listed:
            if not isinstance(channel, str) or not (
                channel in CHANNELS or (channel.startswith("custom:") and len(channel) > len("custom:"))
            ):
                raise ValueError(f"unknown channel {channel!r}")
        self.channels = frozenset(listed)
        if not self.channels:
            raise ValueError("a subscription needs at least one channel")
        if namespaces is not None and (
            isinstance(namespaces, (str, bytes)) or not isinstance(namespaces, Iterable)
        ):
            raise ValueError(f"namespaces is a list of namespaces, not {namespaces!r}")
        prefixes = list(namespaces) if namespaces else [[]]
        for prefix in prefixes:
            if not isinstance(prefix, (list, tuple)) or not all(isinstance(part, str) for part in prefix):
                raise ValueError(f"a namespace is a list of str, not {prefix!r}")
        self.namespaces = [tuple(prefix) for prefix in prefixes]
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
            raise ValueError(f"depth must be a non-negative int or None, not {depth!r}")
        self.depth = depth

    @classmethod
    def from_request(cls, request: dict[str, Any]) -> Subscription:
        """From an ``EventStreamRequest`` or ``subscription.subscribe`` params."""
        return cls(request.get("channels") or (), request.get("namespaces"), request.get("depth"))

    def matches(self, event: dict[str, Any]) -> bool:
        """Whether the subscriber receives this event."""
        if event.get("type", "event") != "event":
            return False
        channel = event_channel(event)
        if channel is None:
            return False
        if channel not in self.channels and not (channel.startswith("custom") and "custom" in self.channels):
            return False
        params = event.get("params")
        namespace = params.get("namespace", []) if isinstance(params, dict) else []
        if not isinstance(namespace, list):
            return False
        for prefix in self.namespaces:
            if tuple(namespace[: len(prefix)]) == prefix and (
                self.depth is None or len(namespace) - len(prefix) <= self.depth
            ):
                return True
        return False
