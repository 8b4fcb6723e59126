"""The few things every protocol names in its own words (``rust/words.rs``):
why a message stopped (``end_turn``, ``stop``, ``STOP``), what kind of error
ended a run (``rate_limit_exceeded``, ``throttlingException``,
``RESOURCE_EXHAUSTED``). The neutral vocabulary gives each protocol's word a
kind (a ``word=kind`` table) and a protocol's vocabulary its word for each
kind (a ``kind=word`` table); ``Words`` reads them, so that an encoder keeps
a word of its own and writes any other as its word for the other's kind."""

from __future__ import annotations

__all__ = ["Words", "folded", "pairs"]


def folded(word: str) -> str:
    """A word as tables compare it: case aside, ``-`` and ``_`` alike
    (``MAX_TOKENS`` and ``max_tokens``, ``tool-calls`` and ``tool_calls``).
    Only ASCII letters fold, as in ``rust/words.rs``."""
    return "".join("_" if char == "-" else char.lower() if char.isascii() else char for char in word)


def pairs(table: tuple[str, ...]) -> dict[str, str]:
    """A table of ``key=value`` lines, by the key as tables compare it (the
    first line of a key standing, as ``rust/words.rs`` finds it)."""
    found: dict[str, str] = {}
    for line in table:
        key, _, value = line.partition("=")
        found.setdefault(folded(key), value)
    return found


class Words:
    """A protocol's words for one thing: its own (as its vocabulary lists
    them) and its word for each kind, by the neutral kinds of every
    protocol's words."""

    __slots__ = ("_by_kind", "_kinds", "_own")

    def __init__(self, kinds: tuple[str, ...], own: tuple[str, ...], by_kind: tuple[str, ...]) -> None:
        self._kinds = pairs(kinds)
        self._own: dict[str, str] = {}
        for word in own:
            self._own.setdefault(folded(word), word)
        self._by_kind = pairs(by_kind)

    def kind(self, word: str) -> str | None:
        """The kind of a word, in whichever protocol's words it comes."""
        return self._kinds.get(folded(word))

    def word(self, word: str) -> str | None:
        """The word it writes for ``word``: the word, where it is one of its
        own (in its own spelling), or else its word for the other's kind.
        None where it has neither."""
        own = self._own.get(folded(word))
        if own is not None:
            return own
        kind = self.kind(word)
        return None if kind is None else self._by_kind.get(kind)
