"""Bedrock's ConverseStream to and from the neutral vocabulary: the
pure-Python mirror of ``rust/bedrock/events.rs``.

Decoding: ``messageStart`` starts the run and its one message;
``contentBlockStart`` a tool call's block (its ``toolUseId`` and name); a
delta's text, reasoning text or tool input streams into the block of its
index, started where the stream does not start it (text and reasoning have
no start); a reasoning signature is the block's ``encrypted``
(``encrypted_by: bedrock``), and redacted reasoning (``redactedContent``)
the block's ``encrypted`` with ``redacted``; ``contentBlockStop`` finishes
the block; ``messageStop`` finishes the message (its ``stopReason``,
``max_tokens`` or a filter's making the run incomplete); ``metadata`` finishes the run
with its usage. An exception or an error message fails the run. What has no
neutral place (citations, metrics, trace) passes through.

Encoding: the events Bedrock streams, each an event stream message (headers
``:event-type``, ``:content-type``, ``:message-type``; the event's JSON as
its payload): ``messageStart``, a tool call's ``contentBlockStart``, each
delta, ``contentBlockStop``, ``messageStop`` and ``metadata`` with the usage;
a failed run is an exception message. Signatures and redacted reasoning are
written only where Bedrock made them, redacted reasoning only as a block of
its own (a block holds text or redacted content).
"""

from __future__ import annotations

from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from ..error_codes import ErrorCodes
from ..eventstream import encode_event_message
from ..stop_reasons import StopWords, cuts_short, is_ordinary
from .assembler import EVENTS, EXCEPTIONS, PADDING, error_of, recognizes

__all__ = ["STOP_REASONS", "Decoder", "Encoder", "frame"]

STOP_REASONS = tables("bedrock")["STOP_REASONS"]
# Why a message stopped, in Converse's words.
STOP_WORDS = StopWords(STOP_REASONS, tables("bedrock")["STOP_REASON_WORDS"])
# The exception a failed run ends with, in Converse's words.
ERROR_CODES = ErrorCodes(EXCEPTIONS, tables("bedrock")["ERROR_CODE_WORDS"], "internalServerException")
#: Who made the signatures the decoder reads (``encrypted_by``).
BY = "bedrock"
#: The one message of a Converse stream, as the decoder names it.
MESSAGE_ID = "bedrock-message"
# Neutral usage keys from Bedrock's.
_USAGE = (
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("cached_input_tokens", "cacheReadInputTokens"),
)


def frame(event: dict[str, Any]) -> bytes:
    """One event as an event stream message: its one member's name in the
    headers (an exception's as an exception message), its value the payload."""
    out = []
    for key, value in event.items():
        payload = _json.dumps(value).encode()
        if key in EXCEPTIONS:
            headers = {
                ":exception-type": key,
                ":content-type": "application/json",
                ":message-type": "exception",
            }
        else:
            headers = {":event-type": key, ":content-type": "application/json", ":message-type": "event"}
        out.append(encode_event_message(headers, payload))
    return b"".join(out)


