"""The protocol-neutral event vocabulary, and what reads and writes it.

Every protocol's events say the same few things, and here they have one
form: a dict with a ``type``.

=====================  ==================================================================
``run_started``        ``run_id``, ``thread_id``, ``model``, ``created_at``
``run_finished``       ``status`` (``RUN_STATUSES``: completed, incomplete, cancelled,
                       interrupted), ``usage``, ``result``, ``stop_reason`` (why the run
                       stopped, where the source says it of the run, not of a message)
``run_failed``         ``code``, ``message``, ``usage``
``message_started``    ``message_id``, ``role``, ``kind`` (message, reasoning, tool_call,
                       tool_result, or None), ``namespace`` (the path of the subgraph or
                       sub-agent that wrote it, a list of str; None for the run's own),
                       ``node`` (the graph node that wrote it, where the source names
                       one; provenance, as a run's metadata is: no loss where dropped)
``message_finished``   ``message_id``, ``usage``, ``stop_reason``
``block_started``      ``message_id``, ``index``, ``kind``, and the kind's fixed fields
``block_delta``        ``message_id``, ``index``, ``delta``: appended to the block's text,
                       arguments, output or data, as its kind says
``block_replaced``     ``message_id``, ``index``, and the fields that replace the block's
``block_finished``     ``message_id``, ``index``
``state_snapshot``     ``snapshot``
``state_patch``        ``patch`` (RFC 6902)
``passthrough``        ``protocol``, ``event``: what has no neutral meaning, kept
=====================  ==================================================================

Block kinds (``BLOCK_FIELDS`` lists each one's fixed fields, ``APPENDED_FIELD``
the field its deltas append to): ``text``, ``reasoning`` (``summary``),
``refusal``, ``tool_call`` (``call_id``, ``name``, ``tool``, ``server``: the MCP
server that runs it), ``tool_result``
(``call_id``, ``name``, ``tool``), ``media`` (``media_type``, ``mime_type``,
``url``) and ``data`` (``value``).

A delta goes to an open block (started, not finished: a message's end does
not end its blocks); a replacement may also come after its block's end, as
AG-UI's encrypted values do. What a target writes nothing of, a delta or
replacement to a block that is not open, is reported (``block_not_open``).

A ``stop_reason`` is the source's word, lower case. A target writes one of
its own words as it is and any other as its word for the reason's kind (the
turn's end, a tool call, a stop sequence, running out of tokens, a filter, a
pause: the vocabulary's ``STOP_REASON_KINDS``); one it has no word for is
reported (``stop_reason``), but for the kinds the stream says anyway.

- ``Decoder(protocol)``: a protocol's stream (SSE bytes in any chunking, or
  decoded events) into neutral events.
- ``Encoder(protocol, **options)``: neutral events into the protocol's
  events and SSE bytes.
- ``Assembler(protocol)``: any protocol's stream into one neutral view: the
  run's status, usage, stop reason and error, its messages of blocks (tool calls'
  arguments parsed, each message's namespace and node), the state, and the events that passed through.
- ``agentcodec.Transcoder(source, target)`` is a decoder feeding an encoder.

Protocol names: ``PROTOCOLS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._backend import impl
from ._pure.events import (
    APPENDED_FIELD,
    BLOCK_FIELDS,
    BLOCK_KINDS,
    MESSAGE_KINDS,
    PROTOCOL_NAMES,
    RUN_STATUSES,
    ProtocolName,
)

if TYPE_CHECKING:
    from ._native import NeutralAssembler as Assembler
    from ._native import NeutralDecoder as Decoder
    from ._native import NeutralEncoder as Encoder
else:
    Assembler = impl.NeutralAssembler
    Decoder = impl.NeutralDecoder
    Encoder = impl.NeutralEncoder

#: Every protocol's name, in order (``ProtocolName`` lists them).
PROTOCOLS: tuple[ProtocolName, ...] = PROTOCOL_NAMES

__all__ = [
    "APPENDED_FIELD",
    "BLOCK_FIELDS",
    "BLOCK_KINDS",
    "MESSAGE_KINDS",
    "PROTOCOLS",
    "RUN_STATUSES",
    "Assembler",
    "ProtocolName",
    "Decoder",
    "Encoder",
]
