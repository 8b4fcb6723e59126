"""The Vercel AI SDK UI message stream (what ``useChat`` and
``readUIMessageStream`` read; header ``x-vercel-ai-ui-message-stream: v1``).

- ``Assembler`` turns a UI message stream, raw SSE bytes in any chunking or
  decoded chunks, into the ``UIMessage`` the SDK's ``processUIMessageStream``
  builds: text and reasoning parts, tool parts through their states (input
  streaming and available, approval, output, error, denied), data parts
  reconciled by id, sources, files, step boundaries, ``reset-step``
  retractions, and metadata merged deeply. A tool's input text is parsed
  once (the SDK re-parses all of it on every delta), parts are found through
  indexes, and a chunk the SDK throws on is an event error that
  ``on_error="skip"`` steps over.
- ``UIMessageStreamBuilder`` writes a UI message stream on a server from
  calls like ``add_text_delta("Hel")`` and keeps the UIMessage a client
  assembles from it; ``encode(chunk)`` writes one chunk.
- The protocol types: ``TypedDict`` shapes for the chunks and the UIMessage,
  and ``HEADERS``, the response headers a server sends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.ai_sdk.errors import AISDKError, AISDKEventError
from .builder import UIMessageStreamBuilder, encode
from .types import (
    FINISH_REASONS,
    HEADERS,
    TOOL_STATES,
    DataChunk,
    DataPart,
    DynamicToolPart,
    ErrorChunk,
    FileChunk,
    FilePart,
    FinishChunk,
    MessageMetadataChunk,
    ReasoningChunk,
    ReasoningPart,
    SourceDocumentChunk,
    SourceUrlChunk,
    StartChunk,
    StepChunk,
    TextChunk,
    TextPart,
    ToolApproval,
    ToolChunk,
    ToolPart,
    UIMessage,
    UIMessageChunk,
    UIMessagePart,
)

if TYPE_CHECKING:
    from .._native import AISDKAssembler as Assembler
else:
    Assembler = impl.AISDKAssembler

__all__ = [
    "FINISH_REASONS",
    "HEADERS",
    "TOOL_STATES",
    "AISDKError",
    "AISDKEventError",
    "Assembler",
    "DataChunk",
    "DataPart",
    "DynamicToolPart",
    "ErrorChunk",
    "FileChunk",
    "FilePart",
    "FinishChunk",
    "MessageMetadataChunk",
    "ReasoningChunk",
    "ReasoningPart",
    "SourceDocumentChunk",
    "SourceUrlChunk",
    "StartChunk",
    "StepChunk",
    "TextChunk",
    "TextPart",
    "ToolApproval",
    "ToolChunk",
    "ToolPart",
    "UIMessage",
    "UIMessageChunk",
    "UIMessagePart",
    "UIMessageStreamBuilder",
    "encode",
]
