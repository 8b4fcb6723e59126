"""Each protocol by its name: its assembler, how one of its events is written
as SSE, and the response headers its clients look for. What the client,
server and gateway helpers and the CLI need to treat every protocol alike.

The protocols are those ``events.ProtocolName`` lists; each is the public
package of its name (``-`` written ``_``: ``agentcodec.<name>``), which
has ``Assembler`` and ``encode``, and ``HEADERS`` and ``MEDIA_TYPE`` where
its streams need other than plain Server-Sent Events, ``DATA_ONLY`` where its
clients read nothing of them but data lines, and a ``gateway``
module where the gateway serves it beyond a stream per request. Nothing here names a
protocol: a new one is a package and a name in ``ProtocolName``."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
from collections.abc import Callable, Mapping
from functools import cache
from types import ModuleType
from typing import Any

from . import events
from .events import PROTOCOLS

__all__ = [
    "assembler",
    "check",
    "encoder",
    "gateway_endpoint",
    "gateway_module",
    "data_only",
    "has_gateway_endpoint",
    "headers",
    "media_type",
    "module",
    "of_assembler",
    "resumable",
]


def check(protocol: str) -> str:
    """The protocol's name, or a ValueError listing the known ones."""
    if protocol not in PROTOCOLS:
        known = ", ".join(repr(name) for name in PROTOCOLS)
        raise ValueError(f"unknown protocol {protocol!r}: expected one of {known}")
    return protocol


@cache
def module(protocol: str) -> ModuleType:
    """The protocol's public package."""
    return importlib.import_module(_package_name(protocol))


def assembler(protocol: str, **options: Any) -> Any:
    """A new assembler of the protocol, built with ``options``."""
    return module(protocol).Assembler(**options)


def of_assembler(assembler: Any) -> str | None:
    """The protocol an assembler reads: the neutral view's source, or the
    protocol whose ``Assembler`` (of either backend) it is; None for any
    other (an assembler of the caller's own)."""
    if isinstance(assembler, events.Assembler):
        source: str = assembler.source
        return source
    # The pure backend's registry imports every protocol's pure modules:
    # only an assembler given alone needs it.
    from ._pure.api import NeutralAssembler as PureNeutralAssembler  # noqa: PLC0415
    from ._pure.registry import PROTOCOLS as DECLARED  # noqa: PLC0415

    if isinstance(assembler, PureNeutralAssembler):  # the pure view, beside the native backend
        pure_source: str = assembler.source
        return pure_source
    for protocol in PROTOCOLS:
        if isinstance(assembler, (module(protocol).Assembler, DECLARED[protocol].assembler)):
            return protocol
    return None


def encoder(protocol: str) -> Callable[[Mapping[str, Any]], bytes]:
    """What writes one of the protocol's events as SSE bytes: its ``encode``."""
    encode: Callable[[Mapping[str, Any]], bytes] = module(protocol).encode
    return encode


# What every event-stream response sends already, in the server's own form.
_SSE_HEADERS = frozenset({"content-type", "cache-control", "connection", "x-accel-buffering"})


def headers(protocol: str | None) -> dict[str, str]:
    """Response headers the protocol's clients expect beside the SSE ones
    (a version header, say): its package's ``HEADERS`` without those."""
    if protocol is None:
        return {}
    own: Mapping[str, str] = getattr(module(protocol), "HEADERS", {})
    return {key: value for key, value in own.items() if key.lower() not in _SSE_HEADERS}


def media_type(protocol: str | None) -> str:
    """The media type of the protocol's streams (of raw events: SSE)."""
    if protocol is None:
        return "text/event-stream"
    media: str = getattr(module(protocol), "MEDIA_TYPE", "text/event-stream")
    return media


def data_only(protocol: str | None) -> bool:
    """Whether the protocol's clients read only the ``data:`` lines of its
    SSE streams (its package's ``DATA_ONLY``): a reader that takes any other
    line for data reads no event ids or comments."""
    return protocol is not None and bool(getattr(module(protocol), "DATA_ONLY", False))


def resumable(protocol: str | None) -> bool:
    """Whether the protocol's streams can carry the event ids and keep-alive
    comments a server writes: Server-Sent Events its clients read whole (not
    NDJSON, and not data lines alone)."""
    return media_type(protocol) == "text/event-stream" and not data_only(protocol)


def read_media_types(protocol: str | None) -> tuple[str, ...]:
    """The media types a client reads the protocol's streams in: its own,
    and those its package lists beside (``READ_MEDIA_TYPES``: JSON
    array answers as ``application/json``, say)."""
    own = media_type(protocol)
    if protocol is None:
        return (own,)
    others: tuple[str, ...] = getattr(module(protocol), "READ_MEDIA_TYPES", ())
    return (own, *others)


def _package_name(protocol: str) -> str:
    return f"agentcodec.{check(protocol).replace('-', '_')}"


@cache
def has_gateway_endpoint(protocol: str) -> bool:
    """Whether the protocol's package has a ``gateway`` module: found
    without importing it (which needs the gateway's extra) or the package."""
    package = importlib.util.find_spec(_package_name(protocol))
    places = package.submodule_search_locations if package is not None else None
    return (
        places is not None and importlib.machinery.PathFinder.find_spec("gateway", list(places)) is not None
    )


def gateway_module(protocol: str) -> ModuleType | None:
    """The protocol's package's ``gateway`` module (what serves it at the
    gateway), or None."""
    if not has_gateway_endpoint(protocol):
        return None
    return importlib.import_module(f"{_package_name(protocol)}.gateway")


def gateway_endpoint(protocol: str) -> Any:
    """What serves the protocol at the gateway: its package's
    ``gateway.Endpoint``, or None."""
    found = gateway_module(protocol)
    return found.Endpoint if found is not None else None
