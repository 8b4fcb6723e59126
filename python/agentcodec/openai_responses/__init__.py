"""The OpenAI Responses API stream (``/v1/responses`` with ``stream: true``,
and an AgentScope AgentApp's ``/compatible-mode/v1/responses``).

- ``Assembler`` turns a Responses stream, raw SSE bytes in any chunking or
  decoded events, into the final Response, as openai-python's
  ``client.responses.stream(...).get_final_response()`` gives it, and keeps
  what was assembled when the stream fails or is cut.
- ``encode(event)`` writes one event as the API does (``event: <type>``,
  then one ``data:`` line); ``ResponseBuilder`` writes a Responses stream on a server from calls like
  ``add_text_delta("Hel")``, numbering ``sequence_number`` and keeping the
  Response a client assembles from it.
- The protocol types: ``TypedDict`` shapes for the Response, its output
  items and parts, and the stream events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.openai_responses.errors import OpenAIResponsesError, OpenAIResponsesEventError
from .builder import ResponseBuilder, encode
from .types import (
    EVENT_TYPES,
    FunctionCall,
    Message,
    OutputItem,
    OutputText,
    Reasoning,
    Refusal,
    Response,
    StreamEvent,
    Usage,
)

if TYPE_CHECKING:
    from .._native import OpenAIResponsesAssembler as Assembler
else:
    Assembler = impl.OpenAIResponsesAssembler

__all__ = [
    "EVENT_TYPES",
    "Assembler",
    "FunctionCall",
    "Message",
    "OpenAIResponsesError",
    "OpenAIResponsesEventError",
    "OutputItem",
    "OutputText",
    "Reasoning",
    "Refusal",
    "Response",
    "ResponseBuilder",
    "StreamEvent",
    "Usage",
    "encode",
]
