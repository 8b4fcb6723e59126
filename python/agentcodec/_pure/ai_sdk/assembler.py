"""Assembling a Vercel AI SDK UI message stream into its UIMessage: the
pure-Python mirror of ``rust/ai_sdk/``.

The rules are those of the SDK's ``processUIMessageStream`` (behind
``readUIMessageStream`` and ``useChat``), chunk by chunk: text and reasoning
parts by their ``id`` while they stream, tool parts by ``toolCallId`` with
their state machine (input streaming, available, approval, output, error,
denied), data parts reconciled by ``type`` and ``id``, step boundaries,
``reset-step`` retracting the step's parts, and message metadata
deep-merged. Where the SDK differs:

- A tool's input text is not parsed on every ``tool-input-delta`` (the SDK
  re-parses the whole prefix each time, which is quadratic): it is parsed
  once, when the part leaves the input-streaming state without a
  ``tool-input-available`` snapshot, or when the stream ends; until then the
  part has no ``input``. Text that is not complete JSON gives no ``input``
  (the SDK repairs it into a partial value).
- Parts are found through indexes, not by scanning the message on every
  chunk, with the same answers: a tool part in the current step first, then
  the last one in the message; the first data part of the same type and id.
- A chunk the SDK throws on (a delta for a part that is not streaming, a
  tool chunk for an unknown call) is an event error, and the stream goes on
  with ``on_error="skip"``; a chunk that lacks a field the SDK's chunk schema
  requires is one too. An optional field written as ``null`` counts as
  absent.
- ``error`` chunks are kept in ``.errors`` and ``.events``, ``abort`` and
  unknown chunk types in ``.events``; transient data parts are not stored.
"""

from __future__ import annotations

from bisect import bisect_left
from contextlib import suppress
from typing import Any

from ..._vocabulary import tables
from ..accumulate import Pieces, render
from ..json_values import JSONValueError, loads, quote
from ..stream import (
    AssemblerBase,
    EventProblemError,
)
from ..tool_calls import NO_ARGUMENTS, ArgumentValue, ToolCall
from .errors import AISDKError, AISDKEventError

__all__ = ["OUTPUT_STATES", "Assembler", "merge_metadata"]

_VOCABULARY = tables("ai_sdk")

#: Tool states whose provider metadata is the result's, not the call's.
OUTPUT_STATES = _VOCABULARY["OUTPUT_STATES"]
#: Keys a metadata merge skips, as the SDK's ``mergeObjects`` does.
UNSAFE_KEYS = ("__proto__", "constructor", "prototype")
_UNSET: Any = object()


def merge_metadata(base: Any, overrides: Any) -> Any:
    """The SDK's ``mergeObjects``: objects merge key by key, recursively;
    arrays and everything else replace."""
    if not isinstance(base, dict) or not isinstance(overrides, dict):
        return overrides
    merged = dict(base)
    for key, value in overrides.items():
        if key in UNSAFE_KEYS:
            continue
        held = merged.get(key)
        merged[key] = (
            merge_metadata(held, value) if isinstance(held, dict) and isinstance(value, dict) else value
        )
    return merged


class _Partial:
    """A tool call whose input is streaming: its text so far, and what its
    ``tool-input-start`` said."""

    __slots__ = ("dynamic", "name", "text", "title", "tool_metadata")

    def __init__(self, name: str, dynamic: bool, title: Any, tool_metadata: Any) -> None:
        self.name = name
        self.dynamic = dynamic
        self.title = title
        self.tool_metadata = tool_metadata
        self.text = Pieces()


#: The chunk types of a UI message stream (and ``data-*``).
CHUNK_TYPES = frozenset(_VOCABULARY["CHUNK_TYPES"])


def recognizes(event: dict[str, Any]) -> bool:
    """Whether a chunk is one of the protocol's: its ``type`` is a UI
    message stream chunk's, or ``data-*`` (``ai_sdk::recognizes``)."""
    kind = event.get("type")
    return isinstance(kind, str) and (kind in CHUNK_TYPES or kind.startswith("data-"))


