"""The OpenAI Chat Completions stream (``/v1/chat/completions`` with
``stream: true``, and the many servers that speak it).

- ``Assembler`` turns a Chat Completions stream, raw SSE bytes in any
  chunking or decoded chunks, into the final ChatCompletion, as
  openai-python's ``ChatCompletionStreamState.get_final_completion()`` gives
  it (choices by index, content, refusal, tool calls by index, logprobs,
  usage, finish reasons), without its faults: identity fields a server
  repeats (``role``, a tool call's ``id`` and ``name``) are kept once, not
  concatenated, and the cost is linear in the stream.
- ``ChatCompletionBuilder`` writes a Chat Completions stream on a server
  from calls like ``add_content_delta("Hel")`` and keeps the ChatCompletion
  a client assembles from it; ``encode(chunk)`` writes one chunk.
- The protocol types: ``TypedDict`` shapes for the chunks and the
  completion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.openai_chat.errors import OpenAIChatError, OpenAIChatEventError
from .builder import ChatCompletionBuilder, encode
from .types import (
    FINISH_REASONS,
    ChatCompletion,
    ChatCompletionChunk,
    Choice,
    ChoiceDelta,
    ChunkChoice,
    Message,
    ToolCall,
    ToolCallDelta,
    Usage,
)

if TYPE_CHECKING:
    from .._native import OpenAIChatAssembler as Assembler
else:
    Assembler = impl.OpenAIChatAssembler

__all__ = [
    "FINISH_REASONS",
    "Assembler",
    "ChatCompletion",
    "ChatCompletionBuilder",
    "ChatCompletionChunk",
    "Choice",
    "ChoiceDelta",
    "ChunkChoice",
    "Message",
    "OpenAIChatError",
    "OpenAIChatEventError",
    "ToolCall",
    "ToolCallDelta",
    "Usage",
    "encode",
]
