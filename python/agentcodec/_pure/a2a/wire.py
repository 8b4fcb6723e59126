"""Reading A2A's wire shapes, for the assembler and the decoder alike: the
pure-Python mirror of ``rust/a2a/wire.rs``.

Each SSE event of an A2A stream is a JSON-RPC response. Its ``result`` is
one of four things, spelled per spec version:

- 0.3: the result itself, tagged by ``kind``: ``task``, ``message``,
  ``status-update`` or ``artifact-update``;
- 1.0: a ``StreamResponse`` holding exactly one of ``task``, ``message``,
  ``statusUpdate`` and ``artifactUpdate``.

An ``error`` instead of a ``result`` is the run's error. An event given
without its JSON-RPC envelope (a result alone) is read too, as long as its
shape leaves no doubt: a 0.3 result has its ``kind`` and no ``type``, a 1.0
one is an object of exactly one of the four fields."""

from __future__ import annotations

from typing import Any

from ..._vocabulary import tables
from ..stream import EventProblemError

__all__ = [
    "FINAL_STATES",
    "INTERRUPTED_STATES",
    "VERSIONS",
    "Read",
    "read",
    "recognizes",
    "role_name",
    "spell_role",
    "spell_state",
    "state_name",
]

_VOCABULARY = tables("a2a")
VERSIONS = _VOCABULARY["VERSIONS"]
FINAL_STATES = frozenset(_VOCABULARY["FINAL_STATES"])
INTERRUPTED_STATES = frozenset(_VOCABULARY["INTERRUPTED_STATES"])
# A result's kind (0.3) or field (1.0) -> what it is.
_KINDS = dict(zip(_VOCABULARY["RESULT_KINDS"], ("task", "message", "status", "artifact"), strict=True))
_FIELDS = dict(zip(_VOCABULARY["RESULT_FIELDS"], ("task", "message", "status", "artifact"), strict=True))

#: What one event is: ``(what, version, body)``. ``what`` is ``task``,
#: ``message``, ``status``, ``artifact`` or ``error``; ``version`` is
#: ``"0.3"`` or ``"1.0"`` (None for an error, which both spell alike);
#: ``body`` is the result itself (or the error object).
Read = tuple[str, "str | None", dict[str, Any]]


def _shape(result: dict[str, Any], bare: bool) -> Read | None:
    kind = result.get("kind")
    if isinstance(kind, str) and kind in _KINDS and not (bare and "type" in result):
        return _KINDS[kind], "0.3", result
    if bare and len(result) != 1:
        return None
    fields = [field for field in _FIELDS if field in result]
    if len(fields) == 1 and isinstance(result[fields[0]], dict):
        return _FIELDS[fields[0]], "1.0", result[fields[0]]
    return None


def read(event: dict[str, Any]) -> Read:
    """What an event is, or ``EventProblemError`` saying why it is none of
    A2A's."""
    if "jsonrpc" in event:
        error = event.get("error")
        if error is not None:
            if not isinstance(error, dict):
                raise EventProblemError("has an error that is not an object")
            return "error", None, error
        result = event.get("result")
        if not isinstance(result, dict):
            if result is None:
                raise EventProblemError("is a JSON-RPC response with neither a result nor an error")
            raise EventProblemError("has a result that is not an object")
        shape = _shape(result, bare=False)
        if shape is None:
            raise EventProblemError(
                "has a result with no type: no kind (0.3) and not one of "
                "task, message, statusUpdate, artifactUpdate (1.0)"
            )
        return shape
    shape = _shape(event, bare=True)
    if shape is None:
        raise EventProblemError(
            "has no type: neither a JSON-RPC response nor a result (a 0.3 kind, or one of "
            "task, message, statusUpdate, artifactUpdate)"
        )
    return shape


def recognizes(event: dict[str, Any]) -> bool:
    """Whether an event is one of A2A's (``a2a::recognizes``)."""
    try:
        read(event)
    except EventProblemError:
        return False
    return True


def state_name(state: str) -> str:
    """A task state as 0.3 spells it, from either spelling
    (``TASK_STATE_INPUT_REQUIRED`` is ``input-required``)."""
    if state.startswith("TASK_STATE_"):
        return state[len("TASK_STATE_") :].lower().replace("_", "-")
    return state


def spell_state(state: str, version: str) -> str:
    """A task state (0.3's spelling) as ``version`` spells it."""
    if version == "0.3":
        return state
    return "TASK_STATE_" + state.upper().replace("-", "_")


def role_name(role: Any) -> str | None:
    """A message's role as 0.3 spells it (``ROLE_AGENT`` is ``agent``)."""
    if not isinstance(role, str):
        return None
    return role[len("ROLE_") :].lower() if role.startswith("ROLE_") else role


def spell_role(role: str, version: str) -> str:
    """A role (0.3's spelling) as ``version`` spells it."""
    return role if version == "0.3" else "ROLE_" + role.upper()
