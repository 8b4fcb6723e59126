"""Gemini's ``streamGenerateContent``: ``GenerateContentResponse`` records,
streamed as SSE (``alt=sse``) or as one JSON array written element by
element (without it).

- ``Assembler`` turns a Gemini stream, raw bytes in any chunking (either
  framing, told by the first byte) or decoded records, into the
  ``GenerateContentResponse`` that ``generateContent`` answers the same
  request with: text and thoughts joined into their parts, each signature
  on the part it closes, function calls whole (Vertex AI's streamed
  ``partialArgs`` written into ``args``), candidates by ``index``, the last
  usage. An ``{"error": ...}`` record is the run's error: kept as ``error``
  and recorded, with what came before it intact.
- ``Transcoder(source, "gemini")`` writes any protocol's stream as Gemini's
  records (SSE, as ``alt=sse`` answers).
- The protocol types: ``TypedDict`` shapes for the records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import impl
from .._pure.gemini.errors import GeminiError, GeminiEventError
from .._pure.gemini.events import frame
from .types import (
    FINISH_REASONS,
    Blob,
    Candidate,
    Content,
    ErrorRecord,
    FileData,
    FunctionCall,
    GenerateContentResponse,
    Part,
    PartialArg,
    Record,
    UsageMetadata,
)

if TYPE_CHECKING:
    from .._native import GeminiAssembler as Assembler
else:
    Assembler = impl.GeminiAssembler

#: What a client reads a Gemini stream in beside SSE: the JSON array the API
#: answers ``streamGenerateContent`` with when not asked for ``alt=sse``.
READ_MEDIA_TYPES = ("application/json",)

#: Its clients read only the data lines of its SSE streams: google-genai's
#: reader takes any other line (an event id, a keep-alive comment) for JSON
#: and fails on it, so a server writes neither.
DATA_ONLY = True


def encode(record: dict[str, Any]) -> bytes:
    """One record as the server writes it with ``alt=sse``: ``data:``, the
    compact JSON, CRLF twice."""
    return frame(record)


__all__ = [
    "DATA_ONLY",
    "FINISH_REASONS",
    "READ_MEDIA_TYPES",
    "Assembler",
    "Blob",
    "Candidate",
    "Content",
    "ErrorRecord",
    "FileData",
    "FunctionCall",
    "GeminiError",
    "GeminiEventError",
    "GenerateContentResponse",
    "Part",
    "PartialArg",
    "Record",
    "UsageMetadata",
    "encode",
]
