"""The endpoints protocols add to the gateway.

A protocol whose server side is more than a stream per request (its own
methods, resources a client reads, a discovery document) serves it from its
package's ``gateway`` module, whose ``Endpoint`` the gateway makes with
itself and asks for its routes. The gateway finds them by the protocol
registry and names none: a protocol's server side is part of its plug-in.

The gateway's own endpoint is ``/process``, the upstream's protocol passed
through; every other protocol it serves comes from such a module. An
endpoint builds on the gateway's public members (``run``, ``run_whole``,
``start_run``, ``resumed``, ``event_stream``, ``watching_for_stop``, ``store``, ``max_body_bytes``,
``requires_api_key``), on its request pieces (``_requests``), on
``Cancels`` for runs its clients cancel by name (``_cancels``) and on
``error_response``.

Two APIs may read the same path (``GET /v1/models`` lists models to several
SDKs, each in its own shape). An endpoint answers such a path for its own
clients alone with a ``HeaderRoute``: it matches only requests carrying a
header that API's clients always send, and the gateway tries it before the
plain routes, so the path's plain route answers everyone else.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Scope

from .. import _protocols
from ..events import PROTOCOLS

if TYPE_CHECKING:
    from ._app import Gateway

__all__ = ["Endpoint", "HeaderRoute", "endpoints", "error_response"]


class Endpoint(Protocol):
    """What a protocol's ``gateway.Endpoint`` is. One whose API words its
    errors other than the gateway does (so that its clients would misread
    the gateway's) says how with a static ``error_body(status, code, message)``,
    which the gateway's refusals at its routes take (``error_response``)."""

    #: The paths answered without an API key: what clients read before they call.
    public_paths: ClassVar[frozenset[str]]

    def __init__(self, gateway: Gateway) -> None: ...

    def routes(self) -> list[BaseRoute]:
        """The routes it answers, mounted beside the gateway's own."""
        ...

    def streams(self, path: str) -> bool:
        """Whether a request to ``path`` streams the protocol (so its
        metrics count under the protocol's name)."""
        ...


class HeaderRoute(Route):
    """A route that matches only the requests carrying one of ``headers``
    (any value): the mark of one API's clients, at a path another API's
    clients read too. The gateway tries these before its plain routes."""

    def __init__(self, path: str, endpoint: Any, *, headers: Iterable[str], **options: Any) -> None:
        super().__init__(path, endpoint, **options)
        # ASGI gives header names lowercased, as bytes.
        self.headers = frozenset(name.lower().encode("latin-1") for name in headers)
        if not self.headers:
            raise ValueError("a HeaderRoute needs at least one header to tell its clients by")

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if not any(bytes(name) in self.headers for name, _ in scope.get("headers", ())):
            return Match.NONE, {}
        return super().matches(scope)


def error_response(status: int, code: str, message: str, protocol: str | None = None) -> JSONResponse:
    """An error as the gateway answers one: ``{"error": {"code", "message"}}``,
    or, for a request of ``protocol`` whose endpoint says how its API words
    an error (an ``error_body(status, code, message)`` of its own: a client that
    reads the API's errors would misread the gateway's), as that API does."""
    shape = getattr(_protocols.gateway_endpoint(protocol), "error_body", None) if protocol else None
    body = (
        shape(status, code, message) if shape is not None else {"error": {"code": code, "message": message}}
    )
    return JSONResponse(body, status_code=status)


def endpoints(gateway: Gateway) -> dict[str, Endpoint]:
    """Each protocol's endpoint, made for ``gateway``, in the registry's order."""
    made: dict[str, Endpoint] = {}
    for protocol in PROTOCOLS:
        kind = _protocols.gateway_endpoint(protocol)
        if kind is not None:
            made[protocol] = kind(gateway)
    return made
