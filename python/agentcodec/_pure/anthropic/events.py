"""Anthropic Messages to and from the neutral vocabulary: the pure-Python
mirror of ``rust/anthropic/events.rs``.

Decoding: ``message_start`` starts the run and its one assistant message
(both named by the message's id); each content block is one neutral block
of the same index: ``text`` a text block (its citations, as they come, the
block's ``annotations``), ``thinking`` a reasoning block (its signature the
block's ``encrypted`` value), ``redacted_thinking`` a reasoning block with
no text whose ``encrypted`` value is its data (and ``redacted`` true),
``tool_use``, ``server_tool_use`` and ``mcp_tool_use`` tool calls (``tool``
function, server and mcp), whose input fragments are the deltas. Any other
block (a server tool's result, a container upload) is a data block whose
value is the block, whole. ``message_delta`` finishes the message with its
stop reason and usage, ``message_stop`` the run (incomplete after
``max_tokens``), an ``error`` event fails it. Usage in neutral terms counts
every input token in ``input_tokens``, as OpenAI's APIs do (Anthropic's
``input_tokens`` leaves out those read from or written to the cache, which
are ``cached_input_tokens`` and ``cache_creation_input_tokens``).

Encoding: the events anthropic-sdk-python's ``accumulate_event`` and every
Messages client read: ``message_start``, then one content block at a time
(blocks never interleave: a block that starts while another is being
written waits, with its deltas, until that one stops; a block starts as
soon as it is being written, a reasoning block at its first content, which
says whether it is thinking or redacted), tool calls as ``tool_use`` (a
server's as ``server_tool_use``; MCP calls too are ``tool_use``, since
``mcp_tool_use`` is a beta block that needs a server name) with
``input: {}`` and ``input_json_delta`` fragments, a signature as
``signature_delta`` before the block stops, citations as
``citations_delta``, then ``message_delta`` (stop reason, cumulative usage)
and ``message_stop``; an ``error`` event when the run fails. A stream that
ends without ending its run gets ``message_delta`` but not
``message_stop``. Tool results, media, refusals' kind, annotations that are
not Anthropic citations and data that is not an Anthropic block have no
place in an assistant message and are left out (a refusal's text is text).
"""

from __future__ import annotations

from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from ..error_codes import ErrorCodes
from ..json_prefix import JsonPrefix
from ..stop_reasons import StopWords, cuts_short
from .assembler import TOOL_BLOCKS, error_fields, recognizes

__all__ = ["STOP_REASONS", "Decoder", "Encoder"]

_VOCABULARY = tables("anthropic")

STOP_REASONS = _VOCABULARY["STOP_REASONS"]
# Why a message stopped, in Anthropic's words.
STOP_WORDS = StopWords(STOP_REASONS, _VOCABULARY["STOP_REASON_WORDS"])
# A failed run's error type, in Anthropic's words.
ERROR_CODES = ErrorCodes(_VOCABULARY["ERROR_TYPES"], _VOCABULARY["ERROR_CODE_WORDS"], "api_error")
# The tool call kind of each tool block type, and back.
TOOL_KINDS = {"tool_use": "function", "server_tool_use": "server", "mcp_tool_use": "mcp"}
# (An MCP call is written as tool_use: mcp_tool_use is a beta block that
# needs the server's name, which no other protocol gives.)
TOOL_TYPES = {"server": "server_tool_use"}
# Delta type -> (the field it appends, the neutral block kind it appends to).
APPENDED = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "reasoning"),
    "input_json_delta": ("partial_json", "tool_call"),
}
# Who made the signatures it reads (``encrypted_by``): a reader that keeps them
# per provider (the AI SDK's ``providerMetadata``) files them so.
BY = "anthropic"
# The citations a text block carries; other protocols' annotations (Responses'
# url_citation) have no Anthropic form.
CITATION_TYPES = (
    "char_location",
    "page_location",
    "content_block_location",
    "web_search_result_location",
    "search_result_location",
)
# Anthropic's cache counts, as neutral usage names them.
CACHE_KEYS = (
    ("cached_input_tokens", "cache_read_input_tokens"),
    ("cache_creation_input_tokens", "cache_creation_input_tokens"),
)
# Usage fields only Anthropic has, carried as they are.
OWN_USAGE_KEYS = ("server_tool_use", "service_tier")


