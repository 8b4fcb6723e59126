"""OpenAI Chat Completions to and from the neutral vocabulary: the
pure-Python mirror of ``rust/openai_chat/events.rs``.

Decoding: the first chunk starts the run (its id, model and created time);
each choice is one assistant message (the completion's id for choice 0,
``<id>-<n>`` for choice n, which ``message_started`` names in ``choice``).
Chat has no block boundaries, so they are drawn where the content changes:
reasoning (``reasoning_content``, or OpenRouter's ``reasoning``), text and
refusal each run in one block until another kind of content comes; each tool
call (by its ``index``) is one block, open until the choice finishes, since
fragments of parallel calls interleave; audio is a media block of base64
data. A choice's ``finish_reason`` finishes its message, ``[DONE]`` the run
(incomplete when a choice stopped for ``length`` or ``content_filter``), and
an ``error`` chunk fails it. Logprobs, and Azure's content-filter chunks,
pass through.

Encoding: the chunks openai-python's ``ChatCompletionStreamState`` and every
compatible client read: ``role`` once per choice, alone in its first chunk; a tool
call's ``id``, ``type`` and ``name`` once, in its first fragment, with its
``index``; ``reasoning_content`` for reasoning; a ``finish_reason`` chunk
for every choice and a ``usage`` chunk (``choices: []``) when the run
finishes (unless ``include_usage`` is False), then ``data: [DONE]``; an ``error`` chunk when it fails. Tool
results, media and data blocks, and corrections of what streamed have no
place in a completion and are left out.
"""

from __future__ import annotations

import time
from typing import Any

from ..._vocabulary import tables
from .. import events as ev
from ..joined_text import JoinedText
from ..stop_reasons import StopWords, cuts_short
from .assembler import error_fields, recognizes

__all__ = ["DONE", "FINISH_REASONS", "Decoder", "Encoder"]

_VOCABULARY = tables("openai_chat")

FINISH_REASONS = _VOCABULARY["FINISH_REASONS"]
# Why a choice finished, in Chat's words.
STOP_WORDS = StopWords(FINISH_REASONS, _VOCABULARY["STOP_REASON_WORDS"])
#: What the encoder writes after the run finished.
DONE = b"data: [DONE]\n\n"
# A chunk's own fields, which a chunk kept for its logprobs keeps.
CHUNK_KEYS = ("id", "object", "created", "model")
# Delta fields holding text, the block kind each streams into.
TEXT_FIELDS = (
    ("reasoning_content", "reasoning"),
    ("reasoning", "reasoning"),
    ("content", "text"),
    ("refusal", "refusal"),
)
# Neutral usage keys from Chat's: (neutral, chat key, details key or None).
USAGE_KEYS = (
    ("input_tokens", "prompt_tokens", None),
    ("output_tokens", "completion_tokens", None),
    ("total_tokens", "total_tokens", None),
    ("reasoning_tokens", "completion_tokens_details", "reasoning_tokens"),
    ("cached_input_tokens", "prompt_tokens_details", "cached_tokens"),
)


