"""Assembling an OpenAI Chat Completions stream into its ChatCompletion: the
pure-Python mirror of ``rust/openai_chat/``.

The state is the completion's fields (from the first chunk; ``usage``,
``system_fingerprint`` and ``moderation`` from the latest chunk that has
them) and its choices by ``index``, each with its message merged from the
deltas. The merge is openai-python's ``accumulate_delta`` with its known
faults fixed: strings append and lists of ``index``ed entries merge by index,
but ``role``, ``id`` and ``name`` are set once (servers repeat them in every
chunk, and the SDK concatenates them into "assistantassistant"), and numbers
replace (the SDK adds them).
"""

from __future__ import annotations

from typing import Any

from ..accumulate import append, is_text, render
from ..events import as_int
from ..stream import (
    AssemblerBase,
    EventProblemError,
)
from ..tool_calls import NO_ARGUMENTS, ToolCall
from .errors import OpenAIChatError, OpenAIChatEventError

__all__ = ["Assembler"]

# Fields a server repeats without meaning to append: kept as first given.
SET_ONCE = frozenset({"role", "id", "name"})
# Fields that say which entry or variant: replaced, never appended.
REPLACED = frozenset({"index", "type"})


def error_fields(error: Any) -> tuple[str | None, str | None]:
    """What a chunk's truthy ``error`` says: its code (``code``, else
    ``type``) and its message (the error itself when it is a string).
    Compatible servers send either form."""
    source = error if isinstance(error, dict) else {}
    code = source.get("code")
    if not isinstance(code, str):
        code = source.get("type")
    message = error if isinstance(error, str) else source.get("message")
    return (code if isinstance(code, str) else None, message if isinstance(message, str) else None)


def recognizes(event: dict[str, Any]) -> bool:
    """Whether a chunk is one of the protocol's: it has ``choices``, says it
    is a ``chat.completion.chunk``, or is an error frame (an ``error``
    object): ``openai_chat::recognizes``."""
    return (
        isinstance(event.get("choices"), list)
        or event.get("object") == "chat.completion.chunk"
        # An error frame; a JSON-RPC error response is another protocol's.
        or (isinstance(event.get("error"), dict) and "jsonrpc" not in event)
    )


