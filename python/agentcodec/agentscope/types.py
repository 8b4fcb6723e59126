"""The AgentScope Runtime Agent API protocol types.

Constants keep agentscope-runtime's names and values (plain classes of
``str`` constants, as upstream has them). The shapes are ``TypedDict``s: they
describe the plain dicts the assembler returns and the builders emit, and
type checkers read them; nothing is validated at run time. Every key is
optional in the shapes, because real producers leave keys out (servers built
on pydantic send them all, often as null).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = [
    "AgentRequest",
    "AgentResponse",
    "AudioContent",
    "BaseRequest",
    "BaseResponse",
    "Content",
    "ContentType",
    "DataContent",
    "Error",
    "Event",
    "FileContent",
    "FunctionCall",
    "FunctionCallOutput",
    "FunctionParameters",
    "FunctionTool",
    "ImageContent",
    "McpApprovalRequest",
    "McpApprovalResponse",
    "McpCall",
    "McpCallOutput",
    "McpListTools",
    "McpListToolsTool",
    "Message",
    "MessageType",
    "RefusalContent",
    "Role",
    "RunStatus",
    "TextContent",
    "Tool",
    "ToolCall",
    "ToolCallOutput",
    "VideoContent",
]


class _Constants:
    @classmethod
    def all_values(cls) -> list[str]:
        """Every constant's value, as upstream's ``MessageType.all_values()``."""
        return [
            value
            for klass in reversed(cls.__mro__)
            for name, value in vars(klass).items()
            if not name.startswith("_") and isinstance(value, str)
        ]


class Role(_Constants):
    ASSISTANT = "assistant"
    USER = "user"
    SYSTEM = "system"
    TOOL = "tool"


class MessageType(_Constants):
    MESSAGE = "message"
    FUNCTION_CALL = "function_call"
    FUNCTION_CALL_OUTPUT = "function_call_output"
    PLUGIN_CALL = "plugin_call"
    PLUGIN_CALL_OUTPUT = "plugin_call_output"
    COMPONENT_CALL = "component_call"
    COMPONENT_CALL_OUTPUT = "component_call_output"
    MCP_LIST_TOOLS = "mcp_list_tools"
    MCP_APPROVAL_REQUEST = "mcp_approval_request"
    MCP_TOOL_CALL = "mcp_call"
    MCP_APPROVAL_RESPONSE = "mcp_approval_response"
    MCP_TOOL_CALL_OUTPUT = "mcp_call_output"
    REASONING = "reasoning"
    HEARTBEAT = "heartbeat"
    ERROR = "error"
    A2UI_RESPONSE = "a2ui_response"
    A2UI_ACTION = "a2ui_action"


class RunStatus(_Constants):
    # Upstream spells these in CamelCase.
    Created = "created"
    InProgress = "in_progress"
    Completed = "completed"
    Canceled = "canceled"
    Failed = "failed"
    Rejected = "rejected"
    Unknown = "unknown"
    Queued = "queued"
    Incomplete = "incomplete"


class ContentType(_Constants):
    TEXT = "text"
    DATA = "data"
    IMAGE = "image"
    AUDIO = "audio"
    FILE = "file"
    REFUSAL = "refusal"
    VIDEO = "video"


class Error(TypedDict):
    code: str
    message: str


class Event(TypedDict, total=False):
    """Fields every event has, first on the wire."""

    sequence_number: int | None
    object: str
    status: str | None
    error: Error | None


class Content(Event, total=False):
    type: str
    index: int | None
    delta: bool | None
    msg_id: str | None


class TextContent(Content, total=False):
    text: str | None


class ImageContent(Content, total=False):
    image_url: str | None


class DataContent(Content, total=False):
    data: dict[str, Any] | None


class AudioContent(Content, total=False):
    data: str | None
    format: str | None


class VideoContent(Content, total=False):
    video_url: str | None


class FileContent(Content, total=False):
    file_url: str | None
    file_id: str | None
    filename: str | None
    file_data: str | None


class RefusalContent(Content, total=False):
    refusal: str | None


AgentContent = (
    TextContent | ImageContent | DataContent | AudioContent | VideoContent | FileContent | RefusalContent
)


class Message(Event, total=False):
    id: str
    type: str
    role: Literal["assistant", "user", "system", "tool"] | None
    content: list[AgentContent] | None
    code: str | None
    message: str | None
    usage: dict[str, Any] | None
    metadata: dict[str, Any] | None


class BaseResponse(Event, total=False):
    id: str | None
    created_at: int
    completed_at: int | None
    output: list[Message] | None
    usage: dict[str, Any] | None


class AgentResponse(BaseResponse, total=False):
    session_id: str | None


class FunctionParameters(TypedDict, total=False):
    type: str
    properties: dict[str, Any]
    required: list[str] | None


class FunctionTool(TypedDict, total=False):
    name: str
    description: str
    parameters: FunctionParameters | dict[str, Any]


class Tool(TypedDict, total=False):
    type: str | None
    function: FunctionTool | None


class BaseRequest(TypedDict, total=False):
    input: list[Message]
    stream: bool
    id: str | None


class AgentRequest(BaseRequest, total=False):
    model: str | None
    top_p: float | None
    temperature: float | None
    frequency_penalty: float | None
    presence_penalty: float | None
    max_tokens: int | None
    stop: str | list[str] | None
    n: int
    seed: int | None
    tools: list[Tool | dict[str, Any]] | None
    session_id: str | None
    user_id: str | None


class FunctionCall(TypedDict, total=False):
    call_id: str | None
    name: str | None
    arguments: str | None  # JSON text


class FunctionCallOutput(TypedDict, total=False):
    call_id: str
    name: str | None
    output: str


class McpCall(TypedDict, total=False):
    call_id: str | None
    arguments: str | None
    name: str | None
    server_label: str | None


class McpCallOutput(TypedDict, total=False):
    call_id: str
    name: str | None
    output: str


class McpListToolsTool(TypedDict, total=False):
    input_schema: dict[str, Any]
    name: str
    annotations: dict[str, Any] | None
    description: str | None


class McpListTools(TypedDict, total=False):
    id: str
    server_label: str
    tools: list[McpListToolsTool]
    error: str | None


class McpApprovalRequest(TypedDict, total=False):
    id: str
    arguments: str
    name: str
    server_label: str


class McpApprovalResponse(TypedDict, total=False):
    approval_request_id: str
    approve: bool
    id: str | None
    reason: str | None


class ToolCall(TypedDict):
    arguments: str
    call_id: str
    name: str


class ToolCallOutput(TypedDict):
    call_id: str
    output: str
