"""Where a target writes a run's messages into one text of each kind (a
choice's ``content`` and ``reasoning_content``, an answer that is one
message, a candidate's text and thoughts), a message's text runs on from the
one before (``rust/joined_text.rs``): ``"Let me check."`` and ``"It is
sunny."`` read back as ``"Let me check.It is sunny."``, and where one
message ended and the next began is lost. ``JoinedText`` tells an encoder
so, at the first text of a block whose text runs on from another message's.
Blocks of one message that its target joins (text around a tool call, in a
choice's one ``content``) are the target's own way and lose nothing: its
reader gives them so from any server."""

from __future__ import annotations

__all__ = ["JoinedText"]


class JoinedText:
    """Which message last wrote each text of a target's, and the text
    blocks that have written nothing yet."""

    __slots__ = ("_fresh", "_last")

    def __init__(self) -> None:
        # Text blocks started that have written no text yet.
        self._fresh: set[tuple[str, int]] = set()
        # (the place: a choice, a candidate; the kind of text) -> the
        # message whose text it holds last.
        self._last: dict[tuple[int, str], str] = {}

    def started(self, message_id: str, index: int) -> None:
        """A text block started (``text``, ``reasoning``, ``refusal``)."""
        self._fresh.add((message_id, index))

    def writes(
        self, target: str, place: int, kind: str, message_id: str, index: int
    ) -> list[tuple[str, str]]:
        """Before a block's text (not empty) is written into ``place``'s
        text of ``kind``: the loss, where it is the block's first and that
        text came last from another message."""
        key = (message_id, index)
        if key not in self._fresh:
            return []
        self._fresh.discard(key)
        last = self._last.get((place, kind))
        self._last[(place, kind)] = message_id
        if last is None or last == message_id:
            return []
        why = (
            f"{target} writes a run's messages into one {kind}:"
            f" a message's {kind} runs on from the one before"
        )
        return [("message_boundary", why)]

    def finished(self, message_id: str, index: int) -> None:
        """A block finished (one that wrote nothing is fresh no more)."""
        self._fresh.discard((message_id, index))
