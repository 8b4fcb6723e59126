"""Assembling an OpenAI Responses API stream into its Response: the
pure-Python mirror of ``rust/openai_responses/``.

The state is the Response's own fields (from the latest lifecycle event), and
its output items by ``output_index``. Every delta kind appends in place (text,
refusals, reasoning text and summaries, function-call, MCP and custom-tool
inputs, code); every ``*.done`` and ``output_item.done`` replaces what it
names; ``response.completed`` carries the final output. Items are matched by
id before position, because gateways send ``output_item.done`` out of order or
at the wrong index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..accumulate import Pieces, render
from ..article import article
from ..json_values import quote
from ..stream import (
    AssemblerBase,
    EventProblemError,
)
from ..tool_calls import NO_ARGUMENTS, ToolCall
from .errors import OpenAIResponsesError, OpenAIResponsesEventError

__all__ = ["Assembler"]

LIFECYCLE = frozenset({"response.created", "response.queued", "response.in_progress"})
TERMINAL = frozenset({"response.completed", "response.failed", "response.incomplete"})
# What a delta appends to: a part of the item's "content" or "summary" (the
# kind of part it opens when the producer skipped the part's added event), or
# a field of the item itself; and the field.
DELTAS = {
    "response.output_text.delta": ("content", "output_text", "text"),
    "response.refusal.delta": ("content", "refusal", "refusal"),
    "response.reasoning_text.delta": ("content", "reasoning_text", "text"),
    "response.reasoning_summary_text.delta": ("summary", "summary_text", "text"),
    "response.function_call_arguments.delta": ("item", None, "arguments"),
    "response.mcp_call_arguments.delta": ("item", None, "arguments"),
    "response.custom_tool_call_input.delta": ("item", None, "input"),
    "response.code_interpreter_call_code.delta": ("item", None, "code"),
}
# What a done event replaces, likewise, and the event's key holding the value.
DONES = {
    "response.output_text.done": ("content", "output_text", "text", "text"),
    "response.refusal.done": ("content", "refusal", "refusal", "refusal"),
    "response.reasoning_text.done": ("content", "reasoning_text", "text", "text"),
    "response.reasoning_summary_text.done": ("summary", "summary_text", "text", "text"),
    "response.function_call_arguments.done": ("item", None, "arguments", "arguments"),
    "response.mcp_call_arguments.done": ("item", None, "arguments", "arguments"),
    "response.custom_tool_call_input.done": ("item", None, "input", "input"),
    "response.code_interpreter_call_code.done": ("item", None, "code", "code"),
}
PART_EVENTS = {
    "response.content_part.added": "content",
    "response.content_part.done": "content",
    "response.reasoning_summary_part.added": "summary",
    "response.reasoning_summary_part.done": "summary",
}
# Hosted tools report their progress as response.<tool>.<status>.
STATUS_TOOLS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    }
)
STATUSES = frozenset({"in_progress", "searching", "completed", "failed", "generating", "interpreting"})
# Events with nothing to assemble into the Response (audio has no place in
# it; a partial image is a preview of the item's final result).
IGNORED = frozenset(
    {
        "response.audio.delta",
        "response.audio.done",
        "response.audio.transcript.delta",
        "response.audio.transcript.done",
        "response.image_generation_call.partial_image",
    }
)
INDEX_KEYS = {"content": "content_index", "summary": "summary_index"}
NEW_PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "output_text": lambda: {"type": "output_text", "annotations": [], "text": ""},
    "refusal": lambda: {"type": "refusal", "refusal": ""},
    "reasoning_text": lambda: {"type": "reasoning_text", "text": ""},
    "summary_text": lambda: {"type": "summary_text", "text": ""},
}
_OUTPUT = object()  # where "output" stands among the Response's keys
# Indexes are integers that fit in 64 bits.
INDEX_MIN, INDEX_MAX = -(2**63), 2**63 - 1


def _status(item: dict[str, Any]) -> str | None:
    status = item.get("status")
    return status if isinstance(status, str) else None


#: The items whose arguments stream, and the field that says whom they call.
_CALLED_BY = {"function_call": "call_id", "mcp_call": "server_label"}


def _int(event: dict[str, Any], key: str) -> int:
    value = event.get(key)
    if type(value) is not int or not INDEX_MIN <= value <= INDEX_MAX:
        raise EventProblemError(
            f"has no {key}" if value is None else f"has {article(key)} {key} that is not a 64-bit integer"
        )
    return value


def _part_count(item: dict[str, Any]) -> int:
    """The parts an item holds: its content and summary parts, a Responses
    item's blocks."""
    content, summary = item.get("content"), item.get("summary")
    return (len(content) if isinstance(content, list) else 0) + (
        len(summary) if isinstance(summary, list) else 0
    )


