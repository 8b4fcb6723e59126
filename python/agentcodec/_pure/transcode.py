"""Streams through the neutral vocabulary: decoding any protocol into it,
encoding it into any protocol, converting one into another as it streams,
and the neutral view of a stream. The pure-Python mirror of
``rust/transcode.rs``."""

from __future__ import annotations

from typing import Any

from .._errors import ConversionLossError
from . import stop_reasons
from ._args import limit_arg
from .accumulate import Pieces, append, render
from .events import (
    APPENDED_FIELD,
    BLOCK_FIELDS,
    after_end_loss,
    as_namespace,
    as_str,
    block_key,
    block_not_open_loss,
    check_type,
    list_losses,
    namespace_loss,
    passthrough_loss,
    run_result_loss,
    state_loss,
)
from .executed_calls import ExecutedCalls
from .json_patch import PatchError, apply_patch
from .json_values import JSONValueError, copy_value, loads
from .protocol import Protocol, check_option
from .registry import PROTOCOLS
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from .stream import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_STREAM_BYTES,
    Driver,
)

__all__ = ["PROTOCOLS", "Assembler", "Decoder", "Encoder", "Transcoder"]


def _trailer(encoder: Any) -> bytes:
    """What an encoder writes after its last event (Chat's ``data: [DONE]``)."""
    trailer = getattr(encoder, "trailer", None)
    return trailer() if trailer is not None else b""


def _protocol(name: Any, role: str) -> Protocol:
    if not isinstance(name, str):
        raise TypeError(f"{role} must be a protocol name (str), not {type(name).__name__}")
    protocol = PROTOCOLS.get(name)
    if protocol is None:
        raise ValueError(f"unknown {role} protocol {name!r}; known: {', '.join(PROTOCOLS)}")
    return protocol


def _encoder(name: str, options: dict[str, Any]) -> Any:
    allowed = PROTOCOLS[name].options
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) or "none"
        raise TypeError(f"the {name} encoder takes no option {unknown[0]!r} (it takes {takes})")
    for option, value in options.items():
        check_option(option, value, allowed[option])
    return _protocol(name, "target").encoder(**options)


class _Decoding(Driver):
    """A driver that decodes a source protocol's events into neutral ones and
    hands them to ``_neutral``."""

    def __init__(
        self,
        source: str,
        *,
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
    ) -> None:
        protocol = _protocol(source, "source")
        self._framing = getattr(protocol.decoder, "framing", None)
        self._event_error = protocol.event_error
        self._base_error = protocol.base_error
        super().__init__(
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
            # A decoder holds nothing the stream brings: no budget to keep
            # (the neutral assembler sets its own).
            max_stream_bytes=None,
            max_messages=None,
            max_blocks=None,
        )
        self.source = source
        self._source = protocol.decoder()

    def _recognizes(self, event: dict[str, Any]) -> bool:
        return self._source.recognizes(event)  # type: ignore[no-any-return]

    def _done_marker(self) -> None:
        # Chat's end of the run; the other protocols end by an event.
        done = getattr(self._source, "done", None)
        for neutral in done() if done is not None else ():
            self._neutral(neutral)
        self._event_done()

    def _apply_object(self, event: dict[str, Any]) -> None:
        for neutral in self._source.decode(event):
            self._neutral(neutral)
        self._event_done()

    def _event_done(self) -> None:
        """The source's event is all given (``Sink::event_done``): what
        waited for its end (a loss, with ``on_loss="error"``) is raised now."""

    def _message_count(self) -> int:
        return 0  # a converter holds no messages

    def _finish(self) -> None:
        for neutral in self._source.finish():
            self._neutral(neutral)

    def _close(self) -> None:
        if self._framing_failed:
            # After the SSE framing exceeded a limit, what was decoded
            # before it is all there is: closing hands it on.
            self._abandon()
            return
        super()._close()

    def _neutral(self, event: dict[str, Any]) -> None:
        raise NotImplementedError


