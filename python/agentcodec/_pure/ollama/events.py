"""Ollama to and from the neutral vocabulary: the pure-Python mirror of
``rust/ollama/events.rs``.

Decoding: the first line starts the run (its model, and ``created_at`` as
Unix seconds) and its one assistant message. Ollama has no block
boundaries, so they are drawn where the content changes: ``thinking``
(reasoning) and ``content`` (``/api/chat``) or ``response``
(``/api/generate``) each run in one block until the other comes; each tool
call arrives whole, so it is one block started, given its arguments and
finished at once. The done line finishes the message (its ``done_reason``
the stop reason) and the run (``length``: incomplete), with the token counts
as usage; an ``error`` line fails the run. Log probabilities pass through.

Encoding: the lines Ollama's server writes and its client reads, for
``/api/chat`` (``message``, ``role: assistant``, ``content`` always there)
or ``/api/generate`` (``response``), as the ``endpoint`` option says. A tool
call is written whole when its block finishes (its arguments an object, as
Ollama's are); the done line carries the done reason and the token counts; a
failed run is an ``{"error": ...}`` line. Tool results, media, data and
corrections have no place in an answer.
"""

from __future__ import annotations

import time
from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from ..joined_text import JoinedText
from ..json_prefix import JsonPrefix
from ..json_values import JSONValueError, loads, utf8_size
from ..rfc3339 import rfc3339, unix_seconds
from ..stop_reasons import StopWords, cuts_short
from .assembler import error_message, recognizes

__all__ = ["DONE_REASONS", "ENDPOINTS", "MESSAGE_ID", "Decoder", "Encoder", "frame"]

_VOCABULARY = tables("ollama")

DONE_REASONS = _VOCABULARY["DONE_REASONS"]
# Why an answer is done, in Ollama's words.
STOP_WORDS = StopWords(DONE_REASONS, _VOCABULARY["STOP_REASON_WORDS"])
ENDPOINTS = _VOCABULARY["ENDPOINTS"]
#: The one message of an Ollama answer, as the decoder names it.
MESSAGE_ID = "ollama-message"
# Neutral usage keys from Ollama's counts.
USAGE_KEYS = (("input_tokens", "prompt_eval_count"), ("output_tokens", "eval_count"))


