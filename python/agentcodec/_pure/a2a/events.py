"""A2A events to neutral events and back: the pure-Python mirror of
``rust/a2a/events.rs``.

Reading: the task's first event starts the run (its id the run's, its
context the thread). Each artifact is a message of the agent's, its
``artifactId`` the message's id: text parts are a text block that grows
chunk by chunk (until a part of another kind comes), data parts are data
blocks, file parts media blocks; ``lastChunk`` finishes the message. A
status message is a message of its role's (``agent`` the assistant's). The
run ends with the task: ``completed``, ``canceled`` (cancelled),
``input-required`` and ``auth-required`` (interrupted) finish it;
``failed`` and ``rejected`` fail it, their status message its error's
message and the state its code; a JSON-RPC error fails it with its code.
A Message that answers without a task is a message. The history a task
event holds is what the client sent, not what the agent says: it is not
read.

Writing (1.0 unless ``version="0.3"``): the Task first (``submitted``),
each message of the assistant's as an artifact of its id, each text delta
a chunk that ``append``s a text part, a data block a data part, a media
block a file part once it is complete, then an empty ``lastChunk`` when
the message finishes; the run's end is the final status update, a failure
``failed`` (``rejected`` when that is its code) with its message.
Reasoning, tool calls and results, and other roles' messages have no place
in A2A: they are lost, and said to be.
"""

from __future__ import annotations

from typing import Any

from .. import events as ev
from ..stream import EventProblemError
from . import wire

__all__ = ["Decoder", "Encoder"]

TARGET = "a2a"
# A neutral run status -> the A2A state it ends in.
_END_STATES = {
    "completed": "completed",
    "cancelled": "canceled",
    "interrupted": "input-required",
    "incomplete": "completed",
}
# An A2A state that finishes the run -> the neutral status.
_STATUSES = {
    "completed": "completed",
    "canceled": "cancelled",
    "input-required": "interrupted",
    "auth-required": "interrupted",
}