class Assembler(AssemblerBase):
    """Assembles an OpenAI Chat Completions stream into its final ChatCompletion."""

    _recognizes = staticmethod(recognizes)

    _event_error = OpenAIChatEventError
    _base_error = OpenAIChatError

    def _init_state(self) -> None:
        self._header: dict[str, Any] | None = None
        # index -> (the choice's own fields, its message)
        self._choices: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        # index -> where the choice's tool calls stand
        self._calls: dict[int, _Entries] = {}
        self._kept: list[dict[str, Any]] = []
        self._done = False

    # --- input ---------------------------------------------------------------

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return self._render_completion()

    @property
    def completion(self) -> dict[str, Any]:
        """The ChatCompletion so far: a new dict on every access."""
        return self._render_completion()

    def _render_completion(self) -> dict[str, Any]:
        choices = [self._choice(index) for index in sorted(self._choices)]
        if self._header is None:
            return {"object": "chat.completion", "choices": choices}
        return {key: choices if key == "choices" else render(value) for key, value in self._header.items()}

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """Every tool call of every choice: ``choice``, ``id``, ``type``,
        ``name``, ``arguments`` parsed so far (read after every delta, each
        byte is parsed once), and ``done``; arguments that are not valid JSON
        stay as they came, with an ``error``."""
        ended = self._done or self._closed
        calls = []
        for index in sorted(self._choices):
            fields, message = self._choices[index]
            entries = message.get("tool_calls")
            if not isinstance(entries, list):
                continue
            finished = ended or fields.get("finish_reason") is not None
            for position, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    continue
                function = entry.get("function")
                function = function if isinstance(function, dict) else {}
                arguments = function.get("arguments")
                calls.append(
                    ToolCall(
                        f"{index}/{position}",
                        {
                            "choice": index,
                            "id": entry.get("id"),
                            "type": entry.get("type"),
                            "name": function.get("name"),
                        },
                        "arguments",
                        NO_ARGUMENTS if arguments is None else arguments,
                        finished,
                    )
                )
        return self._tool_call_reader.read(calls)

    @property
    def events(self) -> list[dict[str, Any]]:
        """Chunks kept without being assembled: server errors and
        content-filter annotations, in order."""
        events: list[dict[str, Any]] = render(self._kept)
        return events

    # --- internals -----------------------------------------------------------

    def _choice(self, index: int) -> dict[str, Any]:
        fields, message = self._choices[index]
        choice = {
            "index": fields.get("index"),
            "message": render(message),
            "finish_reason": fields.get("finish_reason"),
            "logprobs": render(fields.get("logprobs")),
        }
        for key, value in fields.items():
            if key not in choice:
                choice[key] = render(value)
        return choice

    def _message_count(self) -> int:
        return len(self._choices)

    def _done_marker(self) -> None:
        self._done = True  # a Chat stream ends with [DONE]

    def _apply_object(self, event: dict[str, Any]) -> None:
        self._apply(event)

    def _finish(self) -> None:
        pass

    def _apply(self, chunk: dict[str, Any]) -> None:
        error = chunk.get("error")
        if error:
            code, said = error_fields(error)
            self._record({"event": self._events, "code": "error" if code is None else code, "message": said})
            self._kept.append(chunk)
            return
        if self._done:
            raise EventProblemError("comes after [DONE]")
        if chunk.get("object") == "":
            # Azure's content-filter annotations: not part of the completion
            # (openai-python's stream helper drops them).
            self._kept.append(chunk)
            return
        indexes = _checked_choices(chunk)
        given = chunk.get("choices")
        if not isinstance(given, list):
            given = []
        if self._header is None:
            header: dict[str, Any] = {}
            for key, value in chunk.items():
                if key == "obfuscation":
                    continue
                header[key] = None if key == "choices" else "chat.completion" if key == "object" else value
            for key in ("object", "choices", "system_fingerprint", "usage"):
                if key not in header:
                    header[key] = "chat.completion" if key == "object" else None
            self._header = header
        else:
            for key in ("usage", "system_fingerprint", "moderation"):
                value = chunk.get(key)
                if value is not None:
                    self._header[key] = value
        for index, choice in zip(indexes, given, strict=True):
            fields = {key: value for key, value in choice.items() if key != "delta"}
            delta = choice.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            held = self._choices.get(index)
            if held is None:
                message: dict[str, Any] = {}
                calls = self._calls[index] = _Entries()
                _merge_message(message, delta, calls)
                self._blocks_held += _tool_call_count(message)
                self._choices[index] = (fields, message)
                continue
            held_fields, held_message = held
            if "tool_calls" in delta:
                # Only a delta with tool calls changes how many there are.
                before = _tool_call_count(held_message)
                _merge_message(held_message, delta, self._calls[index])
                self._blocks_held += _tool_call_count(held_message) - before
            else:
                _merge_into(held_message, delta)
            reason = fields.get("finish_reason")
            if isinstance(reason, str) and reason:
                held_fields["finish_reason"] = reason
            logprobs = fields.get("logprobs")
            if isinstance(logprobs, dict):
                _extend_logprobs(held_fields, logprobs)


def _tool_call_count(message: dict[str, Any]) -> int:
    """The tool calls a choice's message holds: a Chat message's blocks."""
    calls = message.get("tool_calls")
    return len(calls) if isinstance(calls, list) else 0