class Assembler(AssemblerBase):
    """Assembles a Vercel AI SDK UI message stream into its UIMessage."""

    _recognizes = staticmethod(recognizes)

    _event_error = AISDKEventError
    _base_error = AISDKError

    def _init_state(self) -> None:
        self._id = ""
        self._metadata: Any = None
        self._parts: list[dict[str, Any]] = []
        self._step = 0  # where the current step's parts begin
        self._texts: dict[str, int] = {}  # streaming text part id -> position
        self._reasonings: dict[str, int] = {}
        self._partials: dict[str, _Partial] = {}
        # (dynamic, toolCallId) -> the positions of its tool parts, ascending.
        self._tools: dict[tuple[bool, str], list[int]] = {}
        self._data: dict[tuple[str, str], int] = {}  # (type, id) -> first position
        self._approvals: dict[str, list[int]] = {}  # approval id -> positions, ascending
        # Tool part position -> the call whose streamed text is its input.
        self._pending: dict[int, str] = {}
        self._finish_reason: str | None = None
        self._kept: list[dict[str, Any]] = []
        self._done = False  # [DONE] came

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_message()

    @property
    def message(self) -> dict[str, Any]:
        """The UIMessage so far: a new dict on every access."""
        return self._render_message()

    def _render_message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"id": self._id}
        if self._metadata is not None:
            message["metadata"] = render(self._metadata)
        message["role"] = "assistant"
        message["parts"] = render(self._parts)
        return message

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool part: ``toolCallId``, ``type``, ``toolName``, ``state``,
        ``input`` parsed so far while it streams (read after every delta, each
        byte is parsed once), and ``done``; input that is not valid JSON stays
        as it came, with an ``error`` (a ``tool-input-error`` part's
        ``rawInput`` is read so: the error says where it broke)."""
        ended = self._done or self._closed
        calls = []
        for position, part in enumerate(self._parts):
            if _tool_key(part) is None:
                continue
            kind = part["type"]
            call_id = part.get("toolCallId")
            partial = self._partials.get(call_id) if isinstance(call_id, str) else None
            streamed = NO_ARGUMENTS if partial is None else partial.text
            if position in self._pending:
                arguments = streamed
            elif "input" in part:
                arguments = ArgumentValue(part["input"])
            else:
                # A ``tool-input-error`` keeps the text that did not parse as
                # ``rawInput``: read, it says why.
                raw = part.get("rawInput")
                arguments = streamed if raw is None else raw
            calls.append(
                ToolCall(
                    str(position),
                    {
                        "toolCallId": call_id,
                        "type": kind,
                        "toolName": kind[len("tool-") :]
                        if kind.startswith("tool-")
                        else part.get("toolName"),
                        "state": part.get("state"),
                    },
                    "input",
                    arguments,
                    ended or part.get("state") != "input-streaming",
                )
            )
        return self._tool_call_reader.read(calls)

    @property
    def finish_reason(self) -> str | None:
        """What the ``finish`` chunk said, or None."""
        return self._finish_reason

    @property
    def events(self) -> list[dict[str, Any]]:
        """Chunks kept without being assembled: ``error`` and ``abort`` chunks
        and chunks of types this version does not know, in order."""
        events: list[dict[str, Any]] = render(self._kept)
        return events

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return 1  # one message a stream

    def _done_marker(self) -> None:
        self._done = True  # the end of the stream, as the AI SDK's routes write it

    def _apply_object(self, event: dict[str, Any]) -> None:
        try:
            self._apply(event)
        finally:
            self._blocks_held = len(self._parts)

    def _finish(self) -> None:
        for position in list(self._pending):
            self._settle(position)

    def _apply(self, chunk: dict[str, Any]) -> None:
        kind = chunk.get("type")
        if not isinstance(kind, str):
            raise EventProblemError("has no type" if kind is None else "has a type that is not a string")
        if self._done:
            raise EventProblemError("comes after [DONE]")
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, chunk)
        elif kind.startswith("data-"):
            self._data_part(kind, chunk)
        elif kind == "error":
            message = _required(chunk, "errorText", str, "a string")
            self._record({"event": self._events, "code": "error", "message": message})
            self._kept.append(chunk)
        else:
            self._kept.append(chunk)  # abort, and types this version does not know

    # --- text and reasoning ----------------------------------------------------

    def _text_start(self, chunk: dict[str, Any]) -> None:
        self._stream_start(chunk, "text", self._texts)

    def _text_delta(self, chunk: dict[str, Any]) -> None:
        self._stream_delta(chunk, "text", self._texts)

    def _text_end(self, chunk: dict[str, Any]) -> None:
        self._stream_end(chunk, "text", self._texts)

    def _reasoning_start(self, chunk: dict[str, Any]) -> None:
        self._stream_start(chunk, "reasoning", self._reasonings)

    def _reasoning_delta(self, chunk: dict[str, Any]) -> None:
        self._stream_delta(chunk, "reasoning", self._reasonings)

    def _reasoning_end(self, chunk: dict[str, Any]) -> None:
        self._stream_end(chunk, "reasoning", self._reasonings)

    def _stream_start(self, chunk: dict[str, Any], kind: str, active: dict[str, int]) -> None:
        part_id = _required(chunk, "id", str, "a string")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        part: dict[str, Any] = {"type": kind}
        if kind == "reasoning":
            part["id"] = part_id  # a text part has none
        part["text"] = Pieces()
        if metadata is not None:
            part["providerMetadata"] = metadata
        part["state"] = "streaming"
        active[part_id] = len(self._parts)
        self._parts.append(part)

    def _stream_delta(self, chunk: dict[str, Any], kind: str, active: dict[str, int]) -> None:
        part_id = _required(chunk, "id", str, "a string")
        delta = _required(chunk, "delta", str, "a string")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        part = self._streaming(active, part_id, kind, "delta")
        part["text"].append(delta)
        if metadata is not None:
            part["providerMetadata"] = metadata

    def _stream_end(self, chunk: dict[str, Any], kind: str, active: dict[str, int]) -> None:
        part_id = _required(chunk, "id", str, "a string")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        part = self._streaming(active, part_id, kind, "end")
        part["state"] = "done"
        if metadata is not None:
            part["providerMetadata"] = metadata
        del active[part_id]

    def _streaming(self, active: dict[str, int], part_id: str, kind: str, verb: str) -> dict[str, Any]:
        position = active.get(part_id)
        if position is None:
            raise EventProblemError(
                f"is a {kind}-{verb} for {kind} part {quote(part_id)}, which is not streaming"
            )
        return self._parts[position]

    # --- whole parts ---------------------------------------------------------

    def _custom(self, chunk: dict[str, Any]) -> None:
        kind = _required(chunk, "kind", str, "a string")
        self._push_with_metadata({"type": "custom", "kind": kind}, chunk)

    def _file(self, chunk: dict[str, Any]) -> None:
        media_type = _required(chunk, "mediaType", str, "a string")
        url = _required(chunk, "url", str, "a string")
        self._push_with_metadata({"type": chunk["type"], "mediaType": media_type, "url": url}, chunk)

    def _source_url(self, chunk: dict[str, Any]) -> None:
        part = {
            "type": "source-url",
            "sourceId": _required(chunk, "sourceId", str, "a string"),
            "url": _required(chunk, "url", str, "a string"),
        }
        title = _optional(chunk, "title", str, "a string")
        if title is not None:
            part["title"] = title
        self._push_with_metadata(part, chunk)

    def _source_document(self, chunk: dict[str, Any]) -> None:
        part = {
            "type": "source-document",
            "sourceId": _required(chunk, "sourceId", str, "a string"),
            "mediaType": _required(chunk, "mediaType", str, "a string"),
            "title": _required(chunk, "title", str, "a string"),
        }
        filename = _optional(chunk, "filename", str, "a string")
        if filename is not None:
            part["filename"] = filename
        self._push_with_metadata(part, chunk)

    def _push_with_metadata(self, part: dict[str, Any], chunk: dict[str, Any]) -> None:
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        if metadata is not None:
            part["providerMetadata"] = metadata
        self._parts.append(part)

    def _data_part(self, kind: str, chunk: dict[str, Any]) -> None:
        part_id = _optional(chunk, "id", str, "a string")
        transient = _optional(chunk, "transient", bool, "a boolean")
        if transient:
            return  # for the moment it arrives only: never stored
        position = None if part_id is None else self._data.get((kind, part_id))
        if position is not None:
            part = self._parts[position]
            if "data" in chunk:
                part["data"] = chunk["data"]
            else:
                part.pop("data", None)
            return
        if part_id is not None:
            self._data[(kind, part_id)] = len(self._parts)
        self._parts.append(chunk)

    # --- steps and the message -------------------------------------------------

    def _start_step(self, chunk: dict[str, Any]) -> None:
        self._parts.append({"type": "step-start"})
        self._step = len(self._parts)

    def _finish_step(self, chunk: dict[str, Any]) -> None:
        self._texts.clear()
        self._reasonings.clear()

    def _reset_step(self, chunk: dict[str, Any]) -> None:
        cut = self._step
        for position in [position for position in self._pending if position < cut]:
            self._settle(position)  # their calls end here
        self._texts.clear()
        self._reasonings.clear()
        self._partials.clear()
        for position in range(len(self._parts) - 1, cut - 1, -1):
            self._forget(position)
        del self._parts[cut:]

    def _forget(self, position: int) -> None:
        """Drops the indexes' entries for the last part, about to go."""
        part = self._parts[position]
        self._pending.pop(position, None)
        key = _tool_key(part)
        if key is not None:
            positions = self._tools[key]
            positions.pop()
            if not positions:
                del self._tools[key]
            approval = part.get("approval")
            if isinstance(approval, dict):
                self._unlist_approval(approval["id"], position)
        part_id, part_type = part.get("id"), part["type"]
        if isinstance(part_id, str) and part_type.startswith("data-"):
            data_key: tuple[str, str] = (part_type, part_id)
            if self._data.get(data_key) == position:
                del self._data[data_key]

    def _start(self, chunk: dict[str, Any]) -> None:
        message_id = _optional(chunk, "messageId", str, "a string")
        if message_id is not None:
            self._id = message_id
        self._merge_metadata(chunk)

    def _finish_chunk(self, chunk: dict[str, Any]) -> None:
        reason = _optional(chunk, "finishReason", str, "a string")
        if reason is not None:
            self._finish_reason = reason
        self._merge_metadata(chunk)

    def _message_metadata(self, chunk: dict[str, Any]) -> None:
        self._merge_metadata(chunk)

    def _merge_metadata(self, chunk: dict[str, Any]) -> None:
        metadata = chunk.get("messageMetadata")
        if metadata is not None:
            self._metadata = metadata if self._metadata is None else merge_metadata(self._metadata, metadata)

    # --- tools -----------------------------------------------------------------

    def _tool_input_start(self, chunk: dict[str, Any]) -> None:
        call_id, name = _call_id(chunk), _tool_name(chunk)
        fields = _tool_fields(chunk)
        dynamic = bool(_optional(chunk, "dynamic", bool, "a boolean"))
        title = _optional(chunk, "title", str, "a string")
        old = self._partials.get(call_id)
        if old is not None:
            self._settle_call(call_id)  # that call's text is final
        self._partials[call_id] = _Partial(name, dynamic, title, fields["toolMetadata"])
        self._update_tool(dynamic, call_id, name, "input-streaming", {"input": _UNSET}, title=title, **fields)

    def _tool_input_delta(self, chunk: dict[str, Any]) -> None:
        call_id = _call_id(chunk)
        delta = _required(chunk, "inputTextDelta", str, "a string")
        partial = self._partials.get(call_id)
        if partial is None:
            raise EventProblemError(
                f"is a tool-input-delta for tool call {quote(call_id)}, which has not started"
            )
        position = self._find_tool(partial.dynamic, call_id)
        pending = self._pending_of(call_id)
        if pending is not None and pending != position:
            self._settle(pending)  # its input is the text before this delta
        partial.text.append(delta)
        position = self._update_tool(
            partial.dynamic,
            call_id,
            partial.name,
            "input-streaming",
            {"input": _UNSET},
            title=partial.title,
            toolMetadata=partial.tool_metadata,
        )
        self._pending[position] = call_id

    def _tool_input_available(self, chunk: dict[str, Any]) -> None:
        call_id, name = _call_id(chunk), _tool_name(chunk)
        fields = _tool_fields(chunk)
        dynamic = bool(_optional(chunk, "dynamic", bool, "a boolean"))
        title = _optional(chunk, "title", str, "a string")
        position = self._find_tool(dynamic, call_id)
        if position is not None:
            self._pending.pop(position, None)  # the input is the snapshot's
        self._update_tool(
            dynamic,
            call_id,
            name,
            "input-available",
            {"input": chunk.get("input", _UNSET)},
            title=title,
            **fields,
        )

    def _tool_input_error(self, chunk: dict[str, Any]) -> None:
        call_id, name = _call_id(chunk), _tool_name(chunk)
        error_text = _required(chunk, "errorText", str, "a string")
        fields = _tool_fields(chunk)
        dynamic = bool(_optional(chunk, "dynamic", bool, "a boolean"))
        _optional(chunk, "title", str, "a string")
        existing = self._find_any_tool(call_id)
        if existing is not None:
            dynamic = self._parts[existing]["type"] == "dynamic-tool"
        position = self._find_tool(dynamic, call_id)
        if position is not None:
            self._pending.pop(position, None)  # the chunk says what the input is
        given = chunk.get("input", _UNSET)
        if dynamic:
            values = {"input": given, "errorText": error_text}
        else:
            values = {"input": _UNSET, "rawInput": given, "errorText": error_text}
        self._update_tool(dynamic, call_id, name, "output-error", values, **fields)

    def _tool_approval_request(self, chunk: dict[str, Any]) -> None:
        approval_id = _required(chunk, "approvalId", str, "a string")
        call_id = _call_id(chunk)
        automatic = _optional(chunk, "isAutomatic", bool, "a boolean")
        signature = _optional(chunk, "signature", str, "a string")
        position = self._tool_invocation(call_id, "tool-approval-request")
        self._settle(position)
        part = self._parts[position]
        old = part.get("approval")
        if isinstance(old, dict):
            self._unlist_approval(old["id"], position)
        part["state"] = "approval-requested"
        approval: dict[str, Any] = {"id": approval_id}
        if automatic is True:
            approval["isAutomatic"] = True
        if signature is not None:
            approval["signature"] = signature
        part["approval"] = approval
        positions = self._approvals.setdefault(approval_id, [])
        positions.insert(bisect_left(positions, position), position)

    def _tool_approval_response(self, chunk: dict[str, Any]) -> None:
        approval_id = _required(chunk, "approvalId", str, "a string")
        approved = _required(chunk, "approved", bool, "a boolean")
        reason = _optional(chunk, "reason", str, "a string")
        executed = _optional(chunk, "providerExecuted", bool, "a boolean")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        positions = self._approvals.get(approval_id)
        if not positions:
            raise EventProblemError(
                f"is a tool-approval-response for approval {quote(approval_id)}, which was never requested"
            )
        position = positions[0]
        self._settle(position)
        part = self._parts[position]
        old = part["approval"]
        part["state"] = "approval-responded"
        approval: dict[str, Any] = {"id": approval_id, "approved": approved}
        if reason is not None:
            approval["reason"] = reason
        if old.get("isAutomatic") is True:
            approval["isAutomatic"] = True
        if old.get("signature") is not None:
            approval["signature"] = old["signature"]
        part["approval"] = approval
        if executed is not None:
            part["providerExecuted"] = executed
        if metadata is not None:
            part["callProviderMetadata"] = metadata

    def _tool_output_denied(self, chunk: dict[str, Any]) -> None:
        position = self._tool_invocation(_call_id(chunk), "tool-output-denied")
        self._settle(position)
        self._parts[position]["state"] = "output-denied"

    def _tool_output_available(self, chunk: dict[str, Any]) -> None:
        call_id = _call_id(chunk)
        executed = _optional(chunk, "providerExecuted", bool, "a boolean")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        preliminary = _optional(chunk, "preliminary", bool, "a boolean")
        _optional(chunk, "toolMetadata", dict, "an object")
        _optional(chunk, "dynamic", bool, "a boolean")
        position = self._tool_invocation(call_id, "tool-output-available")
        self._settle(position)
        part = self._parts[position]
        values = {
            "input": part.get("input", _UNSET),
            "output": chunk.get("output", _UNSET),
            "preliminary": _UNSET if preliminary is None else preliminary,
        }
        self._revise(part, "output-available", values, executed, metadata)

    def _tool_output_error(self, chunk: dict[str, Any]) -> None:
        call_id = _call_id(chunk)
        error_text = _required(chunk, "errorText", str, "a string")
        executed = _optional(chunk, "providerExecuted", bool, "a boolean")
        metadata = _optional(chunk, "providerMetadata", dict, "an object")
        _optional(chunk, "toolMetadata", dict, "an object")
        _optional(chunk, "dynamic", bool, "a boolean")
        position = self._tool_invocation(call_id, "tool-output-error")
        self._settle(position)
        part = self._parts[position]
        values = {"input": part.get("input", _UNSET), "errorText": error_text}
        if part["type"] != "dynamic-tool":
            values["rawInput"] = part.get("rawInput", _UNSET)
        self._revise(part, "output-error", values, executed, metadata)

    def _update_tool(
        self,
        dynamic: bool,
        call_id: str,
        name: str,
        state: str,
        values: dict[str, Any],
        *,
        title: str | None = None,
        toolMetadata: Any = None,  # noqa: N803 - the chunk's field
        providerExecuted: bool | None = None,  # noqa: N803
        providerMetadata: Any = None,  # noqa: N803
    ) -> int:
        """The SDK's ``updateToolPart`` and ``updateDynamicToolPart``: the
        current step's part for the call, revised, or a new part. Returns
        its position."""
        position = self._find_tool(dynamic, call_id)
        if position is not None:
            part = self._parts[position]
            if dynamic:
                part["toolName"] = name
            if title is not None:
                part["title"] = title
            if toolMetadata is not None:
                part["toolMetadata"] = toolMetadata
            self._revise(part, state, values, providerExecuted, providerMetadata)
            return position
        if dynamic:
            part = {"type": "dynamic-tool", "toolName": name, "toolCallId": call_id, "state": state}
            order: tuple[str, ...] = ("input", "output", "errorText", "preliminary")
        else:
            part = {"type": f"tool-{name}", "toolCallId": call_id, "state": state}
            order = ("input", "output", "rawInput", "errorText", "preliminary")
        if title is not None:
            part["title"] = title
        if toolMetadata is not None:
            part["toolMetadata"] = toolMetadata
        for key in order:
            value = values.get(key, _UNSET)
            if value is not _UNSET:
                part[key] = value
        if providerExecuted is not None:
            part["providerExecuted"] = providerExecuted
        if providerMetadata is not None:
            part[_metadata_key(state)] = providerMetadata
        position = len(self._parts)
        self._parts.append(part)
        self._tools.setdefault((dynamic, call_id), []).append(position)
        return position

    @staticmethod
    def _revise(
        part: dict[str, Any], state: str, values: dict[str, Any], executed: bool | None, metadata: Any
    ) -> None:
        """What an update does to an existing tool part: the state, and the
        fields an update sets (those it does not give are cleared; a
        dynamic part keeps its raw input)."""
        part["state"] = state
        keys = ["input", "output", "errorText", "preliminary"]
        if part["type"] != "dynamic-tool" or values.get("rawInput", _UNSET) is not _UNSET:
            keys.append("rawInput")
        for key in keys:
            value = values.get(key, _UNSET)
            if value is _UNSET:
                part.pop(key, None)
            else:
                part[key] = value
        if executed is not None:
            part["providerExecuted"] = executed
        if metadata is not None:
            part[_metadata_key(state)] = metadata

    def _find_tool(self, dynamic: bool, call_id: str) -> int | None:
        """The first tool part of the call, of that kind, in the current step."""
        positions = self._tools.get((dynamic, call_id))
        if not positions:
            return None
        at = bisect_left(positions, self._step)
        return positions[at] if at < len(positions) else None

    def _find_any_tool(self, call_id: str) -> int | None:
        found = [
            p for p in (self._find_tool(False, call_id), self._find_tool(True, call_id)) if p is not None
        ]
        return min(found) if found else None

    def _tool_invocation(self, call_id: str, kind: str) -> int:
        """The SDK's ``getToolInvocation``: the call's first part in the
        current step, else its last part in the message."""
        position = self._find_any_tool(call_id)
        if position is not None:
            return position
        last = [
            positions[-1]
            for key in ((False, call_id), (True, call_id))
            if (positions := self._tools.get(key))
        ]
        if not last:
            raise EventProblemError(f"is a {kind} for tool call {quote(call_id)}, which has not started")
        return max(last)

    def _pending_of(self, call_id: str) -> int | None:
        for key in ((False, call_id), (True, call_id)):
            for position in reversed(self._tools.get(key, ())):
                if self._pending.get(position) == call_id:
                    return position
        return None

    def _settle_call(self, call_id: str) -> None:
        position = self._pending_of(call_id)
        if position is not None:
            self._settle(position)

    def _settle(self, position: int) -> None:
        """Gives a part whose input was streaming that input, parsed once,
        if it is complete JSON."""
        call_id = self._pending.pop(position, None)
        partial = None if call_id is None else self._partials.get(call_id)
        if partial is None:
            return
        with suppress(JSONValueError):  # incomplete: no input
            self._parts[position]["input"] = loads(partial.text.text())

    def _unlist_approval(self, approval_id: str, position: int) -> None:
        positions = self._approvals.get(approval_id)
        if positions and position in positions:
            positions.remove(position)
            if not positions:
                del self._approvals[approval_id]


