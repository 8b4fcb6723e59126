"""Assembling an AgentScope Agent API (``/process``) stream: the pure-Python
mirror of ``rust/agentscope/``.

The state is a response (its own fields), its messages in order of first
appearance, and per message its content slots by index. Appended strings are
kept as lists of pieces and joined only when the state is read, so a stream of
any length assembles in linear time.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from ..._vocabulary import tables
from ..accumulate import Pieces as _Pieces
from ..accumulate import append as _append
from ..accumulate import is_text as _is_text
from ..accumulate import render as _render
from ..sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from ..stream import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_STREAM_BYTES,
    AssemblerBase,
)
from ..tool_calls import NO_ARGUMENTS, ToolCall
from .errors import AgentScopeError, AgentScopeEventError

__all__ = ["Assembler"]

_VOCABULARY = tables("agentscope")

# Statuses that end a run: the response event carrying one is authoritative.
TERMINAL_STATUSES = frozenset(_VOCABULARY["TERMINAL_STATUSES"])
DATA_MERGE_MODES = ("merge", "upstream")
# The string field a delta appends to, per content type. "upstream" mode
# merges only text, image and data, as Message.add_delta_content does.
APPENDED_FIELD = {"text": "text", "image": "image_url", "refusal": "refusal", "audio": "data",
                  "video": "video_url", "file": "file_data"}  # fmt: skip
UPSTREAM_APPENDED_TYPES = frozenset({"text", "image"})
# Keys of tool-call data that a producer repeats in every delta: an equal
# repeat is not appended.
IDENTITY_KEYS = frozenset({"id", "call_id", "name", "server_label", "approval_request_id"})
# What strict mode accepts, as upstream's pydantic models do.
ROLES = frozenset(_VOCABULARY["ROLES"])
CONTENT_TYPES = frozenset(_VOCABULARY["CONTENT_TYPES"])
# "[DONE]" may be padded with these (the same set in both backends).
# A content index is an int that fits in 64 bits; anything else counts as none.
INDEX_MIN, INDEX_MAX = -(2**63), 2**63 - 1


def _str(value: Any) -> str | None:
    """The value if it is a string: JSON values of other types (lists, say)
    cannot be looked up in a set."""
    return value if isinstance(value, str) else None


def _merge_upstream(target: dict[str, Any], delta: dict[str, Any]) -> None:
    """``Message.add_delta_content`` for data: only keys already present,
    only str onto str and list onto list; everything else is dropped."""
    for key, value in delta.items():
        if key not in target:
            continue
        existing = target[key]
        if _is_text(existing) and isinstance(value, str):
            _append(target, key, value)
        elif isinstance(existing, list) and not isinstance(existing, _Pieces) and isinstance(value, list):
            existing.extend(value)


def _merge(target: dict[str, Any], delta: dict[str, Any]) -> None:
    """The default data merge: strings and lists append, objects merge, new
    keys are added, an identity field repeated unchanged is kept once, and
    anything else (numbers, booleans, a change of type) is replaced."""
    for key, value in delta.items():
        if value is None:
            continue  # no information
        existing = target.get(key)
        if existing is None:
            target[key] = value
        elif _is_text(existing) and isinstance(value, str):
            if key in IDENTITY_KEYS and _render(existing) == value:
                continue
            _append(target, key, value)
        elif isinstance(existing, list) and not isinstance(existing, _Pieces) and isinstance(value, list):
            existing.extend(value)
        elif isinstance(existing, dict) and isinstance(value, dict):
            _merge(existing, value)
        else:
            target[key] = value


def _slot_call_id(slot: Any) -> str | None:
    """The tool call a data slot carries."""
    if isinstance(slot, dict) and slot.get("type") == "data":
        data = slot.get("data")
        if isinstance(data, dict):
            call_id = _render(data.get("call_id"))
            if isinstance(call_id, str) and call_id:
                return call_id
    return None


class _Message:
    __slots__ = ("calls", "fields", "slots", "top")

    def __init__(self, fields: dict[str, Any]) -> None:
        # Every field but the content, in order; "content" keeps its place.
        self.fields = fields
        # Content slots by index. Empty: the content is fields["content"].
        self.slots: dict[int, Any] = {}
        self.top: int | None = None  # the highest slot index
        # Tool call id -> the indexes of the data slots that carry it,
        # ascending: where a data delta without an index goes, found
        # without a scan.
        self.calls: dict[str, list[int]] = {}

    def set_slot(self, index: int, slot: Any) -> None:
        """Puts a slot at an index, replacing what was there."""
        old = self.slots.get(index)
        if old is not None:
            self._unlist(index, _slot_call_id(old))
        self.slots[index] = slot
        self._list(index, _slot_call_id(slot))
        if self.top is None or index > self.top:
            self.top = index

    def set_content(self, content: list[Any]) -> None:
        """A message's content, authoritative: slots by array order."""
        self.slots, self.calls, self.top = {}, {}, None
        for index, item in enumerate(content):
            self.set_slot(index, item)

    def relist(self, index: int, before: str | None) -> None:
        """After a merge into a slot, which may change the call it carries."""
        after = _slot_call_id(self.slots[index])
        if after != before:
            self._unlist(index, before)
            self._list(index, after)

    def _list(self, index: int, call_id: str | None) -> None:
        if call_id is not None:
            insort(self.calls.setdefault(call_id, []), index)

    def _unlist(self, index: int, call_id: str | None) -> None:
        if call_id is not None:
            indexes = self.calls[call_id]
            indexes.remove(index)
            if not indexes:
                del self.calls[call_id]

    def render(self) -> dict[str, Any]:
        message: dict[str, Any] = _render(self.fields)
        if self.slots:
            message["content"] = [_render(self.slots[index]) for index in sorted(self.slots)]
        return message


