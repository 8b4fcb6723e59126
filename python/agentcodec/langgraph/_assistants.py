"""The gateway's agent as a LangGraph Agent Server's one assistant, as
langgraph-api makes one of a graph: what langgraph-sdk's ``assistants``
calls read.

- ``POST /assistants/search`` (``assistants.search``, what a script asks
  first for the id to run) and ``POST /assistants/count``: the assistant,
  if the filters (``graph_id``, ``name``, ``metadata``) hold for it (a
  ``graph_id`` other than the one graph's is not found);
- ``GET /assistants/{assistant_id}`` (``assistants.get``) and ``GET
  /assistants/{assistant_id}/graph`` (``assistants.get_graph``, what
  langgraph's ``RemoteGraph.get_graph`` reads): the assistant, and its graph
  of one node; ``GET /assistants/{assistant_id}/schemas``
  (``assistants.get_schemas``, what LangGraph Studio draws its input from)
  and ``.../subgraphs`` (none): its state, LangGraph's ``MessagesState``,
  its messages described as langchain-core's serialized messages, not each
  kind of them.

The assistant is the graph ``agent``: its id is the one langgraph-api gives
a graph of that name (a UUID made from it), and a run may name either.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..gateway._body import json_body
from ..gateway._requests import RequestError
from ._replies import checked_count, detail, now

__all__ = ["ASSISTANT_ID", "GRAPH_ID", "Assistants"]

#: The graph the gateway serves: its one node, the agent's run.
GRAPH_ID = "agent"
# The namespace langgraph-api makes an assistant's id in from its graph's name.
_NAMESPACE_GRAPH = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
#: The assistant's id, as langgraph-api gives a graph named ``agent``'s.
ASSISTANT_ID = str(uuid.uuid5(_NAMESPACE_GRAPH, GRAPH_ID))
_METADATA = {"created_by": "system"}
_FILTERS = ("graph_id", "name")


class Assistants:
    """The routes of the one assistant; ``max_body_bytes``: the longest
    search body read."""

    def __init__(self, max_body_bytes: int | None) -> None:
        self._max_body_bytes = max_body_bytes
        self._created = now()  # (langgraph-api's are made as it starts)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/assistants/search", self.search, methods=["POST"]),
            Route("/assistants/count", self.count, methods=["POST"]),
            Route("/assistants/{assistant_id}", self.get, methods=["GET"]),
            Route("/assistants/{assistant_id}/graph", self.graph, methods=["GET"]),
            Route("/assistants/{assistant_id}/schemas", self.schemas, methods=["GET"]),
            Route("/assistants/{assistant_id}/subgraphs", self.subgraphs, methods=["GET"]),
        ]

    def assistant(self) -> dict[str, Any]:
        return {
            "assistant_id": ASSISTANT_ID,
            "graph_id": GRAPH_ID,
            "config": {},
            "context": {},
            "metadata": dict(_METADATA),
            "name": GRAPH_ID,
            "created_at": self._created,
            "updated_at": self._created,
            "version": 1,
            "description": None,
        }

    async def search(self, request: Request) -> Response:
        """The assistants the filters hold for, paged (``limit``, 10, and ``offset``)."""
        try:
            body = await self._search_body(request)
            limit = checked_count(body.get("limit", 10), "limit", 1, 1000)
            offset = checked_count(body.get("offset", 0), "offset", 0, None)
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        missing = _missing_graph(body)
        if missing is not None:
            return missing
        found = [self.assistant()] if _holds(body) else []
        return JSONResponse(found[offset : offset + limit])

    async def count(self, request: Request) -> Response:
        """How many assistants the filters hold for."""
        try:
            body = await self._search_body(request)
        except RequestError as exc:
            return detail(exc.status if exc.status != 400 else 422, str(exc))
        missing = _missing_graph(body)
        return missing if missing is not None else JSONResponse(1 if _holds(body) else 0)

    async def get(self, request: Request) -> Response:
        unknown = _unknown(request.path_params["assistant_id"])
        return unknown if unknown is not None else JSONResponse(self.assistant())

    async def graph(self, request: Request) -> Response:
        """The graph, as langgraph-api draws one of one node."""
        unknown = _unknown(request.path_params["assistant_id"])
        if unknown is not None:
            return unknown
        start, end = "__start__", "__end__"
        nodes = [
            {"id": start, "type": "runnable", "data": {"name": start}},
            {"id": GRAPH_ID, "type": "runnable", "data": {"name": GRAPH_ID}},
            {"id": end},
        ]
        edges = [{"source": start, "target": GRAPH_ID}, {"source": GRAPH_ID, "target": end}]
        return JSONResponse({"nodes": nodes, "edges": edges})

    async def schemas(self, request: Request) -> Response:
        """The graph's schemas, as langgraph-api gives a ``MessagesState``
        graph's: its input, output and state the thread's messages."""
        unknown = _unknown(request.path_params["assistant_id"])
        if unknown is not None:
            return unknown
        state = _messages_state(f"{GRAPH_ID}_state")
        del state["required"]  # (the state's keys are each optional, as LangGraph writes it)
        return JSONResponse(
            {
                "graph_id": GRAPH_ID,
                "input_schema": _messages_state("MessagesState"),
                "output_schema": _messages_state("MessagesState"),
                "state_schema": state,
                "config_schema": {},
                "context_schema": None,
            }
        )

    async def subgraphs(self, request: Request) -> Response:
        """The graph's subgraphs: none."""
        unknown = _unknown(request.path_params["assistant_id"])
        return unknown if unknown is not None else JSONResponse({})

    async def _search_body(self, request: Request) -> Mapping[str, Any]:
        body = await json_body(request, self._max_body_bytes)
        if not isinstance(body, Mapping):
            raise RequestError("a search is a JSON object")
        for name in _FILTERS:
            if body.get(name) is not None and not isinstance(body[name], str):
                raise RequestError(f"{name} must be a string, not {body[name]!r}")
        if body.get("metadata") is not None and not isinstance(body["metadata"], Mapping):
            raise RequestError("metadata must be a JSON object")
        return body


