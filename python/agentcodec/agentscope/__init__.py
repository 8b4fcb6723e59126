"""The AgentScope Runtime Agent API (``POST /process``).

- ``Assembler`` turns a ``/process`` stream, raw SSE bytes in any chunking or
  decoded events, into the final AgentResponse.
- ``ResponseBuilder``, ``MessageBuilder`` and ``ContentBuilder`` emit a stream
  as agentscope-runtime's builders do, byte for byte, and keep the response.
- ``encode`` writes one event as the runtime does (a bare ``data:`` line).
- The protocol types: ``Role``, ``MessageType``, ``RunStatus``, ``ContentType``
  and ``TypedDict`` shapes for every event, content, request and payload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .builders import ContentBuilder, MessageBuilder, ResponseBuilder, StreamingResponseBuilder
from .encoder import encode
from .types import (
    AgentRequest,
    AgentResponse,
    AudioContent,
    BaseRequest,
    BaseResponse,
    Content,
    ContentType,
    DataContent,
    Error,
    Event,
    FileContent,
    FunctionCall,
    FunctionCallOutput,
    FunctionParameters,
    FunctionTool,
    ImageContent,
    McpApprovalRequest,
    McpApprovalResponse,
    McpCall,
    McpCallOutput,
    McpListTools,
    McpListToolsTool,
    Message,
    MessageType,
    RefusalContent,
    Role,
    RunStatus,
    TextContent,
    Tool,
    ToolCall,
    ToolCallOutput,
    VideoContent,
)

if TYPE_CHECKING:
    from .._native import AgentScopeAssembler as Assembler
else:
    Assembler = impl.AgentScopeAssembler

__all__ = [
    "AgentRequest",
    "AgentResponse",
    "Assembler",
    "AudioContent",
    "BaseRequest",
    "BaseResponse",
    "Content",
    "ContentBuilder",
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
    "MessageBuilder",
    "MessageType",
    "RefusalContent",
    "ResponseBuilder",
    "Role",
    "RunStatus",
    "StreamingResponseBuilder",
    "TextContent",
    "Tool",
    "ToolCall",
    "ToolCallOutput",
    "VideoContent",
    "encode",
]
