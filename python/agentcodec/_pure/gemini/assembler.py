"""Assembling a Gemini ``streamGenerateContent`` stream into the
``GenerateContentResponse`` that ``generateContent`` answers the same request
with: the pure-Python mirror of ``rust/gemini/assembler.rs``.

Each record is a whole ``GenerateContentResponse`` holding the newest piece
of each candidate. Records merge as the server merges them into its answer:
- a record's own fields (``usageMetadata``, a cumulative count,
  ``modelVersion``, ``responseId``, ``promptFeedback``, ...) take the latest
  value; candidates are kept by their ``index`` (0 where none is given), in
  the order they first came;
- a candidate's fields take the latest value but ``content``, whose parts
  are gathered, and ``citationMetadata``, whose citations are;
- a text part joins the part before it when both are text of the same kind
  (``thought`` or not) and that one has no ``thoughtSignature`` yet: the
  signature a stream sends on an empty last text part lands on the text, as
  the answer has it; an empty text part that joins nothing is dropped;
- a ``functionCall`` part that names no function while the call before it
  said ``willContinue`` carries that call on (Vertex AI's streamed
  arguments): its ``partialArgs`` are written into the call's ``args``
  (``args.ArgsWriter``), and the answer's call has ``args`` and no
  ``partialArgs`` or ``willContinue``; any other part is kept as it came.
An ``{"error": ...}`` record is the run's error: kept as ``error`` and
recorded, with what was assembled before it intact.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..accumulate import Pieces, render
from ..json_values import JSONValueError, json_kind, loads
from ..stream import AssemblerBase, EventProblemError
from .args import ArgsWriter, PathError, parse_path, partial_value
from .errors import GeminiError, GeminiEventError

__all__ = ["Assembler", "error_message", "recognizes"]


def recognizes(event: dict[str, Any]) -> bool:
    """Whether a record is one of the protocol's: it holds ``candidates``,
    ``usageMetadata`` or ``promptFeedback``, or is an error record whose
    error is an object (``{"error": {"code": ..., "message": ...}}``)."""
    return (
        isinstance(event.get("candidates"), list)
        or isinstance(event.get("usageMetadata"), dict)
        or isinstance(event.get("promptFeedback"), dict)
        or (isinstance(event.get("error"), dict) and "jsonrpc" not in event)
    )


def error_message(error: Any) -> tuple[str, str]:
    """An error record's code (its ``status``, else its ``code``) and message."""
    if not isinstance(error, dict):
        return "error", error if isinstance(error, str) else dumps(error)
    status = error.get("status")
    code = status if isinstance(status, str) else error.get("code")
    message = error.get("message")
    return (
        code if isinstance(code, str) else "error" if code is None else dumps(code),
        message if isinstance(message, str) else dumps(error),
    )


def _is_text(part: dict[str, Any], text: type = str) -> bool:
    """Whether a part is text alone (with its kind and signature); a held
    part's text is ``Pieces``."""
    return isinstance(part.get("text"), text) and all(key in _TEXT_KEYS for key in part)


_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})
_EMPTY_TEXT_KEYS = frozenset({"text", "thought"})


def _check_part(part: Any, at: str) -> None:
    if not isinstance(part, dict):
        raise EventProblemError(f"its {at} is {json_kind(part)}, not an object")
    text = part.get("text")
    if text is not None and not isinstance(text, str):
        raise EventProblemError(f"its {at}.text is {json_kind(text)}, not a string")
    call = part.get("functionCall")
    if call is None:
        return
    if not isinstance(call, dict):
        raise EventProblemError(f"its {at}.functionCall is {json_kind(call)}, not an object")
    partial = call.get("partialArgs")
    if partial is None:
        return
    if not isinstance(partial, list):
        raise EventProblemError(f"its {at}.functionCall.partialArgs is {json_kind(partial)}, not a list")
    for number, arg in enumerate(partial):
        where = f"{at}.functionCall.partialArgs[{number}]"
        if not isinstance(arg, dict):
            raise EventProblemError(f"its {where} is {json_kind(arg)}, not an object")
        path = arg.get("jsonPath")
        if not isinstance(path, str):
            raise EventProblemError(f"its {where}.jsonPath is {json_kind(path)}, not a string")
        try:
            parse_path(path)
        except PathError as exc:
            raise EventProblemError(f"its {where}: {exc}") from None


