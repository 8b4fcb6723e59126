"""The AG-UI protocol types (AG-UI 1.0, https://ag-ui.com/spec/1.0/schema.json).

``TypedDict`` shapes for the plain dicts on the wire, spelled as the wire
spells them: camelCase keys (``messageId``, ``toolCallId``), the event
``type`` in SCREAMING_SNAKE_CASE. agentcodec also accepts the snake_case
spelling ag-ui-protocol's Python models populate by (``message_id``), and
keeps keys it does not know. Every optional field may be absent; producers
leave it out rather than writing ``null``.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

__all__ = [
    "EVENT_TYPES",
    "ActivityDeltaEvent",
    "ActivityMessage",
    "ActivitySnapshotEvent",
    "AssistantMessage",
    "BaseEvent",
    "ContentPart",
    "Context",
    "CustomEvent",
    "DeveloperMessage",
    "Event",
    "EventType",
    "FunctionCall",
    "Interrupt",
    "JsonPatchOperation",
    "Message",
    "MessagesSnapshotEvent",
    "PartSource",
    "RawEvent",
    "ReasoningEncryptedValueEvent",
    "ReasoningEndEvent",
    "ReasoningMessage",
    "ReasoningMessageChunkEvent",
    "ReasoningMessageContentEvent",
    "ReasoningMessageEndEvent",
    "ReasoningMessageStartEvent",
    "ReasoningStartEvent",
    "ResumeEntry",
    "Run",
    "RunAgentInput",
    "RunErrorEvent",
    "RunFinishedEvent",
    "RunFinishedOutcome",
    "RunStartedEvent",
    "StateDeltaEvent",
    "StateSnapshotEvent",
    "StepFinishedEvent",
    "StepStartedEvent",
    "SubagentErrorEvent",
    "SubagentFinishedEvent",
    "SubagentStartedEvent",
    "SystemMessage",
    "TextMessageChunkEvent",
    "TextMessageContentEvent",
    "TextMessageEndEvent",
    "TextMessageStartEvent",
    "TokenUsage",
    "Tool",
    "ToolCall",
    "ToolCallArgsEvent",
    "ToolCallChunkEvent",
    "ToolCallEndEvent",
    "ToolCallResultEvent",
    "ToolCallStartEvent",
    "ToolMessage",
    "UserMessage",
]


class EventType:
    """The value of every event's ``type``."""

    TEXT_MESSAGE_START = "TEXT_MESSAGE_START"
    TEXT_MESSAGE_CONTENT = "TEXT_MESSAGE_CONTENT"
    TEXT_MESSAGE_END = "TEXT_MESSAGE_END"
    TEXT_MESSAGE_CHUNK = "TEXT_MESSAGE_CHUNK"
    TOOL_CALL_START = "TOOL_CALL_START"
    TOOL_CALL_ARGS = "TOOL_CALL_ARGS"
    TOOL_CALL_END = "TOOL_CALL_END"
    TOOL_CALL_CHUNK = "TOOL_CALL_CHUNK"
    TOOL_CALL_RESULT = "TOOL_CALL_RESULT"
    STATE_SNAPSHOT = "STATE_SNAPSHOT"
    STATE_DELTA = "STATE_DELTA"
    MESSAGES_SNAPSHOT = "MESSAGES_SNAPSHOT"
    ACTIVITY_SNAPSHOT = "ACTIVITY_SNAPSHOT"
    ACTIVITY_DELTA = "ACTIVITY_DELTA"
    RAW = "RAW"
    CUSTOM = "CUSTOM"
    RUN_STARTED = "RUN_STARTED"
    RUN_FINISHED = "RUN_FINISHED"
    RUN_ERROR = "RUN_ERROR"
    STEP_STARTED = "STEP_STARTED"
    STEP_FINISHED = "STEP_FINISHED"
    REASONING_START = "REASONING_START"
    REASONING_MESSAGE_START = "REASONING_MESSAGE_START"
    REASONING_MESSAGE_CONTENT = "REASONING_MESSAGE_CONTENT"
    REASONING_MESSAGE_END = "REASONING_MESSAGE_END"
    REASONING_MESSAGE_CHUNK = "REASONING_MESSAGE_CHUNK"
    REASONING_END = "REASONING_END"
    REASONING_ENCRYPTED_VALUE = "REASONING_ENCRYPTED_VALUE"
    SUBAGENT_STARTED = "SUBAGENT_STARTED"
    SUBAGENT_FINISHED = "SUBAGENT_FINISHED"
    SUBAGENT_ERROR = "SUBAGENT_ERROR"


