"""A2A (Agent2Agent): the streams of ``message/stream`` and
``tasks/resubscribe`` (0.3) and of ``SendStreamingMessage`` and
``SubscribeToTask`` (1.0), the third protocol of both AgentScope runtimes.

- ``Assembler`` turns an A2A stream, raw SSE bytes in any chunking or
  decoded events (JSON-RPC responses, or their results alone), into the
  Task, as a2a-sdk's ``TaskManager`` holds it: artifacts merged by
  ``artifactId`` (``append`` adds parts), status messages moved into the
  history as the status changes, a Message when the agent answered without
  a task, a JSON-RPC error as the run's error. Both spec versions, told
  apart by the events; the Task is given as the wire has it.
- ``Transcoder(source, "a2a")`` writes any protocol's stream as A2A, 1.0
  unless ``version="0.3"``.
- The protocol types: ``TypedDict`` shapes for the wire's records.
- ``agentcodec.a2a.gateway``: the gateway's A2A endpoint and agent card
  (needs ``agentcodec[gateway]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import impl
from .._pure.a2a.errors import A2AError, A2AEventError
from .types import (
    FINAL_STATES,
    INTERRUPTED_STATES,
    TASK_STATES,
    VERSIONS,
    Artifact,
    JSONRPCError,
    JSONRPCResponse,
    Message,
    Part,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatus,
    TaskStatusUpdateEvent,
)

if TYPE_CHECKING:
    from .._native import A2AAssembler as Assembler
else:
    Assembler = impl.A2AAssembler


def encode(event: dict[str, Any]) -> bytes:
    """One event (a JSON-RPC response) as a server writes it: one ``data:``
    line of compact JSON."""
    return bytes(impl.encode_sse(event))


__all__ = [
    "FINAL_STATES",
    "INTERRUPTED_STATES",
    "TASK_STATES",
    "VERSIONS",
    "A2AError",
    "A2AEventError",
    "Artifact",
    "Assembler",
    "JSONRPCError",
    "JSONRPCResponse",
    "Message",
    "Part",
    "StreamResponse",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskStatus",
    "TaskStatusUpdateEvent",
    "encode",
]