def _checked_choices(chunk: dict[str, Any]) -> list[int]:
    """Checks a chunk's choices before anything is applied, so that a bad
    chunk changes nothing: their indexes, in order."""
    choices = chunk.get("choices")
    if choices is None:
        return []
    if not isinstance(choices, list):
        raise EventProblemError("has choices that are not a list")
    indexes = []
    for position, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise EventProblemError(f"has a choice (at {position}) that is not an object")
        index = as_int(choice.get("index"))
        if index is None:
            if choice.get("index") is None:
                raise EventProblemError(f"has a choice (at {position}) without an index")
            raise EventProblemError(f"has a choice (at {position}) whose index is not a 64-bit integer")
        delta = choice.get("delta")
        if delta is not None and not isinstance(delta, dict):
            raise EventProblemError(f"has a delta (choice {index}) that is not an object")
        delta = delta or {}
        for key in ("content", "refusal"):
            value = delta.get(key)
            if value is not None and not isinstance(value, str):
                raise EventProblemError(f"has a delta (choice {index}) whose {key} is not a string")
        calls = delta.get("tool_calls")
        if calls is not None and not (
            isinstance(calls, list) and all(isinstance(call, dict) for call in calls)
        ):
            raise EventProblemError(
                f"has a delta (choice {index}) whose tool_calls are not a list of objects"
            )
        indexes.append(index)
    return indexes


def _extend_logprobs(fields: dict[str, Any], given: dict[str, Any]) -> None:
    held = fields.get("logprobs")
    if not isinstance(held, dict):
        fields["logprobs"] = given
        return
    for key in ("content", "refusal"):
        items = given.get(key)
        if not isinstance(items, list) or not items:
            continue
        existing = held.get(key)
        if isinstance(existing, list):
            existing.extend(items)
        else:
            held[key] = list(items)


# --- the merge ----------------------------------------------------------------------


def _merge_message(message: dict[str, Any], delta: dict[str, Any], calls: _Entries) -> None:
    """Merges a delta into a choice's message: ``_merge_into``, with its
    ``tool_calls`` found through ``calls``."""
    for key, value in delta.items():
        entries = calls if key == "tool_calls" else None
        if message.get(key) is None:
            message[key] = _fresh(value, entries)
        else:
            _merge_value(message, key, value, entries)


def _merge_into(held: dict[str, Any], delta: dict[str, Any]) -> None:
    """Merges a delta into what was assembled (see the module's doc)."""
    for key, value in delta.items():
        if held.get(key) is None:
            held[key] = _fresh(value, None)
        else:
            _merge_value(held, key, value, None)


def _fresh(value: Any, entries: _Entries | None) -> Any:
    """A value given for the first time: a list of indexed entries is merged
    even within its first delta, which may carry several fragments of one
    entry. ``entries``, when given, is made to describe the list."""
    tools = entries is not None
    entries = _Entries() if entries is None else entries
    entries.forget()
    if isinstance(value, list) and (tools or _has_indexed(value)):
        merged: list[Any] = []
        entries.built = True
        _merge_indexed(merged, value, entries, tools)
        return merged
    return value


def _merge_value(held: dict[str, Any], key: str, value: Any, entries: _Entries | None) -> None:
    if value is None or key in SET_ONCE:
        return
    slot = held[key]
    if key in REPLACED:
        # The same index written another way keeps the first.
        if key != "index" or as_int(slot) is None or as_int(slot) != as_int(value):
            held[key] = value
        return
    if is_text(slot) and isinstance(value, str):
        append(held, key, value)
    elif isinstance(slot, dict) and isinstance(value, dict):
        _merge_into(slot, value)
    elif isinstance(slot, list) and isinstance(value, list):
        _merge_list(slot, value, _Entries() if entries is None else entries, entries is not None)
    else:
        held[key] = value
        if entries is not None:
            entries.forget()  # read again when next asked


def _merge_list(entries_list: list[Any], items: list[Any], entries: _Entries, tools: bool) -> None:
    """More items for a list: merged by index when any has one, else added
    (tool calls: always merged, see ``_merge_indexed``)."""
    if tools or _has_indexed(items):
        _merge_indexed(entries_list, items, entries, tools)
    else:
        for item in items:
            entries.note(len(entries_list), item)
            entries_list.append(item)


def _has_indexed(items: list[Any]) -> bool:
    return any(isinstance(item, dict) and "index" in item for item in items)


