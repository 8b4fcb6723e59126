"""What the pure-Python backend exports, name for name as
``agentcodec._native``: the package ``agentcodec._pure`` hands these out on
first use (see its ``__init__``)."""

from typing import Any

from .._version import __version__
from . import eventstream, json_array, ndjson, partial_json, sse_decoder, transcode
from ._guard import serialized
from .registry import PROTOCOLS
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, SSEEvent
from .sse_encoder import encode_sse, encode_sse_comment, frame_json_string

# What the package exports is safe to share between threads: one call at a
# time per object (see _guard). SSEEvent is immutable.
PartialJSON = serialized(partial_json.PartialJSON)
SSEDecoder = serialized(sse_decoder.SSEDecoder)
NDJSONDecoder = serialized(ndjson.NDJSONDecoder)
JSONArrayDecoder = serialized(json_array.JSONArrayDecoder)
EventStreamDecoder = serialized(eventstream.EventStreamDecoder)
encode_event_message = eventstream.encode_event_message
NeutralAssembler = serialized(transcode.Assembler, "NeutralAssembler")
NeutralDecoder = serialized(transcode.Decoder, "NeutralDecoder")
NeutralEncoder = serialized(transcode.Encoder, "NeutralEncoder")
Transcoder = serialized(transcode.Transcoder)


def _export_assemblers() -> list[str]:
    """Each protocol's assembler under the name the native module exports
    it by (``<Name>Assembler``; the class itself is ``Assembler`` on both
    backends): the registry lists them, so a new protocol needs no line here."""
    namespace: dict[str, Any] = globals()
    for protocol in PROTOCOLS.values():
        namespace[protocol.exported_as] = serialized(protocol.assembler)
    return [protocol.exported_as for protocol in PROTOCOLS.values()]


__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "EventStreamDecoder",
    "JSONArrayDecoder",
    "NDJSONDecoder",
    "NeutralAssembler",
    "NeutralDecoder",
    "NeutralEncoder",
    "PartialJSON",
    "SSEDecoder",
    "SSEEvent",
    "Transcoder",
    "__version__",
    "encode_event_message",
    "encode_sse",
    "encode_sse_comment",
    "frame_json_string",
]
__all__.extend(_export_assemblers())