# The characters a line reader may take for a line break that JSON leaves
# raw: the ollama client (Python's ``str.splitlines``) splits at them too.
_LINE_BREAKS = (("\x85", "\\u0085"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def frame(line: dict[str, Any]) -> bytes:
    """One line as Ollama's server writes it: compact JSON, with U+0085,
    U+2028 and U+2029 escaped (``rust/ollama/events.rs`` ``frame_line``),
    then LF."""
    text = _json.dumps(line)
    if not text.isascii():
        for raw, escaped in _LINE_BREAKS:
            text = text.replace(raw, escaped)
    return (text + "\n").encode()


def _usage_from_ollama(line: dict[str, Any]) -> Any:
    usage = {neutral: line[key] for neutral, key in USAGE_KEYS if ev.as_int(line.get(key)) is not None}
    if "input_tokens" in usage and "output_tokens" in usage:
        total = usage["input_tokens"] + usage["output_tokens"]
        if ev.as_int(total) is not None:
            usage["total_tokens"] = total
    return usage or None


class Decoder:
    """Ollama lines to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "ollama"
    framing = "lines"

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._blocks = 0  # the next block's index
        self._open: tuple[str, int] | None = None  # the open text-like block
        self._calls = 0  # the tool calls so far

    def decode(self, line: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._ended:
            out.append(ev.passthrough("ollama", line))
            return out
        error = line.get("error")
        if error is not None:
            if self._started:
                self._close_text(out)
                out.append(ev.message_finished(MESSAGE_ID, None, None))
            out.append(ev.run_failed(None, error_message(error), None))
            self._ended = True
            return out
        if not self._started:
            self._started = True
            created = line.get("created_at")
            created = unix_seconds(created) if isinstance(created, str) else None
            out.append(ev.run_started(None, None, line.get("model"), created))
            out.append(ev.message_started(MESSAGE_ID, "assistant", "message"))
        message = line.get("message")
        fields, text_key = (message, "content") if isinstance(message, dict) else (line, "response")
        for key, kind in (("thinking", "reasoning"), (text_key, "text")):
            piece = fields.get(key)
            if isinstance(piece, str) and piece:
                self._text(kind, piece, out)
        calls = fields.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                self._tool_call(call, out)
        logprobs = line.get("logprobs")
        if isinstance(logprobs, list) and logprobs:
            out.append(ev.passthrough("ollama", {"logprobs": list(logprobs)}))
        if line.get("done") is True:
            self._close_text(out)
            reason = line.get("done_reason")
            status = "incomplete" if cuts_short(reason) else "completed"
            out.append(ev.message_finished(MESSAGE_ID, None, reason))
            out.append(ev.run_finished(status, _usage_from_ollama(line)))
            self._ended = True
        return out

    def finish(self) -> list[dict[str, Any]]:
        # A stream cut short leaves what was open open, as in the other protocols.
        return []

    # --- internals -----------------------------------------------------------

    def _close_text(self, out: list[dict[str, Any]]) -> None:
        if self._open is not None:
            out.append(ev.block_finished(MESSAGE_ID, self._open[1]))
            self._open = None

    def _open_block(self, kind: str, out: list[dict[str, Any]], **fields: Any) -> int:
        index = self._blocks
        self._blocks += 1
        out.append(ev.block_started(MESSAGE_ID, index, kind, **fields))
        return index

    def _text(self, kind: str, piece: str, out: list[dict[str, Any]]) -> None:
        if self._open is None or self._open[0] != kind:
            self._close_text(out)
            self._open = (kind, self._open_block(kind, out))
        out.append(ev.block_delta(MESSAGE_ID, self._open[1], piece))

    def _tool_call(self, call: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._close_text(out)
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = f"call_{self._calls}"
        self._calls += 1
        index = self._open_block(
            "tool_call", out, call_id=call_id, name=function.get("name"), tool="function"
        )
        arguments = function.get("arguments")
        if arguments is None:
            text = ""
        elif isinstance(arguments, str):
            text = arguments
        else:
            text = _json.dumps(arguments)
        if text:
            out.append(ev.block_delta(MESSAGE_ID, index, text))
        out.append(ev.block_finished(MESSAGE_ID, index))


class _ToolCall:
    __slots__ = ("arguments", "clean", "id", "name")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments = JsonPrefix(require_object=True)
        self.clean: list[str] = []  # the arguments' text up to its last clean point


#: What the ``max_held_bytes`` option defaults to: 64 MiB.
DEFAULT_MAX_HELD_BYTES = 64 << 20


def _held_size(event: dict[str, Any]) -> int:
    """An event's size as held back: each value 1, and each string (key or
    value) its UTF-8 bytes besides (``events.rs``'s ``held_size`` alike)."""

    def size(value: Any) -> int:
        if isinstance(value, str):
            return 1 + utf8_size(value)
        if isinstance(value, dict):
            return 1 + sum(utf8_size(key) + size(item) for key, item in value.items())
        if isinstance(value, (list, tuple)):
            return 1 + sum(size(item) for item in value)
        return 1

    return size(event)


class Encoder(ev.RecordsLosses):
    """Neutral events to Ollama lines."""

    protocol = "ollama"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(
        self,
        model: str | None = None,
        created_at: str | None = None,
        endpoint: str | None = None,
        max_held_bytes: int | None = None,
        message_separator: str | None = None,
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._model = model
        self._created = created_at
        self._generate = endpoint == "generate"
        self._started = False
        self._finished = False
        self._others: set[str] = set()  # messages of another role than the assistant's
        # (message, block) -> "text", "reasoning" or the tool call being written.
        self._blocks: dict[tuple[str, int], str | _ToolCall] = {}
        # Where the message's text runs on from another's (and what goes
        # between them, if anything).
        self._joined = JoinedText(message_separator)
        self._calls = 0  # tool calls written so far (function.index)
        self._reason: str | None = None
        # An answer is one message: the messages being written (id -> place:
        # namespace and node), and the events of those held back, another
        # place's (a subgraph's or a node's beside another's), until the ones
        # being written finish.
        self._writing: dict[str, ev.Place] = {}
        self._held: list[tuple[dict[str, Any], int]] = []  # each with its size (_held_size)
        self._held_ids: set[str] = set()
        self._held_bytes = 0
        # How much may be held back: a message that would take more is left
        # out, its loss reported, so that memory stays bounded whatever the
        # source sends beside a message that never ends.
        self._max_held_bytes = DEFAULT_MAX_HELD_BYTES if max_held_bytes is None else max(0, max_held_bytes)
        self._left_out: set[str] = set()  # the messages left out for that

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._take(event, out, hold=True)
        return out

    def _take(self, event: dict[str, Any], out: list[dict[str, Any]], hold: bool) -> None:
        if self._finished:
            return
        kind = ev.as_str(event.get("type"))
        if kind in ("run_finished", "run_failed"):
            self._release(out, hold=False)  # what was held is written before the end
        elif hold and self._held_back(kind, event):
            return
        self._write(kind, event, out)
        message_id = event.get("message_id")
        if kind == "message_finished" and isinstance(message_id, str) and message_id in self._writing:
            del self._writing[message_id]
            if not self._writing:
                self._release(out, hold=True)

    def _held_back(self, kind: str | None, event: dict[str, Any]) -> bool:
        """Whether the event waits: one of a message held back, or the start
        of one of another place (namespace and node) than those being written."""
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return False
        if message_id not in self._held_ids and kind == "message_started":
            place = ev.message_place(event)
            if all(writing == place for writing in self._writing.values()):
                self._writing[message_id] = place
                return False
            self._held_ids.add(message_id)
        if message_id in self._left_out:
            return True
        if message_id not in self._held_ids:
            return False
        size = _held_size(event)
        if self._held_bytes + size > self._max_held_bytes:
            self._leave_out(message_id)
            return True
        self._held_bytes += size
        self._held.append((event, size))
        return True

    def _leave_out(self, message_id: str) -> None:
        """Leaves out a message held back that would take more than
        ``max_held_bytes``: what is held of it, and what comes of it after."""
        self._held = [(event, size) for event, size in self._held if event.get("message_id") != message_id]
        self._held_bytes = sum(size for _, size in self._held)
        self._held_ids.discard(message_id)
        self._left_out.add(message_id)
        self._lost.append(
            (
                "message",
                "ollama writes one message at a time: a message streaming beside another "
                f"would be held back past max_held_bytes ({self._max_held_bytes}), and is left out",
            )
        )

    def _release(self, out: list[dict[str, Any]], hold: bool) -> None:
        held, self._held, self._held_ids, self._held_bytes = self._held, [], set(), 0
        for event, _ in held:
            self._take(event, out, hold)

    def _write(self, kind: str | None, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if kind == "run_started" and not self._started:
            self._model = self._model or ev.as_str(event.get("model"))
            if self._created is None:
                created = event.get("created_at")
                seconds = ev.as_int(created)
                if isinstance(created, str):
                    self._created = created
                elif seconds is not None:
                    self._created = rfc3339(seconds)
        if not self._started:
            self._started = True
            if self._created is None:
                self._created = rfc3339(int(time.time()))
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self._finished:
            self._release(out, hold=False)
            self._flush_calls(out)
        return out

    # --- internals -----------------------------------------------------------

    def _line(self, body: dict[str, Any], done: bool = False) -> dict[str, Any]:
        """A line: the model and time, then what ``body`` holds, in the
        answer's place (``message``, or the answer itself for ``/api/generate``)."""
        line: dict[str, Any] = {"model": self._model or "", "created_at": self._created or ""}
        text_key = "response" if self._generate else "content"
        fields: dict[str, Any] = {} if self._generate else {"role": "assistant"}
        fields[text_key] = ""
        for key, value in body.items():
            fields[text_key if key == "text" else key] = value
        if self._generate:
            line.update(fields)
        else:
            line["message"] = fields
        line["done"] = done
        return line

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if isinstance(message_id, str) and event.get("role") in ("user", "system", "developer", "tool"):
            self._others.add(message_id)

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # A message has no counts of its own: only the answer.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        reason = event.get("stop_reason")
        if isinstance(reason, str) and reason:
            self._reason, lost = STOP_WORDS.translate(self.protocol, reason)
            self._lost.extend(lost)

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index = event.get("message_id"), ev.as_int(event.get("index"))
        if not isinstance(message_id, str) or index is None:
            return
        kind = event.get("kind")
        kind_name = kind if isinstance(kind, str) else ""
        if message_id in self._others:
            self._lost.append(ev.other_role_loss(self.protocol, kind_name))
            return
        streamed: str | _ToolCall
        if kind == "text":
            streamed = "text"
        elif kind == "refusal":
            self._lost.append(ev.refusal_loss(self.protocol))
            streamed = "text"
        elif kind == "reasoning":
            streamed = "reasoning"
        elif kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            streamed = _ToolCall(ev.as_str(event.get("call_id")) or "", ev.as_str(event.get("name")) or "")
        else:
            self._lost.append(ev.block_loss(self.protocol, kind_name))
            return
        if isinstance(streamed, str):
            self._joined.started(message_id, index)
        self._blocks[(message_id, index)] = streamed

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key)  # type: ignore[arg-type]
        delta = event.get("delta")
        if found is None or key is None or not isinstance(delta, str) or not delta:
            return
        if isinstance(found, _ToolCall):
            found.clean.append(found.arguments.feed(delta))
            return
        # (one message is written at a time: its place is the run's)
        delta, lost = self._joined.writes(self.protocol, 0, found, key, delta)
        self._lost.extend(lost)
        out.append(self._line({"text" if found == "text" else "thinking": delta}))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.pop(key, None)  # type: ignore[arg-type]
        if key is not None:
            self._joined.finished(*key)
        if isinstance(found, _ToolCall):
            self._write_call(found, out)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if found is None:
            return
        if isinstance(found, str) and isinstance(event.get("text"), str):
            self._lost.append(ev.correction_loss(self.protocol, found))
        if ev.has_signature(event):
            self._lost.append(ev.signature_loss(self.protocol))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))

    def _write_call(self, call: _ToolCall, out: list[dict[str, Any]]) -> None:
        """Writes a tool call whole, its arguments an object."""
        if not call.arguments.is_whole():
            self._lost.append(ev.broken_arguments_loss(self.protocol))
        text = "".join(call.clean) + call.arguments.finish()
        try:
            arguments = loads(text)
        except JSONValueError:
            arguments = None
        function = {
            "index": self._calls,
            "name": call.name,
            "arguments": arguments if isinstance(arguments, dict) else {},
        }
        self._calls += 1
        entry: dict[str, Any] = {"id": call.id} if call.id else {}
        entry["function"] = function
        out.append(self._line({"tool_calls": [entry]}))

    def _flush_calls(self, out: list[dict[str, Any]]) -> None:
        """Writes the tool calls whose blocks never finished, as far as they came."""
        blocks, self._blocks = self._blocks, {}
        for streamed in blocks.values():
            if isinstance(streamed, _ToolCall):
                self._write_call(streamed, out)

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._flush_calls(out)
        status = event.get("status")
        reason, self._reason = self._reason, None
        # The run's reason stands for a message that gave none.
        said, lost = STOP_WORDS.translate(self.protocol, event.get("stop_reason"))
        self._lost.extend(lost)
        if reason is None:
            reason = said
        if status == "incomplete":
            reason = "length"
        elif reason is None:
            reason = "stop"
        carried = "incomplete" if cuts_short(reason) else "completed"
        self._lost.extend(ev.status_loss(self.protocol, status, carried))
        line = self._line({}, done=True)
        line["done_reason"] = reason
        usage = event.get("usage")
        if isinstance(usage, dict):
            for neutral, key in USAGE_KEYS:
                if ev.as_int(usage.get(neutral)) is not None:
                    line[key] = usage[neutral]
        out.append(line)
        self._finished = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # An error line has no counts.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        # An error line has only its text.
        self._lost.extend(ev.error_code_loss(self.protocol, event.get("code"), None))
        out.append({"error": ev.as_str(event.get("message")) or ""})
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") != "ollama" or not isinstance(inner, dict):
            return
        if set(inner) == {"logprobs"}:
            # On a line of their own, after done, where the server puts them.
            line = self._line({})
            line["logprobs"] = inner["logprobs"]
            out.append(line)
        else:
            out.append(dict(inner))


_ENCODERS = {
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_finished": Encoder._block_finished,
    "block_replaced": Encoder._block_replaced,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "passthrough": Encoder._passthrough,
}
