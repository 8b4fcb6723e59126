"""The LangGraph Agent Server's streams to and from the neutral vocabulary:
the pure-Python mirror of ``rust/langgraph/events.rs``.

Decoding: ``metadata`` starts the run. Each message streamed
(``messages``, any namespace) is a message: an AI message's chunks give a
text block for string content, a block for each ``index`` of list content
(``text``; ``thinking`` and ``reasoning`` as reasoning, a ``signature``
replacing it with the signature of the provider the chunks name) and a
tool-call block for each tool-call chunk index (its arguments the deltas);
the message finishes at its ``chunk_position: "last"`` chunk, when its
graph's step ends (its ``values`` or ``updates``), or when the run ends (its
finish reason the stop reason, its usage the message's). The legacy mode
(``messages/partial``, ``messages/complete``) sends each message whole so
far, and a whole AI message is one too: each is a snapshot, made deltas
(``events.Held``: text that extends what was sent is appended, any other
replaces it; a tool call's arguments, parsed there, are their JSON, sent as
far as two snapshots agree); ``messages/complete`` finishes the message, as
the empty message of a run's id that ends another does. A tool's message is
a tool result, whole. The root graph's ``values`` are the state (``state_snapshot``, its
messages aside, which the messages carry); every other event passes
through. The server ends a stream by closing it: the run finishes then,
``interrupted`` when the root graph's last values or updates hold an
interrupt; an ``error`` event fails it.

Encoding: what langgraph-api writes for ``stream_mode=["values",
"messages-tuple"]``, the modes useStream asks for: ``metadata``, each delta
as a message chunk (``messages``: ``[chunk, metadata]``; string content,
or indexed blocks once a message has reasoning; tool-call chunks), the last
chunk of a message with its finish reason and usage, a tool result as the
tool's whole message, and at the run's end its ``values``: the state the
snapshots gave, with the messages as they add up. A failed run is an
``error`` event.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from .. import events as ev
from .. import stop_reasons
from ..json_patch import PatchError, apply_patch
from ..protocol import frame as sse_frame
from ..protocol import sse_field
from ..stream import Budget
from .assembler import ChunkedMessage, empty_end
from .wire import CHUNK_TYPES, Part, read, recognizes

__all__ = ["Decoder", "Encoder", "frame"]

#: The reasoning block types of list content, and the field holding their text.
_REASONING = {"thinking": "thinking", "reasoning": "reasoning"}


def frame(event: dict[str, Any]) -> bytes:
    """One event as the server writes it: ``event:`` its mode, ``data:`` its data."""
    name = sse_field(event.get("event")) or "message"
    return sse_frame(event.get("data"), name=name)  # type: ignore[arg-type]


def _parts(namespace: str) -> list[str] | None:
    """A subgraph's namespace as the vocabulary holds it (``inner:<task>``,
    parts joined by ``|``, is ``["inner:<task>"]``); None for the root's."""
    return namespace.split("|") if namespace else None


def _node_of(metadata: Any) -> str | None:
    """The graph node a chunk's (or a message's) metadata names."""
    node = metadata.get("langgraph_node") if isinstance(metadata, dict) else None
    return node if isinstance(node, str) and node else None


class _Streamed:
    """A message being decoded."""

    __slots__ = (
        "blocks",
        "calls",
        "finished",
        "held",
        "namespace",
        "node",
        "others",
        "provider",
        "reason",
        "signatures",
        "snapshots",
        "text",
        "usage",
    )

    def __init__(self, namespace: str, node: str | None, snapshots: bool = False) -> None:
        self.namespace = namespace
        self.node = node  # the graph node that writes it, where the stream says
        self.blocks: dict[Any, int] = {}  # a content index: its block
        self.calls: dict[Any, int] = {}  # a tool-call chunk index (or call id): its block
        self.text: int | None = None  # the block of string content
        self.finished = False
        self.provider: str | None = None
        self.reason: Any = None
        self.usage: dict[str, Any] | None = None
        # Sent whole so far (the legacy mode), not chunk by chunk: what each
        # block's snapshots sent, the reasoning signatures sent, and the
        # content blocks of other kinds as the last snapshot had them.
        self.snapshots = snapshots
        self.held: dict[int, ev.Held] = {}
        self.signatures: dict[int, str] = {}
        self.others: dict[str, dict[str, Any]] = {}


