"""The gateway: one agent upstream, every protocol downstream.

``Gateway(upstream)`` is an ASGI app that fronts an AgentScope Agent API
server (``/process``) and serves the same agent as ``/process``, AG-UI
(``/ag-ui``), the OpenAI Responses API (``/compatible-mode/v1/responses``),
the LangChain Agent Streaming Protocol (``/threads/{id}/stream/events``) and
each protocol whose package has a ``gateway`` module (its ``Endpoint`` says
what it serves: its own methods and resources, a discovery document),
converting each stream as it arrives, resumable from a replay store. Without
an upstream it serves ``DemoAgent``. ``agentcodec gateway`` runs it on
uvicorn. ``Timeouts`` bound how long it waits for the upstream and for
its clients. Needs ``pip install agentcodec[gateway]``.
"""

from __future__ import annotations

from ._app import Gateway
from ._demo import DemoAgent
from ._requests import (
    RequestError,
    agent_request_from_agui,
    agent_request_from_langchain,
    agent_request_from_process,
    agent_request_from_responses,
)
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
    "agent_request_from_agui",
    "agent_request_from_langchain",
    "agent_request_from_process",
    "agent_request_from_responses",
]
