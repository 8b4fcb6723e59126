"""Assembling the messages channel of the LangChain Agent Streaming
Protocol: the pure-Python reference implementation.

A message is identified by its namespace and node; its content blocks by
their wire index, and blocks may interleave. Deltas append (text, reasoning,
base64 data, tool-call arguments) or shallow-merge (``block-delta``);
``content-block-finish`` is authoritative; ``message-finish`` turns tool-call
chunks still open into tool calls (strict JSON) or invalid tool calls.
Events already applied (by ``event_id``) are not applied again.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from ..._vocabulary import tables
from .._args import as_bytes
from ..accumulate import append, is_text, render
from ..json_values import JSONValueError, loads
from ..sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from ..stream import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_STREAM_BYTES,
    AssemblerBase,
)
from ..tool_calls import NO_ARGUMENTS, ToolCall
from .errors import LangChainError, LangChainEventError

__all__ = ["Assembler"]

_VOCABULARY = tables("langchain")

TOOL_ARGS_MODES = ("strict", "auto")
# How many recent event ids are remembered to drop a replayed event: more
# than the 10,000 events a server's replay buffer holds.
SEEN_EVENT_IDS = 16384
TOOL_CHUNK_TYPES = {"tool_call_chunk": "tool_call", "server_tool_call_chunk": "server_tool_call"}
# Keys of the spec's camelCase spelling that blocks and messages may use.
CAMEL_KEYS = {
    "mimeType": "mime_type",
    "fileId": "file_id",
    "toolCallId": "tool_call_id",
    "startIndex": "start_index",
    "endIndex": "end_index",
    "citedText": "cited_text",
    "messageId": "message_id",
}
INVALID_JSON = "Failed to parse tool call arguments as JSON"
NOT_AN_OBJECT = "Tool call arguments are not a JSON object"

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_case(key: str) -> str:
    """``inputTokens`` -> ``input_tokens``: how usage keys are normalised."""
    return _CAMEL_BOUNDARY.sub("_", key).lower() if not key.islower() else key


def _snake_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {snake_case(key): _snake_keys(item) for key, item in value.items()}
    return value


def _block_keys(block: dict[str, Any]) -> dict[str, Any]:
    """A block with the spec's camelCase keys in their wire spelling."""
    if not any(key in CAMEL_KEYS for key in block):
        return block
    return {CAMEL_KEYS.get(key, key): value for key, value in block.items()}


def _is_tool_chunk(kind: Any) -> bool:
    return isinstance(kind, str) and kind in TOOL_CHUNK_TYPES


def _first(data: dict[str, Any], *keys: str) -> Any:
    """The value of the first key present (a field and its legacy names)."""
    for key in keys:
        if key in data:
            return data[key]
    return None


# Content blocks that are tool calls, streaming or not.
TOOL_CALL_BLOCKS = frozenset(_VOCABULARY["TOOL_CALL_BLOCKS"])


class _Message:
    __slots__ = ("blocks", "extra", "fields", "finished")

    def __init__(self, namespace: list[str], node: str | None, message_id: Any, role: Any) -> None:
        self.fields: dict[str, Any] = {
            "id": message_id,
            "role": role,
            "namespace": list(namespace),
            "node": node,
            "metadata": None,
            "usage": None,
            "finish_reason": None,
            "response_metadata": None,
            "status": "in_progress",
            "error": None,
        }
        self.extra: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.finished: set[int] = set()

    def render(self) -> dict[str, Any]:
        message: dict[str, Any] = {key: render(value) for key, value in self.fields.items()}
        message["content"] = [render(self.blocks[index]) for index in sorted(self.blocks)]
        message.update(render(self.extra))
        return message


def _finalize_tool_chunk(block: dict[str, Any]) -> dict[str, Any]:
    """A tool-call chunk at the end of its message: a tool call when its
    arguments are a JSON object (none at all count as ``{}``), otherwise an
    invalid tool call with the raw arguments and the reason."""
    final = dict(block)
    raw = render(block.get("args"))
    if raw is None or raw == "":
        parsed: Any = {}
    elif isinstance(raw, str):
        try:
            parsed = loads(raw)
        except JSONValueError:
            final["type"] = "invalid_tool_call"
            final["error"] = INVALID_JSON
            return final
    else:
        parsed = raw
    if not isinstance(parsed, dict):
        final["type"] = "invalid_tool_call"
        final["error"] = NOT_AN_OBJECT
        return final
    final["type"] = TOOL_CHUNK_TYPES[block["type"]]
    final["args"] = parsed
    return final


