"""The AG-UI protocol (``POST /ag-ui`` of an AgentScope AgentApp, CopilotKit
and other AG-UI frontends).

- ``Assembler`` turns an AG-UI stream, raw SSE bytes in any chunking or
  decoded events, into the run the AG-UI client holds: its messages, state
  (JSON Patch applied exactly), status, result and error.
- ``encode`` and ``EventEncoder`` write events byte for byte as
  ag-ui-protocol's ``EventEncoder`` does; ``text_message_content`` and
  ``tool_call_args`` write the hot events straight to bytes.
- The protocol types: ``EventType`` and ``TypedDict`` shapes for every AG-UI
  1.0 event, message, tool call and the ``RunAgentInput`` request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.agui.errors import AGUIError, AGUIEventError
from .encoder import EventEncoder, encode, encode_event, text_message_content, tool_call_args
from .types import (
    EVENT_TYPES,
    ActivityMessage,
    AssistantMessage,
    ContentPart,
    Context,
    DeveloperMessage,
    Event,
    EventType,
    FunctionCall,
    Message,
    ReasoningMessage,
    Run,
    RunAgentInput,
    SystemMessage,
    TokenUsage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)

if TYPE_CHECKING:
    from .._native import AGUIAssembler as Assembler
else:
    Assembler = impl.AGUIAssembler

__all__ = [
    "EVENT_TYPES",
    "AGUIError",
    "AGUIEventError",
    "ActivityMessage",
    "Assembler",
    "AssistantMessage",
    "ContentPart",
    "Context",
    "DeveloperMessage",
    "Event",
    "EventEncoder",
    "EventType",
    "FunctionCall",
    "Message",
    "ReasoningMessage",
    "Run",
    "RunAgentInput",
    "SystemMessage",
    "TokenUsage",
    "Tool",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "encode",
    "encode_event",
    "text_message_content",
    "tool_call_args",
]
