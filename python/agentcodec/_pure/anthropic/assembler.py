"""Assembling an Anthropic Messages stream into its Message: the pure-Python
mirror of ``rust/anthropic/``.

The state is the message of ``message_start`` and its content blocks, each
addressed by its ``index`` (the SDK addresses them by list position, which
only agrees while a server numbers them from 0 without gaps). Deltas follow
anthropic-sdk-python's ``accumulate_event``: text and thinking append,
``signature_delta`` sets the signature, ``citations_delta`` adds a citation,
``message_delta`` sets the stop reason and overwrites the cumulative usage.
A tool block's ``input_json_delta`` fragments are kept and parsed once, when
the block stops (the SDK re-parses the whole input on every fragment, which
is quadratic); until then its ``input`` is what ``content_block_start``
gave. Where the SDK drops a delta silently (a ``text_delta`` to a thinking
block, a delta to a block that never started), this is an event error.
"""

from __future__ import annotations

from typing import Any

from ..._vocabulary import tables
from ..accumulate import Pieces, append, render
from ..events import as_int
from ..json_values import JSONValueError, loads
from ..stream import (
    AssemblerBase,
    EventProblemError,
)
from ..tool_calls import NO_ARGUMENTS, ArgumentValue, ToolCall
from .errors import AnthropicError, AnthropicEventError

__all__ = ["TOOL_BLOCKS", "Assembler", "error_fields"]

_VOCABULARY = tables("anthropic")

#: The block types whose input streams as ``input_json_delta``.
TOOL_BLOCKS = _VOCABULARY["TOOL_BLOCKS"]
# Delta type -> (its field, the block type it applies to, or None for tool blocks).
DELTAS: dict[str, tuple[str, str | None]] = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "thinking"),
    "citations_delta": ("citation", "text"),
    "input_json_delta": ("partial_json", None),
}


def error_fields(event: dict[str, Any]) -> tuple[str, str | None]:
    """What an ``error`` event says: its type (``"error"`` when it has
    none) and its message."""
    error = event.get("error")
    source = error if isinstance(error, dict) else {}
    code, message = source.get("type"), source.get("message")
    return (code if isinstance(code, str) else "error", message if isinstance(message, str) else None)


#: The event types of a Messages stream.
EVENT_TYPES = frozenset(_VOCABULARY["EVENT_TYPES"])


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: its ``type`` is a Messages
    stream event's (``anthropic::recognizes``)."""
    kind = event.get("type")
    return isinstance(kind, str) and kind in EVENT_TYPES


