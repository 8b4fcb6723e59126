"""What both pure-Python assemblers share: SSE framing, counting events, the
error policy and the backlog that keeps the events after a failure. The
mirror of ``rust/stream.rs``; a protocol says what one event does."""

from __future__ import annotations

from typing import Any

from .._errors import AgentCodecError, EventStreamError, SSELimitError, StreamLimitError, _EventError
from ._args import as_bytes, limit_arg
from .accumulate import render
from .framing import Framing, Kind
from .json_values import JSONValueError, copy_value, json_kind, loads
from .partial_json import why_not_json
from .sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES, NamedTextDecoder, TextDecoder
from .tool_calls import ToolCallReader

#: How many error records an assembler keeps unless told otherwise (every
#: error is still counted): ``stream::DEFAULT_MAX_ERRORS`` in the Rust core.
DEFAULT_MAX_ERRORS = 1000

#: How many bytes one stream may bring an assembler unless told otherwise:
#: ``stream::DEFAULT_MAX_STREAM_BYTES`` in the Rust core.
DEFAULT_MAX_STREAM_BYTES = 1 << 28

#: How many messages one stream may bring an assembler unless told
#: otherwise: ``stream::DEFAULT_MAX_MESSAGES`` in the Rust core.
DEFAULT_MAX_MESSAGES = 100_000

#: How many blocks (content parts, tool calls) one stream's assembled
#: messages may hold unless told otherwise: ``stream::DEFAULT_MAX_BLOCKS``
#: in the Rust core.
DEFAULT_MAX_BLOCKS = 500_000

__all__ = ["AssemblerBase", "Budget", "Driver", "EventProblemError", "is_done_marker", "unrecognized"]

ON_ERROR_MODES = ("raise", "skip")


# ASCII white space, as the Rust core trims it.
_WHITE_SPACE = " \t\n\r\x0b\x0c"


def unrecognized(subject: str, events: int) -> str:
    """Why a stream closed with no event of its protocol
    (``stream::Unrecognized``)."""
    if events == 0:
        return f"the stream held no {subject}: it held no events"
    if events == 1:
        return f"the stream held no {subject}: its one event is not one"
    return f"the stream held no {subject}: none of its {events} events is one"


def is_done_marker(text: str) -> bool:
    """Whether an event's text is the ``[DONE]`` sentinel some servers end
    with (ASCII white space around it allowed, as in the Rust core)."""
    # An event's JSON object settles it at the first character: every
    # event asks, so it must not cost a strip.
    return text[:1] != "{" and text.strip(" \t\n\r\x0b\x0c") == "[DONE]"


def _before(exc: SSELimitError | EventStreamError) -> list[str]:
    """The event texts a framing error carries (those the failing call read
    before it), taken off it: they go into the assembled state instead."""
    if isinstance(exc, SSELimitError):
        before, exc.events = exc.events, []
    else:
        before, exc.messages = exc.messages, []
    return before


class EventProblemError(Exception):
    """Why an event cannot be applied, said where it is found: the
    skeleton (``Driver._apply_value``) reports it as ``on_error`` says
    (``stream::Bad``)."""


class Budget:
    """What a stream has brought, against ``max_stream_bytes``: the data of
    its events (fed as SSE or text; events given decoded are the caller's
    own), and what JSON Patch ``copy`` operations duplicate, the one way a
    small event can make the state grow by more than its own size. The
    mirror of ``stream::Budget``."""

    __slots__ = ("max", "used")

    def __init__(self, max_bytes: int | None) -> None:
        self.max = max_bytes  # None: no limit
        self.used = 0

    def allows(self, size: int) -> bool:
        """Whether ``size`` more bytes stay within the limit."""
        return self.max is None or self.used + size <= self.max

    def spend(self, size: int) -> None:
        self.used += size

    def refusal(self, what: str, size: int) -> str:
        """Why ``size`` more bytes are refused."""
        return (
            f"exceeds max_stream_bytes={self.max}: {what} {size} bytes,"
            f" after the {self.used} the stream has brought"
        )


