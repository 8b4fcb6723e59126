"""Leaves out the tool calls the agent has run itself, for a target whose
readers would run them again (``rust/executed_calls.rs``): a Chat client's
agent loop runs every ``tool_calls`` entry it reads. Such a call is one that
a provider or a server runs (``tool`` is ``server`` or ``mcp``), or one whose
result comes in the run (a ``tool_result`` block of its ``call_id``, or an
``output`` on the call itself). A call's result is left out with it.

The events from a call's start are held until each call held is answered
(then they go on, but the answered calls' and their results' blocks), or
until what comes says none will be (another message than a tool's, the run's
end, or more held than ``MAX_HELD_BYTES``): then they go on as they came,
calls and all."""

from __future__ import annotations

from typing import Any

from .events import as_int, as_str

__all__ = ["MAX_HELD_BYTES", "ExecutedCalls"]

#: How much the held events may weigh (their deltas' bytes, and a fixed
#: weight for any other event): past it, they go on as they came.
MAX_HELD_BYTES = 16 << 20

# The weight of a held event that is not a delta.
_EVENT_WEIGHT = 256

Numbered = tuple[int, dict[str, Any]]


def _block_key(event: dict[str, Any]) -> tuple[str, int] | None:
    message_id = as_str(event.get("message_id"))
    index = as_int(event.get("index"))
    if message_id is None or index is None:
        return None
    return message_id, index


class _HeldCall:
    __slots__ = ("block", "call_id")

    def __init__(self, block: tuple[str, int], call_id: str | None) -> None:
        self.block = block
        self.call_id = call_id


class ExecutedCalls:
    """Neutral events in, the same events out but the blocks of tool calls
    the agent has run, each with the number of the source's event it came
    with."""

    def __init__(self) -> None:
        self._held: list[Numbered] = []
        self._held_bytes = 0
        self._calls: list[_HeldCall] = []
        # The open blocks of calls run upstream, whose events go nowhere.
        self._left_out: set[tuple[str, int]] = set()
        # The ids of the server's and MCP calls left out, until their
        # results come (which go with them).
        self._left_out_calls: set[str] = set()

    def push(self, number: int, event: dict[str, Any], out: list[Numbered]) -> None:
        """Appends to ``out`` what goes on after ``event`` (of the source's
        event ``number``), in order."""
        kind = as_str(event.get("type")) or ""
        if kind.startswith("block_") and self._left_out:
            key = _block_key(event)
            if key in self._left_out:
                # A left-out block's end is the last of it: what is left out
                # stays as few as the blocks open at once.
                if kind == "block_finished":
                    self._left_out.discard(key)
                return
        block_kind = as_str(event.get("kind"))
        if kind == "block_started" and block_kind == "tool_call":
            key = _block_key(event)
            if key is not None:
                if as_str(event.get("tool")) in ("server", "mcp"):
                    self._left_out.add(key)
                    call_id = as_str(event.get("call_id"))
                    if call_id is not None:
                        self._left_out_calls.add(call_id)
                    return
                self._calls.append(_HeldCall(key, as_str(event.get("call_id"))))
                self._hold(number, event, out)
                return
        elif kind == "block_replaced" and self._calls:
            key = _block_key(event)
            at = next((at for at, call in enumerate(self._calls) if call.block == key), None)
            if at is not None:
                call_id = as_str(event.get("call_id"))
                if call_id is not None:
                    self._calls[at].call_id = call_id
                if event.get("output") is not None:
                    self._answered(at)
                    self._release_if_answered(out)
                    return
        elif kind == "block_started" and block_kind == "tool_result":
            # The result goes with its call: a reader given it alone would
            # hold an answer to a call it never saw.
            call_id = as_str(event.get("call_id"))
            if call_id is not None and call_id in self._left_out_calls:
                self._left_out_calls.discard(call_id)
                self._leave_out(event)
                return
            at = next(
                (
                    at
                    for at, call in enumerate(self._calls)
                    if call_id is not None and call.call_id == call_id
                ),
                None,
            )
            if at is not None:
                self._answered(at)
                self._leave_out(event)
                self._release_if_answered(out)
                return
        elif kind == "message_started" and self._calls and as_str(event.get("role")) != "tool":
            # A tool's message may answer a call; any other, none.
            self._release(out)
        elif kind in ("run_finished", "run_failed"):
            self._release(out)
        if self._calls:
            self._hold(number, event, out)
        else:
            out.append((number, event))

    def _leave_out(self, event: dict[str, Any]) -> None:
        """The block ``event`` starts goes nowhere, to its end."""
        key = _block_key(event)
        if key is not None:
            self._left_out.add(key)

    def finish(self, out: list[Numbered]) -> None:
        """Appends what is held, as it came: the stream is over."""
        self._release(out)

    def _hold(self, number: int, event: dict[str, Any], out: list[Numbered]) -> None:
        delta = event.get("delta")
        if isinstance(delta, str):
            # (its UTF-8 bytes, as the Rust side counts them)
            self._held_bytes += len(delta.encode("utf-8", "surrogatepass"))
        else:
            self._held_bytes += _EVENT_WEIGHT
        self._held.append((number, event))
        if self._held_bytes > MAX_HELD_BYTES:
            self._release(out)

    def _answered(self, at: int) -> None:
        """The call at ``at`` is answered: its block goes nowhere (what is
        left of it, where it has not ended)."""
        call = self._calls.pop(at)
        kept: list[Numbered] = []
        ended = False
        for number, event in self._held:
            kind = as_str(event.get("type")) or ""
            if kind.startswith("block_") and _block_key(event) == call.block:
                ended |= kind == "block_finished"
            else:
                kept.append((number, event))
        self._held = kept
        if not ended:
            self._left_out.add(call.block)

    def _release_if_answered(self, out: list[Numbered]) -> None:
        if not self._calls:
            self._release(out)

    def _release(self, out: list[Numbered]) -> None:
        """The held events go on as they are; the calls still held are written."""
        self._calls.clear()
        self._held_bytes = 0
        out.extend(self._held)
        self._held = []
