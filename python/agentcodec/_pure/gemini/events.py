"""Gemini to and from the neutral vocabulary: the pure-Python mirror of
``rust/gemini/events.rs``.

Decoding: the first record starts the run (``responseId``, ``modelVersion``,
``createTime`` as Unix seconds); each candidate is an assistant message, the
first named by the ``responseId`` and the others by it and their index, as
Chat's choices are. Parts become blocks: text runs in one block (reasoning
for ``thought`` parts) until a part of another kind comes or a
``thoughtSignature`` ends it (the signature is the block's ``encrypted``,
``encrypted_by: gemini``); a ``functionCall`` is a tool call block, its
``args`` the argument text, or Vertex AI's ``partialArgs`` written into it as
they stream (``args.ArgsWriter``) until the call stops saying
``willContinue``; ``inlineData`` and ``fileData`` are media blocks. A
candidate's ``finishReason`` finishes its message; ``MAX_TOKENS`` or a
filter's reason (``SAFETY``) makes the run incomplete. The stream has no end
event: the run finishes when it ends, with the last ``usageMetadata`` (a
running count) as usage. An error record fails the run. Whatever else a
record or a candidate holds (safety ratings, citations, grounding, prompt
feedback, other parts) passes through as a record of its own.

Encoding: ``GenerateContentResponse`` records as the server streams them
(``alt=sse``), each holding the newest piece of a candidate: text and
thought parts as they stream, a signature as an empty text part carrying it
(where the server sends one), a function call whole when its block
finishes, its ``args`` an object, with the signature that came with it;
media as ``inlineData`` (or ``fileData`` for a URL). An assistant message is
the candidate its ``choice`` says (0 unless told: an agent's messages, one
after another, make one candidate); each candidate's ``finishReason`` is
written when the run finishes, the last record with the usage. A failed run
is an ``{"error": ...}`` record.
"""

from __future__ import annotations

from typing import Any

from ... import _json
from ..._vocabulary import tables
from .. import events as ev
from ..error_codes import ErrorCodes
from ..joined_text import JoinedText
from ..json_prefix import JsonPrefix
from ..json_values import JSONValueError, loads
from ..rfc3339 import unix_seconds
from ..stop_reasons import StopWords, cuts_short, is_ordinary
from ..words import folded, pairs
from .args import ArgsWriter, PathError, parse_path, partial_value
from .assembler import error_message, recognizes

__all__ = ["FINISH_REASONS", "Decoder", "Encoder", "frame"]

FINISH_REASONS = tables("gemini")["FINISH_REASONS"]
# Why a candidate finished, in Gemini's words.
STOP_WORDS = StopWords(FINISH_REASONS, tables("gemini")["STOP_REASON_WORDS"])
# A failed run's status, in Gemini's words.
ERROR_CODES = ErrorCodes(tables("gemini")["ERROR_STATUSES"], tables("gemini")["ERROR_CODE_WORDS"], "INTERNAL")
# The HTTP status of each of its statuses.
_ERROR_HTTP_CODES = pairs(tables("gemini")["ERROR_HTTP_CODES"])


def _http_code(status: str) -> int:
    """The HTTP status of an error record, by its status
    (``RESOURCE_EXHAUSTED`` is 429, as google-genai reads it to raise a
    client error and retry)."""
    http = _ERROR_HTTP_CODES.get(folded(status))
    return int(http) if http is not None and http.isdigit() else 500


#: Who made the signatures the decoder reads (``encrypted_by``).
BY = "gemini"
#: A candidate's fields the decoder reads; the others pass through.
_READ = frozenset({"content", "index", "finishReason"})
#: A record's fields the decoder reads; the others pass through.
_READ_RECORD = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId", "createTime"})
#: The part fields of text the decoder reads.
_TEXT = frozenset({"text", "thought", "thoughtSignature"})
#: Neutral usage keys from Gemini's counts (output: the candidates' and the
#: thoughts' tokens together, as the other protocols count them).
_USAGE = (
    ("input_tokens", "promptTokenCount"),
    ("cached_input_tokens", "cachedContentTokenCount"),
    ("reasoning_tokens", "thoughtsTokenCount"),
    ("total_tokens", "totalTokenCount"),
)


def frame(record: dict[str, Any]) -> bytes:
    """One record as the server writes it with ``alt=sse``."""
    return b"data: " + _json.dumps(record).encode() + b"\r\n\r\n"