class Driver:
    """What every pure reader rides (the mirror of ``stream::Driver``).
    Subclasses set ``_event_error`` (raised for an event that cannot be used)
    and ``_base_error`` (raised when the reader is closed), define
    ``_apply_object`` (and ``_done_marker`` where ``[DONE]`` means something),
    ``_recognizes``, ``_finish`` and ``_message_count``, and keep
    ``_blocks_held`` true."""

    _event_error: type[_EventError]
    _base_error: type[AgentCodecError]
    #: What it is, as users name it: for the error on input after close(),
    #: and (capitalised as its class) for a wrong argument to feed().
    _name = "assembler"
    _class_name = "Assembler"
    #: The framing its streams may have instead of SSE (NDJSON lines, a
    #: streamed JSON array, the AWS event stream): the stream's first byte
    #: tells (``framing.Framing``).
    _framing: Kind | None = None

    def __init__(
        self,
        *,
        on_error: str = "raise",
        max_line_bytes: int | None = DEFAULT_MAX_LINE_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_errors: int | None = DEFAULT_MAX_ERRORS,
        max_stream_bytes: int | None = DEFAULT_MAX_STREAM_BYTES,
        max_messages: int | None = DEFAULT_MAX_MESSAGES,
        max_blocks: int | None = DEFAULT_MAX_BLOCKS,
    ) -> None:
        if not isinstance(on_error, str):
            raise TypeError(f"on_error must be str, not {type(on_error).__name__}")
        if on_error not in ON_ERROR_MODES:
            raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
        self._skip_errors = on_error == "skip"
        limits = {
            "max_line_bytes": limit_arg("max_line_bytes", max_line_bytes),
            "max_event_bytes": limit_arg("max_event_bytes", max_event_bytes),
        }
        kind = self._framing
        self._decoder: TextDecoder | Framing
        if kind is None:
            self._decoder = TextDecoder(**limits)
        elif kind == "named":  # SSE alone, each event with its name
            self._decoder = NamedTextDecoder(**limits)
        else:
            self._decoder = Framing(kind, **limits)
        # The first max_errors errors recorded, and how many there were: a
        # stream of junk skipped must not grow memory without bound.
        self._errors: list[dict[str, Any]] = []
        self._error_count = 0
        self._max_errors = limit_arg("max_errors", max_errors)
        self._budget = Budget(limit_arg("max_stream_bytes", max_stream_bytes))
        self._max_messages = limit_arg("max_messages", max_messages)
        self._max_blocks = limit_arg("max_blocks", max_blocks)
        # The blocks (content parts, tool calls: what each protocol's
        # messages are made of) the assembled messages hold now: a count the
        # protocol keeps, since it is asked after every event.
        self._blocks_held = 0
        # The arguments of the StreamLimitError the stream went past a limit
        # with: every call that brings input raises it again.
        self._exceeded: tuple[str, int, str, int, str] | None = None
        # Event texts decoded but not applied yet, because an earlier one failed.
        self._backlog: list[str] = []
        self._events = 0
        self._closed = False
        # close() was called: the input has ended, even if the close failed
        # on an event and must be called again to apply the rest.
        self._input_ended = False
        self._framing_failed = False  # the SSE framing exceeded a limit
        # A limit error not reported yet (an event error was raised
        # instead): close() reports it.
        self._pending_limit: SSELimitError | EventStreamError | None = None
        # Parses tool calls' arguments as they stream, for ``tool_calls``.
        self._tool_call_reader = ToolCallReader()
        # Whether an event of the protocol came (see _recognizes).
        self._recognized = False

    # --- input ---------------------------------------------------------------

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Assembles a chunk of the raw SSE stream (any chunking)."""
        self._feed(data, None)

    def feed_event(self, event: dict[str, Any]) -> None:
        """Assembles one event that is already decoded (a dict)."""
        self._check_open()
        self._apply_all(self._take_backlog(), None)
        self._events += 1
        try:
            copied = copy_value(event)
        except JSONValueError as exc:
            self._fail(f"is not JSON-compatible: {exc}")
            return
        if not self._recognized:
            self._recognized = isinstance(copied, dict) and self._recognizes(copied)
        # Decoded by the caller: its data is not counted.
        self._apply_value(copied)
        self._count()

    def reconnect(self) -> None:
        """A new connection carries the stream on (a client resuming with
        ``Last-Event-ID``): the event the old one left unterminated is
        discarded, since the server sends it again; nothing assembled is lost."""
        self._check_open()
        # An unterminated event yields nothing; only a stream shorter than a
        # BOM could, and those bytes cannot end an event.
        self._backlog += self._decoder.close_texts()

    @property
    def last_event_id(self) -> str:
        """The stream's last event ID, to send as ``Last-Event-ID`` on reconnecting."""
        return self._decoder.last_event_id

    @property
    def retry(self) -> int | None:
        """The reconnection time in milliseconds the stream set, if any."""
        return self._decoder.retry

    # --- output --------------------------------------------------------------

    @property
    def errors(self) -> list[dict[str, Any]]:
        """Events skipped with ``on_error="skip"`` (and errors the stream reported)."""
        return [dict(error) for error in self._errors]

    @property
    def event_count(self) -> int:
        """Events seen so far."""
        return self._events

    @property
    def error_count(self) -> int:
        """Every error recorded, including those past ``max_errors`` not kept."""
        return self._error_count

    def _record(self, error: dict[str, Any]) -> None:
        """Records an error: counted, and kept while fewer than
        ``max_errors`` are."""
        self._error_count += 1
        if self._max_errors is None or len(self._errors) < self._max_errors:
            self._errors.append(error)

    # --- for the protocols -------------------------------------------------------

    def _feed(self, data: bytes | bytearray | memoryview, observed: list[Any] | None) -> None:
        self._check_open()
        method = "feed" if observed is None else "feed_with_events"
        data = as_bytes(data, f"{self._class_name}.{method}()")
        texts = self._take_backlog()
        try:
            events = self._decoder.feed_texts(data)
        except (SSELimitError, EventStreamError) as exc:
            # Apply what came before the limit, then raise: those events are
            # in the assembled state, not on the exception.
            self._framing_failed = True
            before = _before(exc)
            self._pending_limit = exc
            self._apply_all(texts + before, observed)
            self._pending_limit = None
            raise
        texts.extend(events)
        self._apply_all(texts, observed)

    def _feed_text(self, text: str) -> None:
        self._check_open()
        self._apply_all([*self._take_backlog(), text], None)

    def _close(self) -> None:
        """Ends the stream: the input ends at once (an unterminated event is
        discarded, as SSE says), then the events still waiting are applied
        and the protocol finishes. If one of them fails, its error is raised
        and a later ``close()`` applies the rest; more input is refused
        either way. A limit error that an event error hid is raised last."""
        if self._closed:
            return
        if self._exceeded is not None:
            # What was applied before the limit is all there is.
            self._abandon()
            return
        if not self._input_ended:
            self._input_ended = True
            if not self._framing_failed:
                try:
                    self._backlog += self._decoder.close_texts()
                except (SSELimitError, EventStreamError) as exc:
                    self._framing_failed = True
                    self._backlog += _before(exc)
                    self._pending_limit = exc
        try:
            self._apply_all(self._take_backlog(), None)
        except StreamLimitError:
            self._abandon()  # that was the stream's end
            raise
        if self._pending_limit is not None:
            limit, self._pending_limit = self._pending_limit, None
            raise limit
        self._closed = True
        self._finish()
        if not self._recognized:
            # What was assembled stands (a later close() returns it); the
            # error says why there is nothing in it.
            message = unrecognized(self._event_error.subject, self._events)
            if not self._skip_errors:
                raise self._base_error(message)
            self._record({"event": self._events, "code": "unrecognized_stream", "message": message})

    def _abandon(self) -> None:
        """Ends a stream that cannot go on: what was applied stands, and
        the protocol finishes with it."""
        if not self._closed:
            self._closed = True
            self._finish()

    def _fail(self, problem: str) -> None:
        """Reports that the event being applied cannot be used, as
        ``on_error`` says."""
        error = self._event_error(self._events, problem)
        if not self._skip_errors:
            raise error
        self._record({"event": self._events, "code": "invalid_event", "message": str(error)})

    def _exceed(self, limit: str, maximum: int, detail: str) -> None:
        """The stream went past a limit of the assembler's: no more input is
        taken, and what waits is dropped."""
        self._exceeded = (self._event_error.subject, self._events, limit, maximum, detail)
        self._backlog = []
        self._pending_limit = None
        raise StreamLimitError(*self._exceeded)

    def _count(self) -> None:
        """Whether the event just applied took what the assembler holds past
        ``max_messages`` or ``max_blocks`` (the messages first)."""
        if self._max_messages is not None:
            count = self._message_count()
            if count > self._max_messages:
                self._exceed(
                    "max_messages", self._max_messages, f"it brings the stream's messages to {count}"
                )
        if self._max_blocks is not None:
            count = self._blocks_held
            if count > self._max_blocks:
                self._exceed("max_blocks", self._max_blocks, f"it brings the stream's blocks to {count}")

    def _message_count(self) -> int:
        """How many messages the stream has brought; cheap, since it is asked after every event."""
        raise NotImplementedError

    def _recognizes(self, event: dict[str, Any]) -> bool:
        """Whether an event is one of the protocol's: a reader that saw none
        says so at close(). Asked only until one is."""
        raise NotImplementedError

    def _apply_object(self, event: dict[str, Any]) -> None:
        """Applies one event that is a JSON object; raises
        ``EventProblemError`` for one that cannot be applied."""
        raise NotImplementedError

    def _done_marker(self) -> None:
        """``[DONE]``, the OpenAI-style end of a stream, came. Most protocols
        end by their own events, and some proxies write it after any
        stream: nothing to do unless the protocol says otherwise."""

    # The skeleton every protocol shares (``stream::Protocol``'s provided
    # methods): ``[DONE]``, parsing, the observer, and refusing what is
    # not an object.

    def _apply_text(self, text: str, observed: list[Any] | None) -> None:
        """Applies the text of one event; ``observed`` collects it decoded."""
        try:
            event = loads(text)
        except JSONValueError:
            # `[DONE]` is not JSON: looked for only here, off the path every
            # event takes.
            if is_done_marker(text):
                self._done_marker()
            else:
                self._fail(why_not_json(text))
            return
        if observed is not None and isinstance(event, dict):
            # The caller's copy: the state goes on changing the original.
            observed.append(render(event))
        self._apply_value(event)

    def _apply_value(self, event: Any) -> None:
        """Applies one event that is already decoded."""
        if not isinstance(event, dict):
            self._fail(f"is {json_kind(event)}, not an object")
            return
        try:
            self._apply_object(event)
        except EventProblemError as exc:
            self._fail(str(exc))

    def _finish(self) -> None:
        raise NotImplementedError

    # --- internals -----------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed or self._input_ended:
            raise self._base_error(f"the {self._name} is closed")
        if self._exceeded is not None:
            raise StreamLimitError(*self._exceeded)

    def _recognizes_text(self, text: str) -> bool:
        try:
            event = loads(text)
        except JSONValueError:
            return False
        return isinstance(event, dict) and self._recognizes(event)

    def _take_backlog(self) -> list[str]:
        texts, self._backlog = self._backlog, []
        return texts

    def _apply_all(self, texts: list[str], observed: list[Any] | None) -> None:
        budget = self._budget
        max_messages = self._max_messages
        max_blocks = self._max_blocks
        for position, text in enumerate(texts):
            try:
                self._events += 1
                if budget.max is not None:
                    # utf8_size, allows() and spend(), inlined: this runs for every event.
                    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
                    if budget.used + size > budget.max:
                        detail = f"its data is {size} bytes, after the {budget.used} the stream has brought"
                        self._exceed("max_stream_bytes", budget.max, detail)
                    budget.used += size
                if not self._recognized:
                    # Parsed again only until the first event of the protocol.
                    self._recognized = self._recognizes_text(text)
                if not text or (text[0] in _WHITE_SPACE and not text.strip(_WHITE_SPACE)):
                    continue  # a keep-alive (`data:` and nothing): nothing to apply
                self._apply_text(text, observed)
                if (max_messages is not None and self._message_count() > max_messages) or (
                    max_blocks is not None and self._blocks_held > max_blocks
                ):
                    self._count()
            except AgentCodecError:
                if self._exceeded is None:
                    self._backlog = texts[position + 1 :]
                raise


