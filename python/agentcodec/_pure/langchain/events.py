"""The LangChain Agent Streaming Protocol to and from the neutral vocabulary:
the pure-Python mirror of ``rust/langchain/events.rs``.

Decoding: the ``messages`` channel's events are messages of blocks already
(a message per namespace and node); ``content-block-finish`` is a snapshot
(what it adds is a delta; tool arguments compare as JSON); ``lifecycle``
events start, finish or fail the run, those of a subgraph (a namespace
below the run's, the first lifecycle event's) passing through; other
channels pass through.

Encoding: envelopes as the protocol's servers write them (``type: event``,
``event_id``, ``seq`` from 1, ``method``, ``params`` with namespace, node,
timestamp and data), a ``message-start`` per message, blocks started,
streamed with their delta variants and finished with the finalized block
(``tool_call`` with parsed arguments, or ``invalid_tool_call``). One message
at a time per namespace and node: a message that starts ends the one before
in its namespace; a subgraph's messages stream beside the run's.
"""

from __future__ import annotations

import time
from typing import Any

from ... import _json
from .. import events as ev
from .. import stop_reasons
from ..json_values import JSONValueError, loads
from ..protocol import frame, sse_field
from .assembler import recognizes

__all__ = ["Decoder", "Encoder"]

ROLES_IN = {"ai": "assistant", "human": "user", "system": "system", "tool": "tool"}
ROLES_OUT = {value: key for key, value in ROLES_IN.items()}
MEDIA = frozenset({"image", "audio", "video", "file"})
LIFECYCLE = {"completed": "completed", "interrupted": "interrupted"}
INVALID_JSON = "Failed to parse tool call arguments as JSON"
# Usage keys in either spelling, and the neutral (snake_case) name.
USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "inputTokens": "input_tokens",
    "output_tokens": "output_tokens",
    "outputTokens": "output_tokens",
    "total_tokens": "total_tokens",
    "totalTokens": "total_tokens",
}


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    return {USAGE_KEYS[key]: value for key, value in usage.items() if key in USAGE_KEYS} or None


