"""The Anthropic Messages stream (``/v1/messages`` with ``stream: true``).

- ``Assembler`` turns a Messages stream, raw SSE bytes in any chunking or
  decoded events, into the final Message, as anthropic-sdk-python's
  ``accumulate_event`` (behind ``client.messages.stream``) gives it: text
  with its citations, thinking with its signature, redacted thinking, tool
  and server tool calls with their input, server tool results, the stop
  reason and the cumulative usage. A tool block's input is parsed once, when
  the block stops (the SDK re-parses all of it on every fragment), blocks
  are addressed by their ``index``, and a delta a block cannot take is an
  error, not dropped.
- ``MessageStreamBuilder`` writes a Messages stream on a server from calls
  like ``add_text_delta("Hel")`` and keeps the Message a client assembles
  from it; ``encode(event)`` writes one event.
- The protocol types: ``TypedDict`` shapes for the events and the Message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.anthropic.errors import AnthropicError, AnthropicEventError
from .builder import MessageStreamBuilder, encode
from .types import (
    STOP_REASONS,
    Citation,
    ContentBlock,
    ContentBlockDeltaEvent,
    ContentBlockStartEvent,
    ContentBlockStopEvent,
    ErrorEvent,
    Message,
    MessageDeltaEvent,
    MessageStartEvent,
    MessageStopEvent,
    PingEvent,
    RedactedThinkingBlock,
    StreamEvent,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

if TYPE_CHECKING:
    from .._native import AnthropicAssembler as Assembler
else:
    Assembler = impl.AnthropicAssembler

__all__ = [
    "STOP_REASONS",
    "AnthropicError",
    "AnthropicEventError",
    "Assembler",
    "Citation",
    "ContentBlock",
    "ContentBlockDeltaEvent",
    "ContentBlockStartEvent",
    "ContentBlockStopEvent",
    "ErrorEvent",
    "Message",
    "MessageDeltaEvent",
    "MessageStartEvent",
    "MessageStopEvent",
    "MessageStreamBuilder",
    "PingEvent",
    "RedactedThinkingBlock",
    "StreamEvent",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "Usage",
    "encode",
]
