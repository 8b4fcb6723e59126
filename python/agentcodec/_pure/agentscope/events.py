"""AgentScope (``/process``) to and from the neutral vocabulary: the
pure-Python mirror of ``rust/agentscope/events.rs``.

Decoding: a message's type says what its contents are (reasoning text, a
tool call's data, a tool result's data); content deltas append; snapshots
(``delta`` false or null, the way agentscope-runtime's adapter streams tool
arguments) become the deltas they extend by, or a replacement; a completed
message's content is authoritative; content before its message starts one.

Encoding: the events agentscope-runtime's runner writes, in its models'
field order with every null: the response created and in progress, each
message announced, text and data streamed as deltas, each content and
message completed, the response completed with the completed messages,
``sequence_number`` counting from 0. A neutral message whose blocks are of
different kinds (reasoning, text, a tool call, as several protocols send
them) becomes one AgentScope message per kind, in order.
"""

from __future__ import annotations

import time
from typing import Any

from ..._vocabulary import tables
from .. import events as ev
from .assembler import recognizes

__all__ = ["Decoder", "Encoder"]

_VOCABULARY = tables("agentscope")

# AgentScope message type -> neutral message kind, and the tool it names.
MESSAGE_TYPES: dict[str, tuple[str, str | None]] = {
    "message": ("message", None),
    "reasoning": ("reasoning", None),
    "function_call": ("tool_call", "function"),
    "plugin_call": ("tool_call", "plugin"),
    "mcp_call": ("tool_call", "mcp"),
    "component_call": ("tool_call", "component"),
    "function_call_output": ("tool_result", "function"),
    "plugin_call_output": ("tool_result", "plugin"),
    "mcp_call_output": ("tool_result", "mcp"),
    "component_call_output": ("tool_result", "component"),
}
TOOL_TYPES = {
    "function": "function_call",
    "plugin": "plugin_call",
    "mcp": "mcp_call",
    "component": "component_call",
}
MEDIA_FIELDS = {"image": "image_url", "video": "video_url", "file": "file_url", "audio": "data"}
TERMINAL = {"completed": "completed", "canceled": "cancelled", "incomplete": "incomplete"}
ROLES = frozenset(_VOCABULARY["ROLES"])


class _Block:
    __slots__ = ("held", "kind", "media", "open")

    def __init__(self, kind: str, held: ev.Held | None) -> None:
        self.kind = kind
        self.held = held  # what its streamed field carried, for snapshots
        self.media: Any = None  # a media block's URL
        self.open = True


class _Message:
    __slots__ = ("blocks", "kind", "open", "tool")

    def __init__(self, kind: str, tool: str | None) -> None:
        self.kind = kind
        self.tool = tool
        self.blocks: dict[int, _Block] = {}
        self.open = True