def _first(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return None


def _same_json(text: str, value: Any) -> bool:
    """Whether ``text`` is the JSON of ``value``, compared as written (so
    that 1 and 1.0, or true and 1, differ as they do on the wire)."""
    try:
        return _json.dumps(loads(text)) == _json.dumps(value)
    except JSONValueError:
        return False


class _Block:
    __slots__ = ("held", "kind", "open")

    def __init__(self, kind: str, held: ev.Held | None) -> None:
        self.kind = kind
        self.held = held
        self.open = True


class _Message:
    __slots__ = ("blocks", "call_id", "id")

    def __init__(self, message_id: str, call_id: Any) -> None:
        self.id = message_id
        # A tool message's call: its text blocks are the call's result.
        self.call_id = call_id
        self.blocks: dict[int, _Block] = {}


class Decoder:
    """LangChain protocol messages to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "langchain"

    def __init__(self) -> None:
        self._active: dict[tuple[str, str | None], _Message] = {}
        self._count = 0
        self._started = False
        # The run's namespace: the first lifecycle event's.
        self._run_namespace: list[str] | None = None

    def decode(self, envelope: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        params = envelope.get("params")
        data = params.get("data") if isinstance(params, dict) else None
        method = envelope.get("method")
        if envelope.get("type", "event") != "event" or not isinstance(data, dict):
            out.append(ev.passthrough("langchain", envelope))
        elif method == "messages":
            self._messages_event(params, data, envelope, out)  # type: ignore[arg-type]
        elif method == "lifecycle":
            if self._of_subgraph(params.get("namespace")):  # type: ignore[union-attr]
                out.append(ev.passthrough("langchain", envelope))
            else:
                self._lifecycle(data, envelope, out)
        else:
            out.append(ev.passthrough("langchain", envelope))
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _of_subgraph(self, namespace: Any) -> bool:
        """Whether a lifecycle event is a subgraph's: in a namespace of str
        below the run's. The first is the run's."""
        if not isinstance(namespace, list) or not all(isinstance(part, str) for part in namespace):
            return False
        if self._run_namespace is None:
            self._run_namespace = list(namespace)
            return False
        run = self._run_namespace
        return len(namespace) > len(run) and namespace[: len(run)] == run

    def _lifecycle(self, data: dict[str, Any], envelope: dict[str, Any], out: list[dict[str, Any]]) -> None:
        kind = ev.as_str(data.get("event"))
        # (a server says the root graph is "running" where a writer says it "started")
        if kind in ("started", "running") and not self._started:
            self._started = True
            out.append(ev.run_started())
        elif kind in LIFECYCLE:
            out.append(ev.run_finished(LIFECYCLE[kind]))
        elif kind == "failed":
            error = data.get("error")
            out.append(ev.run_failed(None, error if isinstance(error, str) else None))
        else:
            out.append(ev.passthrough("langchain", envelope))

    def _message(
        self,
        key: tuple[str, str | None],
        data: dict[str, Any],
        namespace: list[str] | None,
        out: list[dict[str, Any]],
    ) -> _Message:
        self._count += 1
        name = ev.as_str(_first(data, "id", "message_id", "messageId")) or f"message-{self._count}"
        role = ROLES_IN.get(ev.as_str(data.get("role")) or "", "assistant")
        call_id = _first(data, "tool_call_id", "toolCallId") if role == "tool" else None
        message = self._active[key] = _Message(name, call_id)
        kind = "tool_result" if role == "tool" else None
        out.append(ev.message_started(name, role, kind, namespace, key[1] or None))
        return message

    def _messages_event(
        self,
        params: dict[str, Any],
        data: dict[str, Any],
        envelope: dict[str, Any],
        out: list[dict[str, Any]],
    ) -> None:
        namespace = params.get("namespace")
        node = params.get("node")
        # The namespace as written: its parts may be any JSON value.
        key = (
            _json.dumps(namespace) if isinstance(namespace, list) else "[]",
            node if isinstance(node, str) else None,
        )
        kind = data.get("event")
        if kind == "message-start":
            previous = self._active.pop(key, None)
            if previous is not None:
                self._finish_message(previous, {}, out)
            self._message(key, data, ev.as_namespace(namespace), out)
            return
        if kind not in (
            "content-block-start",
            "content-block-delta",
            "content-block-finish",
            "message-finish",
            "error",
        ):
            out.append(ev.passthrough("langchain", envelope))
            return
        message = self._active.get(key) or self._message(key, {}, ev.as_namespace(namespace), out)
        if kind == "message-finish":
            del self._active[key]
            self._finish_message(message, data, out)
            return
        if kind == "error":
            del self._active[key]
            out.append(ev.run_failed(data.get("code"), data.get("message")))
            return
        index = ev.as_int(data.get("index"))
        if index is None or not 0 <= index < 2**53:
            out.append(ev.passthrough("langchain", envelope))
            return
        content = _first(data, "content", "content_block", "contentBlock")
        if kind == "content-block-start":
            if isinstance(content, dict):
                self._start(message, index, content, out)
        elif kind == "content-block-finish":
            if isinstance(content, dict):
                block = message.blocks.get(index) or self._start(message, index, content, out)
                self._snapshot(message, index, block, content, out)
                if block.open:
                    block.open = False
                    if block.held is not None:
                        block.held.flush(out)
                    out.append(ev.block_finished(message.id, index))
        else:
            delta = data.get("delta")
            found = message.blocks.get(index)
            block = found if found is not None else self._start(message, index, {"type": "text"}, out)
            if isinstance(delta, dict):
                self._delta(message, index, block, delta, out)
            elif isinstance(content, dict):  # a legacy block-shaped fragment
                self._delta(message, index, block, {**content, "type": "legacy"}, out)

    def _start(
        self, message: _Message, index: int, content: dict[str, Any], out: list[dict[str, Any]]
    ) -> _Block:
        kind_in = content.get("type")
        fields: dict[str, Any] = {}
        if kind_in == "text" and message.call_id is not None:
            kind = "tool_result"
            fields = {"call_id": message.call_id}
        elif kind_in in ("text", "reasoning"):
            kind = kind_in
        elif kind_in in (
            "tool_call_chunk",
            "tool_call",
            "server_tool_call_chunk",
            "server_tool_call",
            "invalid_tool_call",
        ):
            kind = "tool_call"
            fields = {
                "call_id": content.get("id"),
                "name": content.get("name"),
                "tool": "server" if str(kind_in).startswith("server") else "function",
            }
        elif isinstance(kind_in, str) and kind_in in MEDIA:
            kind = "media"
            fields = {
                "media_type": kind_in,
                "mime_type": _first(content, "mime_type", "mimeType"),
                "url": content.get("url"),
            }
        else:
            kind = "data"
            fields = {"value": content}
        field = ev.APPENDED_FIELD.get(kind)
        block = message.blocks[index] = _Block(kind, ev.Held(message.id, index, field) if field else None)
        out.append(ev.block_started(message.id, index, kind, **fields))
        self._snapshot(message, index, block, content, out)
        return block

    def _snapshot(
        self, message: _Message, index: int, block: _Block, content: dict[str, Any], out: list[dict[str, Any]]
    ) -> None:
        """A block's whole value (at its start or finish), as neutral events."""
        held = block.held
        if not block.open or held is None:
            return
        if block.kind in ("text", "reasoning", "tool_result"):
            value = content.get("text" if block.kind == "tool_result" else block.kind)
            if isinstance(value, str) and value:  # an empty finish does not erase what streamed
                held.snapshot(value, True, out)
        elif block.kind == "tool_call":
            args = content.get("args")
            if isinstance(args, str):
                held.snapshot(args, True, out)
            elif isinstance(args, dict):
                held.flush(out)
                if not _same_json(held.sent, args):
                    held.snapshot(_json.dumps(args), True, out)
        elif block.kind == "media":
            data = _first(content, "base64", "data")
            if isinstance(data, str) and data:
                held.snapshot(data, True, out)

    def _delta(
        self, message: _Message, index: int, block: _Block, delta: dict[str, Any], out: list[dict[str, Any]]
    ) -> None:
        kind = delta.get("type")
        piece: Any = None
        if kind == "text-delta":
            piece = delta.get("text")
        elif kind == "reasoning-delta":
            piece = delta.get("reasoning")
        elif kind == "tool-call-delta":
            piece = delta.get("args") or ""
        elif kind == "data-delta":
            piece = delta.get("data") if delta.get("encoding", "base64") in ("base64", None) else None
        elif kind == "legacy":
            piece = _first(delta, "text", "reasoning", "args", "data")
        elif kind == "block-delta":
            fields = delta.get("fields")
            if isinstance(fields, dict) and block.open:
                # The fields that name the neutral event itself cannot be replaced.
                replaced = {
                    key: value for key, value in fields.items() if key not in ("type", "message_id", "index")
                }
                # Arguments or text in a block-delta are cumulative snapshots.
                streamed = {"tool_call": "args", "tool_result": "text"}.get(block.kind, block.kind)
                if block.held is not None and isinstance(replaced.get(streamed), str):
                    block.held.snapshot(replaced.pop(streamed), False, out)
                if replaced:
                    out.append(ev.block_replaced(message.id, index, replaced))
            return
        if isinstance(piece, str) and block.open and block.held is not None:
            block.held.append(piece, out)

    def _finish_message(self, message: _Message, data: dict[str, Any], out: list[dict[str, Any]]) -> None:
        for index, block in message.blocks.items():
            if block.open:
                block.open = False
                if block.held is not None:
                    block.held.flush(out)
                out.append(ev.block_finished(message.id, index))
        metadata = _first(data, "metadata", "response_metadata", "responseMetadata")
        reason = _first(data, "reason", "finish_reason")
        if reason is None and isinstance(metadata, dict):
            reason = metadata.get("finish_reason")
        out.append(ev.message_finished(message.id, _usage(data.get("usage")), ev.as_str(reason)))


# --- encoding ----------------------------------------------------------------------------


class _Wire:
    """The message on the wire in one place: the protocol keys a message by
    its namespace and node, so a subgraph's messages stream beside the run's
    own, each in its namespace, and two nodes' beside each other."""

    __slots__ = ("current", "members", "namespace", "next_index")

    def __init__(self, namespace: list[str]) -> None:
        self.namespace = namespace  # in full: the encoder's, then the messages' own
        self.current: str | None = None  # the message open here
        # The neutral messages it carries, and whether each has finished.
        self.members: dict[str, bool] = {}
        self.next_index = 0  # the next block's index on the wire


class _Open:
    __slots__ = ("fields", "kind", "owner", "text", "wire")

    def __init__(self, kind: str, wire: int, fields: dict[str, Any], owner: _Wire) -> None:
        self.kind = kind
        self.wire = wire  # the block's index on the wire
        self.fields = fields
        self.owner = owner  # the namespace's wire its message is on
        self.text: list[str] = []


class Encoder(ev.RecordsLosses):
    """Neutral events to LangChain protocol envelopes (the messages and
    lifecycle channels)."""

    protocol = "langchain"
    carries_namespaces = True

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(
        self, namespace: list[str] | None = None, node: str | None = "model", timestamp: int | None = None
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        # The stream's namespace: the lifecycle's, and the one every
        # message's own (a subgraph's path) is under.
        self._namespace = list(namespace or [])
        self._message_namespaces: dict[str, tuple[str, ...]] = {}
        # Each place's wire (by the messages' own namespace and node), in the order first written.
        self._wires: dict[tuple[tuple[str, ...], str | None], _Wire] = {}
        self._node = node  # a message's own node, where it names one, before this
        self._message_nodes: dict[str, str] = {}
        self._timestamp = timestamp
        self._seq = 0
        self._roles: dict[str, str] = {}
        self._pending: str | None = None  # started, announced with its first block
        self._blocks: dict[tuple[str, int], _Open] = {}
        self._ended = False

    def has_ended_before(self, kind: str) -> bool:
        return self._ended

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._ended:
            return out  # the run has ended
        handler = _ENCODERS.get(ev.as_str(event.get("type")) or "")
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _envelope(self, method: str, data: Any, wire: _Wire | None = None) -> dict[str, Any]:
        self._seq += 1
        namespace = self._namespace if wire is None else wire.namespace
        params: dict[str, Any] = {"namespace": list(namespace)}
        params["timestamp"] = self._timestamp if self._timestamp is not None else int(time.time() * 1000)
        node = self._node
        if wire is not None and wire.current is not None:
            node = self._message_nodes.get(wire.current, node)
        if node is not None and method == "messages":
            params["node"] = node
        params["data"] = data
        return {
            "type": "event",
            "event_id": f"evt-{self._seq}",
            "seq": self._seq,
            "method": method,
            "params": params,
        }

    def _run_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        out.append(self._envelope("lifecycle", {"event": "started"}))

    def _wire_of(self, message_id: str) -> _Wire:
        own = self._message_namespaces.get(message_id, ())
        place = (own, self._message_nodes.get(message_id))
        wire = self._wires.get(place)
        if wire is None:
            wire = self._wires[place] = _Wire(self._namespace + list(own))
        return wire

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        for wire in self._wires.values():
            self._end_message(wire, None, out)
        # The lifecycle has no "cancelled" or "incomplete": a stopped run is
        # interrupted, a cut answer completed.
        status = "interrupted" if event.get("status") in ("interrupted", "cancelled") else "completed"
        self._lost.extend(ev.status_loss(self.protocol, event.get("status"), status))
        # Usage is a message's: the run's has no place; nor has a stop
        # reason, but as its messages say it.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        self._lost.extend(stop_reasons.loss(self.protocol, event.get("stop_reason")))
        out.append(self._envelope("lifecycle", {"event": status}))
        self._ended = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # Usage is a message's: the run's has no place.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        message = ev.as_str(event.get("message")) or "run failed"
        # The error ends the first message still open (the run's, unless
        # only a subgraph's is); the lifecycle ends the rest.
        wire = next((wire for wire in self._wires.values() if wire.current is not None), None)
        if wire is not None:
            error: dict[str, Any] = {"event": "error", "message": message}
            if isinstance(event.get("code"), str):
                error["code"] = event["code"]
            out.append(self._envelope("messages", error, wire))
            self._blocks.clear()
        else:
            # The lifecycle's failure has only its text: a code rides on a
            # message's error.
            self._lost.extend(ev.error_code_loss(self.protocol, event.get("code"), None))
        out.append(self._envelope("lifecycle", {"event": "failed", "error": message}))
        self._ended = True

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if isinstance(message_id, str):
            self._roles[message_id] = ROLES_OUT.get(ev.as_str(event.get("role")) or "", "ai")
            self._pending = message_id
            namespace = ev.as_namespace(event.get("namespace"))
            if namespace is not None:
                self._message_namespaces[message_id] = tuple(namespace)
            node = ev.as_str(event.get("node"))
            if node:
                self._message_nodes[message_id] = node

    def _announce(self, message_id: str, out: list[dict[str, Any]], call_id: Any = None) -> None:
        """Writes the message's start, ending the one on its namespace's wire
        before it. An assistant message that starts while an assistant
        message is on the wire joins it: one AI message holds its reasoning,
        text and tool calls, however many messages the source split them
        into. A subgraph's messages are on a wire of their own."""
        wire = self._wire_of(message_id)
        if message_id in wire.members:
            return
        if wire.current is not None:
            if self._roles.get(message_id, "ai") == "ai" == self._roles.get(wire.current, "ai"):
                wire.members[message_id] = False
                return
            self._end_message(wire, None, out)
        start: dict[str, Any] = {
            "event": "message-start",
            "role": self._roles.get(message_id, "ai"),
            "id": message_id,
        }
        if start["role"] == "tool" and isinstance(call_id, str):
            start["tool_call_id"] = call_id
        wire.current = message_id
        wire.members = {message_id: False}
        wire.next_index = 0
        out.append(self._envelope("messages", start, wire))

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index, kind = event.get("message_id"), ev.as_int(event.get("index")), event.get("kind")
        if not isinstance(message_id, str) or index is None or not isinstance(kind, str):
            return
        self._announce(message_id, out, event.get("call_id"))
        if kind == "refusal":
            self._lost.append(ev.refusal_loss(self.protocol))
        self._lost.extend(ev.server_loss(self.protocol, event))
        self._lost.extend(ev.tool_kind_loss(self.protocol, event, ("server",)))
        fields = {name: event.get(name) for name in ev.BLOCK_FIELDS.get(kind, ())}
        wire = self._wire_of(message_id)
        block = _Open(kind, wire.next_index, fields, wire)
        wire.next_index += 1
        self._blocks[(message_id, index)] = block
        out.append(
            self._envelope(
                "messages",
                {
                    "event": "content-block-start",
                    "index": block.wire,
                    "content": self._content(block, final=False),
                },
                wire,
            )
        )

    def _content(self, block: _Open, final: bool) -> dict[str, Any]:
        text = "".join(block.text)
        if block.kind == "reasoning":
            return {"type": "reasoning", "reasoning": text}
        if block.kind == "tool_call":
            call: dict[str, Any] = {"id": block.fields.get("call_id"), "name": block.fields.get("name")}
            # A provider's server tool (a web search the model ran) has
            # blocks of its own; an invalid call is one kind for both.
            server = "server_" if block.fields.get("tool") == "server" else ""
            if not final:
                return {"type": f"{server}tool_call_chunk", **call, "args": text}
            try:
                args = loads(text) if text else {}
            except JSONValueError:
                args = None
            if isinstance(args, dict):
                return {"type": f"{server}tool_call", **call, "args": args}
            return {"type": "invalid_tool_call", **call, "args": text, "error": INVALID_JSON}
        if block.kind == "media":
            media: dict[str, Any] = {"type": block.fields.get("media_type") or "file"}
            if block.fields.get("mime_type") is not None:
                media["mime_type"] = block.fields["mime_type"]
            if block.fields.get("url") is not None:
                media["url"] = block.fields["url"]
            if final and text:
                media["base64"] = text
            return media
        if block.kind == "data":
            return {"type": "non_standard", "value": block.fields.get("value")}
        return {"type": "text", "text": text}

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        piece = event.get("delta")
        if block is None or not isinstance(piece, str) or not piece:
            return
        block.text.append(piece)
        if block.kind == "reasoning":
            delta = {"type": "reasoning-delta", "reasoning": piece}
        elif block.kind == "tool_call":
            delta = {"type": "tool-call-delta", "args": piece}
        elif block.kind == "media":
            delta = {"type": "data-delta", "data": piece}
        else:
            delta = {"type": "text-delta", "text": piece}
        out.append(
            self._envelope(
                "messages", {"event": "content-block-delta", "index": block.wire, "delta": delta}, block.owner
            )
        )

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if block is None:
            return
        field = ev.APPENDED_FIELD.get(block.kind)
        fields: dict[str, Any] = {"type": self._content(block, final=False)["type"]}
        for name, given in event.items():
            key, value = name, given
            if key in ("type", "message_id", "index"):
                continue
            if key == field and block.kind == "tool_result" and not isinstance(value, (str, type(None))):
                # A tool's result is a tool message's text: any other value as its JSON.
                value = _json.dumps(value)
                # Once a block: the same value again is the same text.
                if "".join(block.text) != value:
                    self._lost.append(ev.result_as_json_loss(self.protocol))
            if key == field and isinstance(value, str):
                block.text = [value]
                key = {
                    "text": "reasoning" if block.kind == "reasoning" else "text",
                    "arguments": "args",
                    "data": "base64",
                    "output": "text",
                }[field]
            elif key in block.fields:
                block.fields[key] = value
            fields[key] = value
        out.append(
            self._envelope(
                "messages",
                {
                    "event": "content-block-delta",
                    "index": block.wire,
                    "delta": {"type": "block-delta", "fields": fields},
                },
                block.owner,
            )
        )

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.pop(ev.block_key(event), None)  # type: ignore[arg-type]
        if block is None:
            return
        out.append(
            self._envelope(
                "messages",
                {
                    "event": "content-block-finish",
                    "index": block.wire,
                    "content": self._content(block, final=True),
                },
                block.owner,
            )
        )

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return
        wire = self._wire_of(message_id)
        if message_id not in wire.members:
            if message_id != self._pending:
                return
            self._announce(message_id, out)  # a message without blocks
        wire.members[message_id] = True
        if all(wire.members.values()):
            self._end_message(wire, event, out)

    def _end_message(self, wire: _Wire, event: dict[str, Any] | None, out: list[dict[str, Any]]) -> None:
        if wire.current is None:
            return
        for key in [key for key in self._blocks if key[0] in wire.members]:
            self._block_finished({"message_id": key[0], "index": key[1]}, out)
        finish: dict[str, Any] = {"event": "message-finish"}
        if event is not None and isinstance(event.get("usage"), dict):
            finish["usage"] = event["usage"]
        if event is not None and isinstance(event.get("stop_reason"), str):
            finish["finish_reason"] = event["stop_reason"]
        out.append(self._envelope("messages", finish, wire))
        wire.current = None
        wire.members = {}

    def keeps_own_event(self, passthrough: dict[str, Any]) -> bool:
        return _written_back(passthrough) is not None

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = _written_back(event)
        if inner is not None:
            self._seq += 1
            out.append({**inner, "event_id": f"evt-{self._seq}", "seq": self._seq})


def _written_back(passthrough: dict[str, Any]) -> dict[str, Any] | None:
    """The protocol's own event a ``passthrough`` holds, where it is one the
    encoder writes back: an event (``type: event``, or none), not a
    command's response or error."""
    inner = passthrough.get("event")
    if (
        passthrough.get("protocol") == "langchain"
        and isinstance(inner, dict)
        and inner.get("type", "event") == "event"
    ):
        return inner
    return None


_ENCODERS = {
    "run_started": Encoder._run_started,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_replaced": Encoder._block_replaced,
    "block_finished": Encoder._block_finished,
    "passthrough": Encoder._passthrough,
}


def envelope_frame(envelope: dict[str, Any]) -> bytes:
    """A protocol message as the Agent Server writes it: ``id:`` its
    ``seq``, ``event:`` its ``method``."""
    seq = envelope.get("seq")
    return frame(envelope, name=sse_field(envelope.get("method")), id=str(seq) if type(seq) is int else None)
