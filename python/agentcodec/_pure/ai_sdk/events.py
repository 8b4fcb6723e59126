"""The Vercel AI SDK UI message stream to and from the neutral vocabulary:
the pure-Python mirror of ``rust/ai_sdk/events.rs``.

Decoding: ``start`` starts the run and its assistant message (named by
``messageId``, with the message metadata on ``run_started``; content that
follows a tool's result is the next assistant message, as the other
protocols have the model's next step); each text and
reasoning part is a block of its kind (its part id kept as ``part_id``),
each tool call a ``tool_call`` block (``tool`` server when the provider ran
it) whose input fragments are the deltas, closed by ``tool-input-available``
(whose input is the delta when none streamed). A tool's final output or
error is a ``tool_result`` block in a tool message of its own (an error
with ``is_error``). Files are media blocks; data parts, sources, reasoning
files and custom parts are data blocks whose value is the chunk, whole.
``finish`` finishes the message and the run (incomplete after ``length``),
``abort`` cancels it, an ``error`` chunk fails it. Steps, metadata updates,
approvals, preliminary outputs, transient data and input errors have no
neutral meaning and pass through.

Encoding: what ``useChat`` and ``readUIMessageStream`` read: ``start``,
one step around the content (unless the source wrote its own steps),
``text-*`` and ``reasoning-*`` parts, tools as ``tool-input-start``,
``tool-input-delta`` and, at the block's end, ``tool-input-available``
with the input parsed once (``tool-input-error`` when it is not JSON),
results as ``tool-output-available`` (or ``-error``) for a call this
stream wrote, media as ``file`` (a data URL for inline data), data blocks
as the AI SDK chunk they hold or ``data-value``, then ``finish`` (``abort``
for a cancelled run) and ``data: [DONE]``; an ``error`` chunk when the run
fails.
"""

from __future__ import annotations

from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from ..json_values import JSONValueError, loads
from ..stop_reasons import StopWords, cuts_short
from . import providers
from .assembler import recognizes

__all__ = ["DONE", "Decoder", "Encoder"]

DONE = b"data: [DONE]\n\n"
# Finish reasons, the AI SDK's and the neutral (OpenAI's) spellings.
TO_NEUTRAL_REASONS = {"tool-calls": "tool_calls", "content-filter": "content_filter"}
# Why a message stopped, in the AI SDK's words.
STOP_WORDS = StopWords(tables("ai_sdk")["FINISH_REASONS"], tables("ai_sdk")["STOP_REASON_WORDS"])
# Chunks kept whole as a data block's value, and written back as they are.
WHOLE_PARTS = ("source-url", "source-document", "custom", "reasoning-file")


def _is_whole_part(value: Any) -> bool:
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (kind.startswith("data-") or kind in WHOLE_PARTS)


class _Call:
    __slots__ = ("index", "message_id", "name", "open", "streamed", "tool")

    def __init__(self, message_id: str, index: int, name: str, tool: str) -> None:
        self.message_id = message_id
        self.index = index
        self.name = name
        self.tool = tool
        self.open = True
        self.streamed = False  # an input fragment came