def usage_from_chat(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    neutral: dict[str, Any] = {}
    for key, chat_key, detail in USAGE_KEYS:
        value = usage.get(chat_key)
        if detail is not None:
            value = value.get(detail) if isinstance(value, dict) else None
        if ev.as_int(value) is not None:
            neutral[key] = value
    return neutral or None


def usage_to_chat(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    chat: dict[str, Any] = {}
    for key, chat_key, detail in USAGE_KEYS:
        value = usage.get(key)
        if ev.as_int(value) is None:
            continue
        if detail is None:
            chat[chat_key] = value
        else:
            chat[chat_key] = {detail: value}
    if not chat:
        return None
    if "total_tokens" not in chat and "prompt_tokens" in chat and "completion_tokens" in chat:
        total = chat["prompt_tokens"] + chat["completion_tokens"]
        if ev.as_int(total) is not None:
            chat["total_tokens"] = total
    return chat


class _Choice:
    __slots__ = (
        "blocks",
        "by_id",
        "by_index",
        "finished",
        "function_call",
        "ids",
        "indexes",
        "last_call",
        "message_id",
        "named",
        "open",
        "reason",
        "tool_blocks",
    )

    def __init__(self, message_id: str) -> None:
        self.message_id = message_id
        self.blocks = 0  # the next block's index
        # The open text-like block: (kind, index), or None.
        self.open: tuple[str, int] | None = None
        # Index -> the blocks given it, in order (the last that still has it
        # is the one it names); block -> its integer index, while it has one.
        self.by_index: dict[int, list[int]] = {}
        self.indexes: dict[int, int] = {}
        self.function_call: int | None = None  # the deprecated function_call's block
        # Every tool call's block (the function_call's too), to finish with the choice.
        self.tool_blocks: list[int] = []
        # The last block of tool_calls: where a fragment with neither an
        # index nor an id goes.
        self.last_call: int | None = None
        # Block -> the id it was given first (an id is set once, whatever it
        # is, as the assembler sets it).
        self.ids: dict[int, Any] = {}
        self.by_id: dict[str, int] = {}  # id -> the last block with it
        # Block -> whether the first name its function was given (a name is
        # set once, as the assembler sets it) is a name.
        self.named: dict[int, bool] = {}
        self.finished = False
        self.reason: Any = None


def _names_function(call: dict[str, Any]) -> bool:
    """Whether a tool call's delta names its function."""
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return isinstance(name, str) and bool(name)


def _index_block(state: _Choice, index: int) -> int | None:
    """The block an index names: the last given it that still has it."""
    for block in reversed(state.by_index.get(index, ())):
        if state.indexes.get(block) == index:
            return block
    return None


def _tool_block(state: _Choice, call: dict[str, Any]) -> int | None:
    """The block a tool call's delta goes to, by the assembler's rules
    (``tool_block`` in the Rust core); None: a new call."""
    call_id = call.get("id")
    call_id = call_id if isinstance(call_id, str) else None
    index = ev.as_int(call.get("index"))
    found: int | None
    if index is not None:
        found = _index_block(state, index)
    elif call_id is not None:
        found = state.by_id.get(call_id)
    elif call.get("index") is not None:
        found = None  # an index that is none: a call of its own
    else:
        found = state.last_call
        if found is not None and state.named.get(found) is True and _names_function(call):
            found = None
    if found is not None and call_id is not None:
        held = state.ids.get(found)
        if isinstance(held, str) and held != call_id:
            found = None  # another call
    return found


class Decoder:
    """OpenAI Chat Completions chunks to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "openai-chat"

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._run_id: str | None = None
        self._choices: dict[int, _Choice] = {}
        self._usage: Any = None

    def decode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._ended:
            out.append(ev.passthrough("openai-chat", event))
            return out
        error = event.get("error")
        if error:
            self._close_all(out)
            code, message = error_fields(error)
            out.append(ev.run_failed(code, message, usage_from_chat(self._usage)))
            self._ended = True
            return out
        if event.get("object") == "":
            out.append(ev.passthrough("openai-chat", event))
            return out
        if not self._started:
            self._started = True
            self._run_id = ev.as_str(event.get("id")) or None
            out.append(ev.run_started(self._run_id, None, event.get("model"), event.get("created")))
        if isinstance(event.get("usage"), dict):
            self._usage = event["usage"]
        choices = event.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or ev.as_int(choice.get("index")) is None:
                continue
            state = self._choice(choice["index"], out)
            if state.finished:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._delta(state, delta, out)
            logprobs = choice.get("logprobs")
            if isinstance(logprobs, dict) and any(logprobs.get(key) for key in ("content", "refusal")):
                kept = {key: event[key] for key in CHUNK_KEYS if key in event}
                kept["choices"] = [
                    {"index": choice["index"], "delta": {}, "logprobs": logprobs, "finish_reason": None}
                ]
                out.append(ev.passthrough("openai-chat", kept))
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self._finish_choice(state, reason, out)
        return out

    def done(self) -> list[dict[str, Any]]:
        """``[DONE]``: the run is over."""
        out: list[dict[str, Any]] = []
        if self._started and not self._ended:
            self._end(out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        # The run ends at [DONE]: without it the stream was cut short, and
        # what was open stays open, as in the other protocols.
        return out

    # --- internals -----------------------------------------------------------

    def _choice(self, index: int, out: list[dict[str, Any]]) -> _Choice:
        state = self._choices.get(index)
        if state is None:
            base = self._run_id or "chatcmpl"
            state = _Choice(base if index == 0 else f"{base}-{index}")
            self._choices[index] = state
            started = ev.message_started(state.message_id, "assistant", "message")
            if index != 0:
                started["choice"] = index
            out.append(started)
        return state

    def _open(self, state: _Choice, kind: str, fields: dict[str, Any], out: list[dict[str, Any]]) -> int:
        index = state.blocks
        state.blocks += 1
        out.append(ev.block_started(state.message_id, index, kind, **fields))
        return index

    def _close_text(self, state: _Choice, out: list[dict[str, Any]]) -> None:
        if state.open is not None:
            out.append(ev.block_finished(state.message_id, state.open[1]))
            state.open = None

    def _text(self, state: _Choice, kind: str, piece: str, out: list[dict[str, Any]]) -> None:
        if state.open is None or state.open[0] != kind:
            self._close_text(state, out)
            state.open = (kind, self._open(state, kind, {}, out))
        out.append(ev.block_delta(state.message_id, state.open[1], piece))

    def _tool(
        self,
        state: _Choice,
        call: dict[str, Any],
        tool: str,
        out: list[dict[str, Any]],
        *,
        found: int | None,
    ) -> None:
        function = call.get("function") if tool == "function" else call
        function = function if isinstance(function, dict) else {}
        index = found
        if index is None:
            self._close_text(state, out)
            call_id = ev.as_str(call.get("id"))
            if tool == "function_call":
                # The deprecated function_call has no id; other protocols need one.
                call_id = f"{state.message_id}-{state.blocks}"
            fields = {"call_id": call_id, "name": ev.as_str(function.get("name")), "tool": tool}
            index = self._open(state, "tool_call", fields, out)
            state.tool_blocks.append(index)
            if tool == "function":
                state.last_call = index
        if tool == "function_call":
            state.function_call = index
        else:
            # An index is given once; a value that is none takes it away (as
            # the assembler's merge writes it over the held one).
            given = call.get("index")
            if given is not None:
                given_index = ev.as_int(given)
                if found is None and given_index is not None:
                    state.indexes[index] = given_index
                    state.by_index.setdefault(given_index, []).append(index)
                elif found is not None and given_index is None:
                    state.indexes.pop(index, None)
        if tool == "function":
            call_id = call.get("id")
            if call_id is not None:
                # The last call with an id is the one it names (as the
                # assembler's note_id keeps the greatest position).
                held = state.ids.setdefault(index, call_id)
                if isinstance(held, str):
                    state.by_id[held] = max(state.by_id.get(held, index), index)
            name = function.get("name")
            if name is not None:
                state.named.setdefault(index, isinstance(name, str) and bool(name))
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            out.append(ev.block_delta(state.message_id, index, arguments))

    def _delta(self, state: _Choice, delta: dict[str, Any], out: list[dict[str, Any]]) -> None:
        for field, kind in TEXT_FIELDS:
            piece = delta.get(field)
            if isinstance(piece, str) and piece:
                self._text(state, kind, piece, out)
        audio = delta.get("audio")
        if isinstance(audio, dict) and isinstance(audio.get("data"), str) and audio["data"]:
            if state.open is None or state.open[0] != "media":
                self._close_text(state, out)
                fields = {"media_type": "audio", "mime_type": None, "url": None}
                state.open = ("media", self._open(state, "media", fields, out))
            out.append(ev.block_delta(state.message_id, state.open[1], audio["data"]))
        function_call = delta.get("function_call")
        if isinstance(function_call, dict):
            self._tool(state, function_call, "function_call", out, found=state.function_call)
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            found = _tool_block(state, call)
            self._tool(state, call, "function", out, found=found)

    def _finish_choice(self, state: _Choice, reason: Any, out: list[dict[str, Any]]) -> None:
        self._close_text(state, out)
        for index in sorted(state.tool_blocks):
            out.append(ev.block_finished(state.message_id, index))
        state.by_index, state.indexes, state.function_call = {}, {}, None
        state.tool_blocks = []
        state.finished = True
        state.reason = reason
        out.append(ev.message_finished(state.message_id, None, reason))

    def _close_all(self, out: list[dict[str, Any]]) -> None:
        for index in sorted(self._choices):
            state = self._choices[index]
            if not state.finished:
                self._finish_choice(state, None, out)

    def _end(self, out: list[dict[str, Any]]) -> None:
        self._close_all(out)
        reasons = [state.reason for state in self._choices.values()]
        status = "incomplete" if any(cuts_short(reason) for reason in reasons) else "completed"
        out.append(ev.run_finished(status, usage_from_chat(self._usage)))
        self._ended = True


class _EncodedChoice:
    __slots__ = ("ended", "last", "reason", "tools")

    def __init__(self) -> None:
        self.tools = 0  # the next tool call's index
        self.last: str | None = None  # the kind of the last block started
        self.reason: str | None = None
        self.ended = False  # its finish_reason was written


class Encoder(ev.RecordsLosses):
    """Neutral events to OpenAI Chat Completions chunks."""

    protocol = "openai-chat"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(
        self,
        response_id: str | None = None,
        model: str | None = None,
        created_at: Any = None,
        message_separator: str | None = None,
        include_usage: bool | None = None,
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._id = response_id
        self._model = model
        self._created = created_at
        self._started = False
        self._finished = False
        self._completed = False  # finished, not failed: [DONE] follows
        self._choices: dict[int, _EncodedChoice] = {}
        # neutral message -> its choice; None for a message that has no place.
        self._messages: dict[str, int | None] = {}
        # Messages started and not finished -> their choice.
        self._open: dict[str, int] = {}
        # Messages started and not finished -> their namespace (None: the run's own).
        self._open_in: dict[str, ev.Place] = {}
        # (neutral message, block) -> (choice, kind, tool index or None).
        self._blocks: dict[tuple[str, int], tuple[int, str, int | None]] = {}
        # Where a choice's text runs on from another message's (and what goes
        # between them, if anything).
        self._joined = JoinedText(message_separator)
        # Whether the run's usage is written, as a last chunk without choices
        # (``Encoder::with_include_usage``): the Chat API writes it only when a
        # request's stream_options ask, and a client reading choices[0] of
        # every chunk fails on it.
        self._include_usage = include_usage is not False

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kind = ev.as_str(event.get("type"))
        if self._finished:
            return out
        if kind == "run_started" and not self._started:
            self._id = self._id or ev.as_str(event.get("run_id"))
            self._model = self._model or ev.as_str(event.get("model"))
            if self._created is None:
                self._created = event.get("created_at")
        self._ensure_started()
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """A stream that ends without finishing its run (LangChain's has no
        run events): each choice whose messages all finished gets its
        ``finish_reason``, so that a client closes what it holds; no
        ``[DONE]``, since the run never said it was over."""
        out: list[dict[str, Any]] = []
        if not self._finished:
            busy = set(self._open.values())
            for choice in sorted(self._choices):
                if choice not in busy:
                    self._end_choice(choice, None, out)
        return out

    def trailer(self) -> bytes:
        """What follows the last chunk, once: ``data: [DONE]`` after a
        finished run."""
        if not self._completed:
            return b""
        self._completed = False
        return DONE

    # --- internals -----------------------------------------------------------

    def _ensure_started(self) -> None:
        if not self._started:
            self._started = True
            self._id = self._id or "chatcmpl"
            if self._created is None:
                self._created = int(time.time())

    def _chunk(self, choices: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
        chunk = {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self._model or "",
            "choices": choices,
        }
        chunk.update(fields)
        return chunk

    def _delta(self, choice: int, delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return self._chunk([{"index": choice, "delta": delta, "logprobs": None, "finish_reason": reason}])

    def _announce(self, choice: int, out: list[dict[str, Any]]) -> _EncodedChoice:
        state = self._choices.get(choice)
        if state is None:
            state = self._choices[choice] = _EncodedChoice()
            out.append(self._delta(choice, {"role": "assistant"}))
        return state

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str) or message_id in self._messages:
            return
        if event.get("role") in ("user", "system", "developer", "tool"):
            self._messages[message_id] = None
            return
        place = ev.message_place(event)
        choice = ev.as_int(event.get("choice"))
        choice = choice if choice is not None and choice >= 0 else self._free_choice(place)
        self._messages[message_id] = choice
        self._open[message_id] = choice
        self._open_in[message_id] = place
        self._announce(choice, out)

    def _free_choice(self, place: ev.Place) -> int:
        """The first choice that no open message of another place (namespace
        and node) holds: a subgraph's or a node's message that streams beside
        another's is a choice of its own, where the two would interleave in one."""
        taken = {choice for message, choice in self._open.items() if self._open_in.get(message) != place}
        choice = 0
        while choice in taken:
            choice += 1
        return choice

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index, kind = event.get("message_id"), ev.as_int(event.get("index")), event.get("kind")
        if not isinstance(message_id, str) or index is None:
            return
        choice = self._messages.get(message_id, 0)
        kind_name = kind if isinstance(kind, str) else ""
        if choice is None:
            self._lost.append(ev.other_role_loss(self.protocol, kind_name))
            return
        if kind not in ("text", "reasoning", "refusal", "tool_call"):
            # Tool results, media and data have no place in a chunk.
            self._lost.append(ev.block_loss(self.protocol, kind_name))
            return
        state = self._announce(choice, out)
        state.last = kind
        tool: int | None = None
        if kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            name = ev.as_str(event.get("name")) or ""
            if event.get("tool") == "function_call":
                kind = "function_call"
                out.append(self._delta(choice, {"function_call": {"name": name, "arguments": ""}}))
            else:
                tool = state.tools
                state.tools += 1
                call = {
                    "index": tool,
                    "id": ev.as_str(event.get("call_id")) or f"call_{tool}",
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
                out.append(self._delta(choice, {"tool_calls": [call]}))
        if kind in ("text", "reasoning", "refusal"):
            self._joined.started(message_id, index)
        self._blocks[(message_id, index)] = (choice, kind, tool)

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key)  # type: ignore[arg-type]
        delta = event.get("delta")
        if found is None or key is None or not isinstance(delta, str) or not delta:
            return
        choice, kind, tool = found
        if kind in ("text", "reasoning", "refusal"):
            delta, lost = self._joined.writes(self.protocol, choice, kind, key, delta)
            self._lost.extend(lost)
        if kind == "text":
            body: dict[str, Any] = {"content": delta}
        elif kind == "reasoning":
            body = {"reasoning_content": delta}
        elif kind == "refusal":
            body = {"refusal": delta}
        elif kind == "function_call":
            body = {"function_call": {"arguments": delta}}
        else:
            body = {"tool_calls": [{"index": tool, "function": {"arguments": delta}}]}
        out.append(self._delta(choice, body))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        self._blocks.pop(key, None)  # type: ignore[arg-type]
        if key is not None:
            self._joined.finished(*key)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        found = self._blocks.get(ev.block_key(event))  # type: ignore[arg-type]
        if (
            found is not None
            and found[1] in ("text", "reasoning", "refusal")
            and isinstance(event.get("text"), str)
        ):
            # A delta only appends: a correction of streamed text has no place.
            self._lost.append(ev.correction_loss(self.protocol, found[1]))
        if found is not None and ev.has_signature(event):
            self._lost.append(ev.signature_loss(self.protocol))
        if found is not None and ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # A choice has no usage: only the completion.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        message_id = ev.as_str(event.get("message_id"))
        if message_id is None:
            return
        self._open.pop(message_id, None)
        self._open_in.pop(message_id, None)
        choice = self._messages.get(message_id)
        reason = event.get("stop_reason")
        if choice is not None and isinstance(reason, str) and reason:
            word, lost = STOP_WORDS.translate(self.protocol, reason)
            self._lost.extend(lost)
            if choice in self._choices:
                self._choices[choice].reason = word

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        status = event.get("status")
        if not self._choices:
            self._announce(0, out)
        # The run's reason stands for a choice that gave none.
        said, lost = STOP_WORDS.translate(self.protocol, event.get("stop_reason"))
        self._lost.extend(lost)
        if said is not None:
            for state in self._choices.values():
                if state.reason is None:
                    state.reason = said
        # The finish reasons read back as incomplete (cut short: length,
        # content_filter) or completed: a stopped run has no word.
        carried = "completed"
        for choice in sorted(self._choices):
            if cuts_short(self._end_choice(choice, status, out)):
                carried = "incomplete"
        self._lost.extend(ev.status_loss("openai-chat", status, carried))
        usage = usage_to_chat(event.get("usage"))
        if usage is not None:
            if self._include_usage:
                out.append(self._chunk([], usage=usage))
            else:
                self._lost.append(ev.usage_not_asked_loss(self.protocol))
        self._finished = True
        self._completed = True

    def _end_choice(self, choice: int, status: Any, out: list[dict[str, Any]]) -> str | None:
        """Ends a choice that is still open, giving the finish reason it wrote."""
        state = self._choices[choice]
        if state.ended:
            return None
        state.ended = True
        reason = state.reason
        if reason is None:
            if status == "incomplete":
                reason = "length"
            elif state.last == "tool_call":
                reason = "tool_calls"
            else:
                reason = "stop"
        out.append(self._delta(choice, {}, reason))
        return reason

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # An error chunk has no usage.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        error = {
            "message": ev.as_str(event.get("message")) or "",
            "type": "server_error",
            "param": None,
            "code": ev.as_str(event.get("code")),
        }
        out.append({"error": error})
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") == "openai-chat" and isinstance(inner, dict):
            out.append(dict(inner))


_ENCODERS = {
    "message_started": Encoder._message_started,
    "message_finished": Encoder._message_finished,
    "block_started": Encoder._block_started,
    "block_delta": Encoder._block_delta,
    "block_finished": Encoder._block_finished,
    "block_replaced": Encoder._block_replaced,
    "run_finished": Encoder._run_finished,
    "run_failed": Encoder._run_failed,
    "passthrough": Encoder._passthrough,
}
