"""The LangChain Agent Streaming Protocol.

- ``Assembler`` assembles the ``messages`` channel from raw SSE bytes (any
  chunking), WebSocket frames or decoded events.
- ``encode`` writes one protocol message as the Agent Server's SSE does
  (``id:`` its ``seq``, ``event:`` its ``method``).
- ``StreamDecoder`` and ``parse_message`` decode SSE streams and WebSocket
  frames into protocol messages (``success``, ``error`` and ``event``).
- ``Subscription`` decides which events a subscriber receives;
  ``ReplayBuffer`` replays a thread's recent events after a sequence number,
  and reports a gap instead of replaying with a hole.
- The protocol types: ``TypedDict`` shapes for commands, responses, events,
  channel payloads, content blocks and the five delta variants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import impl
from .._pure.langchain.errors import LangChainError, LangChainEventError, ResumeGapError
from .encoder import encode
from .envelopes import StreamDecoder, message_type, parse_message
from .media import block_bytes
from .replay import ReplayBuffer
from .subscriptions import Subscription, event_channel
from .types import CHANNELS, COMMAND_METHODS, ERROR_CODES

if TYPE_CHECKING:
    from .._native import LangChainAssembler as Assembler
else:
    Assembler = impl.LangChainAssembler

__all__ = [
    "CHANNELS",
    "COMMAND_METHODS",
    "ERROR_CODES",
    "Assembler",
    "LangChainError",
    "LangChainEventError",
    "ReplayBuffer",
    "ResumeGapError",
    "StreamDecoder",
    "Subscription",
    "block_bytes",
    "encode",
    "event_channel",
    "message_type",
    "parse_message",
]