class Decoder:
    """AI SDK UI message chunks to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "ai-sdk"

    def __init__(self) -> None:
        self._run_id: str | None = None  # the run started
        self._ended = False
        self._message_id: str | None = None  # the assistant message being written
        self._messages = 0  # assistant messages started
        self._unfinished: list[str] = []  # assistant messages not finished, in order
        self._after_result = False  # a tool result came since the message started
        self._next = 0  # the next block index
        self._texts: dict[str, tuple[str, int]] = {}  # part id -> its block
        self._reasonings: dict[str, tuple[str, int]] = {}
        # The signature last given for each block: a provider may repeat it
        # (OpenAI's at the part's start and end, Google's on every delta),
        # given once.
        self._signatures: dict[tuple[str, int], str] = {}
        # A text part's signature its start brought, given after the text
        # that follows it (its first delta, or its end), as the part it came
        # with holds it.
        self._held_signatures: dict[tuple[str, int], tuple[str, bool, str]] = {}
        self._calls: dict[str, _Call] = {}
        self._open_calls: dict[str, _Call] = {}  # the calls whose input is streaming
        # Message id -> its blocks still open: whether a message can finish
        # is one look, however many blocks came before.
        self._open_blocks: dict[str, int] = {}
        self._results = 0  # tool result messages

    def decode(self, chunk: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = chunk.get("type")
        if self._ended or not isinstance(kind, str):
            out.append(ev.passthrough("ai-sdk", chunk))
        elif kind == "start" and self._run_id is None:
            self._start(chunk, out)
        elif kind == "error":
            self._ensure_started(out)
            self._finish_messages(None, out)
            out.append(ev.run_failed("error", ev.as_str(chunk.get("errorText")), None))
            self._ended = True
        elif kind == "abort":
            self._ensure_started(out)
            self._finish_messages(None, out)
            out.append(ev.run_finished("cancelled"))
            self._ended = True
        elif kind == "finish":
            self._ensure_started(out)
            reason = ev.as_str(chunk.get("finishReason"))
            self._finish_messages(TO_NEUTRAL_REASONS.get(reason, reason) if reason else None, out)
            finished = ev.run_finished("incomplete" if cuts_short(reason) else "completed")
            if chunk.get("messageMetadata") is not None:
                finished["metadata"] = chunk["messageMetadata"]
            out.append(finished)
            self._ended = True
        else:
            handler = _DECODERS.get(kind)
            if handler is not None:
                handler(self, chunk, out)
            elif kind.startswith("data-") and chunk.get("transient") is not True:
                self._whole(chunk, out)
            else:
                out.append(ev.passthrough("ai-sdk", chunk))
        return out

    def done(self) -> list[dict[str, Any]]:
        """``[DONE]`` without ``finish``: the run is over all the same."""
        out: list[dict[str, Any]] = []
        if self._run_id is not None and not self._ended:
            self._finish_messages(None, out)
            out.append(ev.run_finished("completed"))
            self._ended = True
        return out

    def finish(self) -> list[dict[str, Any]]:
        # A stream cut short: what was open stays open, as in the other protocols.
        return []

    # --- internals -----------------------------------------------------------

    def _start(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        run_id = ev.as_str(chunk.get("messageId")) or "msg"
        self._run_id = run_id
        started = ev.run_started(run_id)
        if chunk.get("messageMetadata") is not None:
            started["metadata"] = chunk["messageMetadata"]
        out.append(started)
        self._assistant(out)

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if self._run_id is None:
            self._start({}, out)

    def _assistant(self, out: list[dict[str, Any]]) -> str:
        """The assistant message content goes to: after a tool result, a new
        one (the model's next step), as the other protocols have it."""
        self._ensure_started(out)
        if self._message_id is None or self._after_result:
            current = self._message_id
            if current is not None and not self._has_open(current):
                self._unfinished.remove(current)
                out.append(ev.message_finished(current))
            assert self._run_id is not None
            message_id = self._run_id if self._messages == 0 else f"{self._run_id}-{self._messages}"
            self._messages += 1
            self._message_id = message_id
            self._unfinished.append(message_id)
            self._after_result = False
            out.append(ev.message_started(message_id, "assistant", "message"))
        return self._message_id

    def _has_open(self, message_id: str) -> bool:
        return self._open_blocks.get(message_id, 0) > 0

    def _opened(self, message_id: str) -> None:
        self._open_blocks[message_id] = self._open_blocks.get(message_id, 0) + 1

    def _closed(self, message_id: str, index: int, out: list[dict[str, Any]]) -> None:
        if self._signatures or self._held_signatures:
            self._signatures.pop((message_id, index), None)
            self._held_signatures.pop((message_id, index), None)
        self._open_blocks[message_id] -= 1
        out.append(ev.block_finished(message_id, index))

    def _open(self, kind: str, out: list[dict[str, Any]], **fields: Any) -> tuple[str, int]:
        message_id = self._assistant(out)
        index = self._next
        self._next += 1
        out.append(ev.block_started(message_id, index, kind, **fields))
        return message_id, index

    def _finish_messages(self, reason: str | None, out: list[dict[str, Any]]) -> None:
        blocks = [*self._texts.values(), *self._reasonings.values()]
        blocks += [(call.message_id, call.index) for call in self._open_calls.values()]
        for message_id, index in sorted(blocks, key=lambda block: block[1]):
            out.append(ev.block_finished(message_id, index))
        self._texts.clear()
        self._reasonings.clear()
        self._signatures.clear()
        self._held_signatures.clear()
        for call in self._open_calls.values():
            call.open = False
        self._open_calls.clear()
        self._open_blocks.clear()
        for message_id in self._unfinished:
            out.append(
                ev.message_finished(message_id, None, reason if message_id == self._message_id else None)
            )
        self._unfinished = []

    def _part_start(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        part_id = ev.as_str(chunk.get("id"))
        if part_id is None:
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        kind = "text" if chunk["type"] == "text-start" else "reasoning"
        active = self._texts if kind == "text" else self._reasonings
        old = active.pop(part_id, None)
        if old is not None:
            self._closed(*old, out)
        block = self._open(kind, out)
        out[-1]["part_id"] = part_id
        self._opened(block[0])
        if kind == "reasoning":
            self._signature(block, chunk, kind, out)
        else:
            found = providers.signature(chunk.get("providerMetadata"), kind)
            if found is not None:
                self._held_signatures[block] = found
        active[part_id] = block

    def _signature(
        self, block: tuple[str, int], chunk: dict[str, Any], kind: str, out: list[dict[str, Any]]
    ) -> None:
        """The signature a part's ``providerMetadata`` carries for a block of
        ``kind`` (or, for a text part, the one its start brought), as a
        ``block_replaced``, unless it was given already."""
        held = self._held_signatures.pop(block, None)
        found = providers.signature(chunk.get("providerMetadata"), kind) or held
        if found is None or self._signatures.get(block) == found[0]:
            return
        encrypted, redacted, by = found
        fields: dict[str, Any] = {"encrypted": encrypted}
        if redacted:
            fields["redacted"] = True
        fields["encrypted_by"] = by
        out.append(ev.block_replaced(*block, fields))
        self._signatures[block] = encrypted

    def _part_delta(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        active = self._texts if chunk["type"] == "text-delta" else self._reasonings
        block = active.get(ev.as_str(chunk.get("id")) or "")
        delta = chunk.get("delta")
        if block is None or not isinstance(delta, str):
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        if delta:
            out.append(ev.block_delta(*block, delta))
        self._signature(block, chunk, "text" if chunk["type"] == "text-delta" else "reasoning", out)

    def _part_end(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        active = self._texts if chunk["type"] == "text-end" else self._reasonings
        block = active.pop(ev.as_str(chunk.get("id")) or "", None)
        if block is None:
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        self._signature(block, chunk, "text" if chunk["type"] == "text-end" else "reasoning", out)
        self._closed(*block, out)

    def _tool_start(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> _Call | None:
        call_id, name = ev.as_str(chunk.get("toolCallId")), ev.as_str(chunk.get("toolName"))
        if call_id is None or name is None or call_id in self._calls:
            return None
        tool = "server" if chunk.get("providerExecuted") is True else "function"
        message_id, index = self._open("tool_call", out, call_id=call_id, name=name, tool=tool)
        call = self._calls[call_id] = self._open_calls[call_id] = _Call(message_id, index, name, tool)
        self._opened(message_id)
        self._signature((message_id, index), chunk, "tool_call", out)
        return call

    def _tool_input_start(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if self._tool_start(chunk, out) is None:
            out.append(ev.passthrough("ai-sdk", chunk))

    def _tool_input_delta(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        call = self._calls.get(ev.as_str(chunk.get("toolCallId")) or "")
        piece = chunk.get("inputTextDelta")
        if call is None or not call.open or not isinstance(piece, str):
            out.append(ev.passthrough("ai-sdk", chunk))
        elif piece:
            call.streamed = True
            out.append(ev.block_delta(call.message_id, call.index, piece))

    def _tool_input_available(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        call_id = ev.as_str(chunk.get("toolCallId")) or ""
        call = self._calls.get(call_id)
        if call is None:
            call = self._tool_start(chunk, out)
        if call is None or not call.open:
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        if not call.streamed and "input" in chunk:
            out.append(ev.block_delta(call.message_id, call.index, _json.dumps(chunk["input"])))
        call.open = False
        del self._open_calls[call_id]
        # (the part's ``callProviderMetadata``, as the SDK's reader keeps it)
        self._signature((call.message_id, call.index), chunk, "tool_call", out)
        self._closed(call.message_id, call.index, out)

    def _tool_output(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        call_id = ev.as_str(chunk.get("toolCallId"))
        failed = chunk["type"] == "tool-output-error"
        output = chunk.get("errorText") if failed else chunk.get("output")
        if call_id is None or chunk.get("preliminary") is True or (failed and not isinstance(output, str)):
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        self._ensure_started(out)
        call = self._calls.get(call_id)
        if call is not None and call.open:
            call.open = False
            del self._open_calls[call_id]
            self._closed(call.message_id, call.index, out)
        self._results += 1
        result_id = f"{self._run_id}-result-{self._results}"
        out.append(ev.message_started(result_id, "tool", "tool_result"))
        name, tool = (call.name, call.tool) if call is not None else (None, "function")
        started = ev.block_started(result_id, 0, "tool_result", call_id=call_id, name=name, tool=tool)
        if failed:
            started["is_error"] = True
        out.append(started)
        if isinstance(output, str):
            if output:
                out.append(ev.block_delta(result_id, 0, output))
        elif "output" in chunk:
            out.append(ev.block_replaced(result_id, 0, {"output": output}))
        out.append(ev.block_finished(result_id, 0))
        out.append(ev.message_finished(result_id))
        self._after_result = True

    def _file(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        url, mime_type = ev.as_str(chunk.get("url")), ev.as_str(chunk.get("mediaType"))
        if url is None or mime_type is None:
            out.append(ev.passthrough("ai-sdk", chunk))
            return
        block = self._open("media", out, media_type=ev.media_kind(mime_type), mime_type=mime_type, url=url)
        out.append(ev.block_finished(*block))

    def _whole(self, chunk: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._open("data", out, value=chunk)
        out.append(ev.block_finished(*block))


_DECODERS = {
    "text-start": Decoder._part_start,
    "text-delta": Decoder._part_delta,
    "text-end": Decoder._part_end,
    "reasoning-start": Decoder._part_start,
    "reasoning-delta": Decoder._part_delta,
    "reasoning-end": Decoder._part_end,
    "tool-input-start": Decoder._tool_input_start,
    "tool-input-delta": Decoder._tool_input_delta,
    "tool-input-available": Decoder._tool_input_available,
    "tool-output-available": Decoder._tool_output,
    "tool-output-error": Decoder._tool_output,
    "file": Decoder._file,
    "source-url": Decoder._whole,
    "source-document": Decoder._whole,
    "reasoning-file": Decoder._whole,
    "custom": Decoder._whole,
}


class _Block:
    """A neutral block being written: its part id or call, and what its
    deltas carried, for the chunk written when it finishes."""

    __slots__ = ("call_id", "fields", "is_error", "kind", "metadata", "output", "part_id", "pieces")

    def __init__(self, kind: str, part_id: str, fields: dict[str, Any]) -> None:
        self.kind = kind
        self.part_id = part_id
        self.fields = fields
        self.pieces: list[str] = []
        self.output: Any = None  # a tool result given whole
        self.is_error = False
        self.call_id: str | None = None
        # A tool call's signature, in its provider's metadata: written with its input.
        self.metadata: dict[str, Any] | None = None


class Encoder(ev.RecordsLosses):
    """Neutral events to AI SDK UI message chunks."""

    protocol = "ai-sdk"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(self, message_id: str | None = None) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._message_id = message_id
        self._started = False
        self._finished = False
        self._completed = False  # the run ended: [DONE] follows
        self._explicit_steps = False  # the source writes its own steps
        self._in_step = False
        self._blocks: dict[tuple[str, int], _Block] = {}
        self._calls: set[str] = set()  # tool calls written
        self._skipped: set[str] = set()  # messages with no place here
        self._reason: str | None = None
        # Whether the assistant's last block is a tool call: a run that ends
        # on one finished its step for its tool calls (tool-calls).
        self._ends_on_tool_call = False

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if self._finished:
            return out
        if kind == "run_started":
            self._ensure_started(out, ev.as_str(event.get("run_id")), event.get("metadata"))
        elif kind == "passthrough":
            self._passthrough(event, out)
        else:
            handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
            if handler is not None:
                handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """A stream that ends without ending its run: its text and reasoning
        parts end, so that a client settles them; a tool call that was
        streaming stays so (its input may be cut short, and an available
        input makes the client run the tool); no ``finish``, since the run
        never said it was over."""
        out: list[dict[str, Any]] = []
        if self._started and not self._finished:
            self._close_all(out, cut=True)
        return out

    def trailer(self) -> bytes:
        """``data: [DONE]`` after a run that ended, once."""
        if not self._completed:
            return b""
        self._completed = False
        return DONE

    # --- internals -----------------------------------------------------------

    def _ensure_started(
        self, out: list[dict[str, Any]], run_id: str | None = None, metadata: Any = None
    ) -> None:
        if self._started:
            return
        self._started = True
        self._message_id = self._message_id or run_id
        start: dict[str, Any] = {"type": "start"}
        if self._message_id:
            start["messageId"] = self._message_id
        if metadata is not None:
            start["messageMetadata"] = metadata
        out.append(start)

    def _ensure_step(self, out: list[dict[str, Any]]) -> None:
        self._ensure_started(out)
        if not self._explicit_steps and not self._in_step:
            self._in_step = True
            out.append({"type": "start-step"})

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        chunk = event.get("event")
        if event.get("protocol") != "ai-sdk" or not isinstance(chunk, dict):
            return
        kind = chunk.get("type")
        if kind in ("start-step", "finish-step", "reset-step") and not self._in_step:
            self._explicit_steps = True
        if kind == "start-step":
            self._in_step = True
        elif kind == "finish-step":
            self._in_step = False
        if kind != "start":
            self._ensure_started(out)
        out.append(dict(chunk))

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = ev.as_str(event.get("message_id"))
        if message_id is not None and event.get("role") in ("user", "system", "developer"):
            self._skipped.add(message_id)

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # The UI stream has no usage.
        self._lost.extend(ev.usage_loss("ai-sdk", event))
        reason = event.get("stop_reason")
        if isinstance(reason, str) and reason and ev.as_str(event.get("message_id")) not in self._skipped:
            # One it has no word for is ``other``, as the SDK says it.
            word, lost = STOP_WORDS.translate("ai-sdk", reason)
            self._lost.extend(lost)
            self._reason = word or "other"

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        kind = event.get("kind")
        if key is None or key in self._blocks or key[0] in self._skipped or not isinstance(kind, str):
            return
        part_id = ev.as_str(event.get("part_id")) or f"{key[0]}-{key[1]}"
        fields = {name: event.get(name) for name in ev.BLOCK_FIELDS.get(kind, ())}
        block = _Block(kind, part_id, fields)
        if kind in ("text", "refusal", "reasoning"):
            self._ends_on_tool_call = False
            if kind == "refusal":
                self._lost.append(ev.refusal_loss(self.protocol))
            self._ensure_step(out)
            chunk_type = "reasoning-start" if kind == "reasoning" else "text-start"
            out.append({"type": chunk_type, "id": part_id})
        elif kind == "tool_call":
            self._ends_on_tool_call = True
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event, ("server",)))
            self._ensure_step(out)
            block.call_id = ev.as_str(fields["call_id"]) or part_id
            start: dict[str, Any] = {
                "type": "tool-input-start",
                "toolCallId": block.call_id,
                "toolName": ev.as_str(fields["name"]) or "tool",
            }
            if fields["tool"] == "server":
                start["providerExecuted"] = True
            out.append(start)
            self._calls.add(block.call_id)
        elif kind == "tool_result":
            block.call_id = ev.as_str(fields["call_id"])
            block.is_error = event.get("is_error") is True
        elif kind == "data":
            self._ensure_step(out)
            value = fields["value"]
            whole = dict(value) if isinstance(value, dict) and _is_whole_part(value) else None
            out.append(whole if whole is not None else {"type": "data-value", "data": value})
            return
        elif kind != "media":
            return
        self._blocks[key] = block

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if block is None or not isinstance(delta, str) or not delta:
            return
        if block.kind in ("text", "refusal", "reasoning"):
            chunk_type = "reasoning-delta" if block.kind == "reasoning" else "text-delta"
            out.append({"type": chunk_type, "id": block.part_id, "delta": delta})
            return
        if block.kind == "tool_call":
            out.append({"type": "tool-input-delta", "toolCallId": block.call_id, "inputTextDelta": delta})
        block.pieces.append(delta)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        block = self._blocks.get(key)  # type: ignore[arg-type]
        if key is None or block is None:
            return
        if ev.has_signature(event):
            # A signature belongs in its provider's metadata, on the kinds
            # of part its package puts one: where the provider is not
            # known, or has no place for it on this kind, it has none.
            by = event.get("encrypted_by")
            metadata = (
                providers.metadata(by, block.kind, event["encrypted"], event.get("redacted") is True, key[0])
                if isinstance(by, str)
                else None
            )
            if metadata is None:
                self._lost.append(ev.signature_loss(self.protocol))
            elif block.kind == "tool_call":
                block.metadata = metadata
            else:
                # (an empty delta carrying it, as the packages write one)
                out.append(
                    {
                        "type": "reasoning-delta" if block.kind == "reasoning" else "text-delta",
                        "id": block.part_id,
                        "delta": "",
                        "providerMetadata": metadata,
                    }
                )
        if block.kind in ("text", "refusal", "reasoning") and isinstance(event.get("text"), str):
            # A text part only grows: a correction of streamed text has no place.
            self._lost.append(ev.correction_loss(self.protocol, block.kind))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        if block.kind == "tool_call" and isinstance(event.get("arguments"), str):
            block.pieces = [event["arguments"]]  # the input snapshot, written at the end
        elif block.kind == "tool_result" and "output" in event:
            block.pieces = []
            block.output = event["output"]
        elif block.kind == "media":
            for name in ("url", "mime_type"):
                if isinstance(event.get(name), str):
                    block.fields[name] = event[name]
            if isinstance(event.get("data"), str):
                block.pieces = [event["data"]]

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        block = self._blocks.pop(key, None)  # type: ignore[arg-type]
        if block is not None:
            self._end_block(block, out)

    def _end_block(self, block: _Block, out: list[dict[str, Any]]) -> None:
        text = "".join(block.pieces)
        if block.kind in ("text", "refusal", "reasoning"):
            out.append(
                {"type": "reasoning-end" if block.kind == "reasoning" else "text-end", "id": block.part_id}
            )
        elif block.kind == "tool_call":
            name = ev.as_str(block.fields["name"]) or "tool"
            written: dict[str, Any]
            try:
                value = loads(text) if text else {}
            except JSONValueError:
                written = {
                    "type": "tool-input-error",
                    "toolCallId": block.call_id,
                    "toolName": name,
                    "input": text,
                    "errorText": "the tool call's input is not valid JSON",
                }
            else:
                written = {
                    "type": "tool-input-available",
                    "toolCallId": block.call_id,
                    "toolName": name,
                    "input": value,
                }
            if block.metadata is not None:
                written["providerMetadata"] = block.metadata
            out.append(written)
        elif block.kind == "tool_result":
            if block.call_id not in self._calls:
                return  # a call this stream never wrote: the client would throw on it
            self._ensure_step(out)
            if block.is_error:
                error_text = text if block.output is None else _json.dumps(block.output)
                out.append(
                    {"type": "tool-output-error", "toolCallId": block.call_id, "errorText": error_text}
                )
            else:
                output = block.output if block.output is not None else text
                out.append({"type": "tool-output-available", "toolCallId": block.call_id, "output": output})
        else:
            url = ev.as_str(block.fields["url"])
            mime_type = ev.as_str(block.fields["mime_type"])
            if not mime_type:
                # The kind alone: a media range, which is what a frontend
                # looks at (``image/`` shows an image).
                media_type = block.fields["media_type"]
                known = media_type in ("image", "audio", "video")
                mime_type = f"{media_type}/*" if known else "application/octet-stream"
            if url is None:
                if not text:
                    return
                url = f"data:{mime_type};base64,{text}"
            self._ensure_step(out)
            out.append({"type": "file", "url": url, "mediaType": mime_type})

    def _close_all(self, out: list[dict[str, Any]], cut: bool = False) -> None:
        """Ends the open blocks; in a run cut short or failed, only text and
        reasoning (see ``finish``)."""
        blocks, self._blocks = self._blocks, {}
        for block in blocks.values():
            if not cut or block.kind in ("text", "refusal", "reasoning"):
                self._end_block(block, out)
        if self._in_step and not self._explicit_steps:
            self._in_step = False
            out.append({"type": "finish-step"})

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._ensure_started(out)
        self._close_all(out)
        self._finished = self._completed = True
        # The UI stream has no usage.
        self._lost.extend(ev.usage_loss("ai-sdk", event))
        if event.get("status") == "cancelled":
            out.append({"type": "abort"})
            return
        # The run's reason stands for a message that gave none.
        said, lost = STOP_WORDS.translate("ai-sdk", event.get("stop_reason"))
        self._lost.extend(lost)
        if self._reason is None:
            self._reason = said
        if self._reason is not None:
            finish_reason = self._reason
        elif event.get("status") == "incomplete":
            finish_reason = "length"
        else:
            finish_reason = "tool-calls" if self._ends_on_tool_call else "stop"
        # The finish reason reads back as incomplete (cut short) or
        # completed: an interrupted run has no word.
        carried = "incomplete" if cuts_short(finish_reason) else "completed"
        self._lost.extend(ev.status_loss("ai-sdk", event.get("status"), carried))
        finish: dict[str, Any] = {"type": "finish", "finishReason": finish_reason}
        if event.get("metadata") is not None:
            finish["messageMetadata"] = event["metadata"]
        out.append(finish)

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._lost.extend(ev.usage_loss("ai-sdk", event))
        self._ensure_started(out)
        self._close_all(out, cut=True)
        # An error chunk has only its text: its reader's code is its type.
        self._lost.extend(ev.error_code_loss("ai-sdk", event.get("code"), "error"))
        out.append({"type": "error", "errorText": ev.as_str(event.get("message")) or "the run failed"})
        self._finished = self._completed = True


_ENCODERS = {
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_replaced": Encoder._block_replaced,
    "block_finished": Encoder._block_finished,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
}
