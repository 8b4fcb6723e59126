"""The LangGraph Agent Server's streams (langgraph-api: LangGraph Platform,
``langgraph dev``, a self-hosted Agent Server; read by langgraph-sdk and
the ``useStream`` React hook): SSE events named by stream mode, a
subgraph's tagged with its namespace (``values|inner:<task>``).

- ``Assembler`` turns such a stream, raw SSE in any chunking or decoded
  parts (langgraph-sdk's ``StreamPart`` as ``{"event", "data"}``, or its v2
  parts), into what the run leaves: the run's id, the root graph's last
  values (the thread's state), its messages (each added up from its chunks
  as langchain-core adds them: the message the graph keeps), its
  interrupts, the error, and the same for each subgraph under
  ``namespaces``.
- ``Transcoder(source, "langgraph")`` writes any protocol's stream as
  langgraph-api writes ``stream_mode=["values", "messages-tuple"]``, what
  useStream asks for; ``Transcoder("langgraph", target)`` reads one into any
  other protocol.
- The protocol types: ``TypedDict`` shapes for the parts and messages.
- ``agentcodec.langgraph.gateway``: the gateway's threads and runs, as
  langgraph-sdk and useStream call them (needs ``agentcodec[gateway]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import impl
from .._pure.langgraph.errors import LangGraphError, LangGraphEventError
from .._pure.langgraph.events import frame
from .types import (
    MODES,
    AssembledRun,
    Interrupt,
    Message,
    MessageChunk,
    Namespace,
    StreamPart,
    ToolCall,
    ToolCallChunk,
    V2Part,
)

if TYPE_CHECKING:
    from .._native import LangGraphAssembler as Assembler
else:
    Assembler = impl.LangGraphAssembler


def encode(part: dict[str, Any]) -> bytes:
    """One event (``{"event": <mode>, "data": ...}``) as langgraph-api
    writes it: ``event:`` its name, ``data:`` its compact JSON."""
    return frame(part)


__all__ = [
    "MODES",
    "AssembledRun",
    "Assembler",
    "Interrupt",
    "LangGraphError",
    "LangGraphEventError",
    "Message",
    "MessageChunk",
    "Namespace",
    "StreamPart",
    "ToolCall",
    "ToolCallChunk",
    "V2Part",
    "encode",
]
