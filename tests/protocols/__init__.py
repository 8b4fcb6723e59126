"""What the cross-cutting tests need of each protocol, a module each
(``<name>.py``, ``-`` as ``_``), each declaring its ``ROW``. ``protocol_table``
collects them in the registry's order: a new protocol is a module here."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@dataclass(frozen=True)
class ToolCallCase:
    """A kind of tool call a protocol streams, for the tool-argument tests."""

    name: str
    #: The assembler's property that gives the calls.
    accessor: str
    #: Where a call's arguments are.
    field: str
    #: A stream of one call whose arguments come in pieces: (pieces, text) ->
    #: (the events that open it, an event a piece, the events that end it).
    stream: Callable[[list[str], str], tuple[list[Any], list[Any], list[Any]]]
    #: The arguments before any text came.
    before: Any = None


@dataclass(frozen=True)
class JudgedToolCalls:
    """Recorded streams whose tool calls the protocol's own SDK assembled."""

    #: The streams: a glob under fixtures/.
    pattern: str
    #: The judge's recording for a stream.
    judge_file: Callable[[Path], Path]
    #: The calls' arguments in what the judge assembled, in order.
    judge: Callable[[dict[str, Any]], list[Any]]


def beside(path: Path) -> Path:
    """A stream's recording of its judge: the JSON file of the same name."""
    return path.with_suffix(".json")


def of_the_run(path: Path) -> Path:
    """An AgentApp endpoint's stream's recording: its run's JSON file."""
    return path.with_name(path.name.split(".")[0] + ".json")