class Decoder(_Decoding):
    """Decodes a protocol's stream into neutral events."""

    _name = _class_name = "events.Decoder"

    def __init__(
        self,
        source: str,
        *,
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
    ) -> None:
        super().__init__(
            source,
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
        )
        self._pending: list[dict[str, Any]] = []

    def feed(self, data: bytes | bytearray | memoryview) -> list[dict[str, Any]]:  # type: ignore[override]
        """Decodes a chunk of the raw SSE stream; returns the neutral events it completed."""
        self._feed(data, None)
        return self._take()

    def feed_event(self, event: dict[str, Any]) -> list[dict[str, Any]]:  # type: ignore[override]
        """Decodes one event that is already decoded from JSON."""
        super().feed_event(event)
        return self._take()

    def close(self) -> list[dict[str, Any]]:
        self._close()
        return self._take()

    def _neutral(self, event: dict[str, Any]) -> None:
        self._pending.append(event)

    def _take(self) -> list[dict[str, Any]]:
        events, self._pending = self._pending, []
        return [render(event) for event in events]


class _RuledLosses:
    """What a target loses by one rule for every encoder, which says what it
    carries: a message's namespace, where its messages have none; the run's
    state and result, where it has no place for them; an event with no
    neutral meaning, another protocol's where it keeps none, its own where
    it does not write it back; an event after its stream's end; what a
    replacement brings to a block that is not open, beyond what the encoder
    writes after a block's end; a stop reason, where the target has none
    (one that carries them says itself what it has no word for). All but
    the namespace and the result once for each kind of event (or reason): a
    stream may bring one with every step."""

    __slots__ = ("_dropped_kinds", "_open")

    def __init__(self) -> None:
        # The kinds of events reported already (their losses' sentences).
        self._dropped_kinds: set[str] = set()
        # The open blocks (started, not finished: a message's end does not
        # end them, as in the neutral view): as many as the stream holds
        # open at once.
        self._open: set[tuple[str, int]] = set()

    def of(self, target: str, encoder: Any, event: dict[str, Any]) -> list[tuple[str, str]]:
        """What the target loses of ``event``: what ``_one`` says, then a
        stop reason it has no place for."""
        kind = event.get("type")
        if isinstance(kind, str) and encoder.has_ended_before(kind):
            return self._after_end(target, kind, event)
        lost = self._one(target, encoder, kind, event)
        if kind in ("message_finished", "run_finished") and not encoder.carries_stop_reasons:
            lost = lost + self._once(stop_reasons.loss(target, event.get("stop_reason")))
        return lost

    def _one(self, target: str, encoder: Any, kind: Any, event: dict[str, Any]) -> list[tuple[str, str]]:
        """What the target loses of an event of ``kind``, but for its stop reason."""
        if kind == "message_started" and not encoder.carries_namespaces:
            return namespace_loss(target, event)
        if kind in ("state_snapshot", "state_patch") and not encoder.carries_state:
            return self._once(state_loss(target, kind, event))
        if kind == "run_finished" and not encoder.carries_run_result:
            return run_result_loss(target, event)
        if kind == "block_started":
            block = block_key(event)
            if block is not None:
                self._open.add(block)
            return []
        if kind == "block_finished":
            block = block_key(event)
            if block is not None:
                self._open.discard(block)
            return []
        if kind == "block_replaced" and not self._is_open(event):
            written = encoder.writes_after_block_end(event)
            fields = sorted(name for name in event if name not in _BLOCK_NAMED_BY and name not in written)
            if not fields:
                return []
            return self._once([block_not_open_loss(target, kind, fields)])
        if kind != "passthrough":
            return []
        if event.get("protocol") == target:
            if encoder.keeps_own_event(event):
                return []
        elif encoder.keeps_foreign_events:
            return []
        return self._once(passthrough_loss(target, event))

    def _after_end(self, target: str, kind: str, event: dict[str, Any]) -> list[tuple[str, str]]:
        """An event of ``kind`` the target drops for coming after its end
        (named as a passed-through event names itself); an end that only
        repeats the end loses nothing."""
        if kind in ("block_finished", "message_finished", "run_finished"):
            return []
        return self._once([after_end_loss(target, kind, event)])

    def stray_delta(self, target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
        """A ``block_delta`` given to an encoder (built by hand: decoders
        start every block they write to) for a block that is not open, which
        no encoder writes."""
        if event.get("type") != "block_delta" or not as_str(event.get("delta")) or self._is_open(event):
            return []
        return self._once([block_not_open_loss(target, "block_delta", [])])

    def _is_open(self, event: dict[str, Any]) -> bool:
        return block_key(event) in self._open

    def _once(self, lost: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The loss, the first time its kind comes."""
        if not lost or lost[0][1] in self._dropped_kinds:
            return []
        self._dropped_kinds.add(lost[0][1])
        return lost


#: The fields that name the block an event is for.
_BLOCK_NAMED_BY = ("type", "message_id", "index")


def _executed_calls(executed_tool_calls: Any) -> ExecutedCalls | None:
    """What leaves out the tool calls the agent ran, where
    ``executed_tool_calls`` is ``"omit"``; none where it is ``"write"``."""
    if not isinstance(executed_tool_calls, str):
        raise TypeError(f"executed_tool_calls must be str, not {type(executed_tool_calls).__name__}")
    if executed_tool_calls not in ("write", "omit"):
        raise ValueError(f"executed_tool_calls must be 'write' or 'omit', not {executed_tool_calls!r}")
    return ExecutedCalls() if executed_tool_calls == "omit" else None


class Encoder:
    """Encodes neutral events into a protocol's events and SSE bytes."""

    def __init__(self, target: str, *, executed_tool_calls: str = "write", **options: Any) -> None:
        protocol = _protocol(target, "target")
        self._executed = _executed_calls(executed_tool_calls)
        self.target = target
        self._encoder = _encoder(target, options)
        self._frame = protocol.frame
        self._ruled = _RuledLosses()
        self._events = 0  # the neutral events encoded so far
        self._losses: list[tuple[int, str, str]] = []

    @property
    def losses(self) -> list[dict[str, Any]]:
        """What the target could not carry so far, in order: ``event`` (the
        neutral event that brought it, counted from 1), ``what`` and ``why``;
        the first 1,000, then one ``what: "losses"`` entry saying the rest
        are not listed."""
        return [{"event": event, "what": what, "why": why} for event, what, why in self._losses]

    def _note_losses(self, lost: list[tuple[str, str]] | None = None) -> None:
        list_losses(self._losses, self._events, (lost or []) + self._encoder.take_losses())

    def encode(self, event: dict[str, Any]) -> bytes:
        """The SSE bytes of what one neutral event becomes. An event whose
        ``type`` is none of the neutral vocabulary's is a ValueError."""
        return b"".join(self._frame(item) for item in self._encode(event))

    def encode_events(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """What one neutral event becomes, as the target's events (refused
        as ``encode`` refuses it)."""
        return self._encode(event)

    def _encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            copied = copy_value(event)
        except JSONValueError as exc:
            raise TypeError(f"a neutral event must be JSON-compatible: {exc}") from None
        if not isinstance(copied, dict):
            raise TypeError(f"a neutral event is a dict, not {type(event).__name__}")
        check_type(copied)
        self._events += 1
        if self._executed is None:
            return self._encode_one(self._events, copied)
        released: list[tuple[int, dict[str, Any]]] = []
        self._executed.push(self._events, copied, released)
        return [item for number, event in released for item in self._encode_one(number, event)]

    def _encode_one(self, number: int, event: dict[str, Any]) -> list[dict[str, Any]]:
        """What the ``number``th neutral event becomes."""
        lost = self._ruled.of(self.target, self._encoder, event) or self._ruled.stray_delta(
            self.target, event
        )
        encoded = [render(item) for item in self._encoder.encode(event)]
        list_losses(self._losses, number, lost + self._encoder.take_losses())
        return encoded

    def close(self) -> bytes:
        held: list[dict[str, Any]] = []
        if self._executed is not None:
            released: list[tuple[int, dict[str, Any]]] = []
            self._executed.finish(released)
            held = [item for number, event in released for item in self._encode_one(number, event)]
        finished = held + self._encoder.finish()
        self._note_losses()
        closing = b"".join(self._frame(render(item)) for item in finished)
        return closing + _trailer(self._encoder)


class Transcoder(_Decoding):
    """Converts a stream of one protocol into another, as it streams."""

    _name = _class_name = "Transcoder"

    def __init__(
        self,
        source: str,
        target: str,
        *,
        on_error: str = "raise",
        on_loss: str = "record",
        executed_tool_calls: str = "write",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        **options: Any,
    ) -> None:
        protocol = _protocol(target, "target")
        if not isinstance(on_loss, str):
            raise TypeError(f"on_loss must be str, not {type(on_loss).__name__}")
        if on_loss not in ("record", "error"):
            raise ValueError(f"on_loss must be 'record' or 'error', not {on_loss!r}")
        self._executed = _executed_calls(executed_tool_calls)
        super().__init__(
            source,
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
        )
        self.target = target
        self._encoder = _encoder(target, options)
        self._frame = protocol.frame
        self._ruled = _RuledLosses()
        self._out: list[dict[str, Any]] = []
        # What the target could not carry: (event, what, why).
        self._losses: list[tuple[int, str, str]] = []
        self._fail_on_loss = on_loss == "error"
        self._loss_event = 0  # the source's event being converted
        # The loss to raise once the source's event is all converted.
        self._failing: tuple[int, str, str] | None = None

    def feed(self, data: bytes | bytearray | memoryview) -> bytes:  # type: ignore[override]
        """Converts a chunk of the source's SSE stream; returns the target's
        SSE bytes for the events it completed. After an error, what was
        converted before it comes with the next call."""
        self._feed(data, None)
        return self._take_bytes()

    def feed_event(self, event: dict[str, Any]) -> list[dict[str, Any]]:  # type: ignore[override]
        """Converts one source event already decoded from JSON; returns the
        target's events."""
        super().feed_event(event)
        events, self._out = self._out, []
        return [render(item) for item in events]

    def close(self) -> bytes:
        self._close()
        if self._executed is not None:
            released: list[tuple[int, dict[str, Any]]] = []
            self._executed.finish(released)
            for number, event in released:
                self._convert(number, event)
        self._out.extend(self._encoder.finish())
        # The stream is over: what the end loses is recorded, not raised.
        list_losses(self._losses, self._loss_event, self._encoder.take_losses())
        return self._take_bytes() + _trailer(self._encoder)

    @property
    def losses(self) -> list[dict[str, Any]]:
        """What the target could not carry so far, in order: ``event`` (the
        source's event that brought it), ``what`` and ``why``; the first
        1,000, then one ``what: "losses"`` entry saying the rest are not
        listed."""
        return [{"event": event, "what": what, "why": why} for event, what, why in self._losses]

    def _neutral(self, event: dict[str, Any]) -> None:
        if self._executed is None:
            self._convert(self._events, event)
            return
        released: list[tuple[int, dict[str, Any]]] = []
        self._executed.push(self._events, event, released)
        for number, held in released:
            self._convert(number, held)

    def _convert(self, number: int, event: dict[str, Any]) -> None:
        """Encodes one neutral event that came with the source's event ``number``."""
        lost = self._ruled.of(self.target, self._encoder, event)
        self._out.extend(self._encoder.encode(event))
        self._loss_event = number
        lost += self._encoder.take_losses()
        if lost:
            list_losses(self._losses, number, lost)
            if self._fail_on_loss and self._failing is None:
                self._failing = (number, *lost[0])

    def _event_done(self) -> None:
        failing, self._failing = self._failing, None
        if failing is not None:
            raise ConversionLossError(*failing)

    def _take_bytes(self) -> bytes:
        events, self._out = self._out, []
        return b"".join(self._frame(render(item)) for item in events)


# --- the neutral view --------------------------------------------------------------------


# Block fields a replacement does not touch: the view's own bookkeeping.
_FIXED = ("type", "message_id", "index", "kind", "status")


def _settle_tool_call(block: dict[str, Any]) -> None:
    """A finished tool call's ``input``: its arguments parsed (an ``error``
    where they are not JSON text) (``transcode::settle_tool_call``)."""
    if block["kind"] != "tool_call":
        return
    arguments = render(block.get("arguments"))
    if arguments is None or arguments == "":
        block["input"] = {}
    elif not isinstance(arguments, str):
        block["input"] = None
        block["error"] = "arguments are not text"
    else:
        try:
            block["input"] = loads(arguments)
        except JSONValueError:
            block["input"] = None
            block["error"] = "arguments are not valid JSON"


class Assembler(_Decoding):
    """Assembles any protocol's stream into one protocol-neutral view: the
    run's status, usage and error, its messages of blocks (tool calls'
    arguments parsed once, when they finish), the state, and what passed
    through."""

    _name = _class_name = "events.Assembler"

    def __init__(
        self,
        protocol: str,
        *,
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        max_stream_bytes: int | None = DEFAULT_MAX_STREAM_BYTES,
        max_messages: int | None = DEFAULT_MAX_MESSAGES,
        max_blocks: int | None = DEFAULT_MAX_BLOCKS,
    ) -> None:
        super().__init__(
            protocol,
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
        )
        self._budget.max = limit_arg("max_stream_bytes", max_stream_bytes)
        self._max_messages = limit_arg("max_messages", max_messages)
        self._max_blocks = limit_arg("max_blocks", max_blocks)
        self._run: dict[str, Any] = {
            "protocol": protocol,
            "run_id": None,
            "thread_id": None,
            "model": None,
            "status": "in_progress",
            "error": None,
            "usage": None,
            "result": None,
            "stop_reason": None,
        }
        self._messages: dict[str, dict[str, Any]] = {}
        self._blocks: dict[tuple[str, int], dict[str, Any]] = {}
        # Finished blocks, likewise: a replacement may follow a block's end
        # (an encrypted value that names its message may follow its end).
        self._finished: dict[tuple[str, int], dict[str, Any]] = {}
        self._state: Any = None
        self._kept: list[Any] = []

    def feed_with_events(self, data: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        """Like ``feed``, and returns the source protocol's events the data
        completed, decoded (what a client iterating the stream reads)."""
        events: list[dict[str, Any]] = []
        self._feed(data, events)
        return events

    def feed_event(self, event: dict[str, Any]) -> None:
        """Assembles one source event already decoded from JSON."""
        super().feed_event(event)

    def close(self) -> dict[str, Any]:
        self._close()
        return self._render_view()

    @property
    def result(self) -> dict[str, Any]:
        """The result so far, what ``close()`` returns once the stream ends:
        ``view``."""
        return Assembler.view.fget(self)  # type: ignore[attr-defined,no-any-return]

    @property
    def view(self) -> dict[str, Any]:
        return self._render_view()

    def _render_view(self) -> dict[str, Any]:
        view: dict[str, Any] = render(self._run)
        view["messages"] = [render(message) for message in self._messages.values()]
        view["state"] = render(self._state)
        view["events"] = render(self._kept)
        return view

    def _message_count(self) -> int:
        return len(self._messages)

    def _finish(self) -> None:
        super()._finish()
        if self._run["status"] == "in_progress":
            self._run["status"] = "incomplete"
        for message in self._messages.values():
            if message["status"] == "in_progress":
                message["status"] = "incomplete"
        for block in self._blocks.values():
            block["status"] = "incomplete"

    def _message(self, message_id: str, role: str = "assistant", kind: Any = None) -> dict[str, Any]:
        message = self._messages.get(message_id)
        if message is None:
            message = self._messages[message_id] = {
                "id": message_id,
                "role": role,
                "kind": kind,
                "namespace": None,
                "node": None,
                "status": "in_progress",
                "usage": None,
                "stop_reason": None,
                "blocks": [],
            }
        return message

    def _neutral(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "run_started":
            for key in ("run_id", "thread_id", "model"):
                if event.get(key) is not None:
                    self._run[key] = event[key]
            self._run.update(status="in_progress", error=None)
        elif kind == "run_finished":
            if self._run["status"] != "failed":  # a failed run does not complete after all
                self._run.update(
                    status=event.get("status") or "completed",
                    usage=event.get("usage"),
                    result=event.get("result"),
                    stop_reason=event.get("stop_reason"),
                )
        elif kind == "run_failed":
            code = event.get("code")
            if code is None and self._run["status"] == "failed" and self._run["error"] is not None:
                # A failure that repeats the failure without a code (a
                # lifecycle's after a message's) keeps the code.
                code = self._run["error"].get("code")
            self._run.update(status="failed", error={"code": code, "message": event.get("message")})
            if event.get("usage") is not None:
                self._run["usage"] = event["usage"]
        elif kind == "message_started":
            message = self._message(event["message_id"], event.get("role") or "assistant", event.get("kind"))
            if message["namespace"] is None:
                # Its first start's: the namespace a message is written in stays.
                message["namespace"] = as_namespace(event.get("namespace"))
            if message["node"] is None:
                message["node"] = as_str(event.get("node"))
            message["status"] = "in_progress"
        elif kind == "message_finished":
            message = self._message(event["message_id"])
            message.update(status="completed", usage=event.get("usage"), stop_reason=event.get("stop_reason"))
        elif kind == "block_started":
            message = self._message(event["message_id"])
            message["status"] = "in_progress"
            block: dict[str, Any] = {"index": event["index"], "kind": event["kind"], "status": "in_progress"}
            for name in BLOCK_FIELDS.get(event["kind"], ()):
                block[name] = event.get(name)
            field = APPENDED_FIELD.get(event["kind"])
            if field is not None:
                block[field] = Pieces()
            message["blocks"].append(block)
            self._blocks_held += 1
            self._blocks[(event["message_id"], event["index"])] = block
        elif kind in ("block_delta", "block_replaced", "block_finished"):
            at = (event["message_id"], event["index"])
            found = self._blocks.get(at)
            if found is None and kind == "block_replaced":
                found = self._finished.get(at)
            if found is None:
                return
            block = found
            if kind == "block_delta":
                field = APPENDED_FIELD.get(block["kind"])
                if field is not None:
                    append(block, field, event["delta"])  # after a replacement too
            elif kind == "block_replaced":
                for key, value in event.items():
                    if key not in _FIXED:
                        block[key] = value
                if APPENDED_FIELD.get(block["kind"]) in event:
                    block["replaced"] = True  # corrected: what streamed was not all of it
            else:
                block["status"] = "completed"
                _settle_tool_call(block)
                self._finished[at] = self._blocks.pop(at)
        elif kind == "state_snapshot":
            self._state = event.get("snapshot")
        elif kind == "state_patch":
            try:
                self._state = apply_patch(
                    {} if self._state is None else self._state, event.get("patch"), self._budget
                )
            except PatchError as exc:
                self._fail(f"has a state patch that does not apply: {exc}")
        else:
            self._kept.append(event.get("event") if kind == "passthrough" else event)
