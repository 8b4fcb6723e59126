"""Assembling a Bedrock ConverseStream into the response Converse gives the
same request: the pure-Python mirror of ``rust/bedrock/assembler.rs``.

Each event is one member of ``ConverseStreamOutput``, as botocore gives it
(``{"contentBlockDelta": {...}}``). ``messageStart`` gives the message's
role; ``contentBlockStart`` a tool use's id and name; ``contentBlockDelta``
appends text, a tool use's input, reasoning text, or sets a reasoning
signature or redacted content (any other delta kind is kept as it came, a
list extending the one held); ``contentBlockStop`` parses a tool use's input
(kept as it came when it is not JSON: until then it is ``{}``, as Converse's
start gives it); ``messageStop`` and ``metadata`` give the response's other
fields (the ``p`` field the service pads every event with is no part of
them). The content is the blocks in the order of their index. An exception
(``throttlingException``, ...) or an error message is the run's error: kept
in the response under its name and recorded, with what came before it intact.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..._vocabulary import tables
from ..accumulate import Pieces, render
from ..json_values import JSONValueError, json_kind, loads
from ..stream import AssemblerBase, EventProblemError
from .errors import BedrockError, BedrockEventError

__all__ = ["EVENTS", "EXCEPTIONS", "Assembler", "error_of", "recognizes"]

_VOCABULARY = tables("bedrock")
EVENTS = _VOCABULARY["EVENTS"]
EXCEPTIONS = _VOCABULARY["EXCEPTIONS"]
#: The field the service pads each event's JSON with: no part of the event.
PADDING = "p"
# The events about one content block, by its contentBlockIndex.
_BLOCK_EVENTS = ("contentBlockStart", "contentBlockDelta", "contentBlockStop")


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: one member of the stream's
    union (an event or an exception) holding an object, or an error message."""
    if len(event) != 1:
        return False
    ((key, value),) = event.items()
    return (key in EVENTS or key in EXCEPTIONS or key == "error") and isinstance(value, dict)


def error_of(key: str, value: Any) -> tuple[str, str] | None:
    """An exception's or an error message's code and message; None for an event."""
    if key in EXCEPTIONS:
        message = value.get("message") if isinstance(value, dict) else None
        return key, message if isinstance(message, str) else dumps(value)
    if key == "error" and isinstance(value, dict):
        code, message = value.get("code"), value.get("message")
        return (
            code if isinstance(code, str) and code else "error",
            message if isinstance(message, str) else dumps(value),
        )
    return None


def _check(event: dict[str, Any]) -> None:
    """Refuses an event whose parts are of another type than the model's."""
    for key, value in event.items():
        if key not in EVENTS:
            continue
        if not isinstance(value, dict):
            raise EventProblemError(f"its {key} is {json_kind(value)}, not an object")
        if key in _BLOCK_EVENTS:
            index = value.get("contentBlockIndex")
            if type(index) is not int or not 0 <= index < 2**63:
                raise EventProblemError(f"its {key}.contentBlockIndex is {json_kind(index)}, not an index")
        for field in ("start", "delta"):
            part = value.get(field)
            if part is not None and not isinstance(part, dict):
                raise EventProblemError(f"its {key}.{field} is {json_kind(part)}, not an object")
        delta = value.get("delta")
        if isinstance(delta, dict):
            _check_delta(key, delta)


def _check_delta(key: str, delta: dict[str, Any]) -> None:
    text = delta.get("text")
    if text is not None and not isinstance(text, str):
        raise EventProblemError(f"its {key}.delta.text is {json_kind(text)}, not a string")
    for kind, fields in (
        ("toolUse", ("input",)),
        ("reasoningContent", ("text", "signature", "redactedContent")),
    ):
        part = delta.get(kind)
        if part is None:
            continue
        if not isinstance(part, dict):
            raise EventProblemError(f"its {key}.delta.{kind} is {json_kind(part)}, not an object")
        for field in fields:
            value = part.get(field)
            if value is not None and not isinstance(value, str):
                raise EventProblemError(f"its {key}.delta.{kind}.{field} is {json_kind(value)}, not a string")