def loaded(text: str) -> Any:
    """Argument text as the judge's SDK would give it: parsed, or as it came
    when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


@dataclass(frozen=True)
class BuiltTurn:
    """A turn its builder writes (text, a tool call), and the ids in it."""

    #: The turn's events, from a builder given no ids.
    events: Callable[[], list[dict[str, Any]]]
    #: Where ids are in an event (lists as keys "0", "1", ...).
    id_paths: tuple[tuple[str, ...], ...]
    #: The shapes the provider gives its ids (regular expressions).
    id_shapes: tuple[str, ...]


@dataclass(frozen=True)
class GatewayCase:
    """How a client runs the agent at the gateway's endpoint of the protocol."""

    #: Where the run is asked for (``POST``, a JSON body).
    path: str
    #: The body that asks the agent ``question``.
    body: Callable[[str], Any]
    #: Where the run's stream is read, when not in the answer to the request
    #: that started it: ``(path, body)`` of the request that reads it.
    read_at: tuple[str, Any] | None = None
    #: What the endpoint answers a run the upstream refused with (an HTTP
    #: error status, or 200 with the protocol's own error in its body).
    refused_status: int = 502
    #: Whether a run its client left is cancelled after the gateway's
    #: ``abandoned`` timeout (where the protocol's own servers let such a
    #: run go on, a client asks for it, or not at all).
    cancels_abandoned: bool = True
    #: Whether its streams carry event ids a dropped client resumes after
    #: (NDJSON has none: such a run is not recorded, and a client that
    #: leaves it cancels it at once).
    resumes: bool = True
    #: The Transcoder options its runs are converted with, beside the
    #: defaults (those that change what is written: where its clients would
    #: run every call they read again, ``executed_tool_calls="omit"``).
    converts_with: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Row:
    name: str
    #: The backend's assembler class (``agentcodec._native`` / ``_pure``).
    assembler: str
    #: The property that holds the final object (``result`` reads it).
    result: str
    #: One recorded stream of the protocol, under fixtures/.
    stream: str
    #: Every recorded stream of the protocol: globs under fixtures/.
    recorded_streams: tuple[str, ...]
    #: What the assembler gives after a stream, beside ``errors``: what the
    #: tests that compare two assemblies compare.
    reads: tuple[str, ...]
    #: Whether ``[DONE]`` ends the protocol's streams (what follows is refused).
    ended_by_done: bool = False
    #: The JSON framing its streams may have instead of SSE ("lines": NDJSON,
    #: "array": one streamed JSON array), which its readers tell from SSE by
    #: the first byte; or "named": SSE whose event names say what each event
    #: is, read as ``{"event": <name>, "data": <data>}`` (``events``).
    framing: str | None = None
    #: Whether its recorded streams are NDJSON, not SSE (no event ids to
    #: resume after).
    ndjson: bool = False
    #: Whether its streams are binary (the AWS event stream): not SSE either.
    binary: bool = False
    #: Whether its streams have no end of their own (the server closes the
    #: stream): one cut short reads back as a run that finished.
    ends_every_stream: bool = False
    #: Events that bring a stream's messages to three, where the protocol
    #: has more than one message a stream.
    three_messages: tuple[dict[str, Any], ...] = field(default=())
    #: Options that make its encoder's output the same on every run (the
    #: ids and times it would otherwise make up).
    fixed_options: dict[str, Any] = field(default_factory=dict)
    #: What a conversion into it cannot carry (docs/guides/converting.md's table, "What
    #: each target cannot carry", in test_transcode's words).
    cannot_carry: frozenset[str] = frozenset()
    #: The kinds of tool call (a ``tool_call`` block's ``tool``) it writes
    #: beside function calls: a call of another kind is written as a function
    #: call, and reported (``tool_kind``).
    tool_kinds: frozenset[str] = frozenset()
    #: Whether its messages keep the namespace they were written in (the
    #: path of a subgraph or sub-agent), read back as written; a target
    #: without reports the loss (``namespace``).
    namespaces: bool = False
    #: Whether it writes another protocol's events that have no neutral
    #: meaning (AG-UI, as RAW events); a target that does not reports each
    #: (``passthrough``).
    keeps_foreign_events: bool = False
    #: Which of its own events its decoder passes through it does not write
    #: back (and reports as a ``passthrough`` loss), given the event.
    drops_own_event: Callable[[dict[str, Any]], bool] = lambda event: False
    #: One such event, which ``stream`` brings when it is written before it.
    own_event_dropped: dict[str, Any] | None = None
    #: Whether a stream of it may hold more runs, one after another (a new
    #: run after the end); where not, what comes after the end is reported
    #: (``after_end``).
    runs_follow_runs: bool = False
    #: Whether it writes the run's state (snapshots and patches), read back
    #: as the source's; where not, the loss is reported (``state``).
    carries_state: bool = False
    #: Whether it writes a run's result (what the agent returned), read back
    #: as the source's; where not, the loss is reported (``run_result``).
    carries_run_result: bool = False
    #: Whether it writes why a message stopped (in its own words, or as
    #: its word for the reason's kind); where not, a reason that says more
    #: than the stream does is reported (``stop_reason``).
    carries_stop_reasons: bool = False
    #: Whose reasoning signatures its reader names (``encrypted_by``), where
    #: it names them.
    encrypted_by: str | None = None
    #: Whether it carries a signature only where the source names whose it
    #: is (a target that keeps one under its provider's name).
    signatures_need_provider: bool = False
    #: Whether it carries only the signatures it made itself (a provider's,
    #: which its API checks).
    signatures_own_only: bool = False
    #: Its models' reasoning signatures as the AI SDK's package for them
    #: keeps them, where there is one: the neutral ``block_replaced``
    #: fields, and the reasoning part's ``providerMetadata`` from them.
    provider_metadata: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = ()
    #: And the ``providerMetadata`` that package's other versions wrote,
    #: read as the same fields.
    provider_metadata_read: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = ()
    #: Whether it keeps a signature in the metadata of the package for the
    #: models that made it (the AI SDK): of the sources with
    #: ``provider_metadata``, and of those alone.
    signatures_in_provider_metadata: bool = False
    #: Which data blocks it carries none the less (a data block holding one
    #: of the protocol's own blocks), given the block's value.
    carries_data: Callable[[Any], bool] = lambda value: False
    #: Whether its tool results are text (a value that is not is written as its JSON).
    results_as_text: bool = False
    #: Whether its streams carry several choices (n > 1) of one run.
    carries_choices: bool = False
    #: How it writes a stop reason, read back: the word for each of the
    #: neutral reasons (a run's, as the Responses API gives it, or a
    #: message's), where it writes the run's reason for a message that gave
    #: none; empty where it takes the message's alone.
    stop_reasons: dict[str, str] = field(default_factory=dict)
    #: How it writes another protocol's stop reasons (a message's), as its
    #: reader gives them back: its word of each one's kind (None where it
    #: has no place for one).
    stop_reason_words: dict[str, str | None] = field(default_factory=dict)
    #: How it writes another protocol's error codes, as its reader gives
    #: them back, where its codes are a closed set: its code of each one's
    #: kind, or its server error.
    error_code_words: dict[str, str] = field(default_factory=dict)
    #: How it writes the run statuses it has no word for, as read back.
    status_as_carried: dict[str, str] = field(default_factory=dict)
    #: The blocks (content parts, tool calls) its assembler's view shows:
    #: what ``max_blocks`` counts.
    count_blocks: Callable[[Any], int] = lambda assembler: 0
    #: Events that open a stream, then the nth of events that add one block each.
    block_opening: tuple[dict[str, Any], ...] = ()
    one_block: Callable[[int], dict[str, Any]] = lambda n: {}
    #: Events that open a message, then a text delta of it (``"x": 0`` marks
    #: where a test puts a field of its own).
    text_opening: tuple[dict[str, Any], ...] = ()
    text_delta: dict[str, Any] = field(default_factory=dict)
    #: The kinds of tool call it streams.
    tool_calls: tuple[ToolCallCase, ...] = ()
    #: Its recorded streams whose tool calls its SDK assembled.
    judged_tool_calls: tuple[JudgedToolCalls, ...] = ()
    #: A turn its builder writes, where it has a builder that makes up ids.
    built_turn: BuiltTurn | None = None
    #: An annotation of a text block of its own kind, where it has annotations.
    own_annotation: dict[str, Any] | None = None
    #: How the gateway serves it, where it does.
    gateway: GatewayCase | None = None
    #: Judges a stream written into the protocol (by a conversion) as its own
    #: SDK reads it, and as ``backend``'s assembler does: raises where either
    #: rejects it or they disagree.
    judge: Callable[[ModuleType, bytes], None] | None = None

    def carries_signatures_of(self, source: Row) -> bool:
        """Whether a reasoning signature read from ``source`` has a place here."""
        if "signatures" not in self.cannot_carry:
            return True
        if self.signatures_own_only:
            return source.encrypted_by == self.encrypted_by
        if self.signatures_in_provider_metadata:
            return bool(source.provider_metadata)
        return self.signatures_need_provider and source.encrypted_by is not None

    def recorded(self) -> bytes:
        """The bytes of ``stream``."""
        return (FIXTURES / self.stream).read_bytes()

    def events(self, stream: bytes) -> list[Any]:
        """The events of one of its streams as ``feed_event`` takes them:
        each event's JSON data, or, where its event names say what each event
        is (``framing="named"``), ``{"event": <name>, "data": <data>}``.
        ``[DONE]`` aside."""
        from agentcodec import SSEDecoder
        from sse_helpers import as_sse

        decoder = SSEDecoder(max_line_bytes=None, max_event_bytes=None)
        decoded = [*decoder.feed(as_sse(stream)), *decoder.close()]
        events = [(event.event, json.loads(event.data)) for event in decoded if event.data != "[DONE]"]
        if self.framing == "named":
            return [{"event": name, "data": data} for name, data in events]
        return [data for _, data in events]

    def streams(self) -> list[Path]:
        """Every recorded stream's path, sorted within each glob."""
        return [path for pattern in self.recorded_streams for path in sorted(FIXTURES.glob(pattern))]


def list_length(value: Any) -> int:
    """The length of a list, 0 for anything else (a view's field not there yet)."""
    return len(value) if isinstance(value, list) else 0


def sse_event(event: Any) -> bytes:
    """One event (a JSON value, or a str such as ``[DONE]``) as an SSE event."""
    data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
    return f"data: {data}\n\n".encode()