class AssemblerBase(Driver):
    """The base of a protocol's assembler: the ``Driver``, and what every
    assembler gives from its ``_result()`` (the mirror of ``stream::Assemble``
    and ``stream::Assembled``). A protocol with no options of its own sets up
    its state in ``_init_state()``."""

    def __init__(
        self,
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
            on_error=on_error,
            max_line_bytes=max_line_bytes,
            max_event_bytes=max_event_bytes,
            max_errors=max_errors,
            max_stream_bytes=max_stream_bytes,
            max_messages=max_messages,
            max_blocks=max_blocks,
        )
        self._init_state()

    def _init_state(self) -> None:
        """Sets up the protocol's state."""

    def _result(self) -> Any:
        """The final object so far: what the protocol's SDK gives."""
        raise NotImplementedError

    def feed_with_events(self, data: bytes | bytearray | memoryview) -> list[dict[str, Any]]:
        """Like ``feed``, and returns the events the data completed, decoded."""
        events: list[dict[str, Any]] = []
        self._feed(data, events)
        return events

    def close(self) -> Any:
        """Ends the stream and returns ``result``."""
        self._close()
        return self._result()

    @property
    def result(self) -> Any:
        """The final object so far (what the protocol's SDK gives), what
        ``close()`` returns once the stream ends."""
        return self._result()
