"""Decoding LangChain protocol messages from their transports.

Over SSE, each event's data is one JSON message (``event:`` carries the
method, ``id:`` the sequence number or event id); over a WebSocket, each text
frame is one. Messages are told apart by ``type``: ``"success"`` and
``"error"`` answer commands, ``"event"`` is pushed. Unknown types, methods,
codes and fields are kept as they came.
"""

from __future__ import annotations

from typing import Any

from .. import SSEDecoder
from .._pure.json_values import JSONValueError, loads
from .._pure.langchain.errors import LangChainError

__all__ = ["StreamDecoder", "message_type", "parse_message"]

# Envelope keys the CDDL spells in camelCase; the wire uses snake_case.
_ENVELOPE_KEYS = {"eventId": "event_id", "runId": "run_id"}
_META_KEYS = {"appliedThroughSeq": "applied_through_seq"}


def _rename(record: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    if not any(key in names for key in record):
        return record
    return {names.get(key, key): value for key, value in record.items()}


def parse_message(frame: str | bytes | bytearray | dict[str, Any]) -> dict[str, Any]:
    """One protocol message from its JSON text (a WebSocket frame, or SSE
    data), with the envelope's camelCase keys in their snake_case spelling."""
    if isinstance(frame, dict):
        message = frame
    else:
        text = frame if isinstance(frame, str) else bytes(frame).decode("utf-8", "replace")
        try:
            message = loads(text)
        except JSONValueError as exc:
            raise LangChainError(f"protocol message is not valid JSON: {exc}") from None
        if not isinstance(message, dict):
            raise LangChainError("protocol message is not a JSON object")
    message = _rename(message, _ENVELOPE_KEYS)
    meta = message.get("meta")
    if isinstance(meta, dict):
        message["meta"] = _rename(meta, _META_KEYS)
    return message


def message_type(message: dict[str, Any]) -> str:
    """``"success"``, ``"error"`` or ``"event"`` (or whatever else a server sent)."""
    kind = message.get("type")
    if isinstance(kind, str):
        return kind
    return "event" if "method" in message else "unknown"


class StreamDecoder:
    """Decodes an SSE event stream into protocol messages, in any chunking."""

    def __init__(self, **limits: Any) -> None:
        self._decoder = SSEDecoder(**limits)

    def feed(self, data: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        return [self._message(event.event, event.data) for event in self._decoder.feed(data)]

    def close(self) -> list[dict[str, Any]]:
        return [self._message(event.event, event.data) for event in self._decoder.close()]

    @staticmethod
    def _message(method: str, data: str) -> dict[str, Any]:
        message = parse_message(data)
        if "method" not in message and message_type(message) == "event" and method != "message":
            message["method"] = method
        return message