class Assembler(AssemblerBase):
    """Assembles an Anthropic Messages stream into its final Message."""

    _recognizes = staticmethod(recognizes)

    _event_error = AnthropicEventError
    _base_error = AnthropicError

    def _init_state(self) -> None:
        self._message: dict[str, Any] | None = None
        self._blocks: list[dict[str, Any]] = []
        self._indexes: list[int] = []  # each block's index, by position
        self._at: dict[int, int] = {}  # index -> position
        self._stopped: set[int] = set()
        # index -> the input fragments of a tool block, until they parse.
        self._inputs: dict[int, Pieces] = {}
        self._kept: list[dict[str, Any]] = []
        self._done = False  # message_stop came

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_message()

    @property
    def message(self) -> dict[str, Any]:
        """The Message so far: a new dict on every access."""
        return self._render_message()

    def _render_message(self) -> dict[str, Any]:
        content = render(self._blocks)
        if self._message is None:
            return {"type": "message", "role": "assistant", "content": content}
        return {key: content if key == "content" else render(value) for key, value in self._message.items()}

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool block (``tool_use``, ``server_tool_use``,
        ``mcp_tool_use``): ``index``, ``id``, ``type``, ``name``, ``input``
        parsed so far (read after every delta, each byte is parsed once), and
        ``done``; input that is not valid JSON stays as it came, with an
        ``error``."""
        ended = self._done or self._closed
        calls = []
        for position, block in enumerate(self._blocks):
            if block.get("type") not in TOOL_BLOCKS:
                continue
            index = self._indexes[position]
            raw = self._inputs.get(index)
            arguments: Any
            if raw is not None:
                arguments = raw
            elif "input" in block:
                # The block's own input is a value (`{}` as servers send it),
                # never JSON text to read, even when it is a string.
                arguments = ArgumentValue(block["input"])
            else:
                arguments = NO_ARGUMENTS
            calls.append(
                ToolCall(
                    str(position),
                    {"index": index, "id": block.get("id"), "type": block["type"], "name": block.get("name")},
                    "input",
                    arguments,
                    ended or index in self._stopped,
                )
            )
        return self._tool_call_reader.read(calls)

    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: the server's ``error`` events
        and events of types this version does not know, in order."""
        events: list[dict[str, Any]] = render(self._kept)
        return events

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return 1  # one message a stream

    def _apply_object(self, event: dict[str, Any]) -> None:
        try:
            self._apply(event)
        finally:
            self._blocks_held = len(self._blocks)

    def _finish(self) -> None:
        # A stream cut short: the input of a tool block that never stopped
        # stands if it is complete.
        for index in list(self._inputs):
            if index in self._stopped:
                continue
            try:
                value = loads(self._inputs[index].text())
            except JSONValueError:
                continue
            self._blocks[self._at[index]]["input"] = value
            del self._inputs[index]

    def _apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if not isinstance(kind, str):
            raise EventProblemError("has no type" if kind is None else "has a type that is not a string")
        if kind == "ping":
            return
        if kind == "error":
            code, message = error_fields(event)
            self._record({"event": self._events, "code": code, "message": message})
            self._kept.append(event)
            return
        if self._message is None:
            if kind != "message_start":
                raise EventProblemError("comes before message_start")
            self._start(event)
            return
        if self._done:
            raise EventProblemError("comes after message_stop")
        if kind == "content_block_start":
            self._block_start(event)
        elif kind == "content_block_delta":
            self._block_delta(event)
        elif kind == "content_block_stop":
            self._block_stop(event)
        elif kind == "message_delta":
            self._message_delta(event)
        elif kind == "message_stop":
            self._done = True
        elif kind == "message_start":
            raise EventProblemError("is a second message_start")
        else:
            self._kept.append(event)

    def _start(self, event: dict[str, Any]) -> None:
        message = event.get("message")
        if not isinstance(message, dict):
            raise EventProblemError("has a message that is not an object")
        content = message.get("content")
        if content is None:
            content = []
        if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
            raise EventProblemError("has content that is not a list of objects")
        self._message = {key: None if key == "content" else value for key, value in message.items()}
        self._message.setdefault("content", None)
        for position, block in enumerate(content):
            self._blocks.append(block)
            self._indexes.append(position)
            self._at[position] = position
            self._stopped.add(position)

    def _block_start(self, event: dict[str, Any]) -> None:
        index = _index(event)
        if index in self._at:
            raise EventProblemError(f"starts block {index}, which has started already")
        block = event.get("content_block")
        if not isinstance(block, dict):
            raise EventProblemError(f"has a content_block (block {index}) that is not an object")
        if not isinstance(block.get("type"), str):
            raise EventProblemError(f"has a content_block (block {index}) without a type")
        self._at[index] = len(self._blocks)
        self._blocks.append(block)
        self._indexes.append(index)

    def _block_delta(self, event: dict[str, Any]) -> None:
        index = _index(event)
        block = self._open_block(index, "has a delta for")
        delta = event.get("delta")
        if not isinstance(delta, dict):
            raise EventProblemError(f"has a delta (block {index}) that is not an object")
        kind = delta.get("type")
        if not isinstance(kind, str):
            raise EventProblemError(f"has a delta (block {index}) without a type")
        rule = DELTAS.get(kind)
        if rule is None:
            return  # a delta this version does not know, as the SDK does
        field, applies_to = rule
        value = delta.get(field)
        if field != "citation" and not isinstance(value, str):
            raise EventProblemError(f"has {_a(kind)} (block {index}) whose {field} is not a string")
        block_type = block["type"]
        if block_type != applies_to and not (applies_to is None and block_type in TOOL_BLOCKS):
            raise EventProblemError(f"has {_a(kind)} for block {index}, {_a(block_type)} block")
        if kind == "input_json_delta":
            if value:
                pieces = self._inputs.get(index)
                if pieces is None:
                    self._inputs[index] = Pieces([value])
                else:
                    pieces.append(value)
        elif kind == "signature_delta":
            block["signature"] = value
        elif kind == "citations_delta":
            citations = block.get("citations")
            if isinstance(citations, list) and citations:
                citations.append(value)
            else:
                block["citations"] = [value]
        else:
            append(block, field, value)  # type: ignore[arg-type]  # checked above: a str

    def _block_stop(self, event: dict[str, Any]) -> None:
        index = _index(event)
        block = self._open_block(index, "stops")
        pieces = self._inputs.get(index)
        if pieces is not None:
            try:
                value = loads(pieces.text())
            except JSONValueError:
                raise EventProblemError(f"stops block {index}, whose input is not valid JSON") from None
            block["input"] = value
            del self._inputs[index]
        self._stopped.add(index)

    def _message_delta(self, event: dict[str, Any]) -> None:
        delta = event.get("delta")
        usage = event.get("usage")
        if delta is not None and not isinstance(delta, dict):
            raise EventProblemError("has a delta that is not an object")
        if usage is not None and not isinstance(usage, dict):
            raise EventProblemError("has usage that is not an object")
        message = self._message
        assert message is not None
        delta = delta or {}
        # Set by every message_delta, as the SDK does; the rest only when given.
        for key in ("stop_reason", "stop_sequence", "stop_details"):
            message[key] = delta.get(key)
        for key, value in delta.items():
            if value is not None and key not in ("stop_reason", "stop_sequence", "stop_details"):
                message[key] = value
        if usage:
            # Cumulative counts: they overwrite; one left out keeps its value.
            held = message.get("usage")
            if not isinstance(held, dict):
                held = message["usage"] = {}
            for key, value in usage.items():
                if value is not None:
                    held[key] = value

    def _open_block(self, index: int, verb: str) -> dict[str, Any]:
        position = self._at.get(index)
        if position is None:
            raise EventProblemError(f"{verb} block {index}, which has not started")
        if index in self._stopped:
            raise EventProblemError(f"{verb} block {index}, which has stopped")
        return self._blocks[position]


def _a(word: str) -> str:
    """The word with its indefinite article."""
    return f"{'an' if word[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {word}"


def _index(event: dict[str, Any]) -> int:
    index = as_int(event.get("index"))
    if index is None:
        if event.get("index") is None:
            raise EventProblemError("has no index")
        raise EventProblemError("has an index that is not a 64-bit integer")
    return index