def usage_from_anthropic(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    neutral: dict[str, Any] = {}
    total = ev.as_int(usage.get("input_tokens"))
    for key, anthropic_key in CACHE_KEYS:
        count = ev.as_int(usage.get(anthropic_key))
        if count is not None:
            neutral[key] = count
            if total is not None:
                # A total past 64 bits is no count: it is left out.
                total = ev.as_int(total + count)
    if total is not None:
        neutral["input_tokens"] = total
    output = ev.as_int(usage.get("output_tokens"))
    if output is not None:
        neutral["output_tokens"] = output
        if total is not None and ev.as_int(total + output) is not None:
            neutral["total_tokens"] = total + output
    for key in OWN_USAGE_KEYS:
        if usage.get(key) is not None:
            neutral[key] = usage[key]
    return neutral or None


def usage_to_anthropic(usage: Any) -> dict[str, Any]:
    """Cumulative usage for ``message_delta``: ``output_tokens`` always."""
    usage = usage if isinstance(usage, dict) else {}
    output = ev.as_int(usage.get("output_tokens"))
    anthropic: dict[str, Any] = {"output_tokens": 0 if output is None else output}
    total = ev.as_int(usage.get("input_tokens"))
    details = usage.get("input_tokens_details")
    for key, anthropic_key in CACHE_KEYS:
        count = ev.as_int(usage.get(key))
        if count is None and key == "cached_input_tokens" and isinstance(details, dict):
            count = ev.as_int(details.get("cached_tokens"))  # Responses' usage
        if count is not None:
            anthropic[anthropic_key] = count
            if total is not None:
                total = ev.as_int(total - count)
    if total is not None and total >= 0:
        anthropic["input_tokens"] = total
    for key in OWN_USAGE_KEYS:
        if usage.get(key) is not None:
            anthropic[key] = usage[key]
    return anthropic


class _Decoded:
    __slots__ = ("citations", "kind", "redacted")

    def __init__(self, kind: str, redacted: bool = False) -> None:
        self.kind = kind
        self.redacted = redacted
        self.citations: list[Any] = []


class Decoder:
    """Anthropic Messages events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "anthropic"

    def __init__(self) -> None:
        self._message_id: str | None = None  # message_start came
        self._finished = False  # the message finished (message_delta)
        self._ended = False
        self._open: dict[int, _Decoded] = {}
        self._seen: set[int] = set()  # every block index started
        self._usage: dict[str, Any] = {}
        self._reason: Any = None

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = event.get("type")
        if self._ended or not isinstance(kind, str):
            out.append(ev.passthrough("anthropic", event))
        elif kind == "ping":
            pass
        elif kind == "error":
            if self._message_id is not None:
                self._finish_message(out)
            code, message = error_fields(event)
            out.append(ev.run_failed(code, message, usage_from_anthropic(self._usage)))
            self._ended = True
        elif self._message_id is None:
            if kind == "message_start":
                self._start(event, out)
            else:
                out.append(ev.passthrough("anthropic", event))
        elif kind == "content_block_start" and not self._finished:
            self._block_start(event, out)
        elif kind == "content_block_delta" and not self._finished:
            self._block_delta(event, out)
        elif kind == "content_block_stop" and ev.as_int(event.get("index")) in self._open:
            del self._open[event["index"]]
            out.append(ev.block_finished(self._message_id, event["index"]))
        elif kind == "message_delta" and not self._finished:
            delta = event.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            self._reason = delta.get("stop_reason")
            self._merge_usage(event.get("usage"))
            self._finish_message(out, delta.get("stop_sequence"))
        elif kind == "message_stop":
            self._finish_message(out)
            status = "incomplete" if cuts_short(self._reason) else "completed"
            out.append(ev.run_finished(status, usage_from_anthropic(self._usage)))
            self._ended = True
        else:
            out.append(ev.passthrough("anthropic", event))
        return out

    def finish(self) -> list[dict[str, Any]]:
        # The run ends at message_stop: without it the stream was cut short,
        # and what was open stays open, as in the other protocols.
        return []

    # --- internals -----------------------------------------------------------

    def _start(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message = event.get("message")
        message = message if isinstance(message, dict) else {}
        message_id = ev.as_str(message.get("id")) or "msg"
        self._message_id = message_id
        self._merge_usage(message.get("usage"))
        out.append(ev.run_started(message_id, None, message.get("model"), None))
        out.append(ev.message_started(message_id, ev.as_str(message.get("role")) or "assistant", "message"))
        content = message.get("content")
        for index, block in enumerate(content if isinstance(content, list) else ()):
            self._block_start({"index": index, "content_block": block}, out)
            if index in self._open:
                del self._open[index]
                out.append(ev.block_finished(message_id, index))

    def _merge_usage(self, usage: Any) -> None:
        if isinstance(usage, dict):
            for key, value in usage.items():
                if value is not None:
                    self._usage[key] = value

    def _block_start(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        index = ev.as_int(event.get("index"))
        block = event.get("content_block")
        if index is None or index in self._seen or not isinstance(block, dict):
            out.append(ev.passthrough("anthropic", event))
            return
        self._seen.add(index)
        message_id = self._message_id
        assert message_id is not None
        block_type = block.get("type")
        if block_type == "text":
            self._open[index] = _Decoded("text")
            out.append(ev.block_started(message_id, index, "text"))
            self._initial(index, block.get("text"), out)
            citations = block.get("citations")
            if isinstance(citations, list) and citations:
                self._open[index].citations = list(citations)
                out.append(ev.block_replaced(message_id, index, {"annotations": list(citations)}))
        elif block_type == "thinking":
            self._open[index] = _Decoded("reasoning")
            out.append(ev.block_started(message_id, index, "reasoning"))
            self._initial(index, block.get("thinking"), out)
            signature = block.get("signature")
            if isinstance(signature, str) and signature:
                out.append(ev.block_replaced(message_id, index, {"encrypted": signature, "encrypted_by": BY}))
        elif block_type == "redacted_thinking":
            self._open[index] = _Decoded("reasoning", redacted=True)
            out.append(ev.block_started(message_id, index, "reasoning"))
            data = block.get("data")
            fields = {
                "encrypted": data if isinstance(data, str) else "",
                "redacted": True,
                "encrypted_by": BY,
            }
            out.append(ev.block_replaced(message_id, index, fields))
        elif block_type in TOOL_BLOCKS:
            self._open[index] = _Decoded("tool_call")
            fields = {
                "call_id": ev.as_str(block.get("id")),
                "name": ev.as_str(block.get("name")),
                "tool": TOOL_KINDS[block_type],
                "server": ev.as_str(block.get("server_name")),
            }
            out.append(ev.block_started(message_id, index, "tool_call", **fields))
            given = block.get("input")
            if isinstance(given, dict) and given:
                out.append(ev.block_delta(message_id, index, _json.dumps(given)))
        else:
            self._open[index] = _Decoded("data")
            out.append(ev.block_started(message_id, index, "data", value=block))

    def _initial(self, index: int, text: Any, out: list[dict[str, Any]]) -> None:
        if isinstance(text, str) and text:
            assert self._message_id is not None
            out.append(ev.block_delta(self._message_id, index, text))

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        index = ev.as_int(event.get("index"))
        block = self._open.get(index) if index is not None else None
        delta = event.get("delta")
        if block is None or not isinstance(delta, dict):
            out.append(ev.passthrough("anthropic", event))
            return
        assert index is not None
        assert self._message_id is not None
        kind = ev.as_str(delta.get("type"))
        field, wanted = APPENDED.get(kind, (None, None)) if kind is not None else (None, None)
        if field is not None and block.kind == wanted and not block.redacted:
            piece = delta.get(field)
            if isinstance(piece, str):
                if piece:
                    out.append(ev.block_delta(self._message_id, index, piece))
                return
        elif kind == "signature_delta" and block.kind == "reasoning" and not block.redacted:
            signature = delta.get("signature")
            if isinstance(signature, str):
                out.append(
                    ev.block_replaced(self._message_id, index, {"encrypted": signature, "encrypted_by": BY})
                )
                return
        elif kind == "citations_delta" and block.kind == "text":
            block.citations.append(delta.get("citation"))
            out.append(ev.block_replaced(self._message_id, index, {"annotations": list(block.citations)}))
            return
        out.append(ev.passthrough("anthropic", event))

    def _finish_message(self, out: list[dict[str, Any]], stop_sequence: Any = None) -> None:
        if self._finished:
            return
        assert self._message_id is not None
        for index in sorted(self._open):
            out.append(ev.block_finished(self._message_id, index))
        self._open = {}
        self._finished = True
        finished = ev.message_finished(self._message_id, usage_from_anthropic(self._usage), self._reason)
        if isinstance(stop_sequence, str):
            finished["stop_sequence"] = stop_sequence
        out.append(finished)


class _Encoded:
    """A neutral block on its way out: queued until the blocks before it
    stop, with what came for it meanwhile."""

    __slots__ = (
        "anthropic_type",
        "citations",
        "fields",
        "finished",
        "index",
        "input",
        "kind",
        "ops",
        "started",
    )

    def __init__(self, kind: str, fields: dict[str, Any]) -> None:
        self.kind = kind
        self.fields = fields
        self.index: int | None = None  # its Anthropic index, once written
        self.started = False  # its content_block_start was written
        self.anthropic_type: str | None = None
        self.finished = False
        self.citations = 0  # citations written
        # What came while it waited: ("delta", str) or ("replaced", dict).
        self.ops: list[tuple[str, Any]] = []
        # A tool's input as it streams: passed on only as far as it is the
        # clean prefix of an object (rust/anthropic/events.rs says why).
        self.input = JsonPrefix(require_object=True)


class Encoder(ev.RecordsLosses):
    """Neutral events to Anthropic Messages events."""

    protocol = "anthropic"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(self, response_id: str | None = None, model: str | None = None) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._id = response_id
        self._model = model
        self._started = False
        self._finished = False
        self._next = 0  # the next Anthropic block index
        self._blocks: dict[tuple[str, int], _Encoded] = {}
        self._current: _Encoded | None = None
        self._queue: list[_Encoded] = []
        self._skipped: set[str] = set()  # messages with no place here (user, tool results)
        self._open: set[str] = set()  # messages started and not finished
        self._last_kind: str | None = None
        self._reason: str | None = None
        self._stop_sequence: str | None = None

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if self._finished:
            return out
        if kind == "run_started":
            self._id = self._id or ev.as_str(event.get("run_id"))
            self._model = self._model or ev.as_str(event.get("model"))
            self._ensure_started(out)
        elif kind == "run_failed":
            # An error event has no usage.
            self._lost.extend(ev.usage_loss(self.protocol, event))
            # An error's type is one of the API's own (the SDK's models
            # reject any other): another protocol's code is its type of that
            # kind (a throttle is ``rate_limit_error``), or else an API error.
            kind, lost = ERROR_CODES.write(self.protocol, event.get("code"))
            self._lost.extend(lost)
            error = {"type": kind, "message": ev.as_str(event.get("message")) or ""}
            out.append({"type": "error", "error": error})
            self._finished = True
        elif kind == "passthrough":
            inner = event.get("event")
            if event.get("protocol") == "anthropic" and isinstance(inner, dict):
                out.append(dict(inner))
        else:
            handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
            if handler is not None:
                handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """A stream that ends without finishing its run (LangChain's has no
        run events): when every message finished, ``message_delta`` ends
        the message, so that a client closes what it holds; no
        ``message_stop``, since the run never said it was over."""
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        if self._current is not None:
            self._write_start(self._current, None, out)  # what started shows
        if self._started and not self._open:
            self._end(None, None, out, stop=False)
        return out

    # --- internals -----------------------------------------------------------

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if self._started:
            return
        self._started = True
        message: dict[str, Any] = {
            "id": self._id or "msg",
            "type": "message",
            "role": "assistant",
            "model": self._model or "",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        out.append({"type": "message_start", "message": message})

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return
        if event.get("role") in ("user", "system", "developer", "tool") or event.get("kind") == "tool_result":
            self._skipped.add(message_id)
            return
        self._skipped.discard(message_id)
        self._open.add(message_id)
        self._ensure_started(out)

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # The stream's one message carries the run's usage, not a message's.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        message_id = ev.as_str(event.get("message_id"))
        if message_id is not None:
            self._open.discard(message_id)
            if message_id in self._skipped:
                return
        self._take_reason(event.get("stop_reason"))
        if isinstance(event.get("stop_sequence"), str):
            self._stop_sequence = event["stop_sequence"]

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        kind = event.get("kind")
        kind_name = kind if isinstance(kind, str) else ""
        if key is None:
            return
        if key[0] in self._skipped:
            self._lost.append(ev.other_role_loss(self.protocol, kind_name))
            return
        if key in self._blocks:
            return
        if kind not in ("text", "refusal", "reasoning", "tool_call", "data"):
            # Tool results and media have no place in an assistant message.
            self._lost.append(ev.block_loss(self.protocol, kind_name))
            return
        if kind == "refusal":
            self._lost.append(ev.refusal_loss(self.protocol))
        # An MCP call is written as tool_use: mcp_tool_use is a beta block.
        self._lost.extend(ev.server_loss(self.protocol, event))
        self._lost.extend(ev.tool_kind_loss(self.protocol, event, ("server",)))
        fields = {name: event.get(name) for name in ev.BLOCK_FIELDS.get(kind, ())}
        if kind == "data":
            value = _anthropic_block(event.get("value"))
            if value is None:
                # Only a data block holding one of Anthropic's own blocks (a
                # server tool's result) has a place.
                self._lost.append(ev.block_loss(self.protocol, kind))
                return
            fields["value"] = value
        self._ensure_started(out)
        block = self._blocks[key] = _Encoded(kind, fields)
        if self._current is None:
            self._current = block
            self._begin(block, out)
        else:
            self._queue.append(block)

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if block is None or not isinstance(delta, str) or not delta:
            return
        if block is self._current:
            self._write_delta(block, delta, out)
        else:
            block.ops.append(("delta", delta))

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if block is None:
            return
        if block.kind in ("text", "refusal", "reasoning") and isinstance(event.get("text"), str):
            # A text delta only appends: a correction of streamed text has no place.
            self._lost.append(ev.correction_loss(self.protocol, block.kind))
        if block.kind != "reasoning" and isinstance(event.get("encrypted"), str):
            # Only a thinking block is signed: a text's or a tool call's
            # signature has no place.
            self._lost.append(ev.block_signature_loss(self.protocol, block.kind))
        if block is self._current:
            self._write_replaced(block, event, out)
        else:
            block.ops.append(("replaced", event))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        block = self._blocks.get(key)  # type: ignore[arg-type]
        if block is None:
            return
        del self._blocks[key]  # type: ignore[arg-type]
        block.finished = True
        if block is self._current:
            self._stop_current(out)

    def _take_reason(self, reason: Any) -> None:
        """The stop reason the source gave, in Anthropic's words; one it has
        no word for leaves the reason to what the stream says (and an
        earlier message's no longer stands)."""
        if not isinstance(reason, str) or not reason:
            return
        self._reason, lost = STOP_WORDS.translate("anthropic", reason)
        self._lost.extend(lost)

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # The run's reason stands for a message that gave none (one with no
        # word is reported, as it is not written).
        word, lost = STOP_WORDS.translate("anthropic", event.get("stop_reason"))
        self._lost.extend(lost)
        if self._reason is None:
            self._reason = word
        self._end(event.get("status"), event.get("usage"), out)

    def _end(self, status: Any, usage: Any, out: list[dict[str, Any]], stop: bool = True) -> None:
        self._ensure_started(out)
        # Whatever is open stops, in order.
        while self._current is not None:
            self._current.finished = True
            for block in self._queue:
                block.finished = True
            self._stop_current(out)
        self._blocks = {}
        reason = self._reason
        if reason is None:
            if status == "incomplete":
                reason = "max_tokens"
            elif self._last_kind == "tool_call":
                reason = "tool_use"
            else:
                reason = "end_turn"
        # The stop reason reads back as incomplete (cut short) or
        # completed: a stopped run has no word.
        carried = "incomplete" if cuts_short(reason) else "completed"
        self._lost.extend(ev.status_loss("anthropic", status, carried))
        delta = {"stop_reason": reason, "stop_sequence": self._stop_sequence}
        out.append({"type": "message_delta", "delta": delta, "usage": usage_to_anthropic(usage)})
        if stop:
            out.append({"type": "message_stop"})
        self._finished = True

    def _stop_current(self, out: list[dict[str, Any]]) -> None:
        """Stops the block being written, and writes the blocks that waited
        for it, as far as they have come."""
        while self._current is not None and self._current.finished:
            block = self._current
            self._write_start(block, None, out)
            if block.index is not None:
                if block.anthropic_type in TOOL_BLOCKS and not block.input.is_whole():
                    self._lost.append(ev.broken_arguments_loss(self.protocol))
                end = block.input.finish()
                if end and block.anthropic_type in TOOL_BLOCKS:
                    body = {"type": "input_json_delta", "partial_json": end}
                    out.append({"type": "content_block_delta", "index": block.index, "delta": body})
                out.append({"type": "content_block_stop", "index": block.index})
            self._current = self._queue.pop(0) if self._queue else None
            if self._current is not None:
                waiting = self._current
                ops, waiting.ops = waiting.ops, []
                for op, value in ops:
                    if op == "delta":
                        self._write_delta(waiting, value, out)
                    else:
                        self._write_replaced(waiting, value, out)
                self._begin(waiting, out)

    def _begin(self, block: _Encoded, out: list[dict[str, Any]]) -> None:
        """A block now being written starts at once, so that a client sees
        it; a reasoning block waits for its first content, which says
        whether it is thinking or redacted."""
        if block.kind != "reasoning":
            self._write_start(block, None, out)

    def _write_start(
        self, block: _Encoded, replaced: dict[str, Any] | None, out: list[dict[str, Any]]
    ) -> None:
        if block.started:
            return
        block.started = True
        fields = block.fields
        if block.kind in ("text", "refusal"):
            content: dict[str, Any] = {"type": "text", "text": ""}
        elif block.kind == "reasoning":
            if replaced is not None and replaced.get("redacted") is True:
                content = {"type": "redacted_thinking", "data": ev.as_str(replaced.get("encrypted")) or ""}
            else:
                content = {"type": "thinking", "thinking": "", "signature": ""}
        elif block.kind == "tool_call":
            block_type = TOOL_TYPES.get(ev.as_str(fields.get("tool")) or "", "tool_use")
            content = {
                "type": block_type,
                "id": ev.as_str(fields.get("call_id")) or f"toolu_{self._next}",
                "name": ev.as_str(fields.get("name")) or "",
                "input": {},
            }
        else:
            content = dict(fields["value"])
        block.anthropic_type = content["type"]
        block.index = self._next
        self._next += 1
        self._last_kind = block.kind
        out.append({"type": "content_block_start", "index": block.index, "content_block": content})

    def _write_delta(self, block: _Encoded, delta: str, out: list[dict[str, Any]]) -> None:
        self._write_start(block, None, out)
        if block.anthropic_type == "text":
            body = {"type": "text_delta", "text": delta}
        elif block.anthropic_type == "thinking":
            body = {"type": "thinking_delta", "thinking": delta}
        elif block.anthropic_type in TOOL_BLOCKS:
            passed = block.input.feed(delta)
            if not passed:
                return
            body = {"type": "input_json_delta", "partial_json": passed}
        else:
            return
        out.append({"type": "content_block_delta", "index": block.index, "delta": body})

    def _write_replaced(self, block: _Encoded, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if not block.started and block.kind == "tool_call" and isinstance(event.get("name"), str):
            block.fields["name"] = event["name"]
        self._write_start(block, event, out)
        encrypted = event.get("encrypted")
        if block.anthropic_type == "thinking" and isinstance(encrypted, str) and encrypted:
            delta: dict[str, Any] = {"type": "signature_delta", "signature": encrypted}
            out.append({"type": "content_block_delta", "index": block.index, "delta": delta})
        annotations = event.get("annotations")
        if block.anthropic_type == "text" and isinstance(annotations, list):
            foreign = False
            for citation in annotations[block.citations :]:
                if isinstance(citation, dict) and citation.get("type") in CITATION_TYPES:
                    delta = {"type": "citations_delta", "citation": citation}
                    out.append({"type": "content_block_delta", "index": block.index, "delta": delta})
                else:
                    foreign = True
            if foreign:
                self._lost.append(ev.annotations_loss(self.protocol))
            block.citations = max(block.citations, len(annotations))


def _anthropic_block(value: Any) -> dict[str, Any] | None:
    """A data block's value as an Anthropic content block: an object whose
    ``type`` is an Anthropic block type, or LangChain's ``non_standard``
    wrapper of one."""
    if isinstance(value, dict) and value.get("type") == "non_standard":
        value = value.get("value")
    kind = value.get("type") if isinstance(value, dict) else None
    # Anthropic's block types are snake_case words; another protocol's parts
    # are not (an AI SDK ``source-url`` or ``data-weather``), or are the AI
    # SDK's ``custom``, which Anthropic has no block for.
    snake = isinstance(kind, str) and kind != "" and all("a" <= char <= "z" or char == "_" for char in kind)
    if snake and kind != "custom":
        block: dict[str, Any] = value
        return block
    return None


_ENCODERS = {
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_replaced": Encoder._block_replaced,
    "block_finished": Encoder._block_finished,
    "run_finished": Encoder._run_finished,
}