class Assembler(AssemblerBase):
    """Assembles a Bedrock ConverseStream into the response Converse gives."""

    _recognizes = staticmethod(recognizes)

    _event_error = BedrockEventError
    _base_error = BedrockError
    _framing = "eventstream"

    def _init_state(self) -> None:
        # The response's fields in the order the events first gave them
        # (``output`` holds None: the message is below).
        self._response: dict[str, Any] = {}
        self._role: Any = None
        # contentBlockIndex -> the block's fields; a text's and a tool
        # input's pieces are Pieces until the block stops.
        self._blocks: dict[int, dict[str, Any]] = {}

    # --- output --------------------------------------------------------------

    @property
    def response(self) -> dict[str, Any]:
        """The response so far: a new dict on every access."""
        return self._result()

    def _result(self) -> dict[str, Any]:
        response: dict[str, Any] = {}
        for key, value in self._response.items():
            if key != "output":
                response[key] = render(value)
                continue
            message: dict[str, Any] = {}
            if self._role is not None:
                message["role"] = self._role
            message["content"] = [_render_block(self._blocks[index]) for index in sorted(self._blocks)]
            response[key] = {"message": message}
        return response

    # --- for the driver ------------------------------------------------------

    def _message_count(self) -> int:
        return int("output" in self._response)

    def _apply_object(self, event: dict[str, Any]) -> None:
        for key, value in event.items():
            error = error_of(key, value)
            if error is not None:
                code, message = error
                self._record({"event": self._events, "code": code, "message": message})
        _check(event)
        for key, value in event.items():
            if key == "messageStart":
                self._response.setdefault("output", None)
                if "role" in value:
                    self._role = value["role"]
            elif key in _BLOCK_EVENTS:
                self._response.setdefault("output", None)
                index = value["contentBlockIndex"]
                block = self._blocks.get(index)
                if block is None:
                    block = self._blocks[index] = {}
                    self._blocks_held += 1
                if key == "contentBlockStart":
                    _start(block, value.get("start") or {})
                elif key == "contentBlockDelta":
                    _delta(block, value.get("delta") or {})
                else:
                    _stop(block)
            elif key in ("messageStop", "metadata"):
                for field, item in value.items():
                    if field != PADDING:
                        self._response[field] = item
            else:
                self._response[key] = value

    def _finish(self) -> None:
        # A stream cut short: the input of a tool use that never stopped is
        # what came of it, parsed where it can be.
        for block in self._blocks.values():
            _stop(block)


def _start(block: dict[str, Any], start: dict[str, Any]) -> None:
    for kind, value in start.items():
        if kind == "toolUse" and isinstance(value, dict):
            tool = _object_at(block, "toolUse")
            tool.update(value)
            tool.setdefault("input", {})
        else:
            block[kind] = value


def _delta(block: dict[str, Any], delta: dict[str, Any]) -> None:
    for kind, value in delta.items():
        if kind == "text" and isinstance(value, str):
            _append(block, "text", value)
        elif kind == "toolUse" and isinstance(value, dict):
            tool = _object_at(block, "toolUse")
            if isinstance(value.get("input"), str):
                pieces = tool.get("input")
                if not isinstance(pieces, Pieces):
                    pieces = tool["input"] = Pieces()
                pieces.append(value["input"])
        elif kind == "reasoningContent" and isinstance(value, dict):
            reasoning = _object_at(block, "reasoningContent")
            for field, item in value.items():
                if field == "text" and isinstance(item, str):
                    _append(_object_at(reasoning, "reasoningText"), "text", item)
                elif field == "signature":
                    _object_at(reasoning, "reasoningText")["signature"] = item
                else:
                    reasoning[field] = item
        else:
            held = block.get(kind)
            if isinstance(held, list) and isinstance(value, list):
                held.extend(value)
            else:
                block[kind] = list(value) if isinstance(value, list) else value


def _object_at(held: dict[str, Any], key: str) -> dict[str, Any]:
    """The object held at ``key``, made (or made over) where none is."""
    value = held.get(key)
    if not isinstance(value, dict):
        value = held[key] = {}
    return value


def _append(held: dict[str, Any], key: str, piece: str) -> None:
    pieces = held.get(key)
    if isinstance(pieces, Pieces):
        pieces.append(piece)
    else:
        held[key] = Pieces([piece])


def _stop(block: dict[str, Any]) -> None:
    """Parses a tool use's input once, when its block stops."""
    tool = block.get("toolUse")
    if isinstance(tool, dict) and isinstance(tool.get("input"), Pieces):
        text = tool["input"].text()
        try:
            tool["input"] = loads(text)
        except JSONValueError:
            tool["input"] = text


def _render_block(block: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = render(block)
    tool = out.get("toolUse")
    if isinstance(tool, dict) and isinstance(block["toolUse"].get("input"), Pieces):
        # Still streaming: the input is what the start gave.
        tool["input"] = {}
    return out