#: Every event type of AG-UI 1.0, in the specification's order.
EVENT_TYPES = tuple(value for name, value in vars(EventType).items() if name.isupper())


# --- messages ----------------------------------------------------------------------


class FunctionCall(TypedDict):
    name: str
    arguments: str  # JSON text, as streamed; not validated


class ToolCall(TypedDict, total=False):
    id: str
    type: Literal["function"]
    function: FunctionCall
    encryptedValue: str
    metadata: dict[str, Any]


class PartSource(TypedDict, total=False):
    type: Literal["data", "url", "file"]
    value: str  # base64 data, a URL, or a file id
    mimeType: str
    provider: str


class ContentPart(TypedDict, total=False):
    type: Literal["text", "image", "audio", "video", "document"]
    id: str
    text: str  # text parts
    source: PartSource  # media parts
    metadata: Any


class DeveloperMessage(TypedDict, total=False):
    id: str
    role: Literal["developer"]
    content: str
    name: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


class SystemMessage(TypedDict, total=False):
    id: str
    role: Literal["system"]
    content: str
    name: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


class AssistantMessage(TypedDict, total=False):
    id: str
    role: Literal["assistant"]
    content: str
    toolCalls: list[ToolCall]
    name: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


class UserMessage(TypedDict, total=False):
    id: str
    role: Literal["user"]
    content: str | list[ContentPart]
    name: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


class ToolMessage(TypedDict, total=False):
    id: str
    role: Literal["tool"]
    content: str | list[ContentPart]
    toolCallId: str
    error: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


class ActivityMessage(TypedDict, total=False):
    id: str
    role: Literal["activity"]
    activityType: str
    content: dict[str, Any]
    metadata: dict[str, Any]
    subagentRunId: str


class ReasoningMessage(TypedDict, total=False):
    id: str
    role: Literal["reasoning"]
    content: str
    encryptedValue: str
    metadata: dict[str, Any]
    subagentRunId: str


Message = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    DeveloperMessage,
    SystemMessage,
    AssistantMessage,
    UserMessage,
    ToolMessage,
    ActivityMessage,
    ReasoningMessage,
]


# --- the run's input and outcome -----------------------------------------------------


class Tool(TypedDict, total=False):
    name: str
    description: str
    parameters: Any  # a JSON Schema
    metadata: dict[str, Any]


class Context(TypedDict):
    description: str
    value: str


class ResumeEntry(TypedDict, total=False):
    interruptId: str
    status: Literal["resolved", "cancelled"]
    payload: Any
    metadata: dict[str, Any]


class RunAgentInput(TypedDict, total=False):
    """The body of a request to an AG-UI endpoint."""

    threadId: str
    runId: str
    protocolVersion: str
    parentRunId: str
    state: Any
    messages: list[Message]
    tools: list[Tool]
    context: list[Context]
    forwardedProps: Any
    resume: list[ResumeEntry]


class Interrupt(TypedDict, total=False):
    id: str
    reason: str
    message: str
    toolCallId: str
    responseSchema: dict[str, Any]
    expiresAt: str
    metadata: dict[str, Any]
    subagentRunId: str


class RunFinishedOutcome(TypedDict, total=False):
    type: Literal["success", "interrupt", "cancelled"]
    pendingToolCallIds: list[str]  # success
    interrupts: list[Interrupt]  # interrupt


class TokenUsage(TypedDict, total=False):
    provider: str
    model: str
    inputTokens: int
    outputTokens: int
    totalTokens: int
    reasoningTokens: int
    cachedInputTokens: int
    cacheWriteInputTokens: int