class Decoder:
    """AgentScope events to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "agentscope"

    def __init__(self) -> None:
        self._started = False
        self._messages: dict[str, _Message] = {}
        self._unnamed = 0
        # The message id-less content goes to until an event of another
        # message ends it (see the assembler's _message_for).
        self._anonymous: str | None = None
        # The messages announced open and not ended, in the order they were
        # announced: id-less content goes to the last of them (see the
        # assembler's _content_message).
        self._announced: list[str] = []

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = event.get("object")
        if kind == "content":
            self._content(event, out)
        elif kind == "message":
            self._message(event, out)
        elif kind == "response":
            self._response(event, out)
        elif kind is None and "error" in event:
            error = event["error"]
            code, message = event.get("code"), error
            if isinstance(error, dict):
                code, message = error.get("code"), error.get("message")
            out.append(
                ev.run_failed(
                    ev.as_str(code) or ev.as_str(event.get("error_type")) or "stream_error",
                    ev.as_str(message),
                )
            )
        else:
            out.append(ev.passthrough("agentscope", event))
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _response(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if not self._started:
            self._started = True
            out.append(
                ev.run_started(event.get("id"), event.get("session_id"), None, event.get("created_at"))
            )
        status = ev.as_str(event.get("status"))
        if status in TERMINAL:
            out.append(ev.run_finished(TERMINAL[status], event.get("usage")))
        elif status in ("failed", "rejected"):
            error: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
            out.append(ev.run_failed(error.get("code"), error.get("message"), event.get("usage")))

    def _message(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = ev.as_str(event.get("id"))
        if message_id is not None and event.get("type") != "heartbeat":
            self._end_anonymous(out)  # as in the assembler, a heartbeat is no message
            if "status" in event:
                if event["status"] in ("created", "in_progress"):
                    if message_id not in self._announced:
                        self._announced.append(message_id)
                elif message_id in self._announced:
                    self._announced.remove(message_id)
        message_type = event.get("type", "message")
        if message_type == "mcp_approval_response" and event.get("role") == "tool":
            # The Java runtime's stream adapter sends a tool's result as an
            # approval response with the tool's role (a slip for
            # mcp_call_output); a real approval response comes from the user.
            message_type = "mcp_call_output"
        mapped = MESSAGE_TYPES.get(message_type) if isinstance(message_type, str) else None
        if message_id is None or mapped is None:
            if event.get("type") != "heartbeat":
                out.append(ev.passthrough("agentscope", event))
            return
        message = self._messages.get(message_id)
        if message is None:
            message = self._messages[message_id] = _Message(*mapped)
            role = event.get("role")
            out.append(
                ev.message_started(message_id, role if isinstance(role, str) else "assistant", mapped[0])
            )
        if event.get("status") != "completed" or not message.open:
            return
        # A completed message's content is authoritative, positioned by its
        # index (or its place in the list).
        content = event.get("content")
        for position, item in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(item, dict):
                continue
            index = item.get("index")
            index = ev.as_int(index)
            index = position if index is None else index
            if index not in message.blocks and self._is_empty(item):
                continue  # a stray empty slot, never streamed
            self._apply(message_id, message, index, item, snapshot=True, final=True, out=out)
        for index, block in message.blocks.items():
            self._finish_block(message_id, index, block, out)
        message.open = False
        out.append(ev.message_finished(message_id, event.get("usage")))

    @staticmethod
    def _is_empty(item: dict[str, Any]) -> bool:
        return item.get("type") == "text" and not item.get("text")

    def _end_anonymous(self, out: list[dict[str, Any]]) -> None:
        """An event of a message with an id ends the anonymous message: no
        more content can go to it, so it finishes."""
        message_id, self._anonymous = self._anonymous, None
        message = self._messages.get(message_id) if message_id is not None else None
        if message_id is None or message is None or not message.open:
            return
        for index, block in message.blocks.items():
            self._finish_block(message_id, index, block, out)
        message.open = False
        out.append(ev.message_finished(message_id, None))

    def _content(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = ev.as_str(event.get("msg_id"))
        if message_id is not None:
            self._end_anonymous(out)
        elif self._announced:
            message_id = self._announced[-1]
        elif self._anonymous is not None:
            message_id = self._anonymous
        else:
            self._unnamed += 1
            message_id = self._anonymous = f"msg-{self._unnamed}"
        message = self._messages.get(message_id)
        if message is None:
            # Content before (or without) its message: the message starts here.
            kind = "tool_call" if event.get("type") == "data" else "message"
            message = self._messages[message_id] = _Message(kind, "function" if kind == "tool_call" else None)
            out.append(ev.message_started(message_id, "assistant", kind))
        index = ev.as_int(event.get("index"))
        if index is None:
            index = min(max(message.blocks, default=-1) + 1, ev.INT_MAX)
        final = event.get("status") == "completed"
        self._apply(
            message_id, message, index, event, snapshot=event.get("delta") is not True, final=final, out=out
        )
        block = message.blocks.get(index)
        if block is not None and final:
            self._finish_block(message_id, index, block, out)

    @staticmethod
    def _finish_block(message_id: str, index: int, block: _Block, out: list[dict[str, Any]]) -> None:
        if block.open:
            block.open = False
            if block.held is not None:
                block.held.flush(out)
            out.append(ev.block_finished(message_id, index))

    def _apply(
        self,
        message_id: str,
        message: _Message,
        index: int,
        content: dict[str, Any],
        *,
        snapshot: bool,
        final: bool,
        out: list[dict[str, Any]],
    ) -> None:
        """A content's value into its block: appended, or as a snapshot."""
        block = message.blocks.get(index)
        content_type = ev.as_str(content.get("type"))
        data = content.get("data")
        if block is None:
            block = self._start(message_id, message, index, content, out)
        if not block.open:
            return
        if block.kind == "data":  # its value replaces
            out.append(ev.block_replaced(message_id, index, {"value": data}))
            return
        if block.kind == "media":
            value = content.get(MEDIA_FIELDS.get(content_type or "", "data"))
            if isinstance(value, str) and value != block.media:
                block.media = value
                out.append(ev.block_replaced(message_id, index, {"url": value}))
            return
        if block.kind in ("tool_call", "tool_result"):
            key = "arguments" if block.kind == "tool_call" else "output"
            value = data.get(key) if isinstance(data, dict) else None
        else:
            value = content.get("refusal" if content_type == "refusal" else "text")
        assert block.held is not None
        if not isinstance(value, str):
            if value is not None and block.kind == "tool_result":
                out.append(ev.block_replaced(message_id, index, {"output": value}))
            return
        if snapshot:
            block.held.snapshot(value, final, out)
        else:
            block.held.append(value, out)

    def _start(
        self,
        message_id: str,
        message: _Message,
        index: int,
        content: dict[str, Any],
        out: list[dict[str, Any]],
    ) -> _Block:
        content_type = ev.as_str(content.get("type"))
        data: dict[str, Any] = content["data"] if isinstance(content.get("data"), dict) else {}
        fields: dict[str, Any] = {}
        if content_type == "text":
            kind = "reasoning" if message.kind == "reasoning" else "text"
        elif content_type == "refusal":
            kind = "refusal"
        elif content_type == "data" and message.kind in ("tool_call", "tool_result"):
            kind = message.kind
            fields = {
                "call_id": data.get("call_id"),
                "name": data.get("name"),
                "tool": message.tool,
                "server": data.get("server_label"),
            }
        elif content_type in MEDIA_FIELDS:
            kind = "media"
            fields = {
                "media_type": content_type,
                "mime_type": content.get("format") if content_type == "audio" else None,
            }
        else:
            kind = "data"
        field = ev.APPENDED_FIELD.get(kind)
        held = ev.Held(message_id, index, field) if field is not None and kind != "media" else None
        block = message.blocks[index] = _Block(kind, held)
        out.append(ev.block_started(message_id, index, kind, **fields))
        return block


