"""Ollama's ``/api/chat`` and ``/api/generate``: streams of newline-delimited
JSON (NDJSON), a piece of the answer a line.

- ``Assembler`` turns an Ollama stream, raw bytes in any chunking (NDJSON as
  Ollama sends it, or the same lines as SSE) or decoded lines, into the
  answer the server gives the same request without streaming: the text and
  thinking joined, the tool calls gathered, the last line's reason and
  counts. An ``{"error": ...}`` line is the run's error: kept as ``error``
  and recorded, with what came before it intact.
- ``Transcoder(source, "ollama")`` writes any protocol's stream as Ollama's
  lines, ``/api/chat``'s unless ``endpoint="generate"``.
- The protocol types: ``TypedDict`` shapes for the lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import impl
from .._pure.ollama.errors import OllamaError, OllamaEventError
from .._pure.ollama.events import frame
from .types import (
    DONE_REASONS,
    ENDPOINTS,
    ChatResponse,
    ErrorLine,
    GenerateResponse,
    Line,
    Message,
    ToolCall,
    ToolCallFunction,
)

if TYPE_CHECKING:
    from .._native import OllamaAssembler as Assembler
else:
    Assembler = impl.OllamaAssembler

#: The media type of an Ollama stream.
MEDIA_TYPE = "application/x-ndjson"


def encode(line: dict[str, Any]) -> bytes:
    """One line as Ollama's server writes it: compact JSON (U+0085, U+2028
    and U+2029 escaped, which the ollama client would split at) and LF."""
    return frame(line)


__all__ = [
    "DONE_REASONS",
    "ENDPOINTS",
    "MEDIA_TYPE",
    "Assembler",
    "ChatResponse",
    "ErrorLine",
    "GenerateResponse",
    "Line",
    "Message",
    "OllamaError",
    "OllamaEventError",
    "ToolCall",
    "ToolCallFunction",
    "encode",
]
