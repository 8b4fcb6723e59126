"""AG-UI to and from the neutral vocabulary: the pure-Python mirror of
``rust/agui/events.rs``.

Decoding: a text or reasoning message is a message with one block; a tool
call is a block of its parent message (or of a message named after the call,
as the client creates one); a tool result is a ``tool`` message; state
snapshots and patches keep their meaning; the *_CHUNK shorthands are
expanded as the client expands them; everything else passes through.

Encoding: what the AG-UI client needs, in the form ag-ui-protocol's models
serialise: RUN_STARTED first, text, reasoning and tool calls opened on their
first block and closed before the run ends, reasoning as REASONING_* (never
as text), tool arguments streamed, results after their call.
"""

from __future__ import annotations

import json
from typing import Any

from ... import _json
from ..._errors import PartialJSONError
from ..._vocabulary import tables
from .. import events as ev
from ..partial_json import PartialJSON

__all__ = ["Decoder", "Encoder"]

_VOCABULARY = tables("agui")

# The content parts a tool result may carry (AG-UI 1.0's InputContent).
CONTENT_PART_TYPES = ("text", "image", "audio", "video", "document")

# AG-UI usage keys, by the neutral (snake_case) name, in the model's order.
USAGE_KEYS = (
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("reasoning_tokens", "reasoningTokens"),
    ("cached_input_tokens", "cachedInputTokens"),
)
TEXT_ROLES = frozenset({"developer", "system", "assistant", "user"})
CHUNK_MODES = {
    "TEXT_MESSAGE_CHUNK": "text",
    "TOOL_CALL_CHUNK": "tool",
    "REASONING_MESSAGE_CHUNK": "reasoning",
}
# Events that leave a chunk-opened message or tool call open.
CHUNK_PASS_THROUGH = frozenset(_VOCABULARY["CHUNK_PASS_THROUGH"])
# Every event type AG-UI 1.0 and its legacy THINKING_* define: the client
# drops others, leaving what chunks opened open.
KNOWN = frozenset(_VOCABULARY["KNOWN"])


def _field(event: dict[str, Any], camel: str, snake: str) -> Any:
    value = event.get(camel)
    return event.get(snake) if value is None else value


def usage_from_agui(usage: Any) -> dict[str, Any] | None:
    """AG-UI's list of token counts as one neutral usage: counts summed."""
    if not isinstance(usage, list):
        return None
    total: dict[str, Any] = {}
    for entry in usage:
        if not isinstance(entry, dict):
            continue
        for neutral, wire in USAGE_KEYS:
            count = entry.get(wire)
            if ev.as_int(count) is not None:
                total[neutral] = total.get(neutral, 0) + count
    return total or None


