"""The gateway: one agent upstream, every protocol downstream.

``Gateway(upstream)`` is an ASGI app that fronts an AgentScope Agent API
server (``/process``) and serves the same agent as ``/process`` and as each
protocol whose package has a ``gateway`` module (its ``Endpoint`` says what
it serves: the protocol's requests in, the run converted to the protocol
out, and its own methods and resources beside), converting each stream as
it arrives, resumable from a replay store. Without an upstream it serves
``DemoAgent``. ``agentcodec gateway`` runs it on uvicorn (its help names
the protocols served). ``Timeouts`` bound how long it waits for the upstream and for
its clients. Needs ``pip install agentcodec[gateway]``.

A protocol's request conversion is its gateway module's
(``agentcodec.<protocol>.gateway.agent_request_from_<protocol>``); the names
it had here still resolve to it.
"""

from __future__ import annotations

from typing import Any

from .. import _protocols
from ..events import PROTOCOLS
from ._app import Gateway
from ._demo import DemoAgent
from ._requests import RequestError, agent_request_from_process
from ._timeouts import Timeouts
from ._upstream import ProcessUpstream, Upstream, UpstreamError

__all__ = [
    "DemoAgent",
    "Gateway",
    "ProcessUpstream",
    "RequestError",
    "Timeouts",
    "Upstream",
    "UpstreamError",
    "agent_request_from_process",
]


def __getattr__(name: str) -> Any:
    # A protocol's request conversion, by the name it had before it moved to
    # the protocol's own gateway module.
    if name.startswith("agent_request_from_"):
        for protocol in PROTOCOLS:
            module = _protocols.gateway_module(protocol)
            if module is not None and name in getattr(module, "__all__", ()):
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
