"""Where the gateway's agent runs: an AgentScope ``/process`` server over
HTTP, or anything else that answers an AgentRequest with the bytes of an
Agent API stream."""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any, Protocol

import httpx

try:
    from httpx import create_ssl_context as _create_ssl_context
except ImportError:  # httpx 0.27, where it is not yet public
    from httpx._config import create_ssl_context as _create_ssl_context

__all__ = ["ProcessUpstream", "Upstream", "UpstreamError"]

logger = logging.getLogger("agentcodec.gateway")

# What a server closing a kept-alive connection under a request looks like.
_DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)

# The connection pools requests go out on, in turn (see ProcessUpstream).
_POOLS = 16

# Request headers a client sends that the agent behind the gateway needs.
FORWARDED_HEADERS = ("authorization", "cookie", "x-request-id", "traceparent", "tracestate")


def _ssl_context() -> ssl.SSLContext:
    """The TLS settings an ``httpx.AsyncClient`` makes by default (certifi's
    CAs, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``), made once for all the pools:
    loading the CA bundle takes some 60 ms, and sixteen of them were a
    second of every gateway's start."""
    context: ssl.SSLContext = _create_ssl_context()
    return context


class UpstreamError(Exception):
    """A run that could not start: the upstream refused it, could not be
    reached or took too long to answer, or the gateway has too many runs
    going on. ``status`` is what the gateway answers its client, ``code``
    the error's name in its body."""

    def __init__(self, status: int, message: str, code: str = "upstream_error") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


class Upstream(Protocol):
    """Runs an agent: ``await upstream.stream(request, headers)`` starts a run
    of the AgentRequest ``request`` (raising ``UpstreamError`` if it cannot
    start), then gives the bytes of its Agent API (``/process``) stream."""

    async def stream(self, request: dict[str, Any], headers: Mapping[str, str]) -> AsyncIterator[bytes]: ...

    async def aclose(self) -> None: ...


class ProcessUpstream:
    """An AgentScope Agent API server: ``url`` is its ``/process`` endpoint
    (a base URL gets ``/process`` appended). Requests go out on one pooled
    ``httpx.AsyncClient`` (pass your own to configure it); the client's
    ``authorization``, ``cookie`` and tracing headers are forwarded
    (``forward_headers`` names them: ``()`` forwards none).
    ``timeout`` bounds each read and write, ``connect_timeout`` a new
    connection (the gateway gives its own, and watches its runs itself).

    A request the agent's server drops unanswered (a pooled connection it
    closed while idle: uvicorn closes them after 5 s) is sent once more, on
    a fresh connection; the pool lets idle connections go after 2 s, before
    the server would."""

    def __init__(
        self,
        url: str,
        *,
        client: Any = None,
        timeout: float | None = 300.0,
        connect_timeout: float | None = 10.0,
        headers: Mapping[str, str] | None = None,
        forward_headers: Iterable[str] = FORWARDED_HEADERS,
    ) -> None:
        parsed = httpx.URL(url)
        if parsed.userinfo:
            # httpx would send them as Basic auth, in place of the client's
            # forwarded Authorization, and they would show wherever the URL does.
            raise ValueError(
                "the upstream URL holds credentials: give them as headers of their own "
                "(ProcessUpstream(headers=...), agentcodec gateway --upstream-header)"
            )
        url = url.rstrip("/")
        self.url = url if url.endswith("/process") else url + "/process"
        # Sent with every request, over any header forwarded from the client.
        self.headers = dict(headers or {})
        if isinstance(forward_headers, str):
            raise TypeError("forward_headers is a list of header names, not a str")
        self.forward_headers = tuple(name.lower() for name in forward_headers)
        self._own_client = client is None
        # httpx's pool does work per request that grows with the connections
        # it holds, so a burst of streams goes out on several small pools.
        self._clients: list[httpx.AsyncClient] = [client]
        if client is None:
            tls = _ssl_context()
            self._clients = [
                httpx.AsyncClient(
                    timeout=httpx.Timeout(timeout, connect=connect_timeout),
                    limits=httpx.Limits(max_connections=None, keepalive_expiry=2.0),
                    verify=tls,
                )
                for _ in range(_POOLS)
            ]
        self._next_pool = 0
        self._errors = (httpx.HTTPError, OSError)

    async def stream(self, request: dict[str, Any], headers: Mapping[str, str]) -> AsyncIterator[bytes]:
        forwarded = {name: headers[name] for name in self.forward_headers if name in headers}
        forwarded.update(self.headers)
        forwarded["accept"] = "text/event-stream"
        try:
            try:
                response = await self._send(request, forwarded)
            except _DROPPED:
                # No answer at all: the server closed the connection before reading the
                # request (a stale keep-alive), so the agent has not run it.
                response = await self._send(request, forwarded)
        except self._errors as exc:
            # The details are the operator's: its log has them, the client learns the outcome.
            logger.warning("the agent at %s cannot be reached: %r", self.url, exc)
            raise UpstreamError(502, "the agent cannot be reached") from exc
        if response.status_code >= 300:
            try:
                body = (await response.aread())[:2000].decode("utf-8", "replace")
            finally:
                await response.aclose()
            logger.warning("the agent at %s answered %d: %s", self.url, response.status_code, body)
            status = response.status_code if 400 <= response.status_code < 500 else 502
            raise UpstreamError(status, f"the agent answered {response.status_code}")
        return _body(response)

    async def _send(self, request: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        client = self._clients[self._next_pool]
        self._next_pool = (self._next_pool + 1) % len(self._clients)
        built = client.build_request("POST", self.url, json=request, headers=headers)
        return await client.send(built, stream=True)

    async def aclose(self) -> None:
        if self._own_client:
            for client in self._clients:
                await client.aclose()


async def _body(response: Any) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    finally:
        await response.aclose()
