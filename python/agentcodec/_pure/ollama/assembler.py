"""Assembling an Ollama stream (``/api/chat`` or ``/api/generate``) into the
answer the server gives the same request without streaming: the pure-Python
mirror of ``rust/ollama/assembler.rs``.

Ollama's server builds that answer from the streamed lines itself: the last
line's fields, with the text (``content``, ``thinking``, ``response``) joined
and the tool calls and log probabilities gathered from every line. Each line
here does the same as it comes: text fields append, lists extend, every
other field takes the latest line's value. An ``{"error": ...}`` line is the
run's error: it is kept in the answer as ``error`` and recorded, and what
was assembled before it stands.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..accumulate import Pieces, render
from ..json_values import json_kind
from ..stream import AssemblerBase, EventProblemError
from .errors import OllamaError, OllamaEventError

__all__ = ["Assembler", "error_message", "recognizes"]

# Where each line's text and lists go: (the fields that append to the text
# held, the fields that extend the list held). The answer's own fields
# (/api/generate's text and tool calls, the log probabilities of both):
ANSWER = (("response", "thinking"), ("tool_calls", "logprobs"))
# The fields of /api/chat's message:
MESSAGE = (("content", "thinking"), ("tool_calls", "images"))


def recognizes(event: dict[str, Any]) -> bool:
    """Whether a line is one of the protocol's: it says whether it is
    ``done``, or holds a ``message`` or a ``response`` beside its ``model``,
    or is an error line (``{"error": "..."}``)."""
    return (
        isinstance(event.get("done"), bool)
        or (
            "model" in event
            and (isinstance(event.get("message"), dict) or isinstance(event.get("response"), str))
        )
        or (isinstance(event.get("error"), str) and "jsonrpc" not in event)
    )


def error_message(error: Any) -> str:
    """What an error line says: its text, or the JSON of anything else."""
    return error if isinstance(error, str) else dumps(error)


def _check(fields: dict[str, Any], merge: tuple[tuple[str, ...], ...], at: str) -> None:
    """Refuses a line whose text fields are not text, or whose lists are not lists."""
    appended, extended = merge
    for key in appended:
        value = fields.get(key)
        if value is not None and not isinstance(value, str):
            raise EventProblemError(f"its {at}{key} is {json_kind(value)}, not a string")
    for key in extended:
        value = fields.get(key)
        if value is not None and not isinstance(value, list):
            raise EventProblemError(f"its {at}{key} is {json_kind(value)}, not a list")


class Assembler(AssemblerBase):
    """Assembles an Ollama stream into the answer the server gives without streaming."""

    _recognizes = staticmethod(recognizes)

    _event_error = OllamaEventError
    _base_error = OllamaError
    _framing = "lines"

    def _init_state(self) -> None:
        # The answer so far, its fields in the order the lines first gave them.
        self._answer: dict[str, Any] = {}
        self._done = False  # the done line came

    # --- output --------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        return render(self._answer)  # type: ignore[no-any-return]

    @property
    def answer(self) -> dict[str, Any]:
        """The answer so far: a new dict on every access."""
        return render(self._answer)  # type: ignore[no-any-return]

    @property
    def done(self) -> bool:
        """Whether the done line came."""
        return self._done

    # --- for the driver ------------------------------------------------------

    def _message_count(self) -> int:
        return int("message" in self._answer or "response" in self._answer)

    def _apply_object(self, line: dict[str, Any]) -> None:
        if self._done:
            raise EventProblemError("comes after the done line")
        error = line.get("error")
        if error is not None:
            self._record({"event": self._events, "code": "error", "message": error_message(error)})
        _check(line, ANSWER, "")
        message = line.get("message")
        if message is not None and not isinstance(message, dict):
            raise EventProblemError(f"its message is {json_kind(message)}, not an object")
        if message is not None:
            _check(message, MESSAGE, "message.")
        for key, value in line.items():
            if key == "message":
                if isinstance(value, dict):
                    held = self._answer.setdefault("message", {})
                    for field, item in value.items():
                        self._merge(held, MESSAGE, field, item)
                continue
            if key == "done" and value is True:
                self._done = True
            self._merge(self._answer, ANSWER, key, value)

    def _merge(self, held: dict[str, Any], merge: tuple[tuple[str, ...], ...], key: str, value: Any) -> None:
        """Merges one field: text appends, lists extend, anything else replaces."""
        appended, extended = merge
        if key in appended:
            if isinstance(value, str):
                existing = held.get(key)
                if isinstance(existing, Pieces):
                    existing.append(value)
                else:
                    held[key] = Pieces([value])
            return
        if key in extended:
            if isinstance(value, list):
                if key != "logprobs":
                    self._blocks_held += len(value)
                existing = held.get(key)
                if isinstance(existing, list):
                    existing.extend(value)
                else:
                    held[key] = list(value)
            return
        held[key] = value

    def _finish(self) -> None:
        pass
