"""The protocol-neutral event vocabulary, and what converts streams through
it: the pure-Python mirror of ``rust/events.rs`` and ``rust/transcode.rs``.

Every protocol says the same few things; here they have one form, a dict
with a ``type``:

=====================  ==================================================================
``run_started``        ``run_id``, ``thread_id``, ``model``, ``created_at``
``run_finished``       ``status`` (completed, incomplete, cancelled, interrupted), ``usage``,
                       ``result``, ``stop_reason`` (why the run stopped, where the source
                       says it of the run rather than of a message)
``run_failed``         ``code``, ``message``, ``usage``
``message_started``    ``message_id``, ``role``, ``kind`` (message, reasoning, tool_call,
                       tool_result, or None), ``namespace`` (the path of the subgraph or
                       sub-agent that wrote it, a list of str; None for the run's own),
                       ``node`` (the graph node that wrote it, where the source names
                       one; provenance, as a run's metadata is: no loss where dropped)
``message_finished``   ``message_id``, ``usage``, ``stop_reason``
``block_started``      ``message_id``, ``index``, ``kind``, and the kind's fixed fields
``block_delta``        ``message_id``, ``index``, ``delta``: appended to the block's text,
                       arguments, output or data, as its kind says
``block_replaced``     ``message_id``, ``index``, and the fields that replace the block's
``block_finished``     ``message_id``, ``index``
``state_snapshot``     ``snapshot``
``state_patch``        ``patch`` (RFC 6902)
``passthrough``        ``protocol``, ``event``: what has no neutral meaning, kept
=====================  ==================================================================

Block kinds and their fixed fields (given at ``block_started``, None when
unknown); the field a delta appends to:

=============  ==========================================  =============
kind           fixed fields                                 delta appends
=============  ==========================================  =============
text           -                                            ``text``
reasoning      ``summary`` (a summary of the reasoning)     ``text``
refusal        -                                            ``text``
tool_call      ``call_id``, ``name``, ``tool`` (function,   ``arguments``
               custom, mcp, plugin, component), ``server``
               (the MCP server that runs it)
tool_result    ``call_id``, ``name``, ``tool``              ``output``
media          ``media_type`` (image, audio, video, file),  ``data``
               ``mime_type``, ``url``
data           ``value``                                    -
=============  ==========================================  =============

Blocks of one message do not interleave with each other's deltas in most
protocols, but may; a block may start in a message that has finished (a
protocol may attach tool calls to earlier messages), which reopens it.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, get_args

from .._vocabulary import tables
from .article import article

__all__ = [
    "APPENDED_FIELD",
    "PROTOCOL_NAMES",
    "ProtocolName",
    "Held",
    "as_int",
    "as_namespace",
    "message_place",
    "Place",
    "as_str",
    "block_key",
    "BLOCK_FIELDS",
    "BLOCK_KINDS",
    "EVENT_TYPES",
    "MESSAGE_KINDS",
    "RUN_STATUSES",
    "block_delta",
    "block_finished",
    "block_replaced",
    "block_started",
    "check_type",
    "message_finished",
    "message_started",
    "passthrough",
    "run_failed",
    "run_finished",
    "run_started",
]

#: A protocol's name, as ``Transcoder``, the clients, the CLI and the docs
#: spell it: the one list of protocols on the Python side (the pure
#: backend's package of each is ``_pure/<name>/``, its public
#: package ``agentcodec.<name>``, with ``-`` as ``_``).
ProtocolName: TypeAlias = Literal[
    "agentscope",
    "langchain",
    "agui",
    "openai-responses",
    "openai-chat",
    "anthropic",
    "ai-sdk",
    "a2a",
    "ollama",
    "gemini",
    "bedrock",
    "langgraph",
]
#: Every protocol's name, in order.
PROTOCOL_NAMES: tuple[ProtocolName, ...] = get_args(ProtocolName)

#: The types of the neutral events: what every encoder takes (the
#: vocabulary both backends read, ``_vocabulary/vocabulary.txt``).
EVENT_TYPES: tuple[str, ...] = tables("_vocabulary")["EVENT_TYPES"]


def check_type(event: dict[str, Any]) -> None:
    """Refuses a neutral event given from outside (a server's, to an
    encoder) that has no neutral type, with a ValueError saying why: an
    encoder would write nothing of it (``events::check_type``)."""
    kind = event.get("type")
    if isinstance(kind, str) and kind in EVENT_TYPES:
        return
    if isinstance(kind, str):
        raise ValueError(f"a neutral event's type is one of {', '.join(EVENT_TYPES)}, not {kind}")
    raise ValueError(f"a neutral event has a type, one of {', '.join(EVENT_TYPES)}")


MESSAGE_KINDS = ("message", "reasoning", "tool_call", "tool_result")
#: The statuses of a finished run (``run_finished``'s ``status``).
RUN_STATUSES = ("completed", "incomplete", "cancelled", "interrupted")
BLOCK_KINDS = ("text", "reasoning", "refusal", "tool_call", "tool_result", "media", "data")
#: The fixed fields of each block kind, in order.
BLOCK_FIELDS: dict[str, tuple[str, ...]] = {
    "text": (),
    "reasoning": ("summary",),
    "refusal": (),
    "tool_call": ("call_id", "name", "tool", "server"),
    "tool_result": ("call_id", "name", "tool"),
    "media": ("media_type", "mime_type", "url"),
    "data": ("value",),
}
#: The field a ``block_delta`` appends to, by block kind.
APPENDED_FIELD = {
    "text": "text",
    "reasoning": "text",
    "refusal": "text",
    "tool_call": "arguments",
    "tool_result": "output",
    "media": "data",
}


# Indexes and counts are integers that fit in 64 bits, in both backends.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def as_str(value: Any) -> str | None:
    """The value if it is a str."""
    return value if isinstance(value, str) else None


def as_int(value: Any) -> int | None:
    """The value if it is an integer of at most 64 bits (not a bool)."""
    return value if type(value) is int and INT_MIN <= value <= INT_MAX else None


def block_key(event: dict[str, Any]) -> tuple[str, int] | None:
    """The block an event names: its message id and index, when both are
    what they should be."""
    message_id, index = event.get("message_id"), as_int(event.get("index"))
    return (message_id, index) if isinstance(message_id, str) and index is not None else None


def run_started(
    run_id: Any = None, thread_id: Any = None, model: Any = None, created_at: Any = None
) -> dict[str, Any]:
    return {
        "type": "run_started",
        "run_id": run_id,
        "thread_id": thread_id,
        "model": model,
        "created_at": created_at,
    }


def run_finished(
    status: str = "completed", usage: Any = None, result: Any = None, stop_reason: Any = None
) -> dict[str, Any]:
    return {
        "type": "run_finished",
        "status": status,
        "usage": usage,
        "result": result,
        "stop_reason": stop_reason,
    }


def run_failed(code: Any = None, message: Any = None, usage: Any = None) -> dict[str, Any]:
    return {"type": "run_failed", "code": code, "message": message, "usage": usage}


def message_started(
    message_id: str,
    role: str = "assistant",
    kind: str | None = None,
    namespace: list[str] | None = None,
    node: str | None = None,
) -> dict[str, Any]:
    return {
        "type": "message_started",
        "message_id": message_id,
        "role": role,
        "kind": kind,
        "namespace": namespace,
        "node": node,
    }


def as_namespace(value: Any) -> list[str] | None:
    """A message's namespace as the vocabulary holds it: a list of str with
    at least one part, else None (the run's own messages)."""
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        return list(value)
    return None


#: Where a message is written: its namespace (None: the run's own) and its node.
Place = tuple[tuple[str, ...] | None, str | None]


def message_place(event: dict[str, Any]) -> Place:
    """Where a ``message_started``'s message is written. Two messages of two
    places that stream at once are two writers' (two subgraphs, or two nodes
    of one graph side by side), which a target of one answer keeps apart."""
    namespace = as_namespace(event.get("namespace"))
    node = event.get("node")
    return (None if namespace is None else tuple(namespace), node if isinstance(node, str) and node else None)


def message_finished(message_id: str, usage: Any = None, stop_reason: Any = None) -> dict[str, Any]:
    return {"type": "message_finished", "message_id": message_id, "usage": usage, "stop_reason": stop_reason}


def media_kind(mime_type: str) -> str:
    """The media kind of a MIME type, as a media block's ``media_type`` says
    it: image, audio, video, or file for any other."""
    major = mime_type.split("/", 1)[0]
    return major if major in ("image", "audio", "video") else "file"


def block_started(message_id: str, index: int, kind: str, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "block_started", "message_id": message_id, "index": index, "kind": kind}
    for name in BLOCK_FIELDS.get(kind, ()):
        event[name] = fields.get(name)
    return event


def block_delta(message_id: str, index: int, delta: str) -> dict[str, Any]:
    return {"type": "block_delta", "message_id": message_id, "index": index, "delta": delta}


def block_replaced(message_id: str, index: int, fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "block_replaced", "message_id": message_id, "index": index, **fields}


def block_finished(message_id: str, index: int) -> dict[str, Any]:
    return {"type": "block_finished", "message_id": message_id, "index": index}


def passthrough(protocol: str, event: Any) -> dict[str, Any]:
    return {"type": "passthrough", "protocol": protocol, "event": event}


class Held:
    """What a block has streamed, for turning the snapshots some producers
    send (the whole value so far, each time) into deltas.

    A final snapshot (the finished value) adds what extends the text sent,
    or replaces it. A snapshot in progress may still change at its end (a
    JSON document's closing brackets move as arguments grow), so only the
    part it shares with the snapshot before it is sent; the rest waits for
    the next snapshot, a delta, or the end. Memory is the block's text."""

    __slots__ = ("_pieces", "field", "index", "last", "message_id")

    def __init__(self, message_id: str, index: int, field: str) -> None:
        self.message_id = message_id
        self.index = index
        self.field = field
        # What the neutral events carried so far, in pieces: appending to a
        # str attribute copies it every time (CPython only grows locals in
        # place), which would make a long block quadratic.
        self._pieces: list[str] = []
        self.last: str | None = None  # the last snapshot in progress, not all sent

    @property
    def sent(self) -> str:
        """What the neutral events carried so far."""
        if len(self._pieces) > 1:
            self._pieces[:] = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    @sent.setter
    def sent(self, value: str) -> None:
        self._pieces = [value] if value else []

    def append(self, piece: str, out: list[dict[str, Any]]) -> None:
        """A delta: appended to the value, after what a snapshot held back."""
        self.flush(out)
        if piece:
            self._pieces.append(piece)
            out.append(block_delta(self.message_id, self.index, piece))

    def snapshot(self, value: str, final: bool, out: list[dict[str, Any]]) -> None:
        if final:
            self.last = None
            self._extend_to(value, out)
            return
        if not value.startswith(self.sent):
            self.last = None
            self._extend_to(value, out)  # diverged: replaced now
            return
        if self.last is not None:
            shared = _common_prefix(self.last, value)
            if len(shared) > len(self.sent):
                out.append(block_delta(self.message_id, self.index, shared[len(self.sent) :]))
                self.sent = shared
        self.last = value

    def flush(self, out: list[dict[str, Any]]) -> None:
        """Sends what a snapshot in progress held back (the block ends, or a
        delta follows it)."""
        if self.last is not None:
            last, self.last = self.last, None
            self._extend_to(last, out)

    def _extend_to(self, value: str, out: list[dict[str, Any]]) -> None:
        if value == self.sent:
            return
        if value.startswith(self.sent):
            out.append(block_delta(self.message_id, self.index, value[len(self.sent) :]))
        else:
            out.append(block_replaced(self.message_id, self.index, {self.field: value}))
        self.sent = value


def _common_prefix(a: str, b: str) -> str:
    """The longest common prefix of two strings (whole characters)."""
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return a[:limit]
    low, high = 0, limit  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return a[:low]


class RecordsLosses:
    """What an encoder could not carry, kept as ``(what, why)`` in ``_lost``
    (which the encoder sets up) until the Transcoder takes it
    (``Encode::take_losses``)."""

    _lost: list[tuple[str, str]]
    #: Whether its messages keep the namespace they were written in (a
    #: subgraph's path); where not, the Transcoder records the loss.
    carries_namespaces = False
    #: Whether it writes another protocol's events that have no neutral
    #: meaning (AG-UI, as ``RAW`` events); where not, the Transcoder records
    #: each as a loss.
    keeps_foreign_events = False
    #: Whether it writes the run's state (``state_snapshot``,
    #: ``state_patch``); where not, the Transcoder records the loss, once
    #: for each kind.
    carries_state = False
    #: Whether it writes a run's result (``run_finished``'s ``result``);
    #: where not, the Transcoder records the loss.
    carries_run_result = False
    #: Whether it writes why a message or a run stopped (its
    #: ``stop_reason``), saying itself what it has no place for; where not,
    #: the Transcoder records a reason that says more than the stream does.
    carries_stop_reasons = False

    def keeps_own_event(self, passthrough: dict[str, Any]) -> bool:
        """Whether it writes back this ``passthrough`` of its own protocol's
        event as it came (most do); where not, the Transcoder records it as
        a loss, as it does another protocol's."""
        return True

    def has_ended_before(self, kind: str) -> bool:
        """Whether its stream has ended before an event of this ``type`` (its
        end is written: a message's stop, a task's final status), so that it
        writes nothing of it; the Transcoder records what comes after the
        end as a loss."""
        return False

    def writes_after_block_end(self, replaced: dict[str, Any]) -> tuple[str, ...]:
        """The fields of a ``block_replaced`` it writes to a block it has
        finished (an encrypted value that names its message or tool call,
        not the block, may follow its end); the Transcoder records the others
        as a loss."""
        return ()

    def take_losses(self) -> list[tuple[str, str]]:
        """What the encoder could not carry since the last call, in order."""
        lost, self._lost = self._lost, []
        return lost


def block_loss(target: str, kind: str) -> tuple[str, str]:
    """A block of a kind the target has no place for, as ``(what, why)``
    (``events::Loss::block``)."""
    return kind, f"{target} has no place for {article(kind)} {kind} block"


#: How many losses a conversion lists: past them, one more entry says the
#: rest went unlisted (``events::MAX_LOSSES``). A stream may bring a loss
#: with every event, and the list lives as long as the conversion.
MAX_LOSSES = 1000


def list_losses(listed: list[tuple[int, str, str]], event: int, lost: list[tuple[str, str]]) -> None:
    """Lists what ``event`` lost in ``listed``, while there is room
    (``events::Losses::extend``)."""
    for what, why in lost:
        if len(listed) < MAX_LOSSES:
            listed.append((event, what, why))
        else:
            if len(listed) == MAX_LOSSES:
                listed.append((event, "losses", f"more than {MAX_LOSSES} losses: the rest are not listed"))
            return


def signature_loss(target: str) -> tuple[str, str]:
    """A reasoning signature or encrypted reasoning (``encrypted``) the
    target has no place for (``events::Loss::signature``)."""
    return "signatures", f"{target} has no place for a reasoning signature"


def has_annotations(event: dict[str, Any]) -> bool:
    """Whether a ``block_replaced`` carries annotations (a non-empty list)
    (``events::has_annotations``)."""
    annotations = event.get("annotations")
    return isinstance(annotations, list) and bool(annotations)


def has_signature(event: dict[str, Any]) -> bool:
    """Whether a ``block_replaced`` carries a signature (``encrypted``)."""
    encrypted = event.get("encrypted")
    return isinstance(encrypted, str) and bool(encrypted)


def refusal_loss(target: str) -> tuple[str, str]:
    """A refusal written as text: the target has no refusal block
    (``events::Loss::refusal``)."""
    return "refusal_kind", f"{target} has no refusal block: a refusal is written as text"


def correction_loss(target: str, kind: str) -> tuple[str, str]:
    """A correction of text that already streamed (a ``block_replaced``
    with ``text``): the target can only append (``events::Loss::correction``)."""
    return "corrections", (
        f"{target} cannot replace the text of {article(kind)} {kind} block that already streamed"
    )


def status_loss(target: str, status: Any, written: str) -> list[tuple[str, str]]:
    """A run status the target has no word for: the run is written with the
    status it reads back as (``written``, in the neutral words). Nothing when
    the status is carried or is none of ``RUN_STATUSES``
    (``events::Loss::status``)."""
    # Every protocol has a word for completed.
    if status not in RUN_STATUSES or status in ("completed", written):
        return []
    return [("run_status", f"{target} has no run status {status}: the run is written as {written}")]


def result_as_json_loss(target: str) -> tuple[str, str]:
    """A tool result that is a JSON value, written as its JSON text
    (``events::Loss::result_as_json``)."""
    return "result_as_json", f"{target} carries tool results as text: a JSON value is written as its JSON"


def usage_loss(target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """The usage a ``run_finished``, ``run_failed`` or ``message_finished``
    carries, where the target has no place for it: nothing when it carries
    none (``events::Loss::usage``)."""
    usage = event.get("usage")
    if not isinstance(usage, dict) or not usage:
        return []
    of = {"run_failed": "a failed run", "message_finished": "a message"}.get(event.get("type"), "a run")  # type: ignore[arg-type]
    return [("usage", f"{target} has no place for the usage of {of}")]


def usage_not_asked_loss(target: str) -> tuple[str, str]:
    """A run's usage left out because the encoder was told not to write it
    (``events::Loss::usage_not_asked``)."""
    return "usage", f"{target} writes a run's usage only with include_usage"


def partial_usage_loss(target: str, needs: str) -> tuple[str, str]:
    """A usage without the counts the target's usage must have: left out
    (``events::Loss::partial_usage``)."""
    return "usage", f"{target} needs {needs} in a usage: one without them is left out"


def broken_arguments_loss(target: str) -> tuple[str, str]:
    """A tool's arguments that are not a JSON object, where the target takes
    an object (``events::Loss::broken_arguments``)."""
    return "broken_arguments", (
        f"{target} takes a tool's input as a JSON object: "
        "arguments that are not one end at their last clean point"
    )


def annotations_loss(target: str) -> tuple[str, str]:
    """Annotations of a text block the target has no place for
    (``events::Loss::annotations``)."""
    return "annotations", f"{target} has no place for these annotations of a text block"


def server_loss(target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """The MCP server a ``tool_call`` names, where the target writes the call
    without one (``events::Loss::server``)."""
    if event.get("kind") == "tool_call" and as_str(event.get("server")):
        return [("tool_server", f"{target} has no place for the MCP server of a tool call")]
    return []


def tool_kind_loss(
    target: str, event: dict[str, Any], carried: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """A tool call of a kind (``tool``: mcp, custom, server, plugin, ...) the
    target has no call for, beside its function calls (``carried``): the call
    is written as a function call. A function call is every target's, in
    either of Chat's forms (``events::Loss::tool_kind``)."""
    if event.get("kind") != "tool_call":
        return []
    tool = as_str(event.get("tool"))
    if not tool or tool in ("function", "function_call") or tool in carried:
        return []
    return [("tool_kind", f"{target} has no {tool} tool call: it is written as a function call")]


def namespace_loss(target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """A message written in a namespace (a subgraph's or sub-agent's) by a
    target that has none: it reads as the run's own (``events::Loss::namespace``)."""
    if event.get("type") != "message_started":
        return []
    namespace = as_namespace(event.get("namespace"))
    if namespace is None:
        return []
    return [
        (
            "namespace",
            f"{target} has no namespaces: a message of {'/'.join(namespace)} is written as the run's",
        )
    ]


def _passed_through(event: dict[str, Any]) -> str:
    """A ``passthrough`` event as its protocol names it: by the event's
    ``type``, its ``event``, or its one key (``"<name> event of <protocol>"``)."""
    protocol = as_str(event.get("protocol"))
    inner = event.get("event")
    name = None
    if isinstance(inner, dict):
        name = as_str(inner.get("type"))
        if name is None:
            name = as_str(inner.get("event"))
        if name is None:
            name = next(iter(inner), None)
    if name is not None:
        # The name's first part: a namespace after ``|`` (a subgraph's events
        # are named so) names no other kind, where each of a graph's tasks
        # would be a kind of its own.
        name = name.split("|", 1)[0]
    source = "an unnamed protocol" if protocol is None else protocol
    return f"{'raw' if name is None else name} event of {source}"


def passthrough_loss(target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """An event that has no neutral meaning, which the target has no place
    for, named by the event's ``type``, its ``event``,
    or its one key (``events::Loss::passthrough``)."""
    if event.get("type") != "passthrough":
        return []
    named = _passed_through(event)
    return [
        ("passthrough", f"{target} has no place for {article(named)} {named}, which has no neutral meaning")
    ]


def after_end_loss(target: str, kind: str, event: dict[str, Any] | None) -> tuple[str, str]:
    """An event that came after the target's stream had ended, which it
    therefore does not write, named by its ``type``, or a passed-through
    event by its own (``events::Loss::after_end``)."""
    named = _passed_through(event) if kind == "passthrough" and event is not None else f"{kind} event"
    return (
        "after_end",
        f"{target} writes nothing after its stream's end: "
        f"{article(named)} {named} that came after it has no place",
    )


def error_code_loss(target: str, code: Any, written: str | None) -> list[tuple[str, str]]:
    """A failed run's error code the target has no place for: the failure
    is written with ``written``, its own word, or without a code; none when
    there is no code, or it is written as it came (``events::Loss::error_code``)."""
    if not isinstance(code, str) or not code or written == code:
        return []
    how = f"as {written}" if written is not None else "without a code"
    return [("error_code", f"{target} has no error code {code}: the failure is written {how}")]


def state_loss(target: str, kind: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's state (a ``state_snapshot`` or ``state_patch``: ``kind``),
    where the target has no place for one; none for an empty one, which
    says nothing (``events::Loss::state``)."""
    if not event.get("patch" if kind == "state_patch" else "snapshot"):
        return []
    return [("state", f"{target} has no place for the run's state: a {kind} is not written")]


def run_result_loss(target: str, event: dict[str, Any]) -> list[tuple[str, str]]:
    """The result a ``run_finished`` carries (what the agent returned), where
    the target has no place for one; none when it carries none
    (``events::Loss::run_result``)."""
    if event.get("result") is None:
        return []
    return [("run_result", f"{target} has no place for a run's result")]


def block_signature_loss(target: str, kind: str) -> tuple[str, str]:
    """The signature of a block of another kind than reasoning (a text's or
    a tool call's, as a provider may sign them), where the target signs
    only reasoning (``events::Loss::block_signature``)."""
    return "signatures", f"{target} has no place for the signature of {article(kind)} {kind} block"


def block_not_open_loss(target: str, kind: str, fields: list[str]) -> tuple[str, str]:
    """What a ``block_delta`` or ``block_replaced`` (``kind``) brought to a
    block that is not open (never started, or finished already), which the
    target writes nothing of: a replacement's ``fields``, sorted
    (``events::Loss::block_not_open``)."""
    brought = f"the {', '.join(fields)} of a {kind}" if fields else f"a {kind}"
    return (
        "block_not_open",
        f"{target} writes nothing to a block that is not open (never started, or finished): "
        f"{brought} to one has no place",
    )


def other_role_loss(target: str, kind: str) -> tuple[str, str]:
    """A block of a message the target does not stream: one of another role
    than the assistant's (``events::Loss::other_role``)."""
    return kind, (
        f"{target} streams only what the assistant says: "
        f"{article(kind)} {kind} block of another role's message has no place"
    )
