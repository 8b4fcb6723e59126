"""Assembling an AG-UI event stream: the pure-Python mirror of
``rust/agui/``.

The rules are the AG-UI client's (``@ag-ui/client``: ``transformChunks`` then
``defaultApplyEvents``), applied in linear time: messages are found by id in a
map, not by scanning; text and arguments grow as lists of pieces; a JSON
Patch is applied in place and undone if it fails. Where the client only logs
(a delta for a message never started, a patch that does not apply), this
assembler reports the event as ``on_error`` says, and nothing applied before
it is lost.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..._vocabulary import tables
from ..accumulate import Pieces, render
from ..article import article
from ..json_patch import PatchError, apply_patch
from ..json_values import JSONValueError, copy_value, quote
from ..sse_decoder import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES
from ..stream import (
    DEFAULT_MAX_BLOCKS,
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_MESSAGES,
    DEFAULT_MAX_STREAM_BYTES,
    AssemblerBase,
    EventProblemError,
)
from ..tool_calls import NO_ARGUMENTS, ToolCall
from .errors import AGUIError, AGUIEventError
from .events import recognizes

__all__ = ["Assembler"]

_VOCABULARY = tables("agui")

# Events kept in order (in the run's "events") for whoever wants them; they
# change no message or state.
KEPT_EVENTS = frozenset(
    {
        "STEP_STARTED",
        "STEP_FINISHED",
        "RAW",
        "CUSTOM",
        "REASONING_START",
        "REASONING_END",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
        "THINKING_START",
        "THINKING_END",
    }
)
# Events that leave a chunk-opened message or tool call open
# (``transformChunks`` passes them through); every other event closes it.
PASS_THROUGH = frozenset(_VOCABULARY["CHUNK_PASS_THROUGH"])
# The shorthands, and what each opens.
CHUNK_MODES = {
    "TEXT_MESSAGE_CHUNK": "text",
    "TOOL_CALL_CHUNK": "tool",
    "REASONING_MESSAGE_CHUNK": "reasoning",
}


def _field(event: dict[str, Any], camel: str, snake: str) -> Any:
    """A field in its wire spelling (camelCase) or, failing that, in snake_case."""
    value = event.get(camel)
    if value is None and camel != snake:
        value = event.get(snake)
    return value


def _str_field(event: dict[str, Any], camel: str, snake: str) -> str:
    value = _field(event, camel, snake)
    if not isinstance(value, str):
        raise EventProblemError(
            f"has no {camel}" if value is None else f"has {article(camel)} {camel} that is not a string"
        )
    return value


def _optional_str(event: dict[str, Any], camel: str, snake: str) -> str | None:
    value = _field(event, camel, snake)
    if value is not None and not isinstance(value, str):
        raise EventProblemError(f"has {article(camel)} {camel} that is not a string")
    return value


def _text_content(message: dict[str, Any]) -> Pieces:
    """The message's content as pieces to append to: what the client does
    with ``content = existing + delta`` (content that is not a string counts
    as "")."""
    content = message.get("content")
    if isinstance(content, Pieces):
        return content
    pieces = Pieces([content] if isinstance(content, str) and content else [])
    message["content"] = pieces
    return pieces


class Assembler(AssemblerBase):
    """Assembles an AG-UI stream into the run the client holds: its messages,
    state, status, result and error."""

    _recognizes = staticmethod(recognizes)

    _event_error = AGUIEventError
    _base_error = AGUIError

    def __init__(
        self,
        *,
        messages: list[dict[str, Any]] | None = None,
        state: Any = None,
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
        try:
            initial_messages = copy_value([] if messages is None else messages)
            initial_state = copy_value({} if state is None else state)
        except JSONValueError as exc:
            raise TypeError(f"messages and state must be JSON-compatible: {exc}") from None
        if not isinstance(initial_messages, list) or not all(
            isinstance(message, dict) for message in initial_messages
        ):
            raise TypeError("messages must be a list of message dicts")
        self._run: dict[str, Any] = {
            "threadId": None,
            "runId": None,
            "parentRunId": None,
            "status": "running",
            "error": None,
            "result": None,
            "outcome": None,
            "usage": None,
        }
        self._messages: list[dict[str, Any]] = initial_messages
        self._state: Any = initial_state
        self._kept: list[dict[str, Any]] = []
        # id -> the first message with it; call id -> (first message holding
        # it, the call): what the client finds by scanning.
        self._by_id: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        self._reindex()
        # transformChunks: what a *_CHUNK event opened ("text", "tool",
        # "reasoning"), and its id.
        self._chunk_mode: str | None = None
        self._chunk_id: str | None = None
        self._thinking_id: str | None = None
        self._terminal = False
        self._ended_calls: set[str] = set()  # tool calls TOOL_CALL_END ended

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_run()

    @property
    def run(self) -> dict[str, Any]:
        """The run so far: ``threadId``, ``runId``, ``status``, ``error``,
        ``result``, ``messages``, ``state`` and the kept ``events``."""
        return self._render_run()

    def _render_run(self) -> dict[str, Any]:
        run: dict[str, Any] = render(self._run)
        run["messages"] = [render(message) for message in self._messages]
        run["state"] = render(self._state)
        run["events"] = render(self._kept)
        return run

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages as the AG-UI client holds them: a new list on every access."""
        return [render(message) for message in self._messages]

    @property
    def state(self) -> Any:
        return render(self._state)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of every message: ``messageId``, ``id``, ``name``,
        ``arguments`` parsed so far (read after every delta, each byte is
        parsed once), and ``done``; arguments that are not valid JSON stay as
        they came, with an ``error``."""
        ended = self._terminal or self._closed
        calls = []
        for position, message in enumerate(self._messages):
            entries = message.get("toolCalls")
            if not isinstance(entries, list):
                continue
            for at, given in enumerate(entries):
                entry = given if isinstance(given, dict) else {}
                function = entry.get("function")
                function = function if isinstance(function, dict) else {}
                arguments = function.get("arguments")
                call_id = entry.get("id")
                calls.append(
                    ToolCall(
                        f"{position}/{at}",
                        {"messageId": message.get("id"), "id": call_id, "name": function.get("name")},
                        "arguments",
                        NO_ARGUMENTS if arguments is None else arguments,
                        ended or (isinstance(call_id, str) and call_id in self._ended_calls),
                    )
                )
        return self._tool_call_reader.read(calls)

    @property
    def status(self) -> str:
        """``"running"``, ``"finished"``, ``"error"``, or, once closed without
        either, ``"incomplete"``."""
        status: str = self._run["status"]
        return status

    # --- internals -----------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._messages)

    def _apply_object(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if not isinstance(kind, str):
            raise EventProblemError("has no type" if kind is None else "has a type that is not a string")
        try:
            self._apply(kind, event)
        except EventProblemError as exc:
            raise EventProblemError(f"({kind}) {exc}") from None

    def _finish(self) -> None:
        if not self._terminal:
            self._run["status"] = "incomplete"

    def _reindex(self) -> None:
        """Makes every message findable again, after messages were replaced
        or moved, and counts their tool calls again."""
        self._by_id = {}
        self._calls = {}
        self._blocks_held = 0
        for message in self._messages:
            self._index(message)

    def _index(self, message: dict[str, Any]) -> None:
        """Makes a message, and its tool calls, findable, unless an earlier
        one has the same id; its tool calls are its blocks."""
        message_id = message.get("id")
        if isinstance(message_id, str):
            self._by_id.setdefault(message_id, message)
        calls = message.get("toolCalls")
        if isinstance(calls, list):
            self._blocks_held += len(calls)
            for call in calls:
                call_id = call.get("id") if isinstance(call, dict) else None
                if isinstance(call_id, str) and call_id not in self._calls:
                    self._calls[call_id] = (message, call)

    def _message(self, event: dict[str, Any]) -> dict[str, Any]:
        """The message an event addresses by ``messageId``; it must exist."""
        message_id = _str_field(event, "messageId", "message_id")
        message = self._by_id.get(message_id)
        if message is None:
            raise EventProblemError(f"is for message {quote(message_id)}, which was never started")
        return message

    def _call(self, event: dict[str, Any]) -> dict[str, Any]:
        call_id = _str_field(event, "toolCallId", "tool_call_id")
        found = self._calls.get(call_id)
        if found is None:
            raise EventProblemError(f"is for tool call {quote(call_id)}, which was never started")
        return found[1]

    @staticmethod
    def _metadata(event: dict[str, Any]) -> dict[str, Any] | None:
        metadata = event.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise EventProblemError("has metadata that is not an object")
        return metadata

    @staticmethod
    def _merge_metadata(target: dict[str, Any] | None, metadata: dict[str, Any] | None) -> None:
        """Folds an event's metadata into what it builds, key by key, last write wins."""
        if target is None or metadata is None:
            return
        existing = target.get("metadata")
        target["metadata"] = {**existing, **metadata} if isinstance(existing, dict) else dict(metadata)

    def _apply(self, kind: str, event: dict[str, Any]) -> None:
        mode = CHUNK_MODES.get(kind)
        if mode is not None:
            self._chunk(mode, event)
            return
        handler = _HANDLERS.get(kind)
        if handler is None and kind not in KEPT_EVENTS:
            # A type this version does not know: kept, changing nothing (the
            # client drops it, chunks and all, without closing anything).
            self._kept.append(event)
            return
        if kind not in PASS_THROUGH:
            self._chunk_mode = None
        if handler is not None:
            handler(self, event)
        else:
            # STEP_*, RAW, CUSTOM, REASONING_START/END, SUBAGENT_*: kept.
            self._kept.append(event)

    # --- text and reasoning messages -------------------------------------------------

    def _text_start(self, event: dict[str, Any]) -> None:
        message_id = _str_field(event, "messageId", "message_id")
        role = _optional_str(event, "role", "role")
        name = _optional_str(event, "name", "name")
        metadata = self._metadata(event)
        message = self._by_id.get(message_id)
        if message is None:
            message = {"id": message_id, "role": role or "assistant", "content": ""}
            if name is not None:
                message["name"] = name
            self._push(message)
        self._merge_metadata(message, metadata)

    def _reasoning_start(self, event: dict[str, Any]) -> None:
        message_id = _str_field(event, "messageId", "message_id")
        metadata = self._metadata(event)
        message = self._by_id.get(message_id)
        if message is None:
            message = {"id": message_id, "role": "reasoning", "content": ""}
            self._push(message)
        self._merge_metadata(message, metadata)

    def _content(self, event: dict[str, Any]) -> None:
        message = self._message(event)
        delta = event.get("delta")
        if not isinstance(delta, str):
            raise EventProblemError("has no delta" if delta is None else "has a delta that is not a string")
        metadata = self._metadata(event)
        if delta:
            _text_content(message).append(delta)
        elif not isinstance(message.get("content"), (str, Pieces)):
            message["content"] = ""
        self._merge_metadata(message, metadata)

    def _end(self, event: dict[str, Any]) -> None:
        message = self._message(event)
        self._merge_metadata(message, self._metadata(event))

    def _push(self, message: dict[str, Any]) -> None:
        self._messages.append(message)
        self._index(message)

    # --- tool calls -------------------------------------------------------------------

    def _tool_start(self, event: dict[str, Any]) -> None:
        call_id = _str_field(event, "toolCallId", "tool_call_id")
        name = _str_field(event, "toolCallName", "tool_call_name")
        parent_id = _optional_str(event, "parentMessageId", "parent_message_id")
        metadata = self._metadata(event)
        found = self._calls.get(call_id)
        if found is not None:
            # Idempotent: a replayed start renames, never duplicates.
            call = found[1]
            function = call.get("function")
            if isinstance(function, dict):
                function["name"] = name
            self._merge_metadata(call, metadata)
            return
        owner = None
        if parent_id:
            existing = self._by_id.get(parent_id)
            if existing is not None and existing.get("role") == "assistant":
                owner = existing
            else:
                owner = {
                    "id": call_id if existing is not None else parent_id,
                    "role": "assistant",
                    "toolCalls": [],
                }
                self._push(owner)
        else:
            owner = {"id": call_id, "role": "assistant", "toolCalls": []}
            self._push(owner)
        calls = owner.get("toolCalls")
        if not isinstance(calls, list):
            calls = owner["toolCalls"] = []
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        calls.append(call)
        self._blocks_held += 1
        self._calls[call_id] = (owner, call)
        self._merge_metadata(call, metadata)

    def _tool_args(self, event: dict[str, Any]) -> None:
        call = self._call(event)
        delta = event.get("delta")
        if not isinstance(delta, str):
            raise EventProblemError("has no delta" if delta is None else "has a delta that is not a string")
        metadata = self._metadata(event)
        function = call.get("function")
        if not isinstance(function, dict):
            function = call["function"] = {"name": "", "arguments": ""}
        arguments = function.get("arguments")
        if isinstance(arguments, Pieces):
            arguments.append(delta)
        else:
            function["arguments"] = Pieces([arguments, delta] if isinstance(arguments, str) else [delta])
        self._merge_metadata(call, metadata)

    def _tool_end(self, event: dict[str, Any]) -> None:
        call = self._call(event)
        call_id = _field(event, "toolCallId", "tool_call_id")
        if isinstance(call_id, str):
            self._ended_calls.add(call_id)
        self._merge_metadata(call, self._metadata(event))

    def _tool_result(self, event: dict[str, Any]) -> None:
        message_id = _str_field(event, "messageId", "message_id")
        call_id = _str_field(event, "toolCallId", "tool_call_id")
        if "content" not in event:
            raise EventProblemError("has no content")
        content = event["content"]
        if not isinstance(content, (str, list)):
            raise EventProblemError("has content that is neither a string nor a list of parts")
        role = _optional_str(event, "role", "role")
        message: dict[str, Any] = {
            "id": message_id,
            "toolCallId": call_id,
            "role": role or "tool",
            "content": content,
        }
        self._merge_metadata(message, self._metadata(event))
        # Right after the assistant message holding the call (past the tool
        # results already there), so that each call is followed by its result.
        owner = self._owner_of(call_id)
        if owner is None:
            self._push(message)
            return
        messages = self._messages
        # Found from the end, as the insertion's cost is: results mostly
        # follow their calls closely.
        at = next(at for at in range(len(messages) - 1, -1, -1) if messages[at] is owner) + 1
        while at < len(messages) and messages[at].get("role") == "tool":
            at += 1
        messages.insert(at, message)
        # The first message with this id is the new one if none was, or the
        # one that was comes after it. (It holds no tool calls.)
        first = self._by_id.get(message_id)
        if first is None or any(later is first for later in itertools.islice(messages, at + 1, None)):
            self._by_id[message_id] = message

    def _owner_of(self, call_id: str) -> dict[str, Any] | None:
        """The first assistant message holding the call."""
        found = self._calls.get(call_id)
        if found is None:
            return None  # no message holds it
        if found[0].get("role") == "assistant":
            return found[0]
        # The first message holding it is not an assistant's: one after it may be.
        return next(
            (
                candidate
                for candidate in self._messages
                if candidate.get("role") == "assistant"
                and any(
                    isinstance(call, dict) and call.get("id") == call_id
                    for call in candidate.get("toolCalls") or ()
                )
            ),
            None,
        )

    # --- state, snapshots, activities ----------------------------------------------------

    def _state_snapshot(self, event: dict[str, Any]) -> None:
        if "snapshot" not in event:
            raise EventProblemError("has no snapshot")
        self._state = event["snapshot"]

    def _state_delta(self, event: dict[str, Any]) -> None:
        delta = event.get("delta")
        if not isinstance(delta, list):
            raise EventProblemError(
                "has no delta" if delta is None else "has a delta that is not a JSON Patch array"
            )
        try:
            self._state = apply_patch(self._state, delta, self._budget)
        except PatchError as exc:
            raise EventProblemError(f"does not apply to the state: {exc}") from None

    def _messages_snapshot(self, event: dict[str, Any]) -> None:
        snapshot = event.get("messages")
        if not isinstance(snapshot, list):
            raise EventProblemError(
                "has no messages" if snapshot is None else "has messages that are not a list"
            )
        for message in snapshot:
            if not isinstance(message, dict) or not isinstance(message.get("id"), str):
                raise EventProblemError("has a message without a string id")
        # Messages in the snapshot replace theirs, others are dropped, except
        # the client-only activity and reasoning messages when the snapshot
        # has none of that role; new ones are appended.
        by_id = {message["id"]: message for message in snapshot}
        roles = {message.get("role") for message in snapshot}

        def preserved(message: dict[str, Any]) -> bool:
            role = message.get("role")
            return role in ("activity", "reasoning") and role not in roles

        # A copy each: two entries with one id must not share one object (the
        # Rust core holds values, not references).
        kept = [
            message if preserved(message) else copy_value(by_id[message["id"]])
            for message in self._messages
            if preserved(message) or message.get("id") in by_id
        ]
        known = {message.get("id") for message in kept}
        kept += [message for message in snapshot if message["id"] not in known]
        self._messages = kept
        self._reindex()

    def _activity_snapshot(self, event: dict[str, Any]) -> None:
        message_id = _str_field(event, "messageId", "message_id")
        activity_type = _str_field(event, "activityType", "activity_type")
        content = event.get("content")
        if not isinstance(content, dict):
            raise EventProblemError("has no content object")
        replace = event.get("replace")
        replace = True if replace is None else replace
        metadata = self._metadata(event)
        activity = {"id": message_id, "role": "activity", "activityType": activity_type, "content": content}
        existing = self._by_id.get(message_id)
        target = None
        if existing is None:
            self._push(activity)
            target = activity
        elif existing.get("role") == "activity":
            if replace is True:
                existing["activityType"] = activity_type
                existing["content"] = content
            target = existing
        elif replace is True:
            position = next(i for i, message in enumerate(self._messages) if message is existing)
            self._messages[position] = activity
            self._reindex()
            target = activity
        self._merge_metadata(target, metadata)

    def _activity_delta(self, event: dict[str, Any]) -> None:
        message = self._message(event)
        activity_type = _str_field(event, "activityType", "activity_type")
        patch = event.get("patch")
        if not isinstance(patch, list):
            raise EventProblemError(
                "has no patch" if patch is None else "has a patch that is not a JSON Patch array"
            )
        metadata = self._metadata(event)
        if message.get("role") != "activity":
            raise EventProblemError(
                f"is for message {quote(message['id'])}, which is not an activity message"
            )
        content = message.get("content")
        if isinstance(content, Pieces):
            content = content.text()  # text appended to it: patched as the string it is
        try:
            message["content"] = apply_patch({} if content is None else content, patch, self._budget)
        except PatchError as exc:
            raise EventProblemError(f"does not apply to the activity's content: {exc}") from None
        message["activityType"] = activity_type
        self._merge_metadata(message, metadata)

    def _encrypted_value(self, event: dict[str, Any]) -> None:
        subtype = _str_field(event, "subtype", "subtype")
        entity_id = _str_field(event, "entityId", "entity_id")
        value = _str_field(event, "encryptedValue", "encrypted_value")
        if subtype == "tool-call":
            found = self._calls.get(entity_id)
            if found is not None and found[0].get("role") != "assistant":
                found = next(
                    (
                        (message, call)
                        for message in self._messages
                        if message.get("role") == "assistant"
                        for call in message.get("toolCalls") or ()
                        if isinstance(call, dict) and call.get("id") == entity_id
                    ),
                    None,
                )
            if found is None:
                raise EventProblemError(f"is for tool call {quote(entity_id)}, which was never started")
            found[1]["encryptedValue"] = value
        else:
            message = self._by_id.get(entity_id)
            if message is None:
                raise EventProblemError(f"is for message {quote(entity_id)}, which was never started")
            if message.get("role") != "activity":
                message["encryptedValue"] = value

    # --- the run ----------------------------------------------------------------------

    def _run_started(self, event: dict[str, Any]) -> None:
        thread_id = _str_field(event, "threadId", "thread_id")
        run_id = _str_field(event, "runId", "run_id")
        parent_run_id = _optional_str(event, "parentRunId", "parent_run_id")
        run_input = event.get("input")
        new_messages = run_input.get("messages") if isinstance(run_input, dict) else None
        if new_messages is not None and (
            not isinstance(new_messages, list)
            or not all(
                isinstance(message, dict) and isinstance(message.get("id"), str) for message in new_messages
            )
        ):
            raise EventProblemError("has input messages without string ids")
        self._run.update(
            threadId=thread_id,
            runId=run_id,
            parentRunId=parent_run_id,
            status="running",
            error=None,
            result=None,
            outcome=None,
            usage=None,
        )
        self._terminal = False
        for message in new_messages or ():
            if message["id"] not in self._by_id:
                self._push(message)

    def _run_finished(self, event: dict[str, Any]) -> None:
        self._run.update(status="finished", result=event.get("result"), outcome=event.get("outcome"))
        if event.get("usage") is not None:
            self._run["usage"] = event["usage"]
        self._terminal = True

    def _run_error(self, event: dict[str, Any]) -> None:
        message = _str_field(event, "message", "message")
        code = _optional_str(event, "code", "code")
        self._run.update(status="error", error={"message": message, "code": code})
        if event.get("usage") is not None:
            self._run["usage"] = event["usage"]
        self._terminal = True
        self._record({"event": self._events, "code": code or "run_error", "message": message})

    # --- shorthands and legacy events ---------------------------------------------------

    def _chunk(self, mode: str, event: dict[str, Any]) -> None:
        """``transformChunks``: a chunk continues what the last chunk opened,
        or closes it and opens its own; START, CONTENT/ARGS as it implies."""
        if mode == "tool":
            chunk_id = _optional_str(event, "toolCallId", "tool_call_id")
        else:
            chunk_id = _optional_str(event, "messageId", "message_id")
        switches = bool(chunk_id) if mode == "reasoning" else chunk_id is not None
        if self._chunk_mode != mode or (switches and chunk_id != self._chunk_id):
            self._chunk_mode = None
        metadata = event.get("metadata")
        delta = event.get("delta")
        if delta is not None and not isinstance(delta, str):
            raise EventProblemError("has a delta that is not a string")
        applied = False
        if self._chunk_mode is None:
            if chunk_id is None:
                what = "toolCallId" if mode == "tool" else "messageId"
                raise EventProblemError(
                    f"opens a {'tool call' if mode == 'tool' else 'message'} but has no {what}"
                )
            start: dict[str, Any]
            if mode == "text":
                start = {"messageId": chunk_id, "role": _optional_str(event, "role", "role") or "assistant"}
                if event.get("name") is not None:
                    start["name"] = event["name"]
                opener = Assembler._text_start
            elif mode == "tool":
                name = _field(event, "toolCallName", "tool_call_name")
                if name is None:
                    raise EventProblemError("opens a tool call but has no toolCallName")
                start = {
                    "toolCallId": chunk_id,
                    "toolCallName": name,
                    "parentMessageId": _field(event, "parentMessageId", "parent_message_id"),
                }
                opener = Assembler._tool_start
            else:
                start = {"messageId": chunk_id}
                opener = Assembler._reasoning_start
            if metadata is not None:
                start["metadata"] = metadata
            opener(self, start)
            self._chunk_mode, self._chunk_id = mode, chunk_id
            applied = True
        if delta is not None or (not applied and metadata is not None):
            content: dict[str, Any] = {"delta": delta or ""}
            if mode == "tool":
                content["toolCallId"] = self._chunk_id
            else:
                content["messageId"] = self._chunk_id
            if metadata is not None:
                content["metadata"] = metadata
            (Assembler._tool_args if mode == "tool" else Assembler._content)(self, content)

    def _thinking(self, event: dict[str, Any]) -> None:
        """AG-UI before 1.0 streamed reasoning as THINKING_TEXT_MESSAGE_*: the
        client turns them into REASONING_MESSAGE_* with ids of its own; here
        the id is ``thinking-`` and the number of the event that opened it."""
        kind = event["type"]
        if kind == "THINKING_TEXT_MESSAGE_START":
            self._thinking_id = f"thinking-{self._events}"
            self._reasoning_start({**event, "messageId": self._thinking_id})
        elif self._thinking_id is None:
            raise EventProblemError("continues a thinking message that was never started")
        elif kind == "THINKING_TEXT_MESSAGE_CONTENT":
            self._content({**event, "messageId": self._thinking_id})
        else:
            self._end({**event, "messageId": self._thinking_id})
            self._thinking_id = None