def recognizes(event: dict[str, Any]) -> bool:
    """Whether a message is one of the protocol's: an event (``type``
    "event", or none) with a ``method``, or a command's response
    (``success`` or ``error``, with its ``id``): ``langchain::recognizes``."""
    kind = event.get("type")
    if kind in ("success", "error"):
        return "id" in event
    return (kind is None or kind == "event") and isinstance(event.get("method"), str)


class Assembler(AssemblerBase):
    """Assembles the messages of a LangChain Agent Streaming Protocol stream."""

    _recognizes = staticmethod(recognizes)

    _event_error = LangChainEventError
    _base_error = LangChainError

    def __init__(
        self,
        *,
        tool_args: str = "strict",
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        max_stream_bytes: int | None = DEFAULT_MAX_STREAM_BYTES,
        max_messages: int | None = DEFAULT_MAX_MESSAGES,
        max_blocks: int | None = DEFAULT_MAX_BLOCKS,
    ) -> None:
        if not isinstance(tool_args, str):
            raise TypeError(f"tool_args must be str, not {type(tool_args).__name__}")
        if tool_args not in TOOL_ARGS_MODES:
            raise ValueError(f"tool_args must be 'strict' or 'auto', not {tool_args!r}")
        super().__init__(
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
            max_stream_bytes=max_stream_bytes,
            max_messages=max_messages,
            max_blocks=max_blocks,
        )
        self._auto_args = tool_args == "auto"
        self._messages: list[_Message] = []
        # The message being streamed for each (namespace, node).
        self._active: dict[tuple[tuple[str, ...], str | None], _Message] = {}
        self._seen_ids: set[str] = set()
        self._seen_order: deque[str] = deque()
        self._duplicates = 0

    # --- input ---------------------------------------------------------------

    def feed_frame(self, frame: str | bytes | bytearray) -> None:
        """Assembles one WebSocket text frame (one JSON message)."""
        if isinstance(frame, str):
            # A lone surrogate is no UTF-8: read as the bytes a lenient
            # encoder makes of it, each one replaced (as the native backend).
            text = (
                frame
                if frame.isascii()
                else frame.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            )
        else:
            text = as_bytes(frame, "Assembler.feed_frame()").decode("utf-8", "replace")
        self._feed_text(text)

    # --- output --------------------------------------------------------------

    def _result(self) -> list[dict[str, Any]]:
        return self._render_messages()

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message so far, in the order they started: a new list of new
        dicts on every access."""
        return self._render_messages()

    def _render_messages(self) -> list[dict[str, Any]]:
        return [message.render() for message in self._messages]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool-call block of every message (``tool_call_chunk``,
        ``tool_call``, ``invalid_tool_call`` and their server kinds):
        ``message_id``, ``index``, ``type``, ``id``, ``name``, ``args``
        parsed so far while they stream (read after every delta, each byte is
        parsed once), and ``done``; args that are not valid JSON stay as they
        came, with an ``error``."""
        calls = []
        for position, message in enumerate(self._messages):
            still_open = message.fields.get("status") == "in_progress"
            for index in sorted(message.blocks):
                block = message.blocks[index]
                kind = block.get("type")
                if kind not in TOOL_CALL_BLOCKS:
                    continue
                arguments = block.get("args")
                calls.append(
                    ToolCall(
                        f"{position}/{index}",
                        {
                            "message_id": message.fields.get("id"),
                            "index": index,
                            "type": kind,
                            "id": block.get("id"),
                            "name": block.get("name"),
                        },
                        "args",
                        NO_ARGUMENTS if arguments is None else arguments,
                        self._closed or not still_open or index in message.finished,
                    )
                )
        return self._tool_call_reader.read(calls)

    @property
    def duplicate_count(self) -> int:
        """Events dropped because their ``event_id`` was already applied."""
        return self._duplicates

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._messages)

    def _apply_object(self, event: dict[str, Any]) -> None:
        self._apply_envelope(event)

    def _finish(self) -> None:
        for message in self._active.values():
            message.fields["status"] = "incomplete"
        self._active.clear()

    def _apply_envelope(self, envelope: dict[str, Any]) -> None:
        """Applies one protocol message. What is not a ``messages`` event (a
        command's response, another method, an event id seen before) is
        passed over."""
        if envelope.get("type", "event") != "event":
            return  # a command response: nothing to assemble
        event_id = _first(envelope, "event_id", "eventId")
        if isinstance(event_id, str):
            if event_id in self._seen_ids:
                self._duplicates += 1
                return
            self._remember(event_id)
        if envelope.get("method") != "messages":
            return
        params = envelope.get("params")
        if not isinstance(params, dict):
            return
        namespace = params.get("namespace", [])
        data = params.get("data")
        if not isinstance(namespace, list) or not all(isinstance(part, str) for part in namespace):
            return
        if not isinstance(data, dict):
            return
        node = params.get("node")
        self._messages_event(namespace, node if isinstance(node, str) else None, data)

    def _remember(self, event_id: str) -> None:
        self._seen_ids.add(event_id)
        self._seen_order.append(event_id)
        if len(self._seen_order) > SEEN_EVENT_IDS:
            self._seen_ids.discard(self._seen_order.popleft())

    def _message_for(self, namespace: list[str], node: str | None) -> _Message:
        """The message being streamed here, or one made up for a stream
        joined midway."""
        key = (tuple(namespace), node)
        message = self._active.get(key)
        if message is None:
            message = self._active[key] = _Message(namespace, node, None, None)
            self._messages.append(message)
        return message

    def _messages_event(self, namespace: list[str], node: str | None, data: dict[str, Any]) -> None:
        kind = data.get("event")
        if kind == "message-start":
            self._start_message(namespace, node, data)
            return
        if kind not in (
            "content-block-start",
            "content-block-delta",
            "content-block-finish",
            "message-finish",
            "error",
        ):
            return  # usage, provider and future events: tolerated
        message = self._message_for(namespace, node)
        if kind == "message-finish":
            self._finish_message(message, data)
            del self._active[(tuple(namespace), node)]
            return
        if kind == "error":
            code = data.get("code")
            message.fields["status"] = "error"
            message.fields["error"] = {"message": data.get("message"), "code": code}
            del self._active[(tuple(namespace), node)]
            return
        index = data.get("index")
        if type(index) is not int or index < 0 or index >= 2**53:
            return
        if kind == "content-block-start":
            content = _first(data, "content", "content_block", "contentBlock")
            if isinstance(content, dict):
                if index not in message.blocks:
                    self._blocks_held += 1
                message.blocks[index] = _block_keys(dict(content))
                message.finished.discard(index)
        elif kind == "content-block-finish":
            content = _first(data, "content", "content_block", "contentBlock")
            if isinstance(content, dict):
                if index not in message.blocks:
                    self._blocks_held += 1
                message.blocks[index] = self._finished_block(
                    message.blocks.get(index), _block_keys(dict(content))
                )
                message.finished.add(index)
        elif index not in message.finished:
            delta = data.get("delta")
            if isinstance(delta, dict):
                self._apply_delta(message, index, delta)
            else:
                fragment = _first(data, "content", "content_block", "contentBlock")
                if isinstance(fragment, dict):
                    self._apply_fragment(message, index, _block_keys(fragment))

    def _start_message(self, namespace: list[str], node: str | None, data: dict[str, Any]) -> None:
        key = (tuple(namespace), node)
        previous = self._active.get(key)
        if previous is not None:
            # A new message on the same namespace and node ends the last one.
            previous.fields["status"] = "incomplete"
        message = _Message(namespace, node, _first(data, "id", "message_id", "messageId"), data.get("role"))
        metadata = data.get("metadata")
        message.fields["metadata"] = metadata if isinstance(metadata, dict) else None
        for key_name, value in data.items():
            if key_name not in ("event", "role", "id", "message_id", "messageId", "metadata"):
                message.extra[CAMEL_KEYS.get(key_name, key_name)] = value
        self._active[key] = message
        self._messages.append(message)

    def _apply_delta(self, message: _Message, index: int, delta: dict[str, Any]) -> None:
        block = message.blocks.get(index)
        kind = delta.get("type")
        if kind in ("text-delta", "reasoning-delta"):
            field = "text" if kind == "text-delta" else "reasoning"
            piece = delta.get(field)
            if not isinstance(piece, str):
                return
            if block is None:
                block = message.blocks[index] = {"type": field, field: ""}
                self._blocks_held += 1
            append(block, field, piece)
        elif kind == "data-delta":
            piece = delta.get("data")
            encoding = delta.get("encoding", "base64")
            if block is None or not isinstance(piece, str) or encoding not in ("base64", None):
                return
            field = "data" if "data" in block and "base64" not in block else "base64"
            append(block, field, piece)
        elif kind == "block-delta":
            fields = delta.get("fields")
            if not isinstance(fields, dict):
                return
            if block is None:
                message.blocks[index] = _block_keys(dict(fields))
                self._blocks_held += 1
                return
            self._merge_fields(block, _block_keys(fields))
        elif kind == "tool-call-delta":
            if block is None or not _is_tool_chunk(block.get("type")):
                return
            piece = delta.get("args")
            if piece is None:
                piece = ""
            if isinstance(piece, str):
                append(block, "args", piece)
        # Unknown delta types: ignored, the block is kept.

    def _merge_fields(self, block: dict[str, Any], fields: dict[str, Any]) -> None:
        """block-delta: a shallow merge, except that an id or name already
        known is not cleared by null, and (in "auto" mode) arguments that do
        not extend the ones held are taken as a fragment to append."""
        for key, value in fields.items():
            if key in ("id", "name") and value is None and block.get(key) is not None:
                continue
            if key == "args" and self._auto_args and isinstance(value, str) and is_text(block.get("args")):
                held = render(block["args"])
                if not value.startswith(held):
                    append(block, "args", value)
                    continue
            block[key] = value

    def _apply_fragment(self, message: _Message, index: int, fragment: dict[str, Any]) -> None:
        """A legacy delta: a block-shaped fragment under ``content``."""
        block = message.blocks.get(index)
        if block is None:
            message.blocks[index] = dict(fragment)
            self._blocks_held += 1
            return
        kind = fragment.get("type")
        if kind in ("text", "reasoning"):
            piece = fragment.get(kind)
            if isinstance(piece, str):
                append(block, kind, piece)
        elif _is_tool_chunk(kind):
            piece = fragment.get("args")
            if isinstance(piece, str):
                append(block, "args", piece)
            for key in ("id", "name"):
                if fragment.get(key) is not None:
                    block[key] = fragment[key]
        elif isinstance(fragment.get("data"), str):
            append(block, "data", fragment["data"])
        else:
            self._merge_fields(block, fragment)

    def _finished_block(self, held: dict[str, Any] | None, final: dict[str, Any]) -> dict[str, Any]:
        """content-block-finish replaces the block, but an empty text or
        reasoning in it does not erase what was streamed."""
        if held is not None and final.get("type") in ("text", "reasoning"):
            field = final["type"]
            streamed = render(held.get(field))
            if not final.get(field) and isinstance(streamed, str) and streamed:
                final[field] = streamed
        return final

    def _finish_message(self, message: _Message, data: dict[str, Any]) -> None:
        usage = data.get("usage")
        message.fields["usage"] = _snake_keys(usage) if isinstance(usage, dict) else None
        metadata = _first(data, "metadata", "response_metadata", "responseMetadata")
        message.fields["response_metadata"] = metadata if isinstance(metadata, dict) else None
        reason = _first(data, "reason", "finish_reason")
        if reason is None and isinstance(metadata, dict):
            reason = metadata.get("finish_reason")
        message.fields["finish_reason"] = reason if isinstance(reason, str) else None
        for index, block in message.blocks.items():
            if index not in message.finished and _is_tool_chunk(block.get("type")):
                message.blocks[index] = _finalize_tool_chunk(block)
                message.finished.add(index)
        incomplete = sorted(set(message.blocks) - message.finished)
        message.fields["status"] = "completed"
        if incomplete:
            message.extra["incomplete_blocks"] = incomplete
        for key_name, value in data.items():
            if key_name not in (
                "event",
                "usage",
                "metadata",
                "response_metadata",
                "responseMetadata",
                "reason",
                "finish_reason",
            ):
                message.extra.setdefault(key_name, value)