def _identity(item: dict[str, Any]) -> tuple[str, Any]:
    """How an item is recognised again: by its id, or by its call id."""
    if isinstance(item.get("id"), str):
        return ("id", item["id"])
    if isinstance(item.get("call_id"), str):
        return ("call_id", item["call_id"])
    return ("none", None)


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: its ``type`` begins with
    ``response.``, or is ``error`` (``openai_responses::recognizes``)."""
    kind = event.get("type")
    return isinstance(kind, str) and (kind.startswith("response.") or kind == "error")


class Assembler(AssemblerBase):
    """Assembles an OpenAI Responses stream into its final Response."""

    _recognizes = staticmethod(recognizes)

    _event_error = OpenAIResponsesEventError
    _base_error = OpenAIResponsesError

    def _init_state(self) -> None:
        self._header: dict[str, Any] = {}
        self._items: dict[int, dict[str, Any]] = {}
        # Identity (see _identity) -> output index.
        self._positions: dict[tuple[str, Any], int] = {}
        self._kept: list[dict[str, Any]] = []
        self._terminal = False

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_response()

    @property
    def response(self) -> dict[str, Any]:
        """The Response so far: a new dict on every access."""
        return self._render_response()

    def _render_response(self) -> dict[str, Any]:
        output = [render(self._items[index]) for index in sorted(self._items)]
        response: dict[str, Any] = {}
        for key, value in self._header.items():
            response[key] = output if value is _OUTPUT else render(value)
        if "output" not in response:
            response["output"] = output
        return response

    @property
    def output_text(self) -> str:
        """The text of every ``output_text`` part of every message, joined,
        as openai-python's ``Response.output_text``."""
        return "".join(
            render(part.get("text")) or ""
            for index in sorted(self._items)
            if self._items[index].get("type") == "message"
            for part in self._items[index].get("content") or ()
            if isinstance(part, dict) and part.get("type") == "output_text"
        )

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every item whose arguments stream (``function_call`` and
        ``mcp_call``): ``id``, ``type``, ``call_id`` (``server_label`` for an
        MCP call), ``name``, ``arguments`` parsed so far (read after every
        delta, each byte is parsed once), and ``done``; arguments that are not
        valid JSON stay as they came, with an ``error``."""
        return self._read_tool_calls()

    def _read_tool_calls(self) -> list[dict[str, Any]]:
        ended = self._terminal or self._closed
        calls = []
        for index in sorted(self._items):
            item = self._items[index]
            kind = item.get("type")
            by = _CALLED_BY.get(kind) if isinstance(kind, str) else None
            if by is None:
                continue
            arguments = item.get("arguments")
            calls.append(
                ToolCall(
                    str(index),
                    {"id": item.get("id"), "type": kind, by: item.get(by), "name": item.get("name")},
                    "arguments",
                    NO_ARGUMENTS if arguments is None else arguments,
                    ended or _status(item) not in (None, "in_progress"),
                )
            )
        return self._tool_call_reader.read(calls)

    @property
    def function_calls(self) -> list[dict[str, Any]]:
        """The function calls among ``tool_calls``, without their ``type``.
        Read through the same parsers, so the two views may be read in turn."""
        functions = []
        for call in self._read_tool_calls():
            if call.pop("type") == "function_call":
                functions.append(call)
        return functions

    @property
    def events(self) -> list[dict[str, Any]]:
        """Events kept without being assembled: ``error`` events and types
        this version does not know, in order."""
        events: list[dict[str, Any]] = render(self._kept)
        return events

    @property
    def status(self) -> str | None:
        """The Response's status, as the server last said."""
        status = self._header.get("status")
        return status if isinstance(status, str) else None

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._items)

    def _apply_object(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if not isinstance(kind, str):
            raise EventProblemError("has no type" if kind is None else "has a type that is not a string")
        try:
            self._apply(kind, event)
        except EventProblemError as exc:
            raise EventProblemError(f"({kind}) {exc}") from None

    def _finish(self) -> None:
        pass

    def _apply(self, kind: str, event: dict[str, Any]) -> None:
        if self._terminal and kind != "error":
            # The Response is final, as openai-python's get_final_response() has it.
            raise EventProblemError("comes after the response ended")
        delta = DELTAS.get(kind)
        if delta is not None:
            self._delta(event, *delta)
            return
        done = DONES.get(kind)
        if done is not None:
            self._done(event, *done)
            return
        if kind in LIFECYCLE or kind in TERMINAL:
            self._lifecycle(kind, event)
        elif kind == "response.output_item.added":
            self._item_added(event)
        elif kind == "response.output_item.done":
            self._item_done(event)
        elif kind in PART_EVENTS:
            self._part(event, PART_EVENTS[kind])
        elif kind == "response.output_text.annotation.added":
            self._annotation(event)
        elif kind == "error":
            code, message = event.get("code"), event.get("message")
            self._record(
                {
                    "event": self._events,
                    "code": code if isinstance(code, str) else "error",
                    "message": message if isinstance(message, str) else None,
                }
            )
            self._kept.append(event)
        elif kind in IGNORED:
            pass
        else:
            tool, _, status = kind.removeprefix("response.").rpartition(".")
            if tool in STATUS_TOOLS and status in STATUSES:
                self._item(event)["status"] = status
            else:
                self._kept.append(event)

    # --- the Response and its items ------------------------------------------------

    def _lifecycle(self, kind: str, event: dict[str, Any]) -> None:
        response = event.get("response")
        if not isinstance(response, dict):
            raise EventProblemError("has no response object")
        known, response_id = self._header.get("id"), response.get("id")
        if isinstance(known, str) and response_id != known:
            if isinstance(response_id, str):
                raise EventProblemError(f"is for response {quote(response_id)}, not {quote(known)}")
            raise EventProblemError(f"is for a response without the id {quote(known)}")
        output = response.get("output")
        if output is not None and (
            not isinstance(output, list) or not all(isinstance(item, dict) for item in output)
        ):
            raise EventProblemError("has an output that is not a list of items")
        self._header = {key: _OUTPUT if key == "output" else value for key, value in response.items()}
        if kind == "response.completed" and output is not None:
            # The final output, as the server has it.
            self._items = dict(enumerate(output))
            self._blocks_held = sum(map(_part_count, output))
            self._reindex()
        elif output:
            for item in output:
                self._place(item, None)
        if kind in TERMINAL:
            self._terminal = True
            error = response.get("error")
            if kind == "response.failed" or isinstance(error, dict):
                error = error if isinstance(error, dict) else {}
                code, message = error.get("code"), error.get("message")
                self._record(
                    {
                        "event": self._events,
                        "code": code if isinstance(code, str) else "response_failed",
                        "message": message if isinstance(message, str) else None,
                    }
                )

    def _reindex(self) -> None:
        self._positions = {}
        for index, item in self._items.items():
            identity = _identity(item)
            if identity[0] != "none":
                self._positions.setdefault(identity, index)

    def _place(self, item: dict[str, Any], index: int | None) -> None:
        """Puts a finished item where the same item stands (by id, or call
        id), else at ``index`` if that is free, else after the last."""
        identity = _identity(item)
        at = self._positions.get(identity) if identity[0] != "none" else None
        if at is None:
            if index is not None and index not in self._items:
                at = index
            else:
                at = min(max(self._items, default=-1) + 1, INDEX_MAX)
        self._insert(at, item)
        if identity[0] != "none":
            self._positions[identity] = at

    def _insert(self, at: int, item: dict[str, Any]) -> None:
        """Puts an item at ``at``, replacing what was there, and counts its parts."""
        old = self._items.get(at)
        self._blocks_held += _part_count(item) - (0 if old is None else _part_count(old))
        self._items[at] = item

    def _item_added(self, event: dict[str, Any]) -> None:
        index = _int(event, "output_index")
        item = event.get("item")
        if item is None:
            return  # some gateways announce an empty slot
        if not isinstance(item, dict):
            raise EventProblemError("has an item that is not an object")
        held = self._items.get(index)
        if held is not None and _identity(held) != _identity(item):
            raise EventProblemError(f"adds an item at output_index {index}, which another item holds")
        self._insert(index, item)
        identity = _identity(item)
        if identity[0] != "none":
            self._positions[identity] = index

    def _item_done(self, event: dict[str, Any]) -> None:
        index = _int(event, "output_index")
        item = event.get("item")
        if not isinstance(item, dict):
            raise EventProblemError("has no item object")
        self._place(item, index)

    def _item(self, event: dict[str, Any]) -> dict[str, Any]:
        """The item an event addresses: at its ``output_index``, unless that
        holds another item and its ``item_id`` names one."""
        index = _int(event, "output_index")
        item_id = event.get("item_id")
        item = self._items.get(index)
        if item is not None and (not isinstance(item_id, str) or item.get("id") in (None, item_id)):
            return item
        if isinstance(item_id, str):
            at = self._positions.get(("id", item_id))
            if at is not None:
                return self._items[at]
        raise EventProblemError(f"is for output item {index}, which was never added")

    def _slot(self, event: dict[str, Any], where: str, new_part: str | None) -> dict[str, Any]:
        """What a delta or done event writes into: the item, or one of its
        content or summary parts (opened if it is the next one)."""
        item = self._item(event)
        if where == "item":
            return item
        index = _int(event, INDEX_KEYS[where])
        parts = item.get(where)
        if not isinstance(parts, list):
            parts = item[where] = []
        if index == len(parts) and new_part is not None:
            parts.append(NEW_PARTS[new_part]())
            self._blocks_held += 1
        if not 0 <= index < len(parts) or not isinstance(parts[index], dict):
            output_index = event.get("output_index")
            raise EventProblemError(
                f"is for {where} part {index} of output item {output_index}, which was never added"
            )
        part: dict[str, Any] = parts[index]
        return part

    def _delta(self, event: dict[str, Any], where: str, new_part: str | None, field: str) -> None:
        delta = event.get("delta")
        if not isinstance(delta, str):
            raise EventProblemError("has no delta" if delta is None else "has a delta that is not a string")
        slot = self._slot(event, where, new_part)
        existing = slot.get(field)
        if isinstance(existing, Pieces):
            existing.append(delta)
        else:
            slot[field] = Pieces([existing, delta] if isinstance(existing, str) else [delta])
        logprobs = event.get("logprobs")
        if isinstance(logprobs, list) and logprobs:
            held = slot.get("logprobs")
            if isinstance(held, list):
                held.extend(logprobs)
            else:
                slot["logprobs"] = list(logprobs)

    def _done(self, event: dict[str, Any], where: str, new_part: str | None, field: str, key: str) -> None:
        value = event.get(key)
        if not isinstance(value, str):
            raise EventProblemError(
                f"has no {key}" if value is None else f"has {article(key)} {key} that is not a string"
            )
        slot = self._slot(event, where, new_part)
        slot[field] = value
        if isinstance(event.get("logprobs"), list):
            slot["logprobs"] = event["logprobs"]

    def _part(self, event: dict[str, Any], where: str) -> None:
        part = event.get("part")
        if not isinstance(part, dict):
            raise EventProblemError("has no part object")
        item = self._item(event)
        index = _int(event, INDEX_KEYS[where])
        parts = item.get(where)
        if not isinstance(parts, list):
            parts = item[where] = []
        if index == len(parts):
            parts.append(part)
            self._blocks_held += 1
        elif 0 <= index < len(parts):
            parts[index] = part
        else:
            raise EventProblemError(
                f"is for {where} part {index} of output item {event.get('output_index')}, past its last part"
            )

    def _annotation(self, event: dict[str, Any]) -> None:
        annotation = event.get("annotation")
        if annotation is None:
            raise EventProblemError("has no annotation")
        part = self._slot(event, "content", None)
        index = _int(event, "annotation_index")
        annotations = part.get("annotations")
        if not isinstance(annotations, list):
            annotations = part["annotations"] = []
        if 0 <= index < len(annotations):
            annotations[index] = annotation
        else:
            annotations.append(annotation)