def _new_message(msg_id: Any) -> _Message:
    # What upstream's Message(id=msg_id) holds, streaming.
    return _Message({
        "sequence_number": None, "object": "message", "status": "in_progress", "error": None,
        "id": msg_id, "type": "message", "role": None, "content": None, "code": None,
        "message": None, "usage": None, "metadata": None,
    })  # fmt: skip


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: a response, message or
    content object, or an error frame (no object, an ``error``). A reader
    that saw none says so at its close (``agentscope::recognizes``)."""
    kind = event.get("object")
    if isinstance(kind, str):
        return kind in ("response", "message", "content")
    # An error frame; a JSON-RPC error response is another protocol's.
    return kind is None and "error" in event and "jsonrpc" not in event


class Assembler(AssemblerBase):
    """Assembles an AgentScope ``/process`` stream into its AgentResponse."""

    _recognizes = staticmethod(recognizes)

    _event_error = AgentScopeEventError
    _base_error = AgentScopeError

    def __init__(
        self,
        *,
        data_merge: str = "merge",
        on_error: str = "raise",
        strict: bool = False,
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        max_stream_bytes: int | None = DEFAULT_MAX_STREAM_BYTES,
        max_messages: int | None = DEFAULT_MAX_MESSAGES,
        max_blocks: int | None = DEFAULT_MAX_BLOCKS,
    ) -> None:
        if not isinstance(data_merge, str):
            raise TypeError(f"data_merge must be str, not {type(data_merge).__name__}")
        if not isinstance(strict, bool):
            raise TypeError(f"strict must be bool, not {type(strict).__name__}")
        if data_merge not in DATA_MERGE_MODES:
            raise ValueError(f"data_merge must be 'merge' or 'upstream', not {data_merge!r}")
        super().__init__(
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
            max_stream_bytes=max_stream_bytes,
            max_messages=max_messages,
            max_blocks=max_blocks,
        )
        self._upstream = data_merge == "upstream"
        self._strict = strict
        self._response: dict[str, Any] = {"object": "response", "status": "in_progress", "output": None}
        self._response_seen = False
        # The output of the terminal response event, verbatim; until one
        # arrives, the output is the messages assembled so far.
        self._terminal = False
        self._output: Any = None
        self._messages: dict[Any, _Message] = {}
        # The anonymous message id-less events go to: (None, its number).
        self._anonymous: tuple[None, int] | None = None
        self._anonymous_count = 0
        # The ids of the messages announced open (a message event with an id
        # and status "created" or "in_progress") and not ended, in the order
        # they were announced: content without a msg_id goes to the last of
        # them (the Java runtime announces a message, then streams its
        # deltas without its id).
        self._announced: list[str] = []

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_response()

    @property
    def response(self) -> dict[str, Any]:
        """The AgentResponse assembled so far: a new dict on every access."""
        return self._render_response()

    def _render_response(self) -> dict[str, Any]:
        response: dict[str, Any] = _render(self._response)
        if self._terminal:
            output = _render(self._output)
            if self._anonymous_count and isinstance(output, list):
                output = self._with_anonymous(output)
            response["output"] = output
        else:
            response["output"] = [message.render() for message in self._messages.values()]
        return response

    def _with_anonymous(self, items: list[Any]) -> list[Any]:
        """The terminal response's output with the anonymous messages, which a
        server that sends text without message ids leaves out of it (the
        Java runtime lists only its completed messages), each before the
        first item whose message came after it in the stream."""
        positions = {key: position for position, key in enumerate(self._messages)}
        anonymous = [
            (position, message)
            for position, (key, message) in enumerate(self._messages.items())
            if isinstance(key, tuple)
        ]
        output: list[Any] = []
        pending = iter(anonymous)
        waiting = next(pending, None)
        for item in items:
            message_id = item.get("id") if isinstance(item, dict) else None
            position = positions.get(message_id) if isinstance(message_id, str) else None
            if position is not None:
                while waiting is not None and waiting[0] < position:
                    output.append(waiting[1].render())
                    waiting = next(pending, None)
            output.append(item)
        while waiting is not None:
            output.append(waiting[1].render())
            waiting = next(pending, None)
        return output

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message assembled, in order of first appearance."""
        return [message.render() for message in self._messages.values()]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call: each data content whose ``data`` has
        ``arguments`` (function, plugin, MCP and component calls):
        ``msg_id``, ``index``, ``type`` (the message's), ``call_id``,
        ``name``, ``arguments`` parsed so far (read after every delta, each
        byte is parsed once), and ``done``; arguments that are not valid JSON
        stay as they came, with an ``error``."""
        ended = self._closed or _str(self._response.get("status")) in TERMINAL_STATUSES
        calls = []
        for position, message in enumerate(self._messages.values()):
            message_open = _str(message.fields.get("status")) in (None, "in_progress")
            for index in sorted(message.slots):
                slot = message.slots[index]
                if not isinstance(slot, dict) or slot.get("type") != "data":
                    continue
                data = slot.get("data")
                if not isinstance(data, dict) or "arguments" not in data:
                    continue
                arguments = data["arguments"]
                calls.append(
                    ToolCall(
                        f"{position}/{index}",
                        {
                            "msg_id": message.fields.get("id"),
                            "index": index,
                            "type": message.fields.get("type"),
                            "call_id": data.get("call_id"),
                            "name": data.get("name"),
                        },
                        "arguments",
                        NO_ARGUMENTS if arguments is None else arguments,
                        ended or not message_open or _str(slot.get("status")) not in (None, "in_progress"),
                    )
                )
        return self._tool_call_reader.read(calls)

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._messages)

    def _apply_object(self, event: dict[str, Any]) -> None:
        self._apply(event)

    def _finish(self) -> None:
        if _str(self._response.get("status")) not in TERMINAL_STATUSES:
            self._response["status"] = "incomplete"

    def _apply(self, event: dict[str, Any]) -> None:
        if self._strict:
            problem = _strict_problem(event)
            if problem is not None:
                self._fail(problem)
                return
        kind = event.get("object")
        if kind == "content":
            self._content(event)
        elif kind == "message":
            self._message(event)
        elif kind == "response":
            self._response_event(event)
        elif kind is None and "error" in event:
            self._error_frame(event)
        # Other objects are tolerated and ignored.

    def _message_for(self, msg_id: Any) -> _Message:
        # Messages are keyed by their string id; any other id (null, a
        # number...) counts as no id. Consecutive id-less events form one
        # anonymous message (the Java runtime's stream adapter sends its text
        # deltas with msg_id null); an event of any other message ends it,
        # so that text before and after a tool call are two messages.
        key: Any
        if isinstance(msg_id, str):
            key = msg_id
            self._anonymous = None
        else:
            if self._anonymous is None:
                self._anonymous_count += 1
                self._anonymous = (None, self._anonymous_count)
            key = self._anonymous
        message = self._messages.get(key)
        if message is None:
            message = self._messages[key] = _new_message(msg_id)
        return message

    def _content_message(self, msg_id: Any) -> _Message:
        """The message content goes to: its msg_id's, or without one, the
        open message announced last, or else the anonymous one."""
        if not isinstance(msg_id, str) and self._announced:
            return self._messages[self._announced[-1]]
        return self._message_for(msg_id)

    def _message(self, event: dict[str, Any]) -> None:
        if event.get("type") == "heartbeat":
            return
        message = self._message_for(event.get("id"))
        for key, value in event.items():
            if key != "content":
                message.fields[key] = value
        content = event.get("content")
        if isinstance(content, list) and content:
            # A message's content is authoritative: positioned by array order.
            before = len(message.slots)
            message.set_content(content)
            self._blocks_held += len(message.slots) - before
        elif not message.slots:
            message.fields["content"] = content
        msg_id = message.fields.get("id")
        if isinstance(msg_id, str):
            announced = self._announced
            if message.fields.get("status") in ("created", "in_progress"):
                if msg_id not in announced:
                    announced.append(msg_id)
            elif msg_id in announced:
                announced.remove(msg_id)

    def _content(self, event: dict[str, Any]) -> None:
        message = self._content_message(event.get("msg_id"))
        slots = message.slots
        index = event.get("index")
        is_delta = event.get("delta") is True
        if type(index) is not int or not INDEX_MIN <= index <= INDEX_MAX:
            if is_delta and not self._upstream:
                # A data delta without an index joins the first slot of its tool call.
                data = event.get("data")
                call_id = data.get("call_id") if isinstance(data, dict) else None
                if event.get("type") == "data" and isinstance(call_id, str) and call_id in message.calls:
                    self._merge_into(message, message.calls[call_id][0], event)
                    return
            index = min(message.top + 1, INDEX_MAX) if message.top is not None else 0
        slot = slots.get(index)
        if slot is None or not is_delta or not isinstance(slot, dict):
            event["index"] = index
            event["msg_id"] = message.fields.get("id")
            before = len(slots)
            message.set_slot(index, event)
            self._blocks_held += len(slots) - before
            return
        self._merge_into(message, index, event)

    def _merge_into(self, message: _Message, index: int, event: dict[str, Any]) -> None:
        slot = message.slots[index]
        if slot.get("type") != "data":
            # Only a data slot carries a tool call, and a merge keeps the
            # slot's type: nothing to list again (the usual text delta).
            self._merge_delta(slot, event)
            return
        before = _slot_call_id(slot)
        self._merge_delta(slot, event)
        message.relist(index, before)

    def _merge_delta(self, slot: dict[str, Any], event: dict[str, Any]) -> None:
        # The merge follows the slot's type, as upstream does.
        kind = slot.get("type")
        if kind == "data":
            delta = event.get("data")
            target = slot.get("data")
            if isinstance(delta, dict):
                if target is None and not self._upstream:
                    slot["data"] = delta
                elif isinstance(target, dict):
                    (_merge_upstream if self._upstream else _merge)(target, delta)
        elif (
            isinstance(kind, str)
            and kind in APPENDED_FIELD
            and (not self._upstream or kind in UPSTREAM_APPENDED_TYPES)
        ):
            field = APPENDED_FIELD[kind]
            piece = event.get(field)
            if isinstance(piece, str):
                _append(slot, field, piece)
        if "status" in event:
            slot["status"] = event["status"]

    def _response_event(self, event: dict[str, Any]) -> None:
        if not self._response_seen:
            # The first response event sets the key order; the placeholders
            # it does not mention follow.
            self._response_seen = True
            self._response = {**dict.fromkeys(event), **self._response}
            if "output" not in event:
                del self._response["output"]
                self._response["output"] = None
        for key, value in event.items():
            if key != "output":
                self._response[key] = value
        self._terminal = _str(event.get("status")) in TERMINAL_STATUSES
        self._output = event.get("output") if self._terminal else None

    def _error_frame(self, event: dict[str, Any]) -> None:
        """``{"error": ...}``: what a server sends when its stream fails."""
        error = event.get("error")
        code = event.get("code")
        message = None
        if isinstance(error, dict):
            code = code if isinstance(code, str) else error.get("code")
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        if not isinstance(code, str):
            code = event.get("error_type")
        if not isinstance(code, str):
            code = "stream_error"
        if not isinstance(message, str):
            message = None
        self._record({"event": self._events, "code": code, "message": message})
        self._response["status"] = "failed"
        self._response["error"] = {"code": code, "message": message}
        # No response says what completed: nothing did.
        self._terminal = True
        self._output = []


def _strict_problem(event: dict[str, Any]) -> str | None:
    """What upstream's models would reject: an unknown role or content type."""
    kind = event.get("object")
    if kind == "message":
        if event.get("role") is not None and _str(event.get("role")) not in ROLES:
            return "has an invalid role"
        content = event.get("content")
        if isinstance(content, list):
            for part in content:
                if not isinstance(part, dict) or _str(part.get("type")) not in CONTENT_TYPES:
                    return "has content of an unknown type"
    elif kind == "content" and _str(event.get("type")) not in CONTENT_TYPES:
        return "has content of an unknown type"
    return None