# --- encoding ----------------------------------------------------------------------------


def _content_fields(content_type: str) -> dict[str, Any]:
    return {
        "text": {"text": None},
        "refusal": {"refusal": None},
        "data": {"data": None},
        "image": {"image_url": None},
        "audio": {"data": None, "format": None},
        "video": {"video_url": None},
        "file": {"file_url": None, "file_id": None, "filename": None, "file_data": None},
    }[content_type]


class _Content:
    """A content of an AgentScope message being written: its type, index and
    the value it holds."""

    __slots__ = ("data", "index", "kind", "text", "type")

    def __init__(self, kind: str, content_type: str, index: int) -> None:
        self.kind = kind  # the neutral block kind
        self.type = content_type
        self.index = index
        self.text: list[str] = []  # what deltas appended
        self.data: dict[str, Any] = {}  # a data content's fixed keys, or a media content's fields


class _Written:
    """An AgentScope message being written."""

    __slots__ = ("count", "done", "id", "role", "type")

    def __init__(self, message_id: str, message_type: str, role: str) -> None:
        self.id = message_id
        self.type = message_type
        self.role = role
        self.count = 0  # contents opened so far: the next one's index
        self.done: dict[int, dict[str, Any]] = {}  # completed contents, by index

    def content(self) -> list[dict[str, Any]]:
        return [self.done[index] for index in sorted(self.done)]