class Decoder:
    """LangGraph Agent Server events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "langgraph"
    framing = "named"

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._next_block = 0
        self._messages: dict[str, _Streamed] = {}
        # A place (namespace, and the node of the event: two nodes of one graph
        # stream side by side): the message streamed last there.
        self._last: dict[tuple[str, str | None], str] = {}
        self._interrupted = False
        # The graph node that writes a message: the event's (a chunk's
        # metadata), or what ``messages/metadata`` said of the message before
        # it came (id -> node, until it starts).
        self._event_node: str | None = None
        self._nodes: dict[str, str] = {}

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        part = read(event)
        if not isinstance(part, Part) or self._ended:
            out.append(ev.passthrough("langgraph", event))
            return out
        mode, data = part.mode, part.data
        self._event_node = None
        if mode == "metadata":
            if not self._started:
                self._started = True
                run_id = data.get("run_id") if isinstance(data, dict) else None
                out.append(ev.run_started(run_id, None, None, None))
            return out
        self._start(out)
        if mode in ("values", "updates"):
            # (an update names the nodes whose step ended; another node's
            # message may still stream beside them)
            nodes = set(data) if mode == "updates" and isinstance(data, dict) else None
            self._finish_step(part.namespace, nodes, out)
        if mode == "messages" and isinstance(data, list) and len(data) == 2 and isinstance(data[0], dict):
            self._event_node = _node_of(data[1])
            self._message(part.namespace, data[0], event, out)
        elif mode in ("messages/partial", "messages/complete") and isinstance(data, list):
            final = mode == "messages/complete"
            # (one message an event, as the server writes them; the event passes
            # through once if any it holds is not an AI's or a tool's)
            taken = [self._whole(part.namespace, message, final, out) for message in data]
            if not all(taken):
                out.append(ev.passthrough("langgraph", event))
        elif mode == "values" and not part.namespace and isinstance(data, dict):
            interrupts = part.interrupts if part.interrupts is not None else data.get("__interrupt__")
            self._interrupted = bool(interrupts)
            state = {key: value for key, value in data.items() if key not in ("messages", "__interrupt__")}
            out.append({"type": "state_snapshot", "snapshot": state})
        elif (
            mode == "updates" and not part.namespace and isinstance(data, dict) and data.get("__interrupt__")
        ):
            self._interrupted = True
            out.append(ev.passthrough("langgraph", event))
        elif mode == "error":
            self._finish_all(out)
            code = data.get("error") if isinstance(data, dict) else None
            message = data.get("message") if isinstance(data, dict) else data
            out.append(ev.run_failed(code, message if isinstance(message, str) else dumps(message), None))
            self._ended = True
        elif mode == "end":
            self._end(out)
        else:
            if mode == "messages/metadata" and isinstance(data, dict):
                for message_id, value in data.items():
                    node = _node_of(value.get("metadata")) if isinstance(value, dict) else None
                    if node is not None and message_id not in self._messages:
                        self._nodes[message_id] = node
            out.append(ev.passthrough("langgraph", event))
        return out

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._started and not self._ended:
            self._end(out)
        return out

    # --- internals -----------------------------------------------------------

    def _node(self, message_id: str) -> str | None:
        """The node writing a message that starts."""
        node = self._nodes.pop(message_id, None)
        return self._event_node if node is None else node

    def _start(self, out: list[dict[str, Any]]) -> None:
        if not self._started:
            self._started = True
            out.append(ev.run_started(None, None, None, None))

    def _end(self, out: list[dict[str, Any]]) -> None:
        self._finish_all(out)
        out.append(ev.run_finished("interrupted" if self._interrupted else "completed"))
        self._ended = True

    def _finish_all(self, out: list[dict[str, Any]]) -> None:
        for message_id in list(self._messages):
            self._finish_message(message_id, out)

    def _finish_message(self, message_id: str, out: list[dict[str, Any]]) -> None:
        streamed = self._messages.get(message_id)
        if streamed is None or streamed.finished:
            return
        streamed.finished = True
        for other in streamed.others.values():
            out.append(ev.passthrough("langgraph", {"content_block": other, "message_id": message_id}))
        texts = () if streamed.text is None else (streamed.text,)
        blocks = sorted({*streamed.blocks.values(), *streamed.calls.values(), *texts})
        for index in blocks:
            held = streamed.held.get(index)
            if held is not None:
                held.flush(out)
            out.append(ev.block_finished(message_id, index))
        out.append(ev.message_finished(message_id, streamed.usage, streamed.reason))

    def _block(self, message_id: str, kind: str, out: list[dict[str, Any]], **fields: Any) -> int:
        index = self._next_block
        self._next_block += 1
        out.append(ev.block_started(message_id, index, kind, **fields))
        return index

    def _message(
        self, namespace: str, message: dict[str, Any], event: dict[str, Any], out: list[dict[str, Any]]
    ) -> None:
        message_id = message.get("id")
        if not isinstance(message_id, str) or not message_id:
            return
        kind = message.get("type")
        chunked = kind in CHUNK_TYPES
        streamed = self._messages.get(message_id)
        if streamed is None and chunked and message.get("chunk_position") == "last" and empty_end(message):
            last = self._last.get((namespace, self._event_node))
            if last is not None:
                message_id, streamed = last, self._messages[last]  # ends the message before it
        if not chunked:
            # A whole message: a tool's, or an AI's a node did not stream.
            if streamed is None and not self._whole(namespace, message, True, out):
                out.append(ev.passthrough("langgraph", event))
                streamed = self._messages[message_id] = _Streamed(namespace, self._event_node)
                streamed.finished = True
                self._last[(namespace, self._event_node)] = message_id
            return
        if streamed is None:
            streamed = self._messages[message_id] = _Streamed(namespace, self._node(message_id))
            out.append(
                ev.message_started(message_id, "assistant", "message", _parts(namespace), streamed.node)
            )
        if streamed.snapshots:
            return
        # (messages of one namespace may interleave: choices, or calls
        # attached to an earlier message; each ends at its last chunk)
        self._last[(namespace, self._event_node)] = message_id
        if streamed.finished:
            if empty_end(message) or not (message.get("content") or message.get("tool_call_chunks")):
                return
            # More of a message that ended reopens it, in blocks of their own.
            streamed.finished = False
            streamed.text = None
            streamed.blocks.clear()
            streamed.calls.clear()
        self._chunk(message_id, message, streamed, out)
        if message.get("chunk_position") == "last":
            self._finish_message(message_id, out)

    def _whole(self, namespace: str, message: Any, final: bool, out: list[dict[str, Any]]) -> bool:
        """A message sent whole so far (``final``: finished): whether it is one
        this reads (an AI's or a tool's, with an id)."""
        if not isinstance(message, dict):
            return False
        message_id = message.get("id")
        if not isinstance(message_id, str) or not message_id:
            return False
        kind = message.get("type")
        streamed = self._messages.get(message_id)
        if streamed is None:
            last = self._last.get((namespace, self._event_node))
            if last is not None and empty_end(message):
                self._finish_message(last, out)  # the empty message that ends the one before it
                return True
            if kind not in {"tool", "ai"} and kind not in CHUNK_TYPES:
                return False
            streamed = self._messages[message_id] = _Streamed(
                namespace, self._node(message_id), snapshots=True
            )
            self._last[(namespace, self._event_node)] = message_id
            if kind == "tool":
                self._tool_result(message_id, message, streamed, out)
                return True
            out.append(
                ev.message_started(message_id, "assistant", "message", _parts(namespace), streamed.node)
            )
        self._last[(namespace, self._event_node)] = message_id
        if streamed.finished or not streamed.snapshots:
            return True  # (sent again after it ended, or streamed in chunks: it stands)
        self._snapshot(message_id, streamed, message, final, out)
        if final:
            self._finish_message(message_id, out)
        return True

    def _snapshot(
        self,
        message_id: str,
        streamed: _Streamed,
        message: dict[str, Any],
        final: bool,
        out: list[dict[str, Any]],
    ) -> None:
        metadata = message.get("response_metadata")
        if isinstance(metadata, dict):
            _read_metadata(streamed, metadata)
        usage = message.get("usage_metadata")
        if isinstance(usage, dict) and usage:
            streamed.usage = dict(usage)  # (the message's whole so far)
        content = message.get("content")
        if isinstance(content, str):
            if content:
                self._held(message_id, streamed, "text", "text", out).snapshot(content, True, out)
        elif isinstance(content, list):
            for position, block in enumerate(content):
                if isinstance(block, str):
                    if block:
                        key = "text" if position == 0 else f"#{position}"
                        self._held(message_id, streamed, key, "text", out).snapshot(block, True, out)
                elif isinstance(block, dict):
                    self._whole_block(message_id, streamed, block, position, out)
        calls = message.get("tool_calls")
        invalid = message.get("invalid_tool_calls")
        for prefix, found in (("#", calls), ("#invalid-", invalid)):
            for position, call in enumerate(found if isinstance(found, list) else ()):
                if not isinstance(call, dict):
                    continue
                call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
                fields = {"call_id": call_id, "name": call.get("name"), "tool": "function"}
                key = call_id or f"{prefix}{position}"
                held = self._held(message_id, streamed, key, "tool_call", out, fields=fields)
                args = call.get("args")
                if args is not None:
                    # (parsed: its JSON's closing brackets move as it grows)
                    held.snapshot(args if isinstance(args, str) else dumps(args), final, out)

    def _whole_block(
        self,
        message_id: str,
        streamed: _Streamed,
        block: dict[str, Any],
        position: int,
        out: list[dict[str, Any]],
    ) -> None:
        kind = block.get("type")
        key = dumps(block.get("index", position))
        if kind == "text":
            held = self._held(message_id, streamed, key, "text", out)
            field = "text"
        elif kind in _REASONING:
            held = self._held(message_id, streamed, key, "reasoning", out)
            field = _REASONING[kind]
        else:
            streamed.others[key] = block
            return
        text = block.get(field)
        if isinstance(text, str) and text:
            held.snapshot(text, True, out)
        signature = block.get("signature")
        if field != "text" and isinstance(signature, str) and signature:
            self._signature(message_id, streamed, held.index, signature, out)

    @staticmethod
    def _signature(
        message_id: str, streamed: _Streamed, index: int, signature: str, out: list[dict[str, Any]]
    ) -> None:
        """A reasoning block's signature, sent when it is new."""
        if streamed.signatures.get(index) != signature:
            streamed.signatures[index] = signature
            out.append(_signed(message_id, index, signature, streamed))

    def _held(
        self,
        message_id: str,
        streamed: _Streamed,
        key: str,
        kind: str,
        out: list[dict[str, Any]],
        *,
        fields: dict[str, Any] | None = None,
    ) -> ev.Held:
        """The block a snapshot's part (by its key) streams into, started the first time."""
        calls = kind == "tool_call"
        keyed = streamed.calls if calls else streamed.blocks
        index = keyed.get(key)
        if index is None:
            index = keyed[key] = self._block(message_id, kind, out, **(fields or {}))
            streamed.held[index] = ev.Held(message_id, index, "arguments" if calls else "text")
        return streamed.held[index]

    def _finish_step(self, namespace: str, nodes: set[str] | None, out: list[dict[str, Any]]) -> None:
        """A step of a graph ended (its values, or the updates of ``nodes``,
        came): the messages those nodes streamed are whole."""
        for message_id, streamed in self._messages.items():
            if streamed.namespace != namespace or streamed.finished:
                continue
            if nodes is None or streamed.node is None or streamed.node in nodes:
                self._finish_message(message_id, out)

    def _chunk(
        self, message_id: str, chunk: dict[str, Any], streamed: _Streamed, out: list[dict[str, Any]]
    ) -> None:
        metadata = chunk.get("response_metadata")
        if isinstance(metadata, dict):
            _read_metadata(streamed, metadata)
        usage = chunk.get("usage_metadata")
        if isinstance(usage, dict) and usage:
            streamed.usage = _added(streamed.usage, usage)
        content = chunk.get("content")
        if isinstance(content, str) and content:
            self._text(message_id, streamed, content, out)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, str) and block:
                    self._text(message_id, streamed, block, out)
                elif isinstance(block, dict):
                    self._content_block(message_id, streamed, block, out)
        calls = chunk.get("tool_call_chunks")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                self._call_chunk(message_id, streamed, call, out)

    def _text(self, message_id: str, streamed: _Streamed, text: str, out: list[dict[str, Any]]) -> None:
        if streamed.text is None:
            streamed.text = self._block(message_id, "text", out)
        out.append(ev.block_delta(message_id, streamed.text, text))

    def _content_block(
        self, message_id: str, streamed: _Streamed, block: dict[str, Any], out: list[dict[str, Any]]
    ) -> None:
        kind = block.get("type")
        key = block.get("index", len(streamed.blocks))
        if kind == "text":
            text = block.get("text")
            index = streamed.blocks.get(key)
            if index is None:
                index = streamed.blocks[key] = self._block(message_id, "text", out)
            if isinstance(text, str) and text:
                out.append(ev.block_delta(message_id, index, text))
        elif kind in _REASONING:
            index = streamed.blocks.get(key)
            if index is None:
                index = streamed.blocks[key] = self._block(message_id, "reasoning", out)
            text = block.get(_REASONING[kind])
            if isinstance(text, str) and text:
                out.append(ev.block_delta(message_id, index, text))
            signature = block.get("signature")
            if isinstance(signature, str) and signature:
                out.append(_signed(message_id, index, signature, streamed))
        else:
            out.append(ev.passthrough("langgraph", {"content_block": block, "message_id": message_id}))

    def _call_chunk(
        self, message_id: str, streamed: _Streamed, call: dict[str, Any], out: list[dict[str, Any]]
    ) -> None:
        key = call.get("index")
        if key is None:
            key = f"call-{len(streamed.calls)}"
        index = streamed.calls.get(key)
        if index is None:
            call_id = call.get("id") if isinstance(call.get("id"), str) else None
            index = streamed.calls[key] = self._block(
                message_id, "tool_call", out, call_id=call_id, name=call.get("name"), tool="function"
            )
        args = call.get("args")
        if isinstance(args, str) and args:
            out.append(ev.block_delta(message_id, index, args))

    def _tool_result(
        self, message_id: str, message: dict[str, Any], streamed: _Streamed, out: list[dict[str, Any]]
    ) -> None:
        namespace = _parts(streamed.namespace)
        out.append(ev.message_started(message_id, "tool", "tool_result", namespace, streamed.node))
        index = self._block(
            message_id,
            "tool_result",
            out,
            call_id=message.get("tool_call_id"),
            name=message.get("name"),
            tool="function",
        )
        content = message.get("content")
        text = content if isinstance(content, str) else dumps(content)
        if text:
            out.append(ev.block_delta(message_id, index, text))
        out.append(ev.block_finished(message_id, index))
        out.append(ev.message_finished(message_id, None, None))
        streamed.finished = True


