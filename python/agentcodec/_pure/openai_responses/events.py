"""OpenAI Responses to and from the neutral vocabulary: the pure-Python
mirror of ``rust/openai_responses/events.rs``.

Decoding: each output item is a message (a ``message`` item of text and
refusal parts, a ``reasoning`` item of summary and reasoning-text parts, a
tool call item with one block); deltas append; the ``*.done`` events and
``output_item.done`` are snapshots: what they add is a delta, what differs a
replacement. Hosted tools' items and status events pass through.

Encoding: the lifecycle strict clients need (``response.created``, each item
added, each part added, the deltas, each part and item done with the whole
value, ``response.completed`` with the whole output), ``sequence_number``
counting from 0: in effect, a Responses builder fed neutral events.
"""

from __future__ import annotations

import time
from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from .. import stop_reasons
from ..error_codes import ErrorCodes
from ..stop_reasons import StopWords
from .assembler import recognizes

__all__ = ["Decoder", "Encoder"]

_VOCABULARY = tables("openai_responses")

# Tool call item types, the tool they name, and the field holding their input.
TOOL_ITEMS = {
    "function_call": ("function", "arguments"),
    "custom_tool_call": ("custom", "input"),
    "mcp_call": ("mcp", "arguments"),
}
TOOL_ITEM_TYPES = {tool: (item_type, field) for item_type, (tool, field) in TOOL_ITEMS.items()}
TOOL_DELTAS = {
    "function": "response.function_call_arguments",
    "custom": "response.custom_tool_call_input",
    "mcp": "response.mcp_call_arguments",
}
PART_KINDS = {
    "output_text": "text",
    "refusal": "refusal",
    "reasoning_text": "reasoning",
    "summary_text": "reasoning",
}
DELTAS = {
    "response.output_text.delta": "content",
    "response.refusal.delta": "content",
    "response.reasoning_text.delta": "content",
    "response.reasoning_summary_text.delta": "summary",
    "response.function_call_arguments.delta": "item",
    "response.custom_tool_call_input.delta": "item",
    "response.mcp_call_arguments.delta": "item",
}
# Done events: where, and the key holding the whole value.
DONES = {
    "response.output_text.done": ("content", "text"),
    "response.refusal.done": ("content", "refusal"),
    "response.reasoning_text.done": ("content", "text"),
    "response.reasoning_summary_text.done": ("summary", "text"),
    "response.function_call_arguments.done": ("item", "arguments"),
    "response.custom_tool_call_input.done": ("item", "input"),
    "response.mcp_call_arguments.done": ("item", "arguments"),
}
NEW_PART_KIND = {
    "response.output_text.delta": "output_text",
    "response.refusal.delta": "refusal",
    "response.reasoning_text.delta": "reasoning_text",
    "response.reasoning_summary_text.delta": "summary_text",
}


class _Block:
    __slots__ = ("annotations", "held", "index", "open")

    def __init__(self, message_id: str, index: int, field: str) -> None:
        self.index = index
        self.held = ev.Held(message_id, index, field)
        self.open = True
        self.annotations: list[Any] = []


class _Item:
    """An output item being decoded: the neutral message it is."""

    __slots__ = ("blocks", "kind", "message_id", "next", "open", "tool_field")

    def __init__(self, message_id: str, kind: str) -> None:
        self.message_id = message_id
        self.kind = kind  # the neutral message kind, or "other" (passed through)
        self.blocks: dict[tuple[str, int], _Block] = {}  # (content|summary|item, index) -> block
        self.next = 0
        self.open = True
        self.tool_field = "arguments"