def _merge_indexed(entries_list: list[Any], items: list[Any], entries: _Entries, tools: bool) -> None:
    """Merges entries into a list by their ``index``; an entry without an
    integer index joins the last entry with its ``id``, or is added.

    Tool calls (``tools``) as OpenAI-compatible servers send them
    (``merge_indexed`` in the Rust core): a call with another's index but an
    id of its own is a call of its own, which the index names from then on;
    a fragment with neither an index (none at all, or null) nor an id
    continues the call before it, unless both name their function."""
    for item in items:
        if not isinstance(item, dict):
            entries_list.append(item)
            continue
        index = as_int(item.get("index"))
        item_id = item.get("id")
        found: int | None = None
        if index is not None:
            found = entries.find_index(entries_list, index)
        elif isinstance(item_id, str):
            found = entries.find_id(entries_list, item_id)
        elif tools and entries_list and item.get("index") is None:
            last = len(entries_list) - 1
            if not (_names_function(entries_list[last]) and _names_function(item)):
                found = last
        if found is not None and not isinstance(entries_list[found], dict):
            found = None
        if found is not None and tools and isinstance(item_id, str):
            held_id = entries_list[found].get("id")
            if isinstance(held_id, str) and held_id != item_id:
                found = None  # another call
        if found is not None:
            held = entries_list[found]
            gives_id = entries.built and "id" in item
            _merge_into(held, item)
            if gives_id:
                # An id is set once: a held entry may only gain one.
                held_id = held.get("id")
                if isinstance(held_id, str):
                    entries.note_id(found, held_id)
        else:
            fresh: dict[str, Any] = {}
            _merge_into(fresh, item)
            entries.note(len(entries_list), fresh)
            entries_list.append(fresh)


class _Entries:
    """Where a list's entries stand by their integer ``index`` and by their
    ``id``: what a scan from the end would find, without one. The mirror of
    ``Entries`` in the Rust core, which says why and what it relies on."""

    __slots__ = ("built", "by_id", "by_index", "shared")

    def __init__(self) -> None:
        self.built = False  # whether the maps describe the list
        self.by_index: dict[int, list[int]] = {}  # index -> positions with it, ascending
        self.by_id: dict[str, int] = {}  # id -> the last position with it
        # Whether an index names more than one entry (a server that numbers
        # every call 0): the one at the position it names may not be the last.
        self.shared = False

    def forget(self) -> None:
        self.built = False
        self.by_index = {}
        self.by_id = {}
        self.shared = False

    def _build(self, entries_list: list[Any]) -> None:
        if not self.built:
            self.built = True
            for at, entry in enumerate(entries_list):
                self.note(at, entry)

    def note(self, at: int, entry: Any) -> None:
        """An entry was put at ``at``, after every other."""
        if not self.built or not isinstance(entry, dict):
            return
        index = as_int(entry.get("index"))
        if index is not None:
            positions = self.by_index.setdefault(index, [])
            self.shared = self.shared or bool(positions)
            positions.append(at)
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            self.note_id(at, entry_id)

    def note_id(self, at: int, entry_id: str) -> None:
        last = self.by_id.get(entry_id)
        if last is None or last < at:
            self.by_id[entry_id] = at

    def find_index(self, entries_list: list[Any], index: int) -> int | None:
        """Where the entry with ``index`` stands: at that position when the
        entries came in order (the usual case), else the last one with it."""
        if (
            self.built
            and not self.shared
            and 0 <= index < len(entries_list)
            and _has_index(entries_list[index], index)
        ):
            return index
        self._build(entries_list)
        positions = self.by_index.get(index)
        while positions:
            if _has_index(entries_list[positions[-1]], index):
                return positions[-1]
            positions.pop()  # it lost its index
        return None

    def find_id(self, entries_list: list[Any], entry_id: str) -> int | None:
        """Where the last entry with ``entry_id`` stands."""
        self._build(entries_list)
        return self.by_id.get(entry_id)


def _names_function(call: Any) -> bool:
    """Whether a tool call names its function."""
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return isinstance(name, str) and bool(name)


def _has_index(entry: Any, index: int) -> bool:
    return isinstance(entry, dict) and as_int(entry.get("index")) == index
