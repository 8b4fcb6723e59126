"""The article before a word that a message names as it came (a block's
kind, an event's name, a field's key): "a" or "an", so that a loss or an
error reads "an updates event" and "an item_id", not "a updates event"
(``rust/article.rs``)."""

from __future__ import annotations

__all__ = ["article"]

# A ``u`` or ``e`` that sounds as "you", and ``one``, take "a".
_SOUNDS_AS_YOU = ("uni", "use", "usa", "usu", "uti", "eu", "one")


def article(word: str) -> str:
    """The indefinite article for ``word``, by its first letter (a quote or
    other mark before it aside): "an" before a vowel's sound, "a" before
    any other."""
    start = 0
    while start < len(word) and not (word[start].isascii() and word[start].isalnum()):
        start += 1
    lower = "".join(char.lower() if char.isascii() else char for char in word[start : start + 3])
    if lower[:1] in ("a", "e", "i", "o", "u") and not lower.startswith(_SOUNDS_AS_YOU):
        return "an"
    return "a"
