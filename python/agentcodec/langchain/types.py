"""The LangChain Agent Streaming Protocol types (``protocol.cddl``).

``TypedDict`` shapes for the plain dicts on the wire, spelled as the wire
spells them: snake_case (``event_id``, ``tool_call_id``, ``input_tokens``),
although the CDDL writes camelCase. The decoders accept both; the
discriminator values (``"content-block-delta"``, ``"run.start"``) are as
given. Every record is extensible: unknown keys flow through.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = [
    "CHANNELS",
    "COMMAND_METHODS",
    "ERROR_CODES",
    "AgentGetTreeParams",
    "AgentResult",
    "AgentStatusEntry",
    "AgentTreeNode",
    "AudioContentBlock",
    "BlockDelta",
    "Checkpoint",
    "CheckpointRef",
    "CheckpointSummary",
    "Command",
    "CommandResponse",
    "ContentBlock",
    "ContentBlockDelta",
    "ContentBlockDeltaData",
    "ContentBlockFinishData",
    "ContentBlockStartData",
    "CustomData",
    "DataDelta",
    "ErrorResponse",
    "Event",
    "EventParams",
    "EventStreamRequest",
    "FileContentBlock",
    "ImageContentBlock",
    "InputInjectParams",
    "InputRequestedData",
    "InputRespondParams",
    "InvalidToolCall",
    "LifecycleData",
    "ListCheckpointsParams",
    "ListCheckpointsResult",
    "MessageErrorData",
    "MessageFinishData",
    "MessageStartData",
    "NonStandardContentBlock",
    "ReasoningContentBlock",
    "ReasoningDelta",
    "ReconnectParams",
    "ReconnectResult",
    "ResponseMeta",
    "RunResult",
    "RunStartParams",
    "ServerToolCall",
    "ServerToolCallChunk",
    "ServerToolResult",
    "StateForkParams",
    "StateForkResult",
    "StateGetParams",
    "StateGetResult",
    "SubscribeParams",
    "SubscribeResult",
    "TextContentBlock",
    "TextDelta",
    "ToolCall",
    "ToolCallChunk",
    "ToolCallDelta",
    "ToolsData",
    "UnsubscribeParams",
    "UpdatesData",
    "UsageInfo",
    "VideoContentBlock",
]

Namespace = list[str]

#: The channels an event stream can subscribe to; ``"custom:<name>"`` too.
CHANNELS = ("values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom")
#: Every command method the protocol defines.
COMMAND_METHODS = (
    "run.start",
    "subscription.subscribe",
    "subscription.unsubscribe",
    "subscription.reconnect",
    "agent.getTree",
    "input.respond",
    "input.inject",
    "state.get",
    "state.listCheckpoints",
    "state.fork",
)
#: The spec's error codes. Servers send others too (``resume_gap``): codes are open strings.
ERROR_CODES = (
    "invalid_argument",
    "unknown_command",
    "unknown_error",
    "no_such_run",
    "no_such_subscription",
    "no_such_namespace",
    "no_such_interrupt",
    "no_such_checkpoint",
    "permission_denied",
    "not_supported",
)


# --- envelopes -------------------------------------------------------------------


class Command(TypedDict, total=False):
    id: int
    method: str
    params: dict[str, Any]


class ResponseMeta(TypedDict, total=False):
    applied_through_seq: int


class CommandResponse(TypedDict, total=False):
    type: Literal["success"]
    id: int
    result: dict[str, Any]
    meta: ResponseMeta


class ErrorResponse(TypedDict, total=False):
    type: Literal["error"]
    id: int | None
    error: str
    message: str
    stacktrace: str
    meta: ResponseMeta


class EventParams(TypedDict, total=False):
    namespace: Namespace
    timestamp: int
    node: str
    data: Any


class Event(TypedDict, total=False):
    type: Literal["event"]
    event_id: str
    seq: int
    method: str
    params: EventParams


class EventStreamRequest(TypedDict, total=False):
    channels: list[str]
    namespaces: list[Namespace]
    depth: int
    since: int


# --- command params ---------------------------------------------------------------


class RunStartParams(TypedDict, total=False):
    assistant_id: str
    input: Any
    config: dict[str, Any]
    metadata: dict[str, Any]
    langsmith_tracer: dict[str, Any]


class SubscribeParams(TypedDict, total=False):
    channels: list[str]
    namespaces: list[Namespace]
    depth: int


class UnsubscribeParams(TypedDict):
    subscription_id: str


class ReconnectParams(TypedDict, total=False):
    run_id: str
    last_event_id: str
    subscriptions: list[str]


class AgentGetTreeParams(TypedDict, total=False):
    run_id: str


class AgentTreeNode(TypedDict, total=False):
    namespace: Namespace
    status: str
    graph_name: str
    children: list[AgentTreeNode]
    metadata: dict[str, Any]


class InputRespondParams(TypedDict, total=False):
    namespace: Namespace
    interrupt_id: str
    response: Any
    responses: list[dict[str, Any]]
    update: dict[str, Any]
    goto: Any
    config: dict[str, Any]
    metadata: dict[str, Any]


class InputInjectParams(TypedDict, total=False):
    namespace: Namespace
    message: dict[str, Any]


class StateGetParams(TypedDict, total=False):
    namespace: Namespace
    keys: list[str]


class ListCheckpointsParams(TypedDict, total=False):
    namespace: Namespace
    limit: int
    before: str


class StateForkParams(TypedDict, total=False):
    checkpoint_id: str
    input: Any
    config: dict[str, Any]


class CheckpointRef(TypedDict, total=False):
    id: str
    ns: str


# --- command results (CommandResponse.result) ----------------------------------------------


class RunResult(TypedDict, total=False):
    run_id: str


class SubscribeResult(TypedDict, total=False):
    subscription_id: str
    replayed_events: int


class AgentStatusEntry(TypedDict, total=False):
    namespace: Namespace
    status: str


class ReconnectResult(TypedDict, total=False):
    restored: bool
    missed_events: int
    current_namespaces: list[AgentStatusEntry]


class AgentResult(TypedDict, total=False):
    tree: AgentTreeNode


class StateGetResult(TypedDict, total=False):
    values: dict[str, Any]
    checkpoint: CheckpointRef


class CheckpointSummary(TypedDict, total=False):
    id: str
    timestamp: str
    step: int
    node_name: str
    metadata: dict[str, Any]


class ListCheckpointsResult(TypedDict, total=False):
    checkpoints: list[CheckpointSummary]


class StateForkResult(TypedDict, total=False):
    run_id: str
    thread_id: str


# --- content blocks -------------------------------------------------------------------


class TextContentBlock(TypedDict, total=False):
    type: Literal["text"]
    text: str
    id: str
    index: int | str
    annotations: list[dict[str, Any]]


class ReasoningContentBlock(TypedDict, total=False):
    type: Literal["reasoning"]
    reasoning: str
    id: str
    index: int | str


class ToolCall(TypedDict, total=False):
    type: Literal["tool_call"]
    id: str | None
    name: str
    args: dict[str, Any]
    index: int | str


class ToolCallChunk(TypedDict, total=False):
    type: Literal["tool_call_chunk"]
    id: str | None
    name: str | None
    args: str | None
    index: int | str


class InvalidToolCall(TypedDict, total=False):
    type: Literal["invalid_tool_call"]
    id: str | None
    name: str | None
    args: str | None
    error: str | None
    index: int | str


class ServerToolCall(TypedDict, total=False):
    type: Literal["server_tool_call"]
    id: str
    name: str
    args: dict[str, Any]


class ServerToolCallChunk(TypedDict, total=False):
    type: Literal["server_tool_call_chunk"]
    id: str
    name: str
    args: str


class ServerToolResult(TypedDict, total=False):
    type: Literal["server_tool_result"]
    tool_call_id: str
    status: Literal["success", "error"]
    id: str
    output: Any


class _Media(TypedDict, total=False):
    id: str
    file_id: str
    url: str
    base64: str
    mime_type: str
    index: int | str


class ImageContentBlock(_Media, total=False):
    type: Literal["image"]


class AudioContentBlock(_Media, total=False):
    type: Literal["audio"]


class VideoContentBlock(_Media, total=False):
    type: Literal["video"]


class FileContentBlock(_Media, total=False):
    type: Literal["file"]


class NonStandardContentBlock(TypedDict, total=False):
    type: Literal["non_standard"]
    value: dict[str, Any]
    id: str


ContentBlock = (
    TextContentBlock
    | ReasoningContentBlock
    | ToolCall
    | ToolCallChunk
    | InvalidToolCall
    | ServerToolCall
    | ServerToolCallChunk
    | ServerToolResult
    | ImageContentBlock
    | AudioContentBlock
    | VideoContentBlock
    | FileContentBlock
    | NonStandardContentBlock
)


# --- deltas ---------------------------------------------------------------------------


class TextDelta(TypedDict):
    type: Literal["text-delta"]
    text: str


class ReasoningDelta(TypedDict):
    type: Literal["reasoning-delta"]
    reasoning: str


class DataDelta(TypedDict, total=False):
    type: Literal["data-delta"]
    data: str
    encoding: Literal["base64"]


class BlockDelta(TypedDict):
    type: Literal["block-delta"]
    fields: dict[str, Any]


class ToolCallDelta(TypedDict, total=False):
    type: Literal["tool-call-delta"]
    args: str | None


ContentBlockDelta = TextDelta | ReasoningDelta | DataDelta | BlockDelta | ToolCallDelta


# --- channel payloads (params.data) ----------------------------------------------------------


class MessageStartData(TypedDict, total=False):
    event: Literal["message-start"]
    role: str
    id: str
    metadata: dict[str, Any]


class ContentBlockStartData(TypedDict, total=False):
    event: Literal["content-block-start"]
    index: int
    content: ContentBlock


class ContentBlockDeltaData(TypedDict, total=False):
    event: Literal["content-block-delta"]
    index: int
    delta: ContentBlockDelta


class ContentBlockFinishData(TypedDict, total=False):
    event: Literal["content-block-finish"]
    index: int
    content: ContentBlock


class UsageInfo(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_token_details: dict[str, Any]
    output_token_details: dict[str, Any]


class MessageFinishData(TypedDict, total=False):
    event: Literal["message-finish"]
    usage: UsageInfo
    metadata: dict[str, Any]


class MessageErrorData(TypedDict, total=False):
    event: Literal["error"]
    message: str
    code: str


class ToolsData(TypedDict, total=False):
    event: Literal["tool-started", "tool-output-delta", "tool-finished", "tool-error"]
    tool_call_id: str
    tool_name: str
    input: Any
    delta: Any
    output: Any
    message: str
    code: str


class LifecycleData(TypedDict, total=False):
    event: str  # started, running, completed, failed, interrupted (and drained)
    graph_name: str
    cause: dict[str, Any]
    error: str
    checkpoint: CheckpointRef


class InputRequestedData(TypedDict, total=False):
    interrupt_id: str
    payload: Any


class UpdatesData(TypedDict, total=False):
    node: str
    values: dict[str, Any]


class Checkpoint(TypedDict, total=False):
    id: str
    parent_id: str
    step: int
    source: Literal["input", "loop", "update", "fork"]


class CustomData(TypedDict, total=False):
    name: str
    payload: Any