def _usage_from_bedrock(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    out = {neutral: usage[key] for neutral, key in _USAGE if ev.as_int(usage.get(key)) is not None}
    return out or None


class Decoder:
    """Bedrock events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "bedrock"
    framing = "eventstream"

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._message = False  # the message started and did not finish
        # contentBlockIndex -> the neutral block's index and kind, while open.
        self._open: dict[int, tuple[int, str]] = {}
        self._blocks = 0
        self._incomplete = False

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for key, value in event.items():
            if self._ended:
                out.append(ev.passthrough(self.protocol, {key: value}))
                continue
            error = error_of(key, value)
            if error is not None:
                self._finish_message(None, out)
                out.append(ev.run_failed(error[0], error[1], None))
                self._ended = True
                continue
            if key not in EVENTS or not isinstance(value, dict):
                out.append(ev.passthrough(self.protocol, {key: value}))
                continue
            self._start_run(out)
            getattr(self, "_" + key)(value, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        # A stream cut short leaves what was open open, as in the other protocols.
        return []

    # --- events --------------------------------------------------------------

    def _start_run(self, out: list[dict[str, Any]]) -> None:
        if not self._started:
            self._started = True
            out.append(ev.run_started(None, None, None, None))

    def _start_message(self, role: Any, out: list[dict[str, Any]]) -> None:
        if not self._message:
            self._message = True
            out.append(
                ev.message_started(MESSAGE_ID, role if isinstance(role, str) else "assistant", "message")
            )

    def _messageStart(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:  # noqa: N802
        self._start_message(value.get("role"), out)

    def _block(self, index: Any, kind: str, out: list[dict[str, Any]], **fields: Any) -> int | None:
        """The neutral block of a contentBlockIndex, started as ``kind`` if it is not open."""
        # Keyed by the index as read, as in the Rust core: any JSON value may
        # arrive here, and one that is no index (a list, say) opens nothing.
        key = ev.as_int(index)
        if key is None:
            return None
        self._start_message(None, out)
        held = self._open.get(key)
        if held is None:
            held = self._open[key] = (self._blocks, kind)
            self._blocks += 1
            out.append(ev.block_started(MESSAGE_ID, held[0], kind, **fields))
        return held[0]

    def _contentBlockStart(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:  # noqa: N802
        start = value.get("start")
        tool = start.get("toolUse") if isinstance(start, dict) else None
        if isinstance(tool, dict):
            self._block(
                value.get("contentBlockIndex"),
                "tool_call",
                out,
                call_id=tool.get("toolUseId"),
                name=tool.get("name"),
                tool="function",
            )
        else:
            out.append(ev.passthrough(self.protocol, {"contentBlockStart": value}))

    def _contentBlockDelta(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:  # noqa: N802
        index = value.get("contentBlockIndex")
        delta = value.get("delta")
        for kind, piece in delta.items() if isinstance(delta, dict) else ():
            if kind == "text" and isinstance(piece, str):
                block = self._block(index, "text", out)
                if block is not None and piece:
                    out.append(ev.block_delta(MESSAGE_ID, block, piece))
            elif kind == "toolUse" and isinstance(piece, dict) and isinstance(piece.get("input"), str):
                block = self._block(index, "tool_call", out, tool="function")
                if block is not None and piece["input"]:
                    out.append(ev.block_delta(MESSAGE_ID, block, piece["input"]))
            elif kind == "reasoningContent" and isinstance(piece, dict):
                self._reasoning(index, piece, out)
            else:
                kept = {"contentBlockIndex": index, "delta": {kind: piece}}
                out.append(ev.passthrough(self.protocol, {"contentBlockDelta": kept}))

    def _reasoning(self, index: Any, piece: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._block(index, "reasoning", out)
        if block is None:
            return
        for field, item in piece.items():
            if field == "text" and isinstance(item, str):
                if item:
                    out.append(ev.block_delta(MESSAGE_ID, block, item))
            elif field in ("signature", "redactedContent") and isinstance(item, str) and item:
                fields: dict[str, Any] = {"encrypted": item}
                if field == "redactedContent":
                    fields["redacted"] = True
                fields["encrypted_by"] = BY
                out.append(ev.block_replaced(MESSAGE_ID, block, fields))
            else:
                kept = {"contentBlockIndex": index, "delta": {"reasoningContent": {field: item}}}
                out.append(ev.passthrough(self.protocol, {"contentBlockDelta": kept}))

    def _contentBlockStop(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:  # noqa: N802
        key = ev.as_int(value.get("contentBlockIndex"))
        held = None if key is None else self._open.pop(key, None)
        if held is not None:
            out.append(ev.block_finished(MESSAGE_ID, held[0]))

    def _messageStop(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:  # noqa: N802
        reason = value.get("stopReason")
        self._incomplete = self._incomplete or cuts_short(reason)
        self._finish_message(reason, out)
        rest = {key: item for key, item in value.items() if key not in ("stopReason", PADDING)}
        if rest:
            out.append(ev.passthrough(self.protocol, {"messageStop": rest}))

    def _metadata(self, value: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._finish_message(None, out)
        status = "incomplete" if self._incomplete else "completed"
        rest = {key: item for key, item in value.items() if key not in ("usage", PADDING)}
        if rest:
            out.append(ev.passthrough(self.protocol, {"metadata": rest}))
        out.append(ev.run_finished(status, _usage_from_bedrock(value.get("usage"))))
        self._ended = True

    def _finish_message(self, reason: Any, out: list[dict[str, Any]]) -> None:
        if not self._message:
            return
        for block, _ in sorted(self._open.values()):
            out.append(ev.block_finished(MESSAGE_ID, block))
        self._open.clear()
        out.append(ev.message_finished(MESSAGE_ID, None, reason))
        self._message = False


class _Block:
    __slots__ = ("index", "kind", "written")

    def __init__(self, index: int, kind: str) -> None:
        self.index = index
        self.kind = kind
        # Whether the reader knows of it: Bedrock starts no text or
        # reasoning block, so one that brought nothing is not stopped either.
        self.written = kind == "tool_call"


class Encoder(ev.RecordsLosses):
    """Neutral events to Bedrock events."""

    protocol = "bedrock"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(self) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._finished = False
        self._others: set[str] = set()  # messages of another role than the assistant's
        self._started: set[str] = set()  # messages whose messageStart was written
        # (message, block) -> its contentBlockIndex and kind.
        self._blocks: dict[tuple[str, int], _Block] = {}
        self._next = 0  # the next contentBlockIndex
        self._reason: str | None = None
        # Whether the last block written is a tool use: a stream that ends on
        # one stops for it (tool_use), as a client's tool loop reads it.
        self._ends_on_tool_use = False
        # What passed through of messageStop and metadata, for the run's end.
        self._stop: dict[str, Any] = {}
        self._metadata: dict[str, Any] = {}

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        handler = _ENCODERS.get(ev.as_str(event.get("type")))  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    # --- internals -----------------------------------------------------------

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return
        if event.get("role") in ("user", "system", "developer", "tool"):
            self._others.add(message_id)
            return
        if not self._started:
            # One message a stream: the assistant's messages one after another make it.
            out.append({"messageStart": {"role": "assistant"}})
        self._started.add(message_id)

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str) or message_id in self._others:
            return
        # A message has no counts of its own: only the run.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        # The last message's reason is the stream's (a later one's stands
        # over an earlier one's); one Converse has no word for leaves it to
        # what the stream says.
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
        if kind == "refusal":
            self._lost.append(ev.refusal_loss(self.protocol))
            kind = "text"
        if kind not in ("text", "reasoning", "tool_call"):
            self._lost.append(ev.block_loss(self.protocol, kind_name))
            return
        self._ends_on_tool_use = kind == "tool_call"
        if not self._started:
            self._started.add(message_id)
            out.append({"messageStart": {"role": "assistant"}})
        block = self._blocks[(message_id, index)] = _Block(self._next, kind)
        self._next += 1
        if kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            tool = {
                "toolUseId": ev.as_str(event.get("call_id")) or "",
                "name": ev.as_str(event.get("name")) or "",
            }
            out.append({"contentBlockStart": {"start": {"toolUse": tool}, "contentBlockIndex": block.index}})

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if block is None or not isinstance(delta, str) or not delta:
            return
        if block.kind == "text":
            piece: dict[str, Any] = {"text": delta}
        elif block.kind == "reasoning":
            piece = {"reasoningContent": {"text": delta}}
        else:
            piece = {"toolUse": {"input": delta}}
        block.written = True
        out.append({"contentBlockDelta": {"delta": piece, "contentBlockIndex": block.index}})

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if block is None:
            return
        if block.kind in ("text", "reasoning") and isinstance(event.get("text"), str):
            self._lost.append(ev.correction_loss(self.protocol, block.kind))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        if not ev.has_signature(event):
            return
        redacted = event.get("redacted") is True
        if event.get("encrypted_by") != BY or block.kind != "reasoning" or (redacted and block.written):
            # Another provider's, which Bedrock would refuse; or redacted
            # reasoning in a block that holds text, where Bedrock keeps it
            # as a block of its own.
            self._lost.append(ev.signature_loss(self.protocol))
            return
        piece = {"reasoningContent": {"redactedContent" if redacted else "signature": event["encrypted"]}}
        block.written = True
        out.append({"contentBlockDelta": {"delta": piece, "contentBlockIndex": block.index}})

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.pop(ev.block_key(event), None)  # type: ignore[arg-type]
        if block is not None and block.written:
            out.append({"contentBlockStop": {"contentBlockIndex": block.index}})

    def _close_blocks(self, out: list[dict[str, Any]]) -> None:
        for block in self._blocks.values():
            if block.written:
                out.append({"contentBlockStop": {"contentBlockIndex": block.index}})
        self._blocks.clear()

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._close_blocks(out)
        status = event.get("status")
        # The run's reason stands for a message that gave none.
        said, lost = STOP_WORDS.translate(self.protocol, event.get("stop_reason"))
        self._lost.extend(lost)
        if self._reason is None:
            self._reason = said
        # An incomplete run stopped for want of tokens, unless its message
        # said why otherwise (a filter).
        reason = self._reason
        if status == "incomplete" and (reason is None or is_ordinary(reason)):
            reason = "max_tokens"
        elif reason is None:
            reason = "tool_use" if self._ends_on_tool_use else "end_turn"
        self._lost.extend(
            ev.status_loss(self.protocol, status, "incomplete" if cuts_short(reason) else "completed")
        )
        if not self._started:
            out.append({"messageStart": {"role": "assistant"}})
        out.append({"messageStop": {"stopReason": reason, **self._stop}})
        usage = event.get("usage")
        metadata: dict[str, Any] = {}
        if isinstance(usage, dict):
            counts = {
                key: usage[neutral] for neutral, key in _USAGE if ev.as_int(usage.get(neutral)) is not None
            }
            if counts:
                metadata["usage"] = counts
        metadata.update(self._metadata)
        out.append({"metadata": metadata})
        self._finished = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # An exception has no counts.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        self._close_blocks(out)
        # One of its exceptions: another protocol's code is its exception of
        # that kind (a rate limit is ``throttlingException``), or else a
        # server error.
        name, lost = ERROR_CODES.write(self.protocol, event.get("code"))
        self._lost.extend(lost)
        out.append({name: {"message": ev.as_str(event.get("message")) or ""}})
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") != self.protocol or not isinstance(inner, dict) or not recognizes(inner):
            return
        # A messageStop's or metadata's other fields go with the run's end.
        if set(inner) == {"messageStop"} and isinstance(inner["messageStop"], dict):
            self._stop.update(inner["messageStop"])
        elif set(inner) == {"metadata"} and isinstance(inner["metadata"], dict):
            self._metadata.update(inner["metadata"])
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