def _read_metadata(streamed: _Streamed, metadata: dict[str, Any]) -> None:
    """What a message's response metadata says: its provider, its finish reason."""
    provider = metadata.get("model_provider")
    if isinstance(provider, str) and provider:
        streamed.provider = provider
    reason = metadata.get("finish_reason", metadata.get("stop_reason"))
    if isinstance(reason, str) and reason:
        streamed.reason = reason


def _signed(message_id: str, index: int, signature: str, streamed: _Streamed) -> dict[str, Any]:
    """A reasoning block's signature, its provider's (the chunks name it)."""
    by = streamed.provider or "langgraph"
    return ev.block_replaced(message_id, index, {"encrypted": signature, "encrypted_by": by})


def _added(held: dict[str, Any] | None, usage: dict[str, Any]) -> dict[str, Any]:
    """The usage added up, as a new dict: the one held may be in a
    ``message_finished`` already sent (a message that reopens adds on)."""
    if held is None:
        return dict(usage)
    added = dict(held)
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        left, right = ev.as_int(held.get(key)), ev.as_int(usage.get(key))
        if right is not None:
            added[key] = (left or 0) + right
    return added


class Encoder(ev.RecordsLosses):
    """Neutral events to a LangGraph Agent Server stream."""

    protocol = "langgraph"
    carries_namespaces = True
    #: The graph's values, written at the run's end as the state leaves them.
    carries_state = True

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(self, run_id: str | None = None, node: str | None = None) -> None:
        self._lost: list[tuple[str, str]] = []
        # A message written in a subgraph: the name its events take
        # (``messages|inner:<task>``).
        self._names: dict[str, str] = {}
        self._run_id = run_id
        self._node = node or "model"
        self._nodes: dict[str, str] = {}  # a message's own node, where its start names one
        self._started = False
        self._finished = False
        self._state: dict[str, Any] = {}
        # Each message written, as it adds up (the values' messages), in order.
        self._written: dict[str, ChunkedMessage | dict[str, Any]] = {}
        self._others: set[str] = set()
        self._listed: set[str] = set()  # messages whose content is a list of blocks
        # A message's text block written as string content: its first; any
        # other is a block of the list, so that it reads back as one.
        self._string_block: dict[str, int] = {}
        self._blocks: dict[tuple[str, int], tuple[str, int, dict[str, Any]]] = {}
        self._calls: dict[str, int] = {}  # a message: its tool calls so far

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        kind = ev.as_str(event.get("type"))
        if kind == "run_started" and not self._started and self._run_id is None:
            self._run_id = ev.as_str(event.get("run_id"))
        if not self._started and kind != "passthrough":
            self._started = True
            # (a run id the source did not give is the same on every run, and both backends)
            out.append({"event": "metadata", "data": {"run_id": self._run_id or "run", "attempt": 1}})
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    # --- internals -----------------------------------------------------------

    def _chunk(self, message_id: str, out: list[dict[str, Any]], **fields: Any) -> None:
        chunk: dict[str, Any] = {
            "content": fields.pop("content", ""),
            "additional_kwargs": {},
            "response_metadata": fields.pop("response_metadata", {}),
            "type": "AIMessageChunk",
            "name": None,
            "id": message_id,
            "tool_calls": [],
            "invalid_tool_calls": [],
            "usage_metadata": fields.pop("usage_metadata", None),
            "tool_call_chunks": fields.pop("tool_call_chunks", []),
            "chunk_position": fields.pop("chunk_position", None),
        }
        held = self._written.get(message_id)
        if isinstance(held, ChunkedMessage):
            held.add(chunk)
        else:
            self._written[message_id] = ChunkedMessage(chunk)
        out.append(
            {
                "event": self._names.get(message_id, "messages"),
                "data": [chunk, {"langgraph_node": self._nodes.get(message_id, self._node)}],
            }
        )

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return
        if event.get("role") in ("user", "system", "developer"):
            self._others.add(message_id)
        namespace = ev.as_namespace(event.get("namespace"))
        if namespace is not None:
            self._names[message_id] = "|".join(["messages", *namespace])
        node = ev.as_str(event.get("node"))
        if node:
            self._nodes[message_id] = node

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        if key is None:
            return
        message_id, _ = key
        kind = ev.as_str(event.get("kind")) or ""
        if message_id in self._others:
            self._lost.append(ev.other_role_loss(self.protocol, kind))
            return
        if kind in ("text", "refusal"):
            if kind == "refusal":
                self._lost.append(ev.refusal_loss(self.protocol))
            self._blocks[key] = ("text", 0, {})
        elif kind == "reasoning":
            self._listed.add(message_id)
            self._blocks[key] = ("reasoning", 0, {})
        elif kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            position = self._calls.get(message_id, 0)
            self._calls[message_id] = position + 1
            self._blocks[key] = ("tool_call", position, {})
            # Its name and id go at once, as a provider's first chunk of a call does.
            chunk = {
                "name": ev.as_str(event.get("name")),
                "args": "",
                "id": ev.as_str(event.get("call_id")),
                "index": position,
                "type": "tool_call_chunk",
            }
            self._chunk(message_id, out, tool_call_chunks=[chunk])
        elif kind == "tool_result":
            self._blocks[key] = (
                "tool_result",
                0,
                {"call_id": event.get("call_id"), "name": event.get("name"), "output": []},
            )
        else:
            self._lost.append(ev.block_loss(self.protocol, kind))

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key) if key is not None else None
        delta = event.get("delta")
        if found is None or key is None or not isinstance(delta, str) or not delta:
            return
        message_id, index = key
        kind, position, held = found
        if kind == "tool_result":
            held["output"].append(delta)
        elif kind == "tool_call":
            chunk = {"name": None, "args": delta, "id": None, "index": position, "type": "tool_call_chunk"}
            self._chunk(message_id, out, tool_call_chunks=[chunk])
        elif kind == "reasoning":
            self._chunk(message_id, out, content=[{"type": "reasoning", "reasoning": delta, "index": index}])
        elif message_id in self._listed or self._string_block.setdefault(message_id, index) != index:
            self._chunk(message_id, out, content=[{"type": "text", "text": delta, "index": index}])
        else:
            self._chunk(message_id, out, content=delta)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key) if key is not None else None
        if found is None or key is None:
            return
        kind = found[0]
        if kind == "tool_result" and "output" in event:
            output = event["output"]
            # A tool message's content is text here: any other value as its JSON.
            text = "" if output is None else output if isinstance(output, str) else dumps(output)
            held = found[2]
            if output is not None and not isinstance(output, str) and "".join(held["output"]) != text:
                self._lost.append(ev.result_as_json_loss(self.protocol))
            held["output"] = [text]
        if kind in ("text", "reasoning") and isinstance(event.get("text"), str):
            self._lost.append(ev.correction_loss(self.protocol, kind))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        signature = event.get("encrypted")
        if kind == "reasoning" and isinstance(signature, str) and signature:
            self._chunk(key[0], out, content=[{"type": "reasoning", "signature": signature, "index": key[1]}])
        elif ev.has_signature(event):
            self._lost.append(ev.signature_loss(self.protocol))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.pop(key, None) if key is not None else None
        if found is None or key is None:
            return
        kind, _, held = found
        if kind != "tool_result":
            return
        # A result in an assistant's message (not a tool's) is a tool message of its own.
        tool_id = (
            f"{key[0]}-result-{key[1]}" if isinstance(self._written.get(key[0]), ChunkedMessage) else key[0]
        )
        message = {
            "content": "".join(held["output"]),
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "tool",
            "name": held["name"],
            "id": tool_id,
            "tool_call_id": held["call_id"],
            "artifact": None,
            "status": "success",
        }
        self._written[tool_id] = message
        metadata = {"langgraph_node": self._nodes.get(key[0], "tools")}
        out.append({"event": self._names.get(key[0], "messages"), "data": [message, metadata]})

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str) or not isinstance(self._written.get(message_id), ChunkedMessage):
            return
        metadata: dict[str, Any] = {}
        reason = ev.as_str(event.get("stop_reason"))
        if reason:
            metadata["finish_reason"] = reason
        usage = event.get("usage")
        usage_metadata = _usage(usage) if isinstance(usage, dict) else None
        content: Any = [] if message_id in self._listed else ""
        self._chunk(
            message_id,
            out,
            content=content,
            response_metadata=metadata,
            usage_metadata=usage_metadata,
            chunk_position="last",
        )

    def _state_snapshot(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        snapshot = event.get("snapshot")
        if isinstance(snapshot, dict):
            self._state = dict(snapshot)

    def _state_patch(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # The values written at the end hold the state as the patches leave it.
        try:
            state = apply_patch(self._state, event.get("patch"), Budget(None))
        except PatchError as exc:
            self._lost.append(("state_patch", f"a state patch that does not apply was not written: {exc}"))
            return
        if isinstance(state, dict):
            self._state = state

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # (an interrupt is what the graph asks, which the vocabulary does not hold)
        self._lost.extend(ev.status_loss(self.protocol, event.get("status"), "completed"))
        self._lost.extend(ev.usage_loss(self.protocol, event))
        # A stop reason is a message's (its response metadata): the run's has
        # no place.
        self._lost.extend(stop_reasons.loss(self.protocol, event.get("stop_reason")))
        messages = [
            held.message() if isinstance(held, ChunkedMessage) else held for held in self._written.values()
        ]
        out.append({"event": "values", "data": {**self._state, "messages": messages}})
        self._finished = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._lost.extend(ev.usage_loss(self.protocol, event))
        code = ev.as_str(event.get("code")) or "Error"
        out.append(
            {"event": "error", "data": {"error": code, "message": ev.as_str(event.get("message")) or ""}}
        )
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if (
            event.get("protocol") == "langgraph"
            and isinstance(inner, dict)
            and isinstance(inner.get("event"), str)
        ):
            data = inner.get("data")
            if inner["event"] in ("messages/partial", "messages/complete") and isinstance(data, list):
                # The legacy mode's messages, whole so far: the values' messages too.
                for message in data:
                    self._written_whole(message)
            out.append({"event": inner["event"], "data": data})

    def _written_whole(self, message: Any) -> None:
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            return
        if message["id"] not in self._written and empty_end(message) and self._written:
            return  # (the empty message that ends another: the thread never keeps it)
        self._written[message["id"]] = message


def _usage(usage: dict[str, Any]) -> dict[str, Any] | None:
    found = {
        key: usage[key]
        for key in ("input_tokens", "output_tokens", "total_tokens")
        if ev.as_int(usage.get(key)) is not None
    }
    if not found:
        return None
    found.setdefault("input_tokens", 0)
    found.setdefault("output_tokens", 0)
    found.setdefault("total_tokens", found["input_tokens"] + found["output_tokens"])
    return found


_ENCODERS = {
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_finished": Encoder._block_finished,
    "block_replaced": Encoder._block_replaced,
    "state_snapshot": Encoder._state_snapshot,
    "state_patch": Encoder._state_patch,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "passthrough": Encoder._passthrough,
}