def _usage_from_gemini(metadata: Any) -> Any:
    if not isinstance(metadata, dict):
        return None
    usage = {neutral: metadata[key] for neutral, key in _USAGE if ev.as_int(metadata.get(key)) is not None}
    candidates = ev.as_int(metadata.get("candidatesTokenCount"))
    thoughts = ev.as_int(metadata.get("thoughtsTokenCount"))
    if candidates is not None or thoughts is not None:
        output = (candidates or 0) + (thoughts or 0)
        if ev.as_int(output) is not None:
            usage["output_tokens"] = output
    return usage or None


class _DecodedCandidate:
    __slots__ = ("blocks", "call", "finished", "message_id", "open")

    def __init__(self, message_id: str) -> None:
        self.message_id = message_id
        self.blocks = 0  # the next block's index
        self.open: tuple[str, int] | None = None  # the open text-like block
        self.call: tuple[int, ArgsWriter] | None = None  # the call carried on
        self.finished = False


class Decoder:
    """Gemini records to neutral events."""

    recognizes = staticmethod(recognizes)

    protocol = "gemini"
    framing = "array"

    def __init__(self) -> None:
        self._started = False
        self._ended = False
        self._run_id: str | None = None
        self._candidates: dict[int, _DecodedCandidate] = {}
        self._usage: Any = None
        self._incomplete = False
        self._calls = 0

    def decode(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._ended:
            out.append(ev.passthrough(self.protocol, record))
            return out
        error = record.get("error")
        if error is not None:
            self._close_all(out)
            code, message = error_message(error)
            out.append(ev.run_failed(code, message, None))
            self._ended = True
            return out
        if not self._started:
            self._started = True
            run_id = record.get("responseId")
            self._run_id = run_id if isinstance(run_id, str) and run_id else None
            created = record.get("createTime")
            created = unix_seconds(created) if isinstance(created, str) else None
            out.append(ev.run_started(self._run_id, None, record.get("modelVersion"), created))
        if "usageMetadata" in record:
            self._usage = record["usageMetadata"]
        candidates = record.get("candidates")
        for candidate in candidates if isinstance(candidates, list) else ():
            if isinstance(candidate, dict):
                self._candidate(candidate, out)
        rest = {key: value for key, value in record.items() if key not in _READ_RECORD}
        if rest:
            out.append(ev.passthrough(self.protocol, rest))
        return out

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        # The stream has no end event: it ended when every candidate
        # finished. A stream cut short leaves what was open open, as in the
        # other protocols.
        if self._started and not self._ended and all(held.finished for held in self._candidates.values()):
            status = "incomplete" if self._incomplete else "completed"
            out.append(ev.run_finished(status, _usage_from_gemini(self._usage)))
            self._ended = True
        return out

    # --- internals -----------------------------------------------------------

    def _held(self, index: int, out: list[dict[str, Any]]) -> _DecodedCandidate:
        held = self._candidates.get(index)
        if held is None:
            base = self._run_id or "gemini"
            held = self._candidates[index] = _DecodedCandidate(base if index == 0 else f"{base}-{index}")
            started = ev.message_started(held.message_id, "assistant", "message")
            if index != 0:
                started["choice"] = index
            out.append(started)
        return held

    def _candidate(self, candidate: dict[str, Any], out: list[dict[str, Any]]) -> None:
        index = ev.as_int(candidate.get("index")) or 0
        held = self._held(index, out)
        if held.finished:
            out.append(ev.passthrough(self.protocol, {"candidates": [candidate]}))
            return
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, dict):
                self._part(held, part, index, out)
        rest = {key: value for key, value in candidate.items() if key not in _READ}
        if rest:
            out.append(ev.passthrough(self.protocol, {"candidates": [{"index": index, **rest}]}))
        reason = candidate.get("finishReason")
        if reason is not None:
            self._finish_call(held, out)
            self._close(held, out)
            # In the words the other protocols use (``stop``, ``max_tokens``).
            said = reason.lower() if isinstance(reason, str) and reason.isascii() else reason
            out.append(ev.message_finished(held.message_id, None, said))
            held.finished = True
            self._incomplete = self._incomplete or cuts_short(reason)

    def _part(
        self, held: _DecodedCandidate, part: dict[str, Any], index: int, out: list[dict[str, Any]]
    ) -> None:
        call = part.get("functionCall")
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        if held.call is not None and isinstance(call, dict) and "name" not in call:
            block, writer = held.call
            self._write_args(held, block, writer, call, out)
            self._sign(held, block, signature, out)
            if call.get("willContinue") is not True:
                self._finish_call(held, out)
            return
        if held.call is not None:
            self._finish_call(held, out)
        text = part.get("text")
        if isinstance(text, str) and all(key in _TEXT for key in part):
            kind = "reasoning" if part.get("thought") is True else "text"
            if held.open is None or held.open[0] != kind:
                self._close(held, out)
                if not text and signature is None:
                    return
                held.open = (kind, self._open_block(held, kind, out))
            block = held.open[1]
            if text:
                out.append(ev.block_delta(held.message_id, block, text))
            if signature is not None:
                self._sign(held, block, signature, out)
                self._close(held, out)
            return
        self._close(held, out)
        if isinstance(call, dict):
            self._start_call(held, call, signature, out)
            return
        media = _media(part)
        if media is not None:
            fields, data = media
            block = self._open_block(held, "media", out, **fields)
            if data:
                out.append(ev.block_delta(held.message_id, block, data))
            self._sign(held, block, signature, out)
            out.append(ev.block_finished(held.message_id, block))
            return
        out.append(
            ev.passthrough(self.protocol, {"candidates": [{"index": index, "content": {"parts": [part]}}]})
        )

    def _start_call(
        self, held: _DecodedCandidate, call: dict[str, Any], signature: str | None, out: list[dict[str, Any]]
    ) -> None:
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            # The Gemini API gives its calls no id: one is made up, as the
            # other protocols need one to answer the call by.
            call_id = f"call_{self._calls}"
        self._calls += 1
        block = self._open_block(
            held,
            "tool_call",
            out,
            call_id=call_id,
            name=call.get("name"),
            tool="function",
        )
        args = call.get("args")
        if "partialArgs" in call or call.get("willContinue") is True:
            writer = ArgsWriter()
            held.call = (block, writer)
            self._write_args(held, block, writer, call, out)
            self._sign(held, block, signature, out)
            if call.get("willContinue") is not True:
                self._finish_call(held, out)
            return
        if args is not None:
            out.append(ev.block_delta(held.message_id, block, _json.dumps(args)))
        self._sign(held, block, signature, out)
        out.append(ev.block_finished(held.message_id, block))

    def _write_args(
        self,
        held: _DecodedCandidate,
        block: int,
        writer: ArgsWriter,
        call: dict[str, Any],
        out: list[dict[str, Any]],
    ) -> None:
        partial = call.get("partialArgs")
        for arg in partial if isinstance(partial, list) else ():
            if not isinstance(arg, dict) or not isinstance(arg.get("jsonPath"), str):
                continue
            carries, value = partial_value(arg)
            if not carries:
                continue
            try:
                text = writer.write(parse_path(arg["jsonPath"]), value, arg.get("willContinue") is True)
            except PathError:
                out.append(ev.passthrough(self.protocol, {"partialArgs": [arg]}))
                continue
            if text:
                out.append(ev.block_delta(held.message_id, block, text))

    def _finish_call(self, held: _DecodedCandidate, out: list[dict[str, Any]]) -> None:
        if held.call is None:
            return
        block, writer = held.call
        held.call = None
        closing = writer.finish()
        if closing:
            out.append(ev.block_delta(held.message_id, block, closing))
        out.append(ev.block_finished(held.message_id, block))

    def _sign(
        self, held: _DecodedCandidate, block: int, signature: str | None, out: list[dict[str, Any]]
    ) -> None:
        if signature is not None:
            out.append(
                ev.block_replaced(held.message_id, block, {"encrypted": signature, "encrypted_by": BY})
            )

    def _open_block(
        self, held: _DecodedCandidate, kind: str, out: list[dict[str, Any]], **fields: Any
    ) -> int:
        index = held.blocks
        held.blocks += 1
        out.append(ev.block_started(held.message_id, index, kind, **fields))
        return index

    def _close(self, held: _DecodedCandidate, out: list[dict[str, Any]]) -> None:
        if held.open is not None:
            out.append(ev.block_finished(held.message_id, held.open[1]))
            held.open = None

    def _close_all(self, out: list[dict[str, Any]]) -> None:
        for held in self._candidates.values():
            if held.finished:
                continue
            self._finish_call(held, out)
            self._close(held, out)
            out.append(ev.message_finished(held.message_id, None, None))
            held.finished = True


