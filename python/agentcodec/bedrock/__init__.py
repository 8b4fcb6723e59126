"""Bedrock's ConverseStream: the AWS event stream (binary) carrying the
members of ``ConverseStreamOutput``.

- ``Assembler`` turns a stream, raw event stream bytes in any chunking (or
  the same events as SSE, or decoded events as botocore gives them), into
  the response Converse gives the same request: the message's content
  blocks (text, tool uses with their input parsed, reasoning with its
  signature), the stop reason, the usage and metrics. An exception is the
  run's error: kept under its name and recorded, with what came before it.
  A message whose CRC fails is an ``EventStreamError`` naming where it is.
- ``Transcoder(source, "bedrock")`` writes any protocol's stream as
  Bedrock's event stream messages.
- The protocol types: ``TypedDict`` shapes for the events and the response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import impl
from .._pure.bedrock.errors import BedrockError, BedrockEventError
from .._pure.bedrock.events import frame
from .types import (
    EVENTS,
    EXCEPTIONS,
    STOP_REASONS,
    ContentBlock,
    ConverseResponse,
    Event,
    Message,
    ToolUse,
    Usage,
)

if TYPE_CHECKING:
    from .._native import BedrockAssembler as Assembler
else:
    Assembler = impl.BedrockAssembler

#: The media type of a ConverseStream.
MEDIA_TYPE = "application/vnd.amazon.eventstream"


def encode(event: dict[str, Any]) -> bytes:
    """One event as Bedrock writes it: an event stream message (an
    exception's as an exception message)."""
    return frame(event)


__all__ = [
    "EVENTS",
    "EXCEPTIONS",
    "MEDIA_TYPE",
    "STOP_REASONS",
    "Assembler",
    "BedrockError",
    "BedrockEventError",
    "ContentBlock",
    "ConverseResponse",
    "Event",
    "Message",
    "ToolUse",
    "Usage",
    "encode",
]
