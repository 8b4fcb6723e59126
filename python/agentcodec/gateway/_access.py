"""One HTTP exchange with a client, as the gateway observes it: what the
metrics count of a stream (opened, its events, a resume that found its
stream or not), and the access log's record once the response ends, its
fields as attributes for structured log handlers (``--access-log json``)."""

from __future__ import annotations

import logging
import time
from typing import Any

from ..server._response import PING
from ._metrics import Metrics

__all__ = ["Exchange", "access_logger"]

#: One record per request, at INFO, when its response ends: ``method``,
#: ``path``, ``status``, ``duration_ms``, ``protocol`` (a stream's),
#: ``events`` (the events a stream sent), ``client`` and ``request_id``
#: (the client's ``X-Request-Id``) as attributes.
access_logger = logging.getLogger("agentcodec.gateway.access")


def _header(scope: Any, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if bytes(key).lower() == name:
            return bytes(value).decode("latin-1")
    return None


class Exchange:
    """A request and its response, observed at the ASGI ``send``."""

    def __init__(self, scope: Any, protocol: str | None, metrics: Metrics) -> None:
        self._scope = scope
        self._protocol = protocol
        self._metrics = metrics
        self._started = time.perf_counter()
        self._resuming = protocol is not None and bool(_header(scope, b"last-event-id"))
        self._streaming = False
        self.status = 0
        self.events = 0

    def observe(self, send: Any) -> Any:
        """``send``, observed."""
        metrics, protocol = self._metrics, self._protocol

        async def observed(message: Any) -> None:
            kind = message["type"]
            if kind == "http.response.start":
                self.status = message.get("status", 0)
                self._streaming = protocol is not None and any(
                    bytes(name).lower() == b"content-type" and bytes(value).startswith(b"text/event-stream")
                    for name, value in message.get("headers", ())
                )
                if self._resuming:
                    metrics.resumes["hit" if self._streaming else "miss"] += 1
                if self._streaming:
                    metrics.streams_open[protocol] += 1  # type: ignore[index]
            elif kind == "http.response.body" and self._streaming:
                body = message.get("body", b"")
                if body and body != PING:
                    self.events += 1
                    metrics.events_sent[protocol] += 1  # type: ignore[index]
                if not message.get("more_body", False):
                    metrics.streams_open[protocol] -= 1  # type: ignore[index]
                    self._streaming = False
            await send(message)

        return observed

    def ended(self) -> None:
        """The response ended (or the client left): its stream, if still
        counted open, is not, and the access log has its record."""
        if self._streaming:
            self._metrics.streams_open[self._protocol] -= 1  # type: ignore[index]
            self._streaming = False
        if not access_logger.isEnabledFor(logging.INFO):
            return
        scope = self._scope
        client = scope.get("client")
        fields = {
            "method": scope.get("method", ""),
            "path": scope.get("path", ""),
            "status": self.status,
            "duration_ms": round((time.perf_counter() - self._started) * 1000, 3),
            "protocol": self._protocol,
            "events": self.events if self._protocol is not None else None,
            "client": f"{client[0]}:{client[1]}" if client else None,
            "request_id": _header(scope, b"x-request-id"),
        }
        access_logger.info(
            "%s %s %d %.1f ms%s",
            fields["method"],
            fields["path"],
            fields["status"],
            fields["duration_ms"],
            f" {self.events} events" if self._protocol is not None else "",
            extra=fields,
        )