class JsonPatchOperation(TypedDict, total=False):
    """One RFC 6902 operation."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: str
    value: Any
    # "from" is a keyword: an operation that names it is written as a plain
    # dict, {"op": "move", "from": "/a", "path": "/b"}.


# --- events ---------------------------------------------------------------------------


class BaseEvent(TypedDict, total=False):
    """What every event may carry."""

    type: str
    timestamp: int  # milliseconds since the epoch, by convention
    rawEvent: Any  # the provider event this one was translated from
    metadata: dict[str, Any]


class RunStartedEvent(BaseEvent, total=False):
    threadId: str
    runId: str
    protocolVersion: str
    parentRunId: str
    input: RunAgentInput


class RunFinishedEvent(BaseEvent, total=False):
    threadId: str
    runId: str
    result: Any
    outcome: RunFinishedOutcome
    usage: list[TokenUsage]


class RunErrorEvent(BaseEvent, total=False):
    message: str
    code: str
    usage: list[TokenUsage]


class StepStartedEvent(BaseEvent, total=False):
    subagentRunId: str
    stepName: str


class StepFinishedEvent(BaseEvent, total=False):
    subagentRunId: str
    stepName: str


class TextMessageStartEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    role: Literal["developer", "system", "assistant", "user"]  # absent: assistant
    name: str


class TextMessageContentEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    delta: str


class TextMessageEndEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str


class TextMessageChunkEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    role: Literal["developer", "system", "assistant", "user"]
    delta: str
    name: str


class ToolCallStartEvent(BaseEvent, total=False):
    subagentRunId: str
    toolCallId: str
    toolCallName: str
    parentMessageId: str


class ToolCallArgsEvent(BaseEvent, total=False):
    subagentRunId: str
    toolCallId: str
    delta: str


class ToolCallEndEvent(BaseEvent, total=False):
    subagentRunId: str
    toolCallId: str


class ToolCallChunkEvent(BaseEvent, total=False):
    subagentRunId: str
    toolCallId: str
    toolCallName: str
    parentMessageId: str
    delta: str


class ToolCallResultEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    toolCallId: str
    content: str | list[ContentPart]
    role: Literal["tool"]


class StateSnapshotEvent(BaseEvent, total=False):
    subagentRunId: str
    snapshot: Any


class StateDeltaEvent(BaseEvent, total=False):
    subagentRunId: str
    delta: list[JsonPatchOperation]


class MessagesSnapshotEvent(BaseEvent, total=False):
    messages: list[Message]


class ActivitySnapshotEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    activityType: str
    content: dict[str, Any]
    replace: bool  # absent: True


class ActivityDeltaEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    activityType: str
    patch: list[JsonPatchOperation]


class RawEvent(BaseEvent, total=False):
    subagentRunId: str
    event: Any
    source: str


class CustomEvent(BaseEvent, total=False):
    subagentRunId: str
    name: str
    value: Any


class ReasoningStartEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str


class ReasoningMessageStartEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    role: Literal["reasoning"]


class ReasoningMessageContentEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    delta: str


class ReasoningMessageEndEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str


class ReasoningMessageChunkEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str
    delta: str


class ReasoningEndEvent(BaseEvent, total=False):
    subagentRunId: str
    messageId: str


class ReasoningEncryptedValueEvent(BaseEvent, total=False):
    subagentRunId: str
    subtype: Literal["tool-call", "message"]
    entityId: str
    encryptedValue: str


class SubagentStartedEvent(BaseEvent, total=False):
    subagentRunId: str
    name: str
    description: str
    parentSubagentRunId: str
    parentToolCallId: str
    parentMessageId: str


class SubagentFinishedEvent(BaseEvent, total=False):
    subagentRunId: str
    result: Any
    outcome: dict[str, Any]  # {"type": "success"} or {"type": "suspended", "interruptIds": [...]}


class SubagentErrorEvent(BaseEvent, total=False):
    subagentRunId: str
    message: str
    code: str


Event = Union[  # noqa: UP007  (a runtime alias that Python 3.10 can evaluate)
    RunStartedEvent, RunFinishedEvent, RunErrorEvent, StepStartedEvent, StepFinishedEvent,
    TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent, TextMessageChunkEvent,
    ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent, ToolCallChunkEvent, ToolCallResultEvent,
    StateSnapshotEvent, StateDeltaEvent, MessagesSnapshotEvent, ActivitySnapshotEvent, ActivityDeltaEvent,
    RawEvent, CustomEvent, ReasoningStartEvent, ReasoningMessageStartEvent, ReasoningMessageContentEvent,
    ReasoningMessageEndEvent, ReasoningMessageChunkEvent, ReasoningEndEvent, ReasoningEncryptedValueEvent,
    SubagentStartedEvent, SubagentFinishedEvent, SubagentErrorEvent,
]  # fmt: skip


class Run(TypedDict):
    """What ``agui.Assembler`` assembles: the run as the AG-UI client holds it."""

    threadId: str | None
    runId: str | None
    parentRunId: str | None
    status: Literal["running", "finished", "error", "incomplete"]
    error: dict[str, Any] | None  # {"message": ..., "code": ...} from RUN_ERROR
    result: Any
    outcome: RunFinishedOutcome | None
    usage: list[TokenUsage] | None
    messages: list[Message]
    state: Any
    events: list[dict[str, Any]]  # steps, RAW, CUSTOM, subagent and unknown events, in order