def _metadata_key(state: str) -> str:
    return "resultProviderMetadata" if state in OUTPUT_STATES else "callProviderMetadata"


def _tool_key(part: dict[str, Any]) -> tuple[bool, str] | None:
    kind = part["type"]
    if kind == "dynamic-tool":
        return (True, part["toolCallId"])
    if kind.startswith("tool-"):
        return (False, part["toolCallId"])
    return None


def _required(chunk: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = chunk.get(key)
    if value is None:
        raise EventProblemError(f"({chunk['type']}) has no {key}")
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise EventProblemError(f"({chunk['type']}) has {_a(key)} that is not {what}")
    return value


def _optional(chunk: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = chunk.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise EventProblemError(f"({chunk['type']}) has {_a(key)} that is not {what}")
    return value


def _a(word: str) -> str:
    """The word with its indefinite article."""
    return f"{'an' if word[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {word}"


def _call_id(chunk: dict[str, Any]) -> str:
    call_id: str = _required(chunk, "toolCallId", str, "a string")
    return call_id


def _tool_name(chunk: dict[str, Any]) -> str:
    name: str = _required(chunk, "toolName", str, "a string")
    return name


def _tool_fields(chunk: dict[str, Any]) -> dict[str, Any]:
    return {
        "toolMetadata": _optional(chunk, "toolMetadata", dict, "an object"),
        "providerExecuted": _optional(chunk, "providerExecuted", bool, "a boolean"),
        "providerMetadata": _optional(chunk, "providerMetadata", dict, "an object"),
    }


_HANDLERS = {
    "text-start": Assembler._text_start,
    "text-delta": Assembler._text_delta,
    "text-end": Assembler._text_end,
    "reasoning-start": Assembler._reasoning_start,
    "reasoning-delta": Assembler._reasoning_delta,
    "reasoning-end": Assembler._reasoning_end,
    "custom": Assembler._custom,
    "file": Assembler._file,
    "reasoning-file": Assembler._file,
    "source-url": Assembler._source_url,
    "source-document": Assembler._source_document,
    "tool-input-start": Assembler._tool_input_start,
    "tool-input-delta": Assembler._tool_input_delta,
    "tool-input-available": Assembler._tool_input_available,
    "tool-input-error": Assembler._tool_input_error,
    "tool-approval-request": Assembler._tool_approval_request,
    "tool-approval-response": Assembler._tool_approval_response,
    "tool-output-denied": Assembler._tool_output_denied,
    "tool-output-available": Assembler._tool_output_available,
    "tool-output-error": Assembler._tool_output_error,
    "start-step": Assembler._start_step,
    "finish-step": Assembler._finish_step,
    "reset-step": Assembler._reset_step,
    "start": Assembler._start,
    "finish": Assembler._finish_chunk,
    "message-metadata": Assembler._message_metadata,
}
