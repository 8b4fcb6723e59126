"""The A2A (Agent2Agent) stream types, as the spec's JSON spells them
(0.3 and 1.0; a2a-sdk 0.3's pydantic models, 1.x's protobuf JSON).

``TypedDict`` shapes for the plain dicts on the wire, camelCase: each SSE
event's ``data`` is a ``JSONRPCResponse`` whose ``result`` is a Task, a
Message, a ``TaskStatusUpdateEvent`` or a ``TaskArtifactUpdateEvent``
(0.3, tagged by ``kind``), or a ``StreamResponse`` holding one of them
(1.0). Every record may carry more keys than listed, and agentcodec keeps
what it does not know.
"""

from __future__ import annotations

from typing import Any, TypedDict

from .._vocabulary import tables

__all__ = [
    "FINAL_STATES",
    "INTERRUPTED_STATES",
    "TASK_STATES",
    "VERSIONS",
    "Artifact",
    "JSONRPCError",
    "JSONRPCResponse",
    "Message",
    "Part",
    "StreamResponse",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskStatus",
    "TaskStatusUpdateEvent",
]

_VOCABULARY = tables("a2a")

#: The spec versions agentcodec reads and writes, the one it writes unless told otherwise first.
VERSIONS = _VOCABULARY["VERSIONS"]
#: The task states, as 0.3 spells them (1.0 writes ``TASK_STATE_INPUT_REQUIRED`` for ``input-required``).
TASK_STATES = _VOCABULARY["TASK_STATES"]
#: The states a task ends in.
FINAL_STATES = _VOCABULARY["FINAL_STATES"]
#: The states in which a task waits for its client.
INTERRUPTED_STATES = _VOCABULARY["INTERRUPTED_STATES"]


class Part(TypedDict, total=False):
    """A text, file or data part. 0.3: ``kind`` and ``text``, ``file``
    (``uri`` or ``bytes``, ``mimeType``, ``name``) or ``data``; 1.0: no
    ``kind``, and ``text``, ``data``, or ``url`` / ``raw`` with
    ``mediaType`` and ``filename``."""

    kind: str
    text: str
    file: dict[str, Any]
    data: Any
    url: str
    raw: str
    mediaType: str
    filename: str
    metadata: dict[str, Any]


class Message(TypedDict, total=False):
    messageId: str
    role: str
    parts: list[Part]
    taskId: str
    contextId: str
    kind: str
    metadata: dict[str, Any]


class TaskStatus(TypedDict, total=False):
    state: str
    message: Message
    timestamp: str


class Artifact(TypedDict, total=False):
    artifactId: str
    name: str
    description: str
    parts: list[Part]
    metadata: dict[str, Any]


class Task(TypedDict, total=False):
    id: str
    contextId: str
    status: TaskStatus
    artifacts: list[Artifact]
    history: list[Message]
    kind: str
    metadata: dict[str, Any]


class TaskStatusUpdateEvent(TypedDict, total=False):
    taskId: str
    contextId: str
    status: TaskStatus
    final: bool
    kind: str
    metadata: dict[str, Any]


class TaskArtifactUpdateEvent(TypedDict, total=False):
    taskId: str
    contextId: str
    artifact: Artifact
    append: bool
    lastChunk: bool
    kind: str
    metadata: dict[str, Any]


class StreamResponse(TypedDict, total=False):
    """A 1.0 stream's result: exactly one of its fields."""

    task: Task
    message: Message
    statusUpdate: TaskStatusUpdateEvent
    artifactUpdate: TaskArtifactUpdateEvent


class JSONRPCError(TypedDict, total=False):
    code: int
    message: str
    data: Any


class JSONRPCResponse(TypedDict, total=False):
    jsonrpc: str
    id: str | int | None
    result: Any
    error: JSONRPCError