def usage_to_agui(usage: Any) -> list[dict[str, Any]] | None:
    if not isinstance(usage, dict):
        return None
    entry = {
        wire: usage[neutral] for neutral, wire in USAGE_KEYS if ev.as_int(usage.get(neutral)) is not None
    }
    return [entry] if entry else None


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of the protocol's: its ``type`` is an AG-UI
    event type (``agui::recognizes``)."""
    kind = event.get("type")
    return isinstance(kind, str) and kind in KNOWN


class _Message:
    __slots__ = ("blocks", "open", "synthetic")

    def __init__(self, synthetic: bool) -> None:
        self.blocks = 0  # the next block's index
        self.open: set[int] = set()
        # Created for a tool call without a parent: finished with its last block.
        self.synthetic = synthetic


class _Call:
    __slots__ = ("arguments", "index", "name", "owner", "parser")

    def __init__(self, owner: str, index: int, name: Any) -> None:
        self.owner = owner  # the message its block is in
        self.index = index
        self.name = name
        # Its arguments until TOOL_CALL_END; then, if they are not whole, the
        # parser that reads what follows (see Decoder._deferred).
        self.arguments: list[str] = []
        self.parser: PartialJSON | None = None


def _complete(text: str) -> PartialJSON | None:
    """None where a call's arguments can take no more (none at all, whole,
    or not JSON); otherwise the parser that has read them, to read what
    follows: ``DecodedCall::complete`` in the Rust core."""
    if not text:
        return None
    try:
        json.loads(text)
        return None
    except ValueError:
        pass
    parser = PartialJSON()
    try:
        parser.feed(text)
    except PartialJSONError:
        return None
    return None if parser._complete_at_end() else parser


class Decoder:
    """AG-UI events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "agui"

    def __init__(self) -> None:
        self._messages: dict[str, _Message] = {}
        # AG-UI message id -> its open text or reasoning block's index.
        self._text: dict[str, int] = {}
        self._reasoning: dict[str, int] = {}
        self._calls: dict[str, _Call] = {}
        # The calls whose TOOL_CALL_END came before their arguments were
        # whole, in that order: producers that interleave parallel calls
        # (pydantic-ai) send arguments after the end, which the AG-UI client
        # appends. Each finishes when its arguments are whole, or when the
        # run ends.
        self._deferred: list[str] = []
        self._chunk: tuple[str, str] | None = None
        self._thinking_id: str | None = None
        self._events = 0

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        self._events += 1
        kind = event.get("type")
        kind = kind if isinstance(kind, str) else ""
        out: list[dict[str, Any]] = []
        mode = CHUNK_MODES.get(kind)
        if mode is not None:
            self._expand_chunk(mode, event, out)
            return out
        if kind in KNOWN and kind not in CHUNK_PASS_THROUGH and self._chunk is not None:
            self._close_chunk(out)  # what a chunk opened ends before any other known event
        handler = _HANDLERS.get(kind)
        if handler is None:
            out.append(ev.passthrough("agui", event))
        else:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._finish_deferred(out)
        return out

    # --- messages and blocks ------------------------------------------------------

    def _open_message(self, message_id: str, role: str, kind: str, out: list[dict[str, Any]]) -> _Message:
        message = self._messages.get(message_id)
        if message is None:
            message = self._messages[message_id] = _Message(synthetic=kind == "tool_call")
            out.append(ev.message_started(message_id, role, kind))
        return message

    def _open_block(
        self, message_id: str, message: _Message, kind: str, out: list[dict[str, Any]], **fields: Any
    ) -> int:
        index = message.blocks
        message.blocks += 1
        message.open.add(index)
        out.append(ev.block_started(message_id, index, kind, **fields))
        return index

    def _close_block(
        self, message_id: str, index: int, out: list[dict[str, Any]], finish_message: bool
    ) -> None:
        message = self._messages[message_id]
        if index in message.open:
            message.open.discard(index)
            out.append(ev.block_finished(message_id, index))
            if finish_message and not message.open:
                out.append(ev.message_finished(message_id))

    def _open_text(
        self, message_id: str, role: str | None, reasoning: bool, out: list[dict[str, Any]]
    ) -> None:
        blocks = self._reasoning if reasoning else self._text
        if message_id in blocks:
            return  # already open: the client ignores a second start
        if reasoning:
            message = self._open_message(message_id, "assistant", "reasoning", out)
        else:
            message = self._open_message(message_id, role or "assistant", "message", out)
        blocks[message_id] = self._open_block(message_id, message, "reasoning" if reasoning else "text", out)

    def _append_text(self, message_id: str, delta: str, reasoning: bool, out: list[dict[str, Any]]) -> None:
        blocks = self._reasoning if reasoning else self._text
        if message_id not in blocks:
            self._open_text(message_id, None, reasoning, out)  # content before its start begins it
        if delta:
            out.append(ev.block_delta(message_id, blocks[message_id], delta))

    def _close_text(self, message_id: str, reasoning: bool, out: list[dict[str, Any]]) -> None:
        blocks = self._reasoning if reasoning else self._text
        if message_id in blocks:
            self._close_block(message_id, blocks.pop(message_id), out, finish_message=True)

    def _open_call(self, call_id: str, name: Any, parent: str | None, out: list[dict[str, Any]]) -> None:
        found = self._calls.get(call_id)
        if found is not None:
            if found.name != name:  # a replayed start renames the call
                found.name = name
                out.append(ev.block_replaced(found.owner, found.index, {"name": name}))
            return
        owner = parent or call_id
        message = self._open_message(owner, "assistant", "tool_call", out)
        index = self._open_block(
            owner, message, "tool_call", out, call_id=call_id, name=name, tool="function"
        )
        self._calls[call_id] = _Call(owner, index, name)

    def _append_arguments(self, call_id: str, delta: str, out: list[dict[str, Any]]) -> None:
        """Appends to a call's arguments; a call whose end came early
        finishes once they are whole."""
        call = self._calls[call_id]
        if not delta:
            return
        out.append(ev.block_delta(call.owner, call.index, delta))
        if call.parser is None:
            if call.index in self._messages[call.owner].open:
                call.arguments.append(delta)
            return
        try:
            call.parser.feed(delta)
            whole = call.parser._complete_at_end()
        except PartialJSONError:
            whole = True  # no more can make it JSON
        if whole:
            call.parser = None
            self._deferred.remove(call_id)
            self._close_call(call_id, out)

    def _end_call(self, call_id: str, out: list[dict[str, Any]]) -> None:
        """TOOL_CALL_END: the call finishes, unless its arguments are not
        whole yet (more may follow: see _deferred)."""
        call = self._calls.get(call_id)
        if call is None or call.parser is not None:
            return
        text, call.arguments = "".join(call.arguments), []
        call.parser = _complete(text)
        if call.parser is None:
            self._close_call(call_id, out)
        else:
            self._deferred.append(call_id)

    def _finish_deferred(self, out: list[dict[str, Any]]) -> None:
        """The run ends: the calls still waiting for their arguments finish."""
        deferred, self._deferred = self._deferred, []
        for call_id in deferred:
            self._calls[call_id].parser = None
            self._close_call(call_id, out)

    def _close_call(self, call_id: str, out: list[dict[str, Any]]) -> None:
        call = self._calls.get(call_id)
        if call is not None:
            call.arguments = []
            message = self._messages[call.owner]
            self._close_block(call.owner, call.index, out, finish_message=message.synthetic)

    # The events that open, fill and close text, reasoning and tool calls.

    def _text_event(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        kind = event["type"]
        reasoning = kind.startswith("REASONING")
        message_id = ev.as_str(_field(event, "messageId", "message_id"))
        delta = event.get("delta")
        if message_id is None or (kind.endswith("_CONTENT") and not isinstance(delta, str)):
            out.append(ev.passthrough("agui", event))
        elif kind.endswith("_START"):
            self._open_text(message_id, ev.as_str(event.get("role")), reasoning, out)
        elif kind.endswith("_CONTENT"):
            self._append_text(message_id, delta, reasoning, out)  # type: ignore[arg-type]
        else:
            self._close_text(message_id, reasoning, out)

    def _tool_event(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        kind = event["type"]
        call_id = ev.as_str(_field(event, "toolCallId", "tool_call_id"))
        delta = event.get("delta")
        known = call_id is not None and call_id in self._calls
        if call_id is None or (kind == "TOOL_CALL_ARGS" and (not known or not isinstance(delta, str))):
            out.append(ev.passthrough("agui", event))
        elif kind == "TOOL_CALL_START":
            name = _field(event, "toolCallName", "tool_call_name")
            self._open_call(
                call_id, name, ev.as_str(_field(event, "parentMessageId", "parent_message_id")), out
            )
        elif kind == "TOOL_CALL_ARGS":
            self._append_arguments(call_id, delta, out)  # type: ignore[arg-type]
        else:
            self._end_call(call_id, out)

    def _tool_result(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = ev.as_str(_field(event, "messageId", "message_id"))
        call_id = ev.as_str(_field(event, "toolCallId", "tool_call_id"))
        content = event.get("content")
        if message_id is None or call_id is None or not isinstance(content, (str, list)):
            out.append(ev.passthrough("agui", event))
            return
        found = self._calls.get(call_id)
        name = found.name if found is not None else None
        message = self._messages.get(message_id)
        if message is None:
            message = self._messages[message_id] = _Message(synthetic=False)
            out.append(ev.message_started(message_id, "tool", "tool_result"))
        index = self._open_block(message_id, message, "tool_result", out, call_id=call_id, name=name)
        if isinstance(content, str):
            if content:
                out.append(ev.block_delta(message_id, index, content))
        else:
            out.append(ev.block_replaced(message_id, index, {"output": content}))
        self._close_block(message_id, index, out, finish_message=True)

    def _encrypted_value(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        entity = ev.as_str(_field(event, "entityId", "entity_id"))
        value = _field(event, "encryptedValue", "encrypted_value")
        target: tuple[str, int] | None = None
        if entity is not None and event.get("subtype") == "tool-call":
            found = self._calls.get(entity)
            target = (found.owner, found.index) if found is not None else None
        elif entity is not None and entity in self._messages:
            message = self._messages[entity]
            target = (entity, max(message.blocks - 1, 0))
        if target is None:
            out.append(ev.passthrough("agui", event))
            return
        out.append(ev.block_replaced(target[0], target[1], {"encrypted": value}))

    # --- the run and the state -----------------------------------------------------

    def _run_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        out.append(ev.run_started(_field(event, "runId", "run_id"), _field(event, "threadId", "thread_id")))

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._finish_deferred(out)
        outcome = event.get("outcome")
        outcome_type = ev.as_str(outcome.get("type")) if isinstance(outcome, dict) else None
        status = {"cancelled": "cancelled", "interrupt": "interrupted"}.get(outcome_type or "", "completed")
        out.append(ev.run_finished(status, usage_from_agui(event.get("usage")), event.get("result")))

    def _run_error(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._finish_deferred(out)
        out.append(
            ev.run_failed(event.get("code"), event.get("message"), usage_from_agui(event.get("usage")))
        )

    def _state_snapshot(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        out.append({"type": "state_snapshot", "snapshot": event.get("snapshot")})

    def _state_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        out.append({"type": "state_patch", "patch": event.get("delta")})

    # --- shorthands and legacy events ------------------------------------------------

    def _expand_chunk(self, mode: str, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """``transformChunks``: a chunk continues what the last one opened, or
        closes it and opens its own."""
        key = ("toolCallId", "tool_call_id") if mode == "tool" else ("messageId", "message_id")
        chunk_id = ev.as_str(_field(event, *key))
        switches = bool(chunk_id) if mode == "reasoning" else chunk_id is not None
        if self._chunk is not None and (self._chunk[0] != mode or (switches and chunk_id != self._chunk[1])):
            self._close_chunk(out)
        if self._chunk is None:
            name = _field(event, "toolCallName", "tool_call_name")
            if chunk_id is None or (mode == "tool" and name is None):
                out.append(ev.passthrough("agui", event))
                return
            if mode == "tool":
                self._open_call(
                    chunk_id, name, ev.as_str(_field(event, "parentMessageId", "parent_message_id")), out
                )
            else:
                self._open_text(chunk_id, ev.as_str(event.get("role")), mode == "reasoning", out)
            self._chunk = (mode, chunk_id)
        delta = event.get("delta")
        if isinstance(delta, str):
            if mode != "tool":
                self._append_text(self._chunk[1], delta, mode == "reasoning", out)
            else:
                self._append_arguments(self._chunk[1], delta, out)

    def _close_chunk(self, out: list[dict[str, Any]]) -> None:
        assert self._chunk is not None
        mode, chunk_id = self._chunk
        self._chunk = None
        if mode == "tool":
            self._close_call(chunk_id, out)
        else:
            self._close_text(chunk_id, mode == "reasoning", out)

    def _thinking(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """AG-UI before 1.0: THINKING_TEXT_MESSAGE_* are reasoning, with the
        id ``thinking-`` and the number of the event that opened it."""
        kind = event["type"]
        if kind == "THINKING_TEXT_MESSAGE_START":
            self._thinking_id = f"thinking-{self._events}"
            self._open_text(self._thinking_id, None, True, out)
        elif self._thinking_id is not None and kind == "THINKING_TEXT_MESSAGE_CONTENT":
            delta = event.get("delta")
            if isinstance(delta, str):
                self._append_text(self._thinking_id, delta, True, out)
        elif self._thinking_id is not None:
            self._close_text(self._thinking_id, True, out)
            self._thinking_id = None


_HANDLERS = {
    "RUN_STARTED": Decoder._run_started,
    "RUN_FINISHED": Decoder._run_finished,
    "RUN_ERROR": Decoder._run_error,
    "TEXT_MESSAGE_START": Decoder._text_event,
    "TEXT_MESSAGE_CONTENT": Decoder._text_event,
    "TEXT_MESSAGE_END": Decoder._text_event,
    "REASONING_MESSAGE_START": Decoder._text_event,
    "REASONING_MESSAGE_CONTENT": Decoder._text_event,
    "REASONING_MESSAGE_END": Decoder._text_event,
    "TOOL_CALL_START": Decoder._tool_event,
    "TOOL_CALL_ARGS": Decoder._tool_event,
    "TOOL_CALL_END": Decoder._tool_event,
    "TOOL_CALL_RESULT": Decoder._tool_result,
    "REASONING_ENCRYPTED_VALUE": Decoder._encrypted_value,
    "STATE_SNAPSHOT": Decoder._state_snapshot,
    "STATE_DELTA": Decoder._state_delta,
    "THINKING_TEXT_MESSAGE_START": Decoder._thinking,
    "THINKING_TEXT_MESSAGE_CONTENT": Decoder._thinking,
    "THINKING_TEXT_MESSAGE_END": Decoder._thinking,
}


class _Block:
    __slots__ = ("agui_id", "call_id", "kind", "parts", "text")

    def __init__(self, kind: str, agui_id: str, call_id: str = "") -> None:
        self.kind = kind
        self.agui_id = agui_id  # the AG-UI message or tool call it writes to
        self.call_id = call_id  # a tool result's call
        # A tool result's output, gathered until it finishes: its text, or
        # the content parts that replaced it.
        self.text: list[str] = []
        self.parts: Any = None


def _encrypted_value(block: _Block, encrypted: str) -> dict[str, Any]:
    """The encrypted value of a message (text, reasoning) or a tool call."""
    return {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "tool-call" if block.kind == "tool_call" else "message",
        "entityId": block.agui_id,
        "encryptedValue": encrypted,
    }


class Encoder(ev.RecordsLosses):
    """Neutral events to AG-UI events, in the form ag-ui-protocol serialises."""

    #: Another protocol's events go out as ``RAW`` events, naming it.
    keeps_foreign_events = True
    #: ``STATE_SNAPSHOT`` and ``STATE_DELTA``.
    carries_state = True
    #: ``RUN_FINISHED``'s ``result``.
    carries_run_result = True

    protocol = "agui"

    def __init__(self, thread_id: str | None = None, run_id: str | None = None) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._options = (thread_id, run_id)
        self._thread_id = thread_id
        self._run_id = run_id
        self._started = False
        self._ended = False
        self._messages: dict[str, tuple[str, str | None]] = {}  # id -> (role, kind)
        self._blocks: dict[tuple[str, int], _Block] = {}
        # The run's finished blocks that may still take an encrypted value
        # (text, reasoning, tool calls).
        self._finished: dict[tuple[str, int], _Block] = {}
        # What is open in AG-UI: text and reasoning messages, tool calls.
        self._open_text: dict[str, int] = {}
        self._open_reasoning: dict[str, int] = {}
        self._open_calls: set[str] = set()

    def has_ended_before(self, kind: str) -> bool:
        # A stream may hold more runs: only a new run follows the end.
        return self._ended and kind != "run_started"

    def writes_after_block_end(self, replaced: dict[str, Any]) -> tuple[str, ...]:
        # An encrypted value, for a text, reasoning or tool call block of the
        # run: it names its message or tool call, not the block.
        if ev.block_key(replaced) in self._finished and isinstance(replaced.get("encrypted"), str):
            return ("encrypted", "encrypted_by")
        return ()

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if kind == "run_started":
            if self._started and not self._ended:
                return out
            if self._ended:  # a new run on the same stream
                self._started = self._ended = False
                self._thread_id = self._run_id = None
                self._finished.clear()
            self._thread_id = self._thread_id or self._options[0] or ev.as_str(event.get("thread_id"))
            self._run_id = self._run_id or self._options[1] or ev.as_str(event.get("run_id"))
        elif self._ended:
            return out  # nothing may follow RUN_FINISHED or RUN_ERROR but a new run
        self._ensure_started(out)
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if not self._started:
            self._started = True
            self._thread_id = self._thread_id or "thread"
            self._run_id = self._run_id or "run"
            out.append({"type": "RUN_STARTED", "threadId": self._thread_id, "runId": self._run_id})

    def _close_all(self, out: list[dict[str, Any]]) -> None:
        for message_id in list(self._open_text):
            out.append({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        for message_id in list(self._open_reasoning):
            out.append({"type": "REASONING_MESSAGE_END", "messageId": message_id})
        for call_id in sorted(self._open_calls):
            out.append({"type": "TOOL_CALL_END", "toolCallId": call_id})
        self._open_text.clear()
        self._open_reasoning.clear()
        self._open_calls.clear()

    def _run_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        pass  # RUN_STARTED was written by _ensure_started

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._close_all(out)
        finished: dict[str, Any] = {
            "type": "RUN_FINISHED",
            "threadId": self._thread_id,
            "runId": self._run_id,
        }
        if event.get("result") is not None:
            finished["result"] = event["result"]
        carried = "cancelled" if event.get("status") == "cancelled" else "completed"
        self._lost.extend(ev.status_loss("agui", event.get("status"), carried))
        if carried == "cancelled":
            finished["outcome"] = {"type": "cancelled"}
        usage = usage_to_agui(event.get("usage"))
        if usage is not None:
            finished["usage"] = usage
        out.append(finished)
        self._ended = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._close_all(out)
        message = event.get("message")
        error: dict[str, Any] = {
            "type": "RUN_ERROR",
            "message": message if isinstance(message, str) else "run failed",
        }
        if isinstance(event.get("code"), str):
            error["code"] = event["code"]
        usage = usage_to_agui(event.get("usage"))
        if usage is not None:
            error["usage"] = usage
        out.append(error)
        self._ended = True

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if isinstance(message_id, str):
            self._messages[message_id] = (
                ev.as_str(event.get("role")) or "assistant",
                ev.as_str(event.get("kind")),
            )

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index, kind = event.get("message_id"), ev.as_int(event.get("index")), event.get("kind")
        if not isinstance(message_id, str) or index is None:
            return
        role, message_kind = self._messages.get(message_id, ("assistant", None))
        if kind in ("text", "refusal"):
            if kind == "refusal":
                self._lost.append(ev.refusal_loss(self.protocol))
            block = _Block("text", message_id)
            if message_id not in self._open_text:
                out.append(
                    {
                        "type": "TEXT_MESSAGE_START",
                        "messageId": message_id,
                        "role": role if role in TEXT_ROLES else "assistant",
                    }
                )
                self._open_text[message_id] = 0
            self._open_text[message_id] += 1
        elif kind == "reasoning":
            agui_id = message_id if message_kind == "reasoning" else f"{message_id}-reasoning"
            block = _Block("reasoning", agui_id)
            if agui_id not in self._open_reasoning:
                out.append({"type": "REASONING_MESSAGE_START", "messageId": agui_id, "role": "reasoning"})
                self._open_reasoning[agui_id] = 0
            self._open_reasoning[agui_id] += 1
        elif kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            call_id = ev.as_str(event.get("call_id")) or f"{message_id}-{index}"
            block = _Block("tool_call", call_id)
            name = event.get("name")
            start: dict[str, Any] = {
                "type": "TOOL_CALL_START",
                "toolCallId": call_id,
                "toolCallName": name if isinstance(name, str) else "",
            }
            if message_id != call_id:
                start["parentMessageId"] = message_id
            out.append(start)
            self._open_calls.add(call_id)
        elif kind == "tool_result":
            block = _Block("tool_result", message_id, ev.as_str(event.get("call_id")) or "")
        else:
            # Media and data have no place in AG-UI.
            self._lost.append(ev.block_loss("agui", kind if isinstance(kind, str) else ""))
            return
        self._blocks[(message_id, index)] = block

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if block is None or not isinstance(delta, str) or not delta:
            return
        if block.kind == "text":
            out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": block.agui_id, "delta": delta})
        elif block.kind == "reasoning":
            out.append({"type": "REASONING_MESSAGE_CONTENT", "messageId": block.agui_id, "delta": delta})
        elif block.kind == "tool_call":
            out.append({"type": "TOOL_CALL_ARGS", "toolCallId": block.agui_id, "delta": delta})
        elif block.parts is None:
            block.text.append(delta)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        block = self._blocks.get(key)  # type: ignore[arg-type]
        if block is None:
            # AG-UI's encrypted value names its message or tool call, so it
            # may follow their end.
            finished = self._finished.get(key)  # type: ignore[arg-type]
            if finished is not None and isinstance(event.get("encrypted"), str):
                out.append(_encrypted_value(finished, event["encrypted"]))
            return
        if block.kind in ("text", "reasoning") and isinstance(event.get("text"), str):
            # AG-UI only appends: a correction of streamed text has no place.
            self._lost.append(ev.correction_loss(self.protocol, block.kind))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        if block.kind == "tool_result" and "output" in event:
            output = event["output"]
            if isinstance(output, list) and all(
                isinstance(part, dict) and part.get("type") in CONTENT_PART_TYPES for part in output
            ):
                block.text, block.parts = [], output  # content parts
            elif output is None:
                block.text, block.parts = [], None
            else:
                # AG-UI's content is a string or parts: any other value as its JSON.
                text = output if isinstance(output, str) else _json.dumps(output)
                # Once a block: the same value again is the same text.
                if not isinstance(output, str) and "".join(block.text) != text:
                    self._lost.append(ev.result_as_json_loss(self.protocol))
                block.text, block.parts = [text], None
        if isinstance(event.get("encrypted"), str) and block.kind != "tool_result":
            out.append(_encrypted_value(block, event["encrypted"]))
        # Text, reasoning and arguments only grow in AG-UI: a replacement that
        # is not an extension cannot be carried.

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        block = self._blocks.pop(key, None)  # type: ignore[arg-type]
        if block is None:
            return
        if block.kind != "tool_result":
            self._finished[key] = block  # type: ignore[index]
        if block.kind == "text":
            self._release(self._open_text, block.agui_id, "TEXT_MESSAGE_END", out)
        elif block.kind == "reasoning":
            self._release(self._open_reasoning, block.agui_id, "REASONING_MESSAGE_END", out)
        elif block.kind == "tool_call":
            if block.agui_id in self._open_calls:
                self._open_calls.discard(block.agui_id)
                out.append({"type": "TOOL_CALL_END", "toolCallId": block.agui_id})
        else:
            content = "".join(block.text) if block.parts is None else block.parts
            out.append(
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": block.agui_id,
                    "toolCallId": block.call_id,
                    "content": content,
                    "role": "tool",
                }
            )

    @staticmethod
    def _release(open_ids: dict[str, int], agui_id: str, end: str, out: list[dict[str, Any]]) -> None:
        if agui_id not in open_ids:
            return
        open_ids[agui_id] -= 1
        if open_ids[agui_id] == 0:
            del open_ids[agui_id]
            out.append({"type": end, "messageId": agui_id})

    def _state(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if event["type"] == "state_snapshot":
            out.append({"type": "STATE_SNAPSHOT", "snapshot": event.get("snapshot")})
        else:
            out.append({"type": "STATE_DELTA", "delta": event.get("patch")})

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # A message's usage has no place: only the run's.
        self._lost.extend(ev.usage_loss(self.protocol, event))

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") == "agui" and isinstance(inner, dict):
            out.append(inner)
        else:
            raw: dict[str, Any] = {"type": "RAW", "event": inner}
            if isinstance(event.get("protocol"), str):
                raw["source"] = event["protocol"]
            out.append(raw)


_ENCODERS = {
    "run_started": Encoder._run_started,
    "message_finished": Encoder._message_finished,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "message_started": Encoder._message_started,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_replaced": Encoder._block_replaced,
    "block_finished": Encoder._block_finished,
    "state_snapshot": Encoder._state,
    "state_patch": Encoder._state,
    "passthrough": Encoder._passthrough,
}