class Decoder:
    """OpenAI Responses events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "openai-responses"

    def __init__(self) -> None:
        self._started = False
        self._items: dict[int, _Item] = {}
        self._by_id: dict[str, int] = {}

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        response = event.get("response")
        if kind in ("response.created", "response.queued", "response.in_progress"):
            if not self._started and isinstance(response, dict):
                self._started = True
                out.append(
                    ev.run_started(
                        response.get("id"), None, response.get("model"), response.get("created_at")
                    )
                )
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = response if isinstance(response, dict) else {}
            if kind == "response.failed":
                error: dict[str, Any] = response["error"] if isinstance(response.get("error"), dict) else {}
                out.append(ev.run_failed(error.get("code"), error.get("message"), response.get("usage")))
            else:
                status = "completed" if kind == "response.completed" else "incomplete"
                if response.get("status") == "cancelled":
                    status = "cancelled"
                details = response.get("incomplete_details")
                reason = ev.as_str(details.get("reason")) if isinstance(details, dict) else None
                out.append(ev.run_finished(status, response.get("usage"), stop_reason=reason))
        elif kind == "error":
            out.append(ev.run_failed(event.get("code"), event.get("message")))
        elif kind == "response.output_item.added":
            self._item_added(event, out)
        elif kind == "response.output_item.done":
            self._item_done(event, out)
        elif kind in ("response.content_part.added", "response.reasoning_summary_part.added"):
            self._part(event, "content" if kind == "response.content_part.added" else "summary", False, out)
        elif kind in ("response.content_part.done", "response.reasoning_summary_part.done"):
            self._part(event, "content" if kind == "response.content_part.done" else "summary", True, out)
        elif kind in DELTAS:
            self._delta(event, DELTAS[kind], NEW_PART_KIND.get(kind), out)
        elif kind in DONES:
            where, key = DONES[kind]
            self._done(event, where, key, NEW_PART_KIND.get(kind.replace(".done", ".delta")), out)
        elif kind == "response.output_text.annotation.added":
            self._annotation(event, out)
        else:
            out.append(ev.passthrough("openai-responses", event))
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _item(self, event: dict[str, Any]) -> _Item | None:
        index = ev.as_int(event.get("output_index"))
        item = self._items.get(index) if index is not None else None
        item_id = event.get("item_id")
        if (
            isinstance(item_id, str)
            and (item is None or item.message_id != item_id)
            and item_id in self._by_id
        ):
            item = self._items.get(self._by_id[item_id])
        return item

    def _item_added(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        index, item = ev.as_int(event.get("output_index")), event.get("item")
        if index is None or not isinstance(item, dict):
            out.append(ev.passthrough("openai-responses", event))
            return
        item_type = ev.as_str(item.get("type"))
        message_id = ev.as_str(item.get("id")) or ev.as_str(item.get("call_id")) or f"item-{index}"
        if item_type == "message":
            kind = "message"
        elif item_type == "reasoning":
            kind = "reasoning"
        elif item_type in TOOL_ITEMS:
            kind = "tool_call"
        elif item_type == "function_call_output":
            kind = "tool_result"
        else:
            self._items[index] = _Item(message_id, "other")
            out.append(ev.passthrough("openai-responses", event))
            return
        decoded = self._items[index] = _Item(message_id, kind)
        self._by_id[message_id] = index
        role = "tool" if kind == "tool_result" else ev.as_str(item.get("role")) or "assistant"
        out.append(ev.message_started(message_id, role, kind))
        if kind == "tool_call":
            tool, field = TOOL_ITEMS[item_type]
            decoded.tool_field = field
            self._open(
                decoded,
                ("item", 0),
                "tool_call",
                out,
                call_id=item.get("call_id") or item.get("id"),
                name=item.get("name"),
                tool=tool,
                server=item.get("server_label"),
            )
            self._extend(decoded, ("item", 0), field, item.get(field), out)
        elif kind == "tool_result":
            self._open(decoded, ("item", 0), "tool_result", out, call_id=item.get("call_id"), name=None)
            self._extend(decoded, ("item", 0), "output", item.get("output"), out)
        else:
            for where in ("summary", "content"):
                parts = item.get(where)
                for position, part in enumerate(parts if isinstance(parts, list) else ()):
                    self._part({"part": part, f"{where}_index": position}, where, False, out, decoded)

    def _open(
        self, item: _Item, key: tuple[str, int], kind: str, out: list[dict[str, Any]], **fields: Any
    ) -> _Block:
        block = item.blocks[key] = _Block(item.message_id, item.next, ev.APPENDED_FIELD[kind])
        item.next += 1
        out.append(ev.block_started(item.message_id, block.index, kind, **fields))
        return block

    def _extend(
        self, item: _Item, key: tuple[str, int], field: str, value: Any, out: list[dict[str, Any]]
    ) -> None:
        """A whole value, as the deltas it adds or a replacement."""
        block = item.blocks.get(key)
        if block is None or not block.open:
            return
        if isinstance(value, str):
            block.held.snapshot(value, True, out)
        elif value is not None and field == "output":
            out.append(ev.block_replaced(item.message_id, block.index, {"output": value}))

    def _part(
        self,
        event: dict[str, Any],
        where: str,
        done: bool,
        out: list[dict[str, Any]],
        item: _Item | None = None,
    ) -> None:
        item = item or self._item(event)
        part = event.get("part")
        index = ev.as_int(event.get(f"{where}_index"))
        if item is None or item.kind == "other" or index is None or not isinstance(part, dict):
            out.append(ev.passthrough("openai-responses", event))
            return
        key = (where, index)
        block = item.blocks.get(key)
        kind = PART_KINDS.get(ev.as_str(part.get("type")) or "", "text")
        if block is None:
            summary = True if where == "summary" else None
            block = self._open(item, key, kind, out, summary=summary)
        field = "refusal" if kind == "refusal" else "text"
        self._extend(item, key, "text", part.get(field), out)
        annotations = part.get("annotations")
        if (
            isinstance(annotations, list)
            and annotations
            and _json.dumps(annotations) != _json.dumps(block.annotations)
        ):
            block.annotations = list(annotations)
            out.append(ev.block_replaced(item.message_id, block.index, {"annotations": block.annotations}))
        # A reasoning item's blocks end with the item: its encrypted content
        # comes with output_item.done, and is theirs.
        if done and block.open and item.kind != "reasoning":
            block.open = False
            out.append(ev.block_finished(item.message_id, block.index))

    def _block(
        self, event: dict[str, Any], where: str, new_part: str | None, out: list[dict[str, Any]]
    ) -> tuple[_Item, tuple[str, int], _Block] | None:
        """The item, and the block, a delta or done event addresses; a part
        whose added event the producer skipped opens here."""
        item = self._item(event)
        if item is None or item.kind == "other":
            return None
        index = 0 if where == "item" else ev.as_int(event.get(f"{where}_index"))
        if index is None:
            return None
        key = (where, index)
        block = item.blocks.get(key)
        if block is None and new_part is not None:
            summary = True if where == "summary" else None
            block = self._open(item, key, PART_KINDS[new_part], out, summary=summary)
        return (item, key, block) if block is not None else None

    def _delta(
        self, event: dict[str, Any], where: str, new_part: str | None, out: list[dict[str, Any]]
    ) -> None:
        found = self._block(event, where, new_part, out)
        delta = event.get("delta")
        if found is None or not isinstance(delta, str):
            out.append(ev.passthrough("openai-responses", event))
            return
        if found[2].open:
            found[2].held.append(delta, out)

    def _done(
        self, event: dict[str, Any], where: str, key: str, new_part: str | None, out: list[dict[str, Any]]
    ) -> None:
        found = self._block(event, where, new_part, out)
        if found is None:
            out.append(ev.passthrough("openai-responses", event))
            return
        item, block_key, _ = found
        self._extend(item, block_key, item.tool_field if where == "item" else "text", event.get(key), out)

    def _annotation(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._block(event, "content", None, out)
        if found is None:
            out.append(ev.passthrough("openai-responses", event))
            return
        item, _, block = found
        block.annotations = [*block.annotations, event.get("annotation")]
        out.append(ev.block_replaced(item.message_id, block.index, {"annotations": block.annotations}))

    def _item_done(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        item_dict = event.get("item")
        item_id = ev.as_str(item_dict.get("id")) if isinstance(item_dict, dict) else None
        index = self._by_id.get(item_id) if item_id is not None else None
        if index is None:
            index = ev.as_int(event.get("output_index"))
        item = self._items.get(index) if index is not None else None
        if item is None or item.kind == "other" or not isinstance(item_dict, dict) or not item.open:
            out.append(ev.passthrough("openai-responses", event))
            return
        # The finished item is a snapshot of all its parts.
        if item.kind in ("tool_call", "tool_result"):
            field = "output" if item.kind == "tool_result" else item.tool_field
            self._extend(item, ("item", 0), field, item_dict.get(field), out)
        else:
            for where in ("summary", "content"):
                parts = item_dict.get(where)
                for position, part in enumerate(parts if isinstance(parts, list) else ()):
                    if isinstance(part, dict) and (
                        (where, position) in item.blocks or part.get("text") or part.get("refusal")
                    ):
                        self._part({"part": part, f"{where}_index": position}, where, False, out, item)
            encrypted = item_dict.get("encrypted_content")
            if isinstance(encrypted, str) and item.blocks:
                last = max(block.index for block in item.blocks.values())
                out.append(
                    ev.block_replaced(
                        item.message_id, last, {"encrypted": encrypted, "encrypted_by": "openai"}
                    )
                )
        for block in sorted(item.blocks.values(), key=lambda block: block.index):
            if block.open:
                block.open = False
                out.append(ev.block_finished(item.message_id, block.index))
        item.open = False
        out.append(ev.message_finished(item.message_id))


# --- encoding ----------------------------------------------------------------------------


class _Part:
    __slots__ = ("annotations", "kind", "position", "seen", "summary", "text")

    def __init__(self, kind: str, summary: bool, position: int = 0) -> None:
        self.kind = kind  # text, refusal or reasoning; tool_call, tool_result
        self.summary = summary
        self.position = position  # its content or summary index
        self.text: list[str] = []
        self.annotations: list[Any] = []  # those written: the API's kinds
        self.seen = 0  # the source's annotations read so far

    def value(self) -> str:
        return "".join(self.text)

    def part(self) -> dict[str, Any]:
        if self.kind == "refusal":
            return {"type": "refusal", "refusal": self.value()}
        if self.kind == "reasoning":
            return {"type": "summary_text" if self.summary else "reasoning_text", "text": self.value()}
        return {
            "type": "output_text",
            "annotations": list(self.annotations),
            "logprobs": [],
            "text": self.value(),
        }


class _OpenItem:
    """An output item being written."""

    __slots__ = ("content", "fields", "index", "summary", "type")

    def __init__(self, index: int, item_type: str, fields: dict[str, Any]) -> None:
        self.index = index
        self.type = item_type
        self.fields = fields  # the item's own fields: id, type, status, and a tool's
        self.content: list[_Part] = []
        self.summary: list[_Part] = []

    @property
    def id(self) -> Any:
        return self.fields.get("id")


# A failed response's error code, in the API's words: one of the codes its
# ``response.error`` may carry (openai-python's ``ResponseError``).
ERROR_CODES = ErrorCodes(_VOCABULARY["RESPONSE_ERROR_CODES"], _VOCABULARY["ERROR_CODE_WORDS"], "server_error")
ANNOTATION_TYPES = frozenset(_VOCABULARY["ANNOTATION_TYPES"])
# The neutral usage counts the Responses API keeps in a detail object:
# (its field, the detail object, the detail's field).
USAGE_DETAILS = (
    ("cached_input_tokens", "input_tokens_details", "cached_tokens"),
    ("cache_creation_input_tokens", "input_tokens_details", "cache_write_tokens"),
    ("reasoning_tokens", "output_tokens_details", "reasoning_tokens"),
)
_DETAILED = frozenset(neutral for neutral, _, _ in USAGE_DETAILS)
# Why a response is incomplete, in the API's words (a response that ended
# as the model meant says no reason).
STOP_WORDS = StopWords(_VOCABULARY["INCOMPLETE_REASONS"], _VOCABULARY["STOP_REASON_WORDS"])


def usage_to_responses(usage: Any) -> dict[str, Any] | None:
    """A usage as the Responses API writes one, every count openai-python's
    ``ResponseUsage`` requires: the total (the sum, where the source gives
    none) and the detail objects (a count the source does not give is 0, as
    the API writes none). The source's other fields stay. None for a usage
    without input and output counts, which the API always gives."""
    if not isinstance(usage, dict):
        return None
    input_tokens, output_tokens = ev.as_int(usage.get("input_tokens")), ev.as_int(usage.get("output_tokens"))
    if input_tokens is None or output_tokens is None:
        return None
    total = ev.as_int(usage.get("total_tokens"))
    if total is None:
        total = ev.as_int(input_tokens + output_tokens)
        if total is None:
            return None
    written = {key: value for key, value in usage.items() if key not in _DETAILED}
    written["total_tokens"] = total
    for neutral, details_key, count_key in USAGE_DETAILS:
        given = written.get(details_key)
        details = dict(given) if isinstance(given, dict) else {}
        if ev.as_int(details.get(count_key)) is None:
            details[count_key] = ev.as_int(usage.get(neutral)) or 0
        written[details_key] = details
    return written


def _is_input_content(value: Any) -> bool:
    """Whether a tool's output is what a ``function_call_output`` holds
    besides text: input content parts (or null, left as it is)."""
    if value is None:
        return True
    return isinstance(value, list) and all(
        isinstance(part, dict) and part.get("type") in ("input_text", "input_image", "input_file")
        for part in value
    )


class Encoder(ev.RecordsLosses):
    """Neutral events to OpenAI Responses events."""

    protocol = "openai-responses"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(
        self, response_id: str | None = None, model: str | None = None, created_at: Any = None
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._response_id = response_id
        self._model = model
        self._created_at = created_at
        self._sequence = 0
        self._started = False
        self._finished = False
        self._stop_reason: Any = None  # the last finished message's
        self._output: dict[int, dict[str, Any]] = {}  # finished items by output index
        self._next_index = 0
        # neutral message -> its open message and reasoning items.
        self._open: dict[str, dict[str, _OpenItem]] = {}
        self._used_ids: dict[str, int] = {}
        # (neutral message, block) -> (item, part or None for a tool block).
        self._blocks: dict[tuple[str, int], tuple[_OpenItem, _Part | None]] = {}

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if self._finished:
            return out
        if kind == "run_started" and not self._started:
            self._response_id = self._response_id or ev.as_str(event.get("run_id"))
            self._model = self._model or ev.as_str(event.get("model"))
            if self._created_at is None:
                self._created_at = event.get("created_at")
        self._ensure_started(out)
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return event

    def _response(self, status: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": self._response_id,
            "object": "response",
            "created_at": self._created_at,
            "status": status,
            "error": fields.get("error"),
            "incomplete_details": fields.get("incomplete_details"),
            "model": self._model or "",
            "output": [self._output[index] for index in sorted(self._output)] if fields.get("output") else [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": fields.get("usage"),
        }

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if self._started:
            return
        self._started = True
        self._response_id = self._response_id or "resp"
        if self._created_at is None:
            self._created_at = int(time.time())
        out.append(self._event("response.created", response=self._response("in_progress")))
        out.append(self._event("response.in_progress", response=self._response("in_progress")))

    def _item_id(self, message_id: str) -> str:
        uses = self._used_ids.get(message_id, 0)
        self._used_ids[message_id] = uses + 1
        return message_id if uses == 0 else f"{message_id}_{uses}"

    def _add_item(self, item_type: str, fields: dict[str, Any], out: list[dict[str, Any]]) -> _OpenItem:
        item = _OpenItem(self._next_index, item_type, fields)
        self._next_index += 1
        out.append(self._event("response.output_item.added", output_index=item.index, item=self._item(item)))
        return item

    def _item(self, item: _OpenItem, done: bool = False) -> dict[str, Any]:
        body = dict(item.fields)
        if done and "status" in body:
            body["status"] = "completed"
        if item.type == "message":
            body["content"] = [part.part() for part in item.content] if done else []
        elif item.type == "reasoning":
            body["summary"] = [part.part() for part in item.summary] if done else []
            if done and item.content:
                body["content"] = [part.part() for part in item.content]
        return body

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index, kind = event.get("message_id"), ev.as_int(event.get("index")), event.get("kind")
        if not isinstance(message_id, str) or index is None:
            return
        if kind in ("text", "refusal", "reasoning"):
            item_type = "reasoning" if kind == "reasoning" else "message"
            open_items = self._open.setdefault(message_id, {})
            item = open_items.get(item_type)
            if item is not None and self._is_signed_and_whole(item):
                # One encrypted content an item: the next reasoning (a second
                # signed thinking block) is another item.
                self._item_done(item, out)
                del open_items[item_type]
                item = None
            if item is None:
                fields: dict[str, Any] = {"id": self._item_id(message_id), "type": item_type}
                if item_type == "message":
                    fields.update(status="in_progress", role="assistant")
                item = open_items[item_type] = self._add_item(item_type, fields, out)
            summary = kind == "reasoning" and bool(event.get("summary"))
            parts = item.summary if summary else item.content
            part = _Part(kind, summary, len(parts))
            parts.append(part)
            if summary:
                out.append(
                    self._event(
                        "response.reasoning_summary_part.added",
                        item_id=item.id,
                        output_index=item.index,
                        summary_index=part.position,
                        part=part.part(),
                    )
                )
            else:
                out.append(
                    self._event(
                        "response.content_part.added",
                        item_id=item.id,
                        output_index=item.index,
                        content_index=part.position,
                        part=part.part(),
                    )
                )
            self._blocks[(message_id, index)] = (item, part)
        elif kind == "tool_call":
            self._lost.extend(ev.tool_kind_loss(self.protocol, event, ("custom", "mcp")))
            tool = ev.as_str(event.get("tool"))
            tool = tool if tool in TOOL_ITEM_TYPES else "function"
            item_type, field = TOOL_ITEM_TYPES[tool]
            given = ev.as_str(event.get("call_id")) or None
            call_id = given or f"{message_id}-{index}"
            # An MCP call's item id is its call id: it has no other.
            item_id = self._item_id(given if given is not None and item_type == "mcp_call" else message_id)
            fields = {"id": item_id, "type": item_type, "status": "in_progress", field: ""}
            if item_type != "mcp_call":
                fields["call_id"] = call_id
            fields["name"] = event.get("name") or ""
            if item_type == "mcp_call":
                # The API names an MCP call's server: empty where the
                # source did not say which.
                fields["server_label"] = ev.as_str(event.get("server")) or ""
            item = self._add_item(item_type, fields, out)
            self._blocks[(message_id, index)] = (item, _Part("tool_call", False))
        elif kind == "tool_result":
            fields = {
                "id": self._item_id(message_id),
                "type": "function_call_output",
                "call_id": ev.as_str(event.get("call_id")) or "",
                "output": "",
                "status": "in_progress",
            }
            item = _OpenItem(-1, "function_call_output", fields)  # added when it finishes, whole
            self._blocks[(message_id, index)] = (item, _Part("tool_result", False))
        else:
            # Media and data have no place in a Response.
            self._lost.append(ev.block_loss(self.protocol, kind if isinstance(kind, str) else ""))

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if found is None or not isinstance(delta, str) or not delta:
            return
        item, part = found
        assert part is not None
        if part.text and not isinstance(part.text[0], str):
            return  # a tool output replaced by content parts: written whole
        part.text.append(delta)
        if part.kind == "tool_call":
            tool = TOOL_ITEMS[item.type][0]
            out.append(
                self._event(
                    TOOL_DELTAS[tool] + ".delta", item_id=item.id, output_index=item.index, delta=delta
                )
            )
        elif part.kind == "reasoning" and part.summary:
            out.append(
                self._event(
                    "response.reasoning_summary_text.delta",
                    item_id=item.id,
                    output_index=item.index,
                    summary_index=part.position,
                    delta=delta,
                )
            )
        elif part.kind in ("text", "refusal", "reasoning"):
            kind = {
                "text": "response.output_text.delta",
                "refusal": "response.refusal.delta",
                "reasoning": "response.reasoning_text.delta",
            }[part.kind]
            fields: dict[str, Any] = {
                "item_id": item.id,
                "output_index": item.index,
                "content_index": part.position,
                "delta": delta,
            }
            if part.kind == "text":
                fields["logprobs"] = []
            out.append(self._event(kind, **fields))

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if found is None:
            return
        item, part = found
        assert part is not None
        field = ev.APPENDED_FIELD.get(part.kind)
        if field is not None and isinstance(event.get(field), str):
            part.text = [event[field]]  # the done events carry it
        elif part.kind == "tool_result" and field in event:
            output = event[field]
            # Input content parts (or null) are written whole; a tool's output
            # is text or those parts, so any other value as its JSON.
            if _is_input_content(output):
                part.text = [output]
            else:
                text = _json.dumps(output)
                # Once a block: the same value again is the same text.
                if part.text != [text]:
                    self._lost.append(ev.result_as_json_loss(self.protocol))
                part.text = [text]
        annotations = event.get("annotations")
        if part.kind == "text" and isinstance(annotations, list):
            # The API's kinds of annotation are written; another protocol's
            # (a citation of a document's characters, say) has no place.
            foreign = False
            for annotation in annotations[part.seen :]:
                kind = annotation.get("type") if isinstance(annotation, dict) else None
                if not isinstance(kind, str) or kind not in ANNOTATION_TYPES:
                    foreign = True
                    continue
                part.annotations.append(annotation)
                out.append(
                    self._event(
                        "response.output_text.annotation.added",
                        item_id=item.id,
                        output_index=item.index,
                        content_index=part.position,
                        annotation_index=len(part.annotations) - 1,
                        annotation=annotation,
                    )
                )
            if foreign:
                self._lost.append(ev.annotations_loss(self.protocol))
            part.seen = max(part.seen, len(annotations))
        encrypted = event.get("encrypted")
        if isinstance(encrypted, str):
            # Only a reasoning item has encrypted content, and one: a text's
            # or a tool call's signature, or a second one of the item's
            # reasoning (its blocks still open), has no place.
            if item.type == "reasoning" and item.fields.get("encrypted_content", encrypted) == encrypted:
                item.fields["encrypted_content"] = encrypted
            elif item.type == "reasoning":
                self._lost.append(ev.signature_loss(self.protocol))
            else:
                self._lost.append(ev.block_signature_loss(self.protocol, part.kind))

    def _is_signed_and_whole(self, item: _OpenItem) -> bool:
        """Whether a reasoning item has its encrypted content and no block
        still open: nothing more can be written to it."""
        return (
            item.type == "reasoning"
            and "encrypted_content" in item.fields
            and not any(open_item is item for open_item, _ in self._blocks.values())
        )

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.pop(ev.block_key(event), None)  # type: ignore[arg-type]
        if found is None:
            return
        item, part = found
        assert part is not None
        if part.kind == "tool_call":
            tool, field = TOOL_ITEMS[item.type]
            value = part.value()
            item.fields[field] = value
            out.append(
                self._event(
                    TOOL_DELTAS[tool] + ".done", item_id=item.id, output_index=item.index, **{field: value}
                )
            )
            self._item_done(item, out)
        elif part.kind == "tool_result":
            output = (
                part.text[0] if len(part.text) == 1 and not isinstance(part.text[0], str) else part.value()
            )
            item.fields["output"] = output
            item.index = self._next_index
            self._next_index += 1
            out.append(
                self._event("response.output_item.added", output_index=item.index, item=dict(item.fields))
            )
            self._item_done(item, out)
        elif part.kind == "reasoning" and part.summary:
            summary_index = part.position
            out.append(
                self._event(
                    "response.reasoning_summary_text.done",
                    item_id=item.id,
                    output_index=item.index,
                    summary_index=summary_index,
                    text=part.value(),
                )
            )
            out.append(
                self._event(
                    "response.reasoning_summary_part.done",
                    item_id=item.id,
                    output_index=item.index,
                    summary_index=summary_index,
                    part=part.part(),
                )
            )
        else:
            content_index = part.position
            if part.kind == "refusal":
                done = self._event(
                    "response.refusal.done",
                    item_id=item.id,
                    output_index=item.index,
                    content_index=content_index,
                    refusal=part.value(),
                )
            elif part.kind == "reasoning":
                done = self._event(
                    "response.reasoning_text.done",
                    item_id=item.id,
                    output_index=item.index,
                    content_index=content_index,
                    text=part.value(),
                )
            else:
                done = self._event(
                    "response.output_text.done",
                    item_id=item.id,
                    output_index=item.index,
                    content_index=content_index,
                    text=part.value(),
                    logprobs=[],
                )
            out.append(done)
            out.append(
                self._event(
                    "response.content_part.done",
                    item_id=item.id,
                    output_index=item.index,
                    content_index=content_index,
                    part=part.part(),
                )
            )

    def _item_done(self, item: _OpenItem, out: list[dict[str, Any]]) -> None:
        body = self._item(item, done=True)
        self._output[item.index] = body
        out.append(self._event("response.output_item.done", output_index=item.index, item=body))

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # An item has no usage: only the response.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        # The response says why of its last message only (and only when it
        # is incomplete): an earlier message's reason has no place.
        held, self._stop_reason = self._stop_reason, None
        self._lost.extend(stop_reasons.loss(self.protocol, held))
        reason = event.get("stop_reason")
        word, lost = STOP_WORDS.translate(self.protocol, reason)
        self._lost.extend(lost)
        self._stop_reason = reason if word is not None else None
        message_id = event.get("message_id")
        if isinstance(message_id, str):
            self._close_message(message_id, out)

    def _close_message(self, message_id: str, out: list[dict[str, Any]]) -> None:
        for key in [key for key in self._blocks if key[0] == message_id]:
            self._block_finished({"message_id": key[0], "index": key[1]}, out)
        for item in self._open.pop(message_id, {}).values():
            self._item_done(item, out)

    def _close_all(self, out: list[dict[str, Any]]) -> None:
        for message_id in list(dict.fromkeys([*(key[0] for key in self._blocks), *self._open])):
            self._close_message(message_id, out)

    def _usage(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The run's usage as the API writes one; a usage it cannot be is a loss."""
        usage = event.get("usage")
        written = usage_to_responses(usage)
        if written is None and isinstance(usage, dict) and usage:
            self._lost.append(ev.partial_usage_loss(self.protocol, "input_tokens and output_tokens"))
        return written

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._close_all(out)
        status = event.get("status")
        usage = self._usage(event)
        # Why the run stopped, where the API has a word for it: the run's
        # reason, else its last message's.
        held, self._stop_reason = self._stop_reason, None
        run_reason = event.get("stop_reason")
        said, lost = STOP_WORDS.translate(self.protocol, run_reason)
        self._lost.extend(lost)
        held_word = STOP_WORDS.word(held) if held is not None else None
        reason = said if said is not None else held_word
        stopped = status in ("incomplete", "cancelled", "interrupted")
        if not stopped:
            out.append(
                self._event(
                    "response.completed", response=self._response("completed", output=True, usage=usage)
                )
            )
        else:
            shown = "cancelled" if status == "cancelled" else "incomplete"
            self._lost.extend(ev.status_loss(self.protocol, status, shown))
            # (A cancelled response says no reason.)
            response = self._response(
                shown,
                output=True,
                usage=usage,
                incomplete_details=None if shown == "cancelled" else {"reason": reason},
            )
            out.append(self._event("response.incomplete", response=response))
        self._finished = True
        # What the response does not say: any reason, where it is not
        # incomplete; the message's beside the run's own.
        says_why = stopped and status != "cancelled"
        if not says_why or (said is not None and held_word != said):
            self._lost.extend(stop_reasons.loss(self.protocol, held))
        if not says_why and said is not None:
            self._lost.extend(stop_reasons.loss(self.protocol, run_reason))

    def _keep_unfinished(self) -> None:
        """The items a failed run left open, as far as they got, in its
        output with status ``incomplete``: a client reading only the failed
        response keeps the partial text and arguments."""
        for items in self._open.values():
            for item in items.values():
                body = self._item(item, done=True)
                if "status" in body:
                    body["status"] = "incomplete"
                self._output[item.index] = body
        for item, part in self._blocks.values():
            if part is not None and part.kind == "tool_call":
                field = TOOL_ITEMS[item.type][1]
                self._output[item.index] = {**item.fields, field: part.value(), "status": "incomplete"}

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # A response's error code is one of the API's own: another's is its
        # code of that kind (a throttle is ``rate_limit_exceeded``), or else
        # a server error.
        code, lost = ERROR_CODES.write(self.protocol, event.get("code"))
        self._lost.extend(lost)
        error = {"code": code, "message": ev.as_str(event.get("message")) or ""}
        self._keep_unfinished()
        out.append(
            self._event(
                "response.failed",
                response=self._response("failed", output=True, error=error, usage=self._usage(event)),
            )
        )
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") == "openai-responses" and isinstance(inner, dict):
            copy = dict(inner)
            copy["sequence_number"] = self._sequence
            self._sequence += 1
            out.append(copy)


_ENCODERS = {
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_replaced": Encoder._block_replaced,
    "block_finished": Encoder._block_finished,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "passthrough": Encoder._passthrough,
}