class Encoder(ev.RecordsLosses):
    """Neutral events to AgentScope events, as agentscope-runtime writes them."""

    protocol = "agentscope"

    def __init__(
        self, session_id: str | None = None, response_id: str | None = None, created_at: int | None = None
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._session_id = session_id
        self._response_id = response_id
        self._created_at = created_at
        self._sequence = 0
        self._started = False
        self._ended = False
        self._output: list[dict[str, Any]] = []
        self._roles: dict[str, tuple[str, str | None]] = {}  # neutral message -> (role, kind)
        # neutral message -> the AgentScope message its blocks now go to.
        self._current: dict[str, _Written] = {}
        # The neutral messages that have finished: a block that starts in one
        # afterwards (some producers start a tool call in the text message
        # they ended) finishes its AgentScope message with it.
        self._finished: set[str] = set()
        self._used_ids: dict[str, int] = {}
        # (neutral message, block index) -> (AgentScope message, content).
        self._blocks: dict[tuple[str, int], tuple[_Written, _Content]] = {}

    def has_ended_before(self, kind: str) -> bool:
        return self._ended

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if self._ended:
            return out  # the response has ended: one run per stream
        if kind == "run_started" and not self._started:
            self._session_id = self._session_id or ev.as_str(event.get("thread_id")) or None
            self._response_id = self._response_id or ev.as_str(event.get("run_id")) or None
            created_at = event.get("created_at")
            if self._created_at is None and ev.as_int(created_at) is not None:
                self._created_at = created_at
        self._ensure_started(out)
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return []

    def _next(self) -> int:
        number = self._sequence
        self._sequence += 1
        return number

    def _response(self, status: str, out: list[dict[str, Any]], **fields: Any) -> None:
        terminal = status not in ("created", "in_progress")
        out.append(
            {
                "sequence_number": self._next(),
                "object": "response",
                "status": status,
                "error": fields.get("error"),
                "id": self._response_id,
                "created_at": self._created_at,
                "completed_at": fields.get("completed_at"),
                "output": [dict(message) for message in self._output] if terminal else None,
                "usage": fields.get("usage"),
                "session_id": self._session_id,
            }
        )

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if self._started:
            return
        self._started = True
        self._response_id = self._response_id or "response"
        if self._created_at is None:
            self._created_at = int(time.time())
        self._response("created", out)
        self._response("in_progress", out)

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        for written in list(self._current.values()):
            self._complete_message(written, None, out)
        self._current.clear()
        status = {"cancelled": "canceled", "incomplete": "incomplete", "interrupted": "incomplete"}.get(
            ev.as_str(event.get("status")) or "",
            "completed",
        )
        carried = "cancelled" if status == "canceled" else status
        self._lost.extend(ev.status_loss("agentscope", event.get("status"), carried))
        self._response(status, out, completed_at=self._created_at, usage=event.get("usage"))
        self._ended = True

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # What streamed before the failure stays in the failed response.
        for written in list(self._current.values()):
            self._complete_message(written, None, out, status="incomplete")
        self._current.clear()
        error = {
            "code": ev.as_str(event.get("code")) or "AGENT_UNKNOWN_ERROR",
            "message": ev.as_str(event.get("message")) or "",
        }
        self._response("failed", out, error=error, usage=event.get("usage"))
        self._ended = True

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if isinstance(message_id, str):
            role = ev.as_str(event.get("role")) or "assistant"
            self._roles[message_id] = (role, ev.as_str(event.get("kind")))

    def _message_type(self, message_id: str, event: dict[str, Any]) -> tuple[str, str]:
        """The AgentScope message type a block goes in, and its content type."""
        kind = event.get("kind")
        if kind == "reasoning":
            return "reasoning", "text"
        if kind == "refusal":
            return "message", "refusal"
        if kind in ("tool_call", "tool_result"):
            tool_type = TOOL_TYPES.get(ev.as_str(event.get("tool")) or "function", "function_call")
            return (tool_type + "_output" if kind == "tool_result" else tool_type), "data"
        if kind == "media":
            media = ev.as_str(event.get("media_type")) or ""
            return "message", media if media in MEDIA_FIELDS else "file"
        if kind == "data":
            return "message", "data"
        return "message", "text"

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index = event.get("message_id"), ev.as_int(event.get("index"))
        if not isinstance(message_id, str) or index is None:
            return
        self._lost.extend(ev.tool_kind_loss(self.protocol, event, ("plugin", "mcp", "component")))
        message_type, content_type = self._message_type(message_id, event)
        written = self._current.get(message_id)
        if written is None or written.type != message_type:
            if written is not None:
                self._complete_message(written, None, out)
            role = (
                "tool" if message_type.endswith("_output") else self._roles.get(message_id, ("assistant",))[0]
            )
            written = self._open_message(
                message_id, message_type, role if role in ROLES else "assistant", out
            )
        content = _Content(ev.as_str(event.get("kind")) or "text", content_type, written.count)
        written.count += 1
        self._blocks[(message_id, index)] = (written, content)
        if content_type == "data":
            if content.kind == "tool_call":
                content.data = {"call_id": event.get("call_id"), "name": event.get("name"), "arguments": ""}
                if message_type == "mcp_call" and isinstance(event.get("server"), str):
                    content.data["server_label"] = event["server"]
            elif content.kind == "tool_result":
                content.data = {"call_id": event.get("call_id"), "name": event.get("name"), "output": ""}
            else:
                content.data = {"value": event.get("value")}
            if content.kind != "data":
                out.append(self._content_event(written, content, "in_progress", delta=False))
        elif content.kind == "media":
            content.data = {"url": event.get("url"), "mime_type": event.get("mime_type")}

    def _open_message(
        self, message_id: str, message_type: str, role: str, out: list[dict[str, Any]]
    ) -> _Written:
        uses = self._used_ids.get(message_id, 0)
        self._used_ids[message_id] = uses + 1
        written = _Written(message_id if uses == 0 else f"{message_id}_{uses}", message_type, role)
        self._current[message_id] = written
        out.append(self._message_event(written, "in_progress", None, None))
        return written

    def _message_event(
        self, written: _Written, status: str, content: list[dict[str, Any]] | None, usage: Any
    ) -> dict[str, Any]:
        return {
            "sequence_number": self._next(),
            "object": "message",
            "status": status,
            "error": None,
            "id": written.id,
            "type": written.type,
            "role": written.role,
            "content": content,
            "code": None,
            "message": None,
            "usage": usage,
            "metadata": None,
        }

    def _content_event(
        self, written: _Written, content: _Content, status: str, *, delta: bool, piece: str | None = None
    ) -> dict[str, Any]:
        event: dict[str, Any] = {
            "sequence_number": None if status == "stored" else self._next(),
            "object": "content",
            "status": "completed" if status == "stored" else status,
            "error": None,
            "type": content.type,
            "index": content.index,
            "delta": delta,
            "msg_id": written.id,
        }
        event.update(_content_fields(content.type))
        full = "".join(content.text) if piece is None else piece
        if content.type == "text":
            event["text"] = full
        elif content.type == "refusal":
            event["refusal"] = full
        elif content.type == "data":
            if content.kind == "tool_call":
                event["data"] = {"arguments": piece} if delta else {**content.data, "arguments": full}
            elif content.kind == "tool_result":
                output = content.data.get("output")
                value = output if not isinstance(output, str) else full
                event["data"] = {"output": piece} if delta else {**content.data, "output": value}
            else:
                event["data"] = content.data.get("value")
        else:
            url = content.data.get("url")
            if content.text:
                mime = ev.as_str(content.data.get("mime_type")) or "application/octet-stream"
                url = f"data:{mime};base64,{full}"
            event[MEDIA_FIELDS[content.type]] = url
            if content.type == "audio":
                event["format"] = content.data.get("mime_type")
        return event

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if found is None or not isinstance(delta, str) or not delta:
            return
        written, content = found
        content.text.append(delta)
        if content.kind != "media":
            out.append(self._content_event(written, content, "in_progress", delta=True, piece=delta))

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if found is None:
            return
        written, content = found
        if ev.has_signature(event):
            # A reasoning content has no place for a signature.
            self._lost.append(ev.signature_loss(self.protocol))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        field = ev.APPENDED_FIELD.get(content.kind)
        if content.kind == "media":
            for key in ("url", "mime_type"):
                if key in event:
                    content.data[key] = event[key]
            return
        if content.kind == "data" and "value" in event:
            content.data["value"] = event["value"]
        elif field is not None and field in event:
            value = event[field]
            if isinstance(value, str):
                content.text = [value]
            elif content.kind == "tool_result":
                content.data["output"] = value
                content.text = []
        else:
            return
        out.append(self._content_event(written, content, "in_progress", delta=False))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        if key is not None and self._finish_content(key, out):
            self._complete_if_orphaned(key[0], out)

    def _finish_content(self, key: tuple[str, int], out: list[dict[str, Any]]) -> bool:
        """Completes a block's content; False where no such block is open."""
        found = self._blocks.pop(key, None)
        if found is None:
            return False
        written, content = found
        out.append(self._content_event(written, content, "completed", delta=False))
        written.done[content.index] = self._content_event(written, content, "stored", delta=False)
        return True

    def _complete_if_orphaned(self, message_id: str, out: list[dict[str, Any]]) -> None:
        """A block that started after its neutral message finished has its
        AgentScope message to itself: that message completes when its last
        open block does, not at the end of the run (after the tool's result
        and the answer that followed)."""
        written = self._current.get(message_id) if message_id in self._finished else None
        if written is None or any(found[0] is written for found in self._blocks.values()):
            return
        del self._current[message_id]
        self._complete_message(written, None, out)

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if isinstance(message_id, str):
            self._finished.add(message_id)
        written = self._current.pop(message_id, None) if isinstance(message_id, str) else None
        if written is not None:
            self._complete_message(written, event.get("usage"), out)

    def _complete_message(
        self, written: _Written, usage: Any, out: list[dict[str, Any]], status: str = "completed"
    ) -> None:
        """Completes an AgentScope message: ``completed``, or ``incomplete``
        for one the run's failure cut."""
        # Contents still open are completed with the message.
        for key in [key for key in self._blocks if self._blocks[key][0] is written]:
            self._finish_content(key, out)
        message = self._message_event(written, status, written.content(), usage)
        out.append(message)
        self._output.append(message)

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") == "agentscope" and isinstance(inner, dict):
            out.append(inner)


_ENCODERS = {
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