_HANDLERS = {
    "TEXT_MESSAGE_START": Assembler._text_start,
    "TEXT_MESSAGE_CONTENT": Assembler._content,
    "TEXT_MESSAGE_END": Assembler._end,
    "REASONING_MESSAGE_START": Assembler._reasoning_start,
    "REASONING_MESSAGE_CONTENT": Assembler._content,
    "REASONING_MESSAGE_END": Assembler._end,
    "TOOL_CALL_START": Assembler._tool_start,
    "TOOL_CALL_ARGS": Assembler._tool_args,
    "TOOL_CALL_END": Assembler._tool_end,
    "TOOL_CALL_RESULT": Assembler._tool_result,
    "STATE_SNAPSHOT": Assembler._state_snapshot,
    "STATE_DELTA": Assembler._state_delta,
    "MESSAGES_SNAPSHOT": Assembler._messages_snapshot,
    "ACTIVITY_SNAPSHOT": Assembler._activity_snapshot,
    "ACTIVITY_DELTA": Assembler._activity_delta,
    "REASONING_ENCRYPTED_VALUE": Assembler._encrypted_value,
    "RUN_STARTED": Assembler._run_started,
    "RUN_FINISHED": Assembler._run_finished,
    "RUN_ERROR": Assembler._run_error,
    "THINKING_TEXT_MESSAGE_START": Assembler._thinking,
    "THINKING_TEXT_MESSAGE_CONTENT": Assembler._thinking,
    "THINKING_TEXT_MESSAGE_END": Assembler._thinking,
}