def read_part(part: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
    """A part as a block: its kind, fixed fields and text (the text of a
    text part, the base64 bytes of a file part). A part of no known kind
    is a data block holding it."""
    kind = part.get("kind")
    text = part.get("text")
    if (kind == "text" or kind is None) and isinstance(text, str):
        return "text", {}, text
    if (kind == "data" or kind is None) and "data" in part:
        return "data", {"value": part["data"]}, None
    file = part.get("file") if kind == "file" else part if kind is None else None
    if isinstance(file, dict):
        url = ev.as_str(file.get("uri") if kind == "file" else file.get("url"))
        data = ev.as_str(file.get("bytes") if kind == "file" else file.get("raw"))
        mime_type = ev.as_str(file.get("mimeType") if kind == "file" else file.get("mediaType"))
        if url is not None or data is not None:
            fields = {"media_type": ev.media_kind(mime_type or ""), "mime_type": mime_type, "url": url}
            return "media", fields, data
    return "data", {"value": part}, None


def _message_text(message: Any) -> str | None:
    """The text of a message's text parts, joined; None for no message."""
    if not isinstance(message, dict):
        return None
    parts = message.get("parts")
    texts = [
        part["text"]
        for part in (parts if isinstance(parts, list) else [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    return "".join(texts)


class _Artifact:
    __slots__ = ("next", "text")

    def __init__(self) -> None:
        self.next = 0  # the next block index
        self.text: int | None = None  # the index of the open text block


class Decoder:
    """A2A events to neutral events."""

    recognizes = staticmethod(wire.recognizes)

    protocol = TARGET

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._open: dict[str, _Artifact] = {}  # artifacts started and not finished
        self._unnamed = 0  # messages without an id, numbered

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        try:
            what, _, body = wire.read(event)
        except EventProblemError:
            return [ev.passthrough(TARGET, event)]
        if self._ended:
            return [ev.passthrough(TARGET, event)]
        if what == "error":
            self._close_all(out)
            code = body.get("code")
            message = ev.as_str(body.get("message"))
            out.append(ev.run_failed(str(code) if type(code) is int else "error", message))
            self._ended = True
        elif what == "task":
            self._start(body, out)
            artifacts = body.get("artifacts")
            for artifact in artifacts if isinstance(artifacts, list) else []:
                if isinstance(artifact, dict):
                    self._artifact(artifact, False, None, out)
            self._status(body, final=False, out=out)
        elif what == "status":
            self._start(body, out)
            self._status(body, final=body.get("final") is True, out=out)
        elif what == "artifact":
            self._start(body, out)
            artifact = body.get("artifact")
            if isinstance(artifact, dict):
                self._artifact(artifact, body.get("lastChunk") is True, body, out)
        else:
            self._message(body, out)
            self._ended = True
        return out

    def finish(self) -> list[dict[str, Any]]:
        # The run ends with its final status: without it the stream was cut
        # short, and what was open stays open, as in the other protocols.
        return []

    # --- internals -----------------------------------------------------------

    def _start(self, body: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if self._started:
            return
        self._started = True
        run_id = body.get("id") if "taskId" not in body else body.get("taskId")
        out.append(ev.run_started(ev.as_str(run_id), ev.as_str(body.get("contextId"))))

    def _status(self, body: dict[str, Any], final: bool, out: list[dict[str, Any]]) -> None:
        status = body.get("status")
        if not isinstance(status, dict):
            return
        state = wire.state_name(ev.as_str(status.get("state")) or "")
        message = status.get("message")
        if state in ("failed", "rejected"):
            self._close_all(out)
            out.append(ev.run_failed(state, _message_text(message)))
            self._ended = True
            return
        if isinstance(message, dict):
            self._message(message, out)
        if state in _STATUSES or final:
            self._close_all(out)
            out.append(ev.run_finished(_STATUSES.get(state, "incomplete")))
            self._ended = True

    def _message(self, message: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = ev.as_str(message.get("messageId"))
        if message_id is None:
            self._unnamed += 1
            message_id = f"message-{self._unnamed}"
        role = "user" if wire.role_name(message.get("role")) == "user" else "assistant"
        out.append(ev.message_started(message_id, role, "message"))
        parts = message.get("parts")
        index = 0
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            kind, fields, text = read_part(part)
            out.append(ev.block_started(message_id, index, kind, **fields))
            if text:
                out.append(ev.block_delta(message_id, index, text))
            out.append(ev.block_finished(message_id, index))
            index += 1
        out.append(ev.message_finished(message_id))

    def _artifact(
        self,
        artifact: dict[str, Any],
        last: bool,
        update: dict[str, Any] | None,
        out: list[dict[str, Any]],
    ) -> None:
        artifact_id = ev.as_str(artifact.get("artifactId"))
        if artifact_id is None:
            if update is not None:
                out.append(ev.passthrough(TARGET, update))
            return
        held = self._open.get(artifact_id)
        if held is None:
            held = self._open[artifact_id] = _Artifact()
            out.append(ev.message_started(artifact_id, "assistant", "message"))
        parts = artifact.get("parts")
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict):
                continue
            kind, fields, text = read_part(part)
            if kind == "text" and held.text is not None:
                if text:
                    out.append(ev.block_delta(artifact_id, held.text, text))
                continue
            self._end_text(artifact_id, held, out)
            index = held.next
            held.next += 1
            out.append(ev.block_started(artifact_id, index, kind, **fields))
            if text:
                out.append(ev.block_delta(artifact_id, index, text))
            if kind == "text":
                held.text = index
            else:
                out.append(ev.block_finished(artifact_id, index))
        if last:
            self._end_text(artifact_id, held, out)
            del self._open[artifact_id]
            out.append(ev.message_finished(artifact_id))

    @staticmethod
    def _end_text(artifact_id: str, held: _Artifact, out: list[dict[str, Any]]) -> None:
        if held.text is not None:
            out.append(ev.block_finished(artifact_id, held.text))
            held.text = None

    def _close_all(self, out: list[dict[str, Any]]) -> None:
        for artifact_id, held in self._open.items():
            self._end_text(artifact_id, held, out)
            out.append(ev.message_finished(artifact_id))
        self._open = {}


class _Block:
    __slots__ = ("fields", "kind", "message_id", "pieces")

    def __init__(self, kind: str, message_id: str, fields: dict[str, Any]) -> None:
        self.kind = kind
        self.message_id = message_id
        self.fields = fields
        self.pieces: list[str] = []


class Encoder(ev.RecordsLosses):
    """Neutral events to A2A events: JSON-RPC responses of ``message/stream``."""

    protocol = TARGET

    def keeps_own_event(self, passthrough: dict[str, Any]) -> bool:
        # Its own events its decoder passed through (unreadable, after the
        # stream's end, an artifact without an id) are none a2a-sdk reads.
        return False

    def __init__(
        self,
        version: str | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        request_id: str | None = None,
    ) -> None:
        self._lost: list[tuple[str, str]] = []
        self._version = version or wire.VERSIONS[0]
        self._task_id = task_id
        self._context_id = context_id
        self._request_id = request_id
        self._started = False
        self._finished = False
        self._skipped: set[str] = set()  # messages of other roles
        self._chunked: set[str] = set()  # messages whose artifact has a chunk
        self._open: dict[str, None] = {}  # those not finished, in order
        self._blocks: dict[tuple[str, int], _Block] = {}

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        kind = ev.as_str(event.get("type"))
        if kind is not None and kind != "passthrough":
            # The task exists once the stream says anything of its own.
            if kind == "run_started":
                self._task_id = self._task_id or ev.as_str(event.get("run_id"))
                self._context_id = self._context_id or ev.as_str(event.get("thread_id"))
            self._ensure_started(out)
        if kind == "message_started":
            message_id = ev.as_str(event.get("message_id"))
            if message_id is not None:
                other = event.get("role") in ("user", "system", "developer", "tool")
                if other or event.get("kind") == "tool_result":
                    self._skipped.add(message_id)
                else:
                    self._skipped.discard(message_id)
        elif kind == "block_started":
            self._block_started(event, out)
        elif kind == "block_delta":
            self._block_delta(event, out)
        elif kind == "block_replaced":
            self._block_replaced(event, out)
        elif kind == "block_finished":
            block = self._blocks.pop(ev.block_key(event), None)  # type: ignore[arg-type]
            if block is not None:
                self._end_block(block, out)
        elif kind == "message_finished":
            # A task has no usage.
            self._lost.extend(ev.usage_loss(TARGET, event))
            message_id = ev.as_str(event.get("message_id"))
            if message_id is not None:
                self._end_message(message_id, out)
        elif kind == "run_finished":
            ended = ev.as_str(event.get("status")) or "completed"
            state = _END_STATES.get(ended, "completed")
            self._lost.extend(ev.status_loss(TARGET, event.get("status"), _STATUSES.get(state, "completed")))
            # A task has no usage.
            self._lost.extend(ev.usage_loss(TARGET, event))
            self._end({"state": state}, out)
        elif kind == "run_failed":
            self._lost.extend(ev.usage_loss(TARGET, event))
            state = "rejected" if event.get("code") == "rejected" else "failed"
            # A task's state is all it says of a failure.
            self._lost.extend(ev.error_code_loss(TARGET, event.get("code"), state))
            failed: dict[str, Any] = {"state": state}
            text = ev.as_str(event.get("message"))
            if text:
                failed["message"] = text
            self._end(failed, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        # A stream cut short ends as it stands: the run never said it was over.
        return []

    # --- internals -----------------------------------------------------------

    def _respond(self, field: str, body: dict[str, Any], out: list[dict[str, Any]]) -> None:
        """Writes one result, as the version spells it, in its JSON-RPC response."""
        # 0.3 tags the result by its kind; 1.0 holds it in the field of its kind.
        result = {**body, "kind": field} if self._version == "0.3" else {_V1_FIELDS[field]: body}
        out.append({"jsonrpc": "2.0", "id": self._request_id, "result": result})

    def _ensure_started(self, out: list[dict[str, Any]]) -> None:
        if self._started:
            return
        self._started = True
        # Ids the source did not give are the same on every run (and both backends).
        self._task_id = self._task_id or "task"
        self._context_id = self._context_id or "context"
        status = {"state": wire.spell_state("submitted", self._version)}
        self._respond("task", {"id": self._task_id, "contextId": self._context_id, "status": status}, out)

    def _ids(self) -> dict[str, Any]:
        return {"taskId": self._task_id, "contextId": self._context_id}

    def _chunk(
        self, message_id: str, parts: list[dict[str, Any]], out: list[dict[str, Any]], last: bool = False
    ) -> None:
        self._ensure_started(out)
        first = message_id not in self._chunked
        self._chunked.add(message_id)
        if not last:
            self._open[message_id] = None
        body = {**self._ids(), "artifact": {"artifactId": message_id, "parts": parts}}
        if self._version == "0.3":
            body["append"] = not first
            body["lastChunk"] = last
        else:
            if not first:
                body["append"] = True
            if last:
                body["lastChunk"] = True
        self._respond("artifact-update", body, out)

    def _part(self, kind: str, value: Any) -> dict[str, Any]:
        if self._version == "0.3":
            return {"kind": kind, kind: value}
        return {kind: value}

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        kind = ev.as_str(event.get("kind")) or ""
        if key is None:
            return
        message_id = key[0]
        if message_id in self._skipped:
            self._lost.append(ev.other_role_loss(TARGET, kind))
            return
        if kind == "refusal":
            self._lost.append(ev.refusal_loss(TARGET))
        elif kind not in ("text", "media", "data"):
            self._lost.append(ev.block_loss(TARGET, kind))
            return
        fields = {name: event.get(name) for name in ev.BLOCK_FIELDS.get(kind, ())}
        self._blocks[key] = _Block("text" if kind == "refusal" else kind, message_id, fields)

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        delta = event.get("delta")
        if block is None or not isinstance(delta, str) or not delta:
            return
        if block.kind == "text":
            block.pieces.append(delta)
            self._chunk(block.message_id, [self._part("text", delta)], out)
        elif block.kind == "media":
            block.pieces.append(delta)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        if ev.has_signature(event):
            self._lost.append(ev.signature_loss(TARGET))
        block = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if block is None:
            return
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(TARGET))
        if block.kind == "text" and isinstance(event.get("text"), str):
            # A snapshot: what it adds to the text written is a chunk; a
            # correction of text that streamed has no place (a chunk only appends).
            written = "".join(block.pieces)
            text = event["text"]
            if not text.startswith(written):
                self._lost.append(ev.correction_loss(TARGET, block.kind))
            elif len(text) > len(written):
                block.pieces = [text]
                self._chunk(block.message_id, [self._part("text", text[len(written) :])], out)
        elif block.kind == "data" and "value" in event:
            block.fields["value"] = event["value"]
        elif block.kind == "media":
            for name in ("url", "mime_type"):
                if isinstance(event.get(name), str):
                    block.fields[name] = event[name]
            if isinstance(event.get("data"), str):
                block.pieces = [event["data"]]

    def _end_block(self, block: _Block, out: list[dict[str, Any]]) -> None:
        if block.kind == "data":
            value = block.fields.get("value")
            if self._version == "0.3" and not isinstance(value, dict):
                # 0.3's data part holds an object.
                self._lost.append(("data", "a2a 0.3 has no place for data that is not an object"))
                return
            self._chunk(block.message_id, [self._part("data", value)], out)
        elif block.kind == "media":
            url = ev.as_str(block.fields.get("url"))
            mime_type = ev.as_str(block.fields.get("mime_type"))
            data = "".join(block.pieces)
            if url is None and not data:
                return
            if self._version == "0.3":
                file: dict[str, Any] = {"uri": url} if url is not None else {"bytes": data}
                if mime_type is not None:
                    file["mimeType"] = mime_type
                part: dict[str, Any] = {"kind": "file", "file": file}
            else:
                part = {"url": url} if url is not None else {"raw": data}
                if mime_type is not None:
                    part["mediaType"] = mime_type
            self._chunk(block.message_id, [part], out)

    def _end_message(self, message_id: str, out: list[dict[str, Any]]) -> None:
        for key in [key for key in self._blocks if key[0] == message_id]:
            self._end_block(self._blocks.pop(key), out)
        if message_id in self._open:
            del self._open[message_id]
            self._chunk(message_id, [], out, last=True)

    def _end(self, status: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._ensure_started(out)
        for message_id in list(dict.fromkeys(block.message_id for block in self._blocks.values())):
            self._end_message(message_id, out)
        for message_id in list(self._open):
            self._end_message(message_id, out)
        state = status["state"]
        written: dict[str, Any] = {"state": wire.spell_state(state, self._version)}
        text = status.get("message")
        if text is not None:
            message: dict[str, Any] = {
                "messageId": f"{self._task_id}-{state}",
                "role": wire.spell_role("agent", self._version),
                "parts": [self._part("text", text)],
                **self._ids(),
            }
            if self._version == "0.3":
                message["kind"] = "message"
            written["message"] = message
        body: dict[str, Any] = {**self._ids(), "status": written}
        if self._version == "0.3":
            body["final"] = True
        self._respond("status-update", body, out)
        self._finished = True


_V1_FIELDS = {
    "task": "task",
    "message": "message",
    "status-update": "statusUpdate",
    "artifact-update": "artifactUpdate",
}
