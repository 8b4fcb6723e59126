"""The endpoints protocols add to the gateway.

A protocol whose server side is more than a stream per request (its own
methods, resources a client reads, a discovery document) serves it from its
package's ``gateway`` module, whose ``Endpoint`` the gateway makes with
itself and asks for its routes. The gateway finds them by the protocol
registry and names none: a protocol's server side is part of its plug-in.

The gateway's own endpoint is ``/process``, the upstream's protocol passed
through; every other protocol it serves comes from such a module. An
endpoint builds on the gateway's public members (``run``, ``run_whole``,
``start_run``, ``resumed``, ``event_stream``, ``store``, ``max_body_bytes``,
``requires_api_key``), on its request pieces (``_requests``) and on
``error_response``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from starlette.responses import JSONResponse
from starlette.routing import BaseRoute

from .. import _protocols
from ..events import PROTOCOLS

if TYPE_CHECKING:
    from ._app import Gateway

__all__ = ["Endpoint", "endpoints", "error_response"]


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