def _media(part: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A media part's block fields and data: ``inlineData`` (base64) or ``fileData`` (a URI)."""
    inline = part.get("inlineData")
    if isinstance(inline, dict) and isinstance(inline.get("data"), str):
        mime = inline.get("mimeType")
        mime = mime if isinstance(mime, str) else ""
        return {"media_type": ev.media_kind(mime), "mime_type": mime or None, "url": None}, inline["data"]
    file = part.get("fileData")
    if isinstance(file, dict) and isinstance(file.get("fileUri"), str):
        mime = file.get("mimeType")
        mime = mime if isinstance(mime, str) else ""
        return {"media_type": ev.media_kind(mime), "mime_type": mime or None, "url": file["fileUri"]}, ""
    return None


class _Call:
    __slots__ = ("arguments", "clean", "id", "name", "signature")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.arguments = JsonPrefix(require_object=True)
        self.clean: list[str] = []  # the arguments' text up to its last clean point
        self.signature: str | None = None


class _Media:
    __slots__ = ("data", "mime_type", "signature", "url")

    def __init__(self, mime_type: str, url: str | None) -> None:
        self.mime_type = mime_type
        self.url = url
        self.data: list[str] = []
        self.signature: str | None = None


_Streamed = str | _Call | _Media


class Encoder(ev.RecordsLosses):
    """Neutral events to Gemini records."""

    protocol = "gemini"

    #: Why a message stopped (``stop_reason``), in its own words.
    carries_stop_reasons = True

    def __init__(
        self, model: str | None = None, response_id: str | None = None, message_separator: str | None = None
    ) -> None:
        # What could not be carried since the last take_losses(): (what, why).
        self._lost: list[tuple[str, str]] = []
        self._model = model
        self._response_id = response_id
        self._started = False
        self._finished = False
        self._others: set[str] = set()  # messages of another role than the assistant's
        # The assistant messages' candidates (their ``choice``, 0 for most:
        # one after another, an agent's messages make one candidate).
        self._candidates: dict[str, int] = {}
        # The assistant messages started and not finished -> their namespace
        # (None: the run's own).
        self._open_in: dict[str, ev.Place] = {}
        # (message, block) -> "text", "reasoning", or the call or media being written.
        self._blocks: dict[tuple[str, int], _Streamed] = {}
        # Where a candidate's text runs on from another message's (and what
        # goes between them, if anything).
        self._joined = JoinedText(message_separator)
        # The finish reason of each candidate whose message finished (None
        # where the message gave none: the run's stands for it), written when
        # the run finishes, with the usage.
        self._reasons: dict[int, str | None] = {}

    def has_ended_before(self, kind: str) -> bool:
        return self._finished

    def encode(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        kind = ev.as_str(event.get("type"))
        if kind == "run_started" and not self._started:
            self._model = self._model or ev.as_str(event.get("model"))
            self._response_id = self._response_id or ev.as_str(event.get("run_id"))
        self._started = True
        handler = _ENCODERS.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(self, event, out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self._finished:
            # A run that did not finish says so by candidates that did not:
            # their reasons are not written.
            self._flush(out)
        return out

    # --- internals -----------------------------------------------------------

    def _record(self, message_id: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
        """A record of one candidate's newest parts."""
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        candidate["index"] = self._candidates.get(message_id, 0)
        return self._stamped({"candidates": [candidate]})

    def _stamped(self, record: dict[str, Any]) -> dict[str, Any]:
        if self._model:
            record["modelVersion"] = self._model
        if self._response_id:
            record["responseId"] = self._response_id
        return record

    def _message_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str):
            return
        if event.get("role") in ("user", "system", "developer", "tool"):
            self._others.add(message_id)
        else:
            place = ev.message_place(event)
            choice = ev.as_int(event.get("choice"))
            if choice is None or choice < 0:
                choice = self._free_candidate(message_id, place)
            self._candidates[message_id] = choice
            self._open_in[message_id] = place

    def _free_candidate(self, message_id: str, place: ev.Place) -> int:
        """The first candidate that no open message of another place
        (namespace and node) holds: a subgraph's or a node's message that
        streams beside another's is a candidate of its own, where the two
        would interleave in one."""
        taken = {
            self._candidates[other]
            for other, held in self._open_in.items()
            if other != message_id and held != place
        }
        choice = 0
        while choice in taken:
            choice += 1
        return choice

    def _message_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id = event.get("message_id")
        if not isinstance(message_id, str) or message_id in self._others:
            return
        self._open_in.pop(message_id, None)
        # A candidate has no counts of its own: only the response.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        self._flush(out, message_id)
        word, lost = STOP_WORDS.translate(self.protocol, event.get("stop_reason"))
        self._lost.extend(lost)
        self._reasons[self._candidates.get(message_id, 0)] = word

    def _block_started(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        message_id, index = event.get("message_id"), ev.as_int(event.get("index"))
        if not isinstance(message_id, str) or index is None:
            return
        kind = event.get("kind")
        kind_name = kind if isinstance(kind, str) else ""
        if message_id in self._others:
            self._lost.append(ev.other_role_loss(self.protocol, kind_name))
            return
        streamed: _Streamed
        if kind in ("text", "reasoning"):
            streamed = kind
        elif kind == "refusal":
            self._lost.append(ev.refusal_loss(self.protocol))
            streamed = "text"
        elif kind == "tool_call":
            self._lost.extend(ev.server_loss(self.protocol, event))
            self._lost.extend(ev.tool_kind_loss(self.protocol, event))
            streamed = _Call(ev.as_str(event.get("call_id")) or "", ev.as_str(event.get("name")) or "")
        elif kind == "media":
            streamed = _Media(ev.as_str(event.get("mime_type")) or "", ev.as_str(event.get("url")))
        else:
            self._lost.append(ev.block_loss(self.protocol, kind_name))
            return
        if isinstance(streamed, str):
            self._joined.started(message_id, index)
        self._blocks[(message_id, index)] = streamed

    def _block_delta(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key)  # type: ignore[arg-type]
        delta = event.get("delta")
        if found is None or key is None or not isinstance(delta, str) or not delta:
            return
        if isinstance(found, _Call):
            found.clean.append(found.arguments.feed(delta))
        elif isinstance(found, _Media):
            found.data.append(delta)
        else:
            if self._joined.is_fresh(key):
                candidate = self._candidates.get(key[0], 0)
                delta, lost = self._joined.writes(self.protocol, candidate, found, key, delta)
                self._lost.extend(lost)
            part: dict[str, Any] = {"text": delta}
            if found == "reasoning":
                part["thought"] = True
            out.append(self._record(key[0], [part]))

    def _block_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.pop(key, None)  # type: ignore[arg-type]
        if key is not None:
            self._joined.finished(*key)
        if key is not None and found is not None and not isinstance(found, str):
            self._write(key[0], found, out)

    def _block_replaced(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        key = ev.block_key(event)
        found = self._blocks.get(key)  # type: ignore[arg-type]
        if found is None or key is None:
            return
        if isinstance(found, str) and isinstance(event.get("text"), str):
            self._lost.append(ev.correction_loss(self.protocol, found))
        if ev.has_annotations(event):
            self._lost.append(ev.annotations_loss(self.protocol))
        if not ev.has_signature(event):
            return
        if event.get("encrypted_by") != BY:
            # Another provider's: the API would refuse it.
            self._lost.append(ev.signature_loss(self.protocol))
            return
        signature = event["encrypted"]
        if isinstance(found, str):
            # Where the server sends one: an empty part of the block's kind,
            # which joins the text before it.
            part: dict[str, Any] = {"text": "", "thoughtSignature": signature}
            if found == "reasoning":
                part["thought"] = True
            out.append(self._record(key[0], [part]))
        else:
            found.signature = signature

    def _write(self, message_id: str, found: _Call | _Media, out: list[dict[str, Any]]) -> None:
        """Writes a tool call or a media part whole."""
        part: dict[str, Any]
        if isinstance(found, _Media):
            if found.url is not None and not found.data:
                part = {"fileData": {"mimeType": found.mime_type, "fileUri": found.url}}
            else:
                part = {"inlineData": {"mimeType": found.mime_type, "data": "".join(found.data)}}
        else:
            if not found.arguments.is_whole():
                self._lost.append(ev.broken_arguments_loss(self.protocol))
            text = "".join(found.clean) + found.arguments.finish()
            try:
                args = loads(text)
            except JSONValueError:
                args = None
            call: dict[str, Any] = {"id": found.id} if found.id else {}
            call["name"] = found.name
            call["args"] = args if isinstance(args, dict) else {}
            part = {"functionCall": call}
        if found.signature is not None:
            part["thoughtSignature"] = found.signature
        out.append(self._record(message_id, [part]))

    def _flush(self, out: list[dict[str, Any]], message_id: str | None = None) -> None:
        """Writes the calls and media whose blocks never finished (of one
        message, or of all), as far as they came."""
        for key in [key for key in self._blocks if message_id is None or key[0] == message_id]:
            found = self._blocks.pop(key)
            if not isinstance(found, str):
                self._write(key[0], found, out)

    def _run_finished(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        self._flush(out)
        status = event.get("status")
        # The run's reason stands for a candidate that gave none.
        said, lost = STOP_WORDS.translate(self.protocol, event.get("stop_reason"))
        self._lost.extend(lost)
        unsaid = said or ("MAX_TOKENS" if status == "incomplete" else "STOP")
        # Every candidate finishes with the run, as the reader ends a run.
        for index in list(self._candidates.values()) or [0]:
            self._reasons.setdefault(index, None)
        for index, reason in self._reasons.items():
            if reason is None:
                self._reasons[index] = unsaid
        # What reads back: a candidate cut short (written so below).
        cut = any(
            cuts_short(reason) or (status == "incomplete" and is_ordinary(reason))
            for reason in self._reasons.values()
            if reason is not None
        )
        carried = "incomplete" if cut else "completed"
        self._lost.extend(ev.status_loss(self.protocol, status, carried))
        records = self._finish_records()
        record = records.pop() if records else self._stamped({})
        out.extend(records)
        if status == "incomplete":
            # Gemini says a candidate was cut short by its finish reason (but
            # for one that said why otherwise: a filter).
            for record_ in (*records, record):
                for candidate in record_.get("candidates", ()):
                    said = candidate.get("finishReason")
                    if not isinstance(said, str) or is_ordinary(said):
                        candidate["finishReason"] = "MAX_TOKENS"
        usage = event.get("usage")
        if isinstance(usage, dict) and usage:
            record["usageMetadata"] = _usage_to_gemini(usage)
            # The server writes the usage before the model's version.
            for key in ("modelVersion", "responseId"):
                if key in record:
                    record[key] = record.pop(key)
        if record.get("candidates") or "usageMetadata" in record:
            out.append(record)
        self._finished = True

    def _finish_records(self) -> list[dict[str, Any]]:
        """A record for each finished candidate, with its finish reason and
        the empty text part the server ends with."""
        reasons, self._reasons = self._reasons, {}
        records = []
        for index, reason in reasons.items():
            candidate = {
                "content": {"parts": [{"text": ""}], "role": "model"},
                "finishReason": reason or "STOP",
                "index": index,
            }
            records.append(self._stamped({"candidates": [candidate]}))
        return records

    def _run_failed(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        # An error record has no counts.
        self._lost.extend(ev.usage_loss(self.protocol, event))
        # A status is one of google.rpc.Code's names: another protocol's code
        # is its status of that kind (a throttle is ``RESOURCE_EXHAUSTED``),
        # or else an internal error.
        status, lost = ERROR_CODES.write(self.protocol, event.get("code"))
        self._lost.extend(lost)
        message = ev.as_str(event.get("message")) or ""
        error: dict[str, Any] = {"code": _http_code(status), "message": message, "status": status}
        out.append({"error": error})
        self._finished = True

    def _passthrough(self, event: dict[str, Any], out: list[dict[str, Any]]) -> None:
        inner = event.get("event")
        if event.get("protocol") == self.protocol and isinstance(inner, dict):
            out.append(dict(inner))


def _usage_to_gemini(usage: dict[str, Any]) -> dict[str, Any]:
    """Neutral usage as ``usageMetadata``: the output less the reasoning is
    the candidates' count."""
    metadata: dict[str, Any] = {}
    output = ev.as_int(usage.get("output_tokens"))
    reasoning = ev.as_int(usage.get("reasoning_tokens"))
    for neutral, key in _USAGE:
        count = ev.as_int(usage.get(neutral))
        if neutral == "total_tokens" and count is None:
            prompt = ev.as_int(usage.get("input_tokens"))
            count = ev.as_int(prompt + output) if prompt is not None and output is not None else None
        if count is not None:
            metadata[key] = count
        if neutral == "input_tokens" and output is not None:
            candidates = ev.as_int(output - (reasoning or 0))
            if candidates is not None:
                metadata["candidatesTokenCount"] = max(candidates, 0)
    return metadata


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
