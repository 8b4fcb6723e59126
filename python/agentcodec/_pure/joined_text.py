"""Where a target writes a run's messages into one text of each kind (a
choice's ``content`` and ``reasoning_content``, an answer that is one
message, a candidate's text and thoughts), a message's text runs on from the
one before (``rust/joined_text.rs``): ``"Let me check."`` and ``"It is
sunny."`` read back as ``"Let me check.It is sunny."``, and where one
message ended and the next began is lost. ``JoinedText`` tells an encoder
so, at the first text of a block whose text runs on from another message's,
or, where the encoder's ``message_separator`` option gives one, writes the
separator there (``"\\n\\n"``: the reader's text says where each message
began). Blocks of one message that its target joins (text around a tool
call, in a choice's one ``content``) are the target's own way and lose
nothing: its reader gives them so from any server."""

from __future__ import annotations

__all__ = ["JoinedText"]


class JoinedText:
    """Which message last wrote each text of a target's, and the text
    blocks that have written nothing yet."""

    __slots__ = ("_fresh", "_last", "_separator")

    def __init__(self, separator: str | None = None) -> None:
        # Text blocks started that have written no text yet: empty but for the
        # moment between a block's start and its first text, so that a delta
        # pays for a lookup only then.
        self._fresh: set[tuple[str, int]] = set()
        # (the place: a choice, a candidate; the kind of text) -> the
        # message whose text it holds last.
        self._last: dict[tuple[int, str], str] = {}
        # What is written between two messages' texts, where one is given.
        self._separator = separator

    def started(self, message_id: str, index: int) -> None:
        """A text block started (``text``, ``reasoning``, ``refusal``)."""
        self._fresh.add((message_id, index))

    def is_fresh(self, block: tuple[str, int]) -> bool:
        """Whether the block (its message id and index) has written no text
        yet: its next text is ``writes``'s to see."""
        return bool(self._fresh) and block in self._fresh

    def writes(
        self, target: str, place: int, kind: str, block: tuple[str, int], delta: str
    ) -> tuple[str, list[tuple[str, str]]]:
        """A block's text (``delta``, not empty; ``block`` its message id and
        index) as it is written into ``place``'s text of ``kind``: where it
        is the block's first and that text came last from another message,
        after the separator, or else with the loss."""
        if not self.is_fresh(block):
            return delta, []
        self._fresh.discard(block)
        message_id = block[0]
        last = self._last.get((place, kind))
        self._last[(place, kind)] = message_id
        if last is None or last == message_id:
            return delta, []
        if self._separator is not None:
            return self._separator + delta, []
        why = (
            f"{target} writes a run's messages into one {kind}:"
            f" a message's {kind} runs on from the one before"
        )
        return delta, [("message_boundary", why)]

    def finished(self, message_id: str, index: int) -> None:
        """A block finished (one that wrote nothing is fresh no more)."""
        self._fresh.discard((message_id, index))