def _messages_state(title: str) -> dict[str, Any]:
    """A JSON schema of LangGraph's ``MessagesState``: a list of messages,
    each langchain-core's serialized form (a ``type``, its ``content``)."""
    text_or_parts = {
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object"}]}},
        ]
    }
    message = {
        "title": "Message",
        "type": "object",
        "additionalProperties": True,
        "properties": {
            "type": {"title": "Type", "type": "string"},
            "content": {"title": "Content", **text_or_parts},
            "id": {"title": "Id", "anyOf": [{"type": "string"}, {"type": "null"}]},
            "name": {"title": "Name", "anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["content"],
    }
    return {
        "$defs": {"Message": message},
        "title": title,
        "type": "object",
        "properties": {
            "messages": {"title": "Messages", "type": "array", "items": {"$ref": "#/$defs/Message"}}
        },
        "required": ["messages"],
    }


def _missing_graph(body: Mapping[str, Any]) -> Response | None:
    """The answer to a search for a graph not served, as langgraph-api's."""
    graph_id = body.get("graph_id")
    if graph_id is None or graph_id == GRAPH_ID:
        return None
    return detail(404, f"Graph {graph_id!r} not found. Expected one of: [{GRAPH_ID!r}]")


def _holds(body: Mapping[str, Any]) -> bool:
    """Whether a search's filters hold for the assistant."""
    if body.get("name") not in (None, GRAPH_ID):
        return False
    metadata = body.get("metadata") or {}
    return all(_METADATA.get(key) == value for key, value in metadata.items())


def _unknown(assistant_id: str) -> Response | None:
    """The answer to a path naming another assistant than the one, as
    langgraph-api's: an id that is no UUID is refused, another UUID not
    found; None for the assistant's own."""
    try:
        named = str(uuid.UUID(assistant_id))
    except ValueError:
        return detail(422, "Invalid assistant ID: must be a UUID")
    return None if named == ASSISTANT_ID else detail(404, "Not Found")