def _check(record: dict[str, Any]) -> None:
    """Refuses a record whose candidates, content or parts are of another type."""
    candidates = record.get("candidates")
    if candidates is None:
        return
    if not isinstance(candidates, list):
        raise EventProblemError(f"its candidates is {json_kind(candidates)}, not a list")
    for number, candidate in enumerate(candidates):
        at = f"candidates[{number}]"
        if not isinstance(candidate, dict):
            raise EventProblemError(f"its {at} is {json_kind(candidate)}, not an object")
        index = candidate.get("index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise EventProblemError(f"its {at}.index is {json_kind(index)}, not an integer")
        if isinstance(index, int) and not -(2**63) <= index < 2**63:
            raise EventProblemError(f"its {at}.index is out of range")
        content = candidate.get("content")
        if content is None:
            continue
        if not isinstance(content, dict):
            raise EventProblemError(f"its {at}.content is {json_kind(content)}, not an object")
        parts = content.get("parts")
        if parts is None:
            continue
        if not isinstance(parts, list):
            raise EventProblemError(f"its {at}.content.parts is {json_kind(parts)}, not a list")
        for part_number, part in enumerate(parts):
            _check_part(part, f"{at}.content.parts[{part_number}]")


class _Candidate:
    """A candidate so far: its fields in the order they first came, its
    content's, its parts; and the function call it carries on."""

    __slots__ = ("call", "content", "fields", "parts")

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.content: dict[str, Any] = {}
        self.parts: list[dict[str, Any]] = []
        # The functionCall (of the last part) that said willContinue, and
        # its arguments' writer.
        self.call: tuple[dict[str, Any], ArgsWriter] | None = None


class Assembler(AssemblerBase):
    """Assembles a Gemini stream into the response ``generateContent`` gives."""

    _recognizes = staticmethod(recognizes)

    _event_error = GeminiEventError
    _base_error = GeminiError
    _framing = "array"

    def _init_state(self) -> None:
        # The response's fields in the order the records first gave them
        # (``candidates`` holds None: the candidates are below).
        self._answer: dict[str, Any] = {}
        self._candidates: dict[int, _Candidate] = {}

    # --- output --------------------------------------------------------------

    @property
    def response(self) -> dict[str, Any]:
        """The response so far: a new dict on every access."""
        return self._result()

    def _result(self) -> dict[str, Any]:
        response: dict[str, Any] = {}
        for key, value in self._answer.items():
            if key == "candidates":
                response[key] = [self._render(candidate) for candidate in self._candidates.values()]
            else:
                response[key] = render(value)
        return response

    @staticmethod
    def _render(candidate: _Candidate) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in candidate.fields.items():
            if key != "content":
                out[key] = render(value)
                continue
            content: dict[str, Any] = {}
            for field, item in candidate.content.items():
                content[field] = (
                    [_render_part(part) for part in candidate.parts] if field == "parts" else render(item)
                )
            out[key] = content
        return out

    # --- for the driver ------------------------------------------------------

    def _message_count(self) -> int:
        return len(self._candidates)

    def _apply_object(self, record: dict[str, Any]) -> None:
        error = record.get("error")
        if error is not None:
            code, message = error_message(error)
            self._record({"event": self._events, "code": code, "message": message})
        _check(record)
        for key, value in record.items():
            if key == "candidates":
                self._answer.setdefault("candidates", None)
                for candidate in value or ():
                    self._candidate(candidate)
            else:
                self._answer[key] = value

    def _candidate(self, given: dict[str, Any]) -> None:
        index = given.get("index")
        held = self._candidates.get(index if isinstance(index, int) else 0)
        if held is None:
            held = self._candidates[index if isinstance(index, int) else 0] = _Candidate()
        for key, value in given.items():
            if key == "content" and isinstance(value, dict):
                held.fields.setdefault("content", None)
                for field, item in value.items():
                    if field == "parts" and isinstance(item, list):
                        held.content.setdefault("parts", None)
                        for part in item:
                            self._part(held, part)
                    else:
                        held.content[field] = item
            elif key == "citationMetadata" and isinstance(value, dict):
                self._cite(held, value)
            else:
                held.fields[key] = value

    @staticmethod
    def _cite(held: _Candidate, given: dict[str, Any]) -> None:
        """Citations gather; the metadata's other fields take the latest value."""
        kept = held.fields.get("citationMetadata")
        if not isinstance(kept, dict):
            kept = held.fields["citationMetadata"] = {}
        for key, value in given.items():
            existing = kept.get(key)
            if key == "citations" and isinstance(value, list) and isinstance(existing, list):
                existing.extend(value)
            else:
                kept[key] = list(value) if isinstance(value, list) else value

    def _part(self, held: _Candidate, part: dict[str, Any]) -> None:
        parts = held.parts
        call = part.get("functionCall")
        if held.call is not None and isinstance(call, dict) and "name" not in call:
            self._carry_call(held, part, call)
            return
        held.call = None
        last = parts[-1] if parts else None
        if (
            last is not None
            and _is_text(part)
            and _is_text(last, Pieces)
            and "thoughtSignature" not in last
            and (last.get("thought") is True) == (part.get("thought") is True)
        ):
            last["text"].append(part["text"])
            if "thoughtSignature" in part:
                last["thoughtSignature"] = part["thoughtSignature"]
            return
        if _is_text(part) and not part["text"] and set(part) <= _EMPTY_TEXT_KEYS:
            # An empty text part that joins nothing (the one a stream's last
            # record may carry) has no place in the answer.
            return
        kept = dict(part)
        if _is_text(part):
            kept["text"] = Pieces([part["text"]])
        if isinstance(call, dict):
            kept_call = kept["functionCall"] = {k: v for k, v in call.items() if k not in _STREAMING_KEYS}
            if call.get("willContinue") is True or "partialArgs" in call:
                writer = ArgsWriter()
                kept_call["args"] = writer
                held.call = (kept_call, writer) if call.get("willContinue") is True else None
                parts.append(kept)
                self._blocks_held += 1
                self._write_args(writer, call)
                return
        parts.append(kept)
        self._blocks_held += 1

    def _carry_call(self, held: _Candidate, part: dict[str, Any], call: dict[str, Any]) -> None:
        """A piece of the function call being streamed."""
        kept_call, writer = held.call  # type: ignore[misc]
        for key, value in call.items():
            if key not in _STREAMING_KEYS:
                kept_call[key] = value
        for key, value in part.items():
            if key != "functionCall":
                held.parts[-1][key] = value
        self._write_args(writer, call)
        if call.get("willContinue") is not True:
            held.call = None

    @staticmethod
    def _write_args(writer: ArgsWriter, call: dict[str, Any]) -> None:
        for number, arg in enumerate(call.get("partialArgs") or ()):
            carries, value = partial_value(arg)
            if not carries:
                continue
            try:
                writer.write(parse_path(arg["jsonPath"]), value, arg.get("willContinue") is True)
            except PathError as exc:
                raise EventProblemError(f"its functionCall.partialArgs[{number}]: {exc}") from None

    def _finish(self) -> None:
        pass


# A streamed call's fields that the answer's call does not have.
_STREAMING_KEYS = frozenset({"partialArgs", "willContinue"})


def _render_part(part: dict[str, Any]) -> dict[str, Any]:
    """A held part as the answer has it: a streamed call's ``args`` parsed
    from what its writer wrote."""
    out: dict[str, Any] = {}
    for key, value in part.items():
        if key == "functionCall" and isinstance(value, dict):
            out[key] = {
                field: _args(item) if isinstance(item, ArgsWriter) else render(item)
                for field, item in value.items()
            }
        else:
            out[key] = render(value)
    return out


def _args(writer: ArgsWriter) -> Any:
    """The arguments so far (an empty object should they not parse)."""
    try:
        return loads(writer.text())
    except JSONValueError:
        return {}
