"""The LangGraph Agent Server's events as they come: the mirror of
``rust/langgraph/wire.rs``.

An SSE event's name is its kind, the stream mode (``values``, ``messages``,
...), then its namespace when a subgraph sent it (``values|inner:<task>``,
parts joined by ``|``). The assemblers are handed an SSE event as
``{"event": <name>, "data": <data>}`` (the form of langgraph-sdk's
``StreamPart``), and an event with no name whose data is such a part is
read as that part; langgraph-sdk's v2 parts and LangGraph's own
(``graph.stream(version="v2")``) are ``{"type": <mode>, "ns": [...],
"data": <data>, "interrupts": [...]}``, read alike.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..._vocabulary import tables
from ..article import article
from ..json_values import json_kind

__all__ = ["MODES", "Part", "read", "recognizes"]

_VOCABULARY = tables("langgraph")
MODES = frozenset(_VOCABULARY["MODES"])
CHUNK_TYPES = frozenset(_VOCABULARY["CHUNK_TYPES"])


class Part:
    """One event: its mode, its namespace (``""`` for the root graph), its data."""

    __slots__ = ("data", "interrupts", "mode", "namespace")

    def __init__(self, mode: str, namespace: str, data: Any, interrupts: Any) -> None:
        self.mode = mode
        self.namespace = namespace
        self.data = data
        # A v2 part's interrupts, taken out of its values' data.
        self.interrupts = interrupts


def read(event: dict[str, Any]) -> Part | str:
    """The event's part, or why it is none (a problem, said as the end of
    "LangGraph event N ...")."""
    name = event.get("event")
    if isinstance(name, str):
        if "data" not in event:
            return "has no data"
        data = event["data"]
        if name == "message" and isinstance(data, dict) and ("event" in data or "type" in data):
            # An SSE event with no name whose data is a part (a relay that
            # writes langgraph-sdk's parts as bare data lines).
            return read(data)
        mode, _, namespace = name.partition("|")
        if name == "message":
            return "has no stream mode (its SSE event name: values, messages, ...)"
        if mode not in MODES:
            return f"is {article(name)} {dumps(name)} event, which no stream mode sends"
        return Part(mode, namespace, event["data"], None)
    kind = event.get("type")
    if isinstance(kind, str) and "ns" in event:
        namespace = event["ns"]
        if not isinstance(namespace, list) or not all(isinstance(part, str) for part in namespace):
            return f"has an ns that is {json_kind(namespace)}, not a list of strings"
        if kind not in MODES:
            return f"is {article(kind)} {dumps(kind)} part, which no stream mode sends"
        interrupts = event.get("interrupts")
        if interrupts is not None and not isinstance(interrupts, list):
            return f"has interrupts that are {json_kind(interrupts)}, not a list"
        return Part(kind, "|".join(namespace), event.get("data"), interrupts)
    return 'is neither an SSE event ({"event", "data"}) nor a v2 part ({"type", "ns", "data"})'


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: of a stream mode, holding
    what the mode holds. The LangChain Agent Streaming Protocol names its
    events by the same modes, its data an envelope (``type: "event"``,
    ``method``, ``params``): that is not the server's."""
    part = read(event)
    if not isinstance(part, Part):
        return False
    data = part.data
    if isinstance(data, dict) and data.get("type") == "event" and "method" in data and "params" in data:
        return False
    if part.mode == "messages":
        return isinstance(data, list) and len(data) == 2 and isinstance(data[0], dict)
    return True
