"""Appending to strings inside JSON-like state in linear time: the pieces
are kept in a list and joined once, when the state is read. Shared by the
pure-Python assemblers (the Rust core appends to its strings in place)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["BATCH", "Pieces", "append", "is_text", "render"]


# Pieces joined into one batch at a time: per-token strings cost some 50
# bytes each beyond their text, so holding a long answer's tokens would cost
# several times the answer.
BATCH = 1024


class Pieces(list[str]):
    """A string being appended to: joined batches of pieces, then the pieces
    since. ``joins`` counts the times pieces were joined (a batch or the
    whole), so that a reader that went through them piece by piece knows to
    find its place again (``tool_calls``)."""

    __slots__ = ("joins", "sealed")

    def __init__(self, pieces: Iterable[str] = ()) -> None:
        super().__init__(pieces)
        # Pieces before `sealed` are joined batches; `joins` counts joins.
        self.sealed = 0
        self.joins = 0

    def append(self, piece: str) -> None:
        list.append(self, piece)
        if len(self) - self.sealed >= BATCH:
            # The pieces since the last batch become one: each piece is
            # copied once here and once more when the whole is read.
            start = self.sealed
            self[start:] = ["".join(self[start:])]
            self.sealed = start + 1
            self.joins += 1

    def text(self) -> str:
        if len(self) > 1:
            joined = "".join(self)
            self[:] = [joined]
            self.sealed = 1
            self.joins += 1
        return self[0] if self else ""


def is_text(value: Any) -> bool:
    return isinstance(value, (str, Pieces))


def append(container: dict[str, Any], key: str, piece: str) -> None:
    """Appends to ``container[key]``: a missing or null value starts as "",
    any other value that is not a string is left alone."""
    existing = container.get(key)
    if isinstance(existing, Pieces):
        existing.append(piece)
    elif existing is None:
        container[key] = Pieces([piece])
    elif isinstance(existing, str):
        container[key] = Pieces([existing, piece])


def render(value: Any) -> Any:
    """A plain, independent copy of a stored value."""
    if isinstance(value, Pieces):
        return value.text()
    if isinstance(value, dict):
        return {key: render(item) for key, item in value.items()}
    if isinstance(value, list):
        return [render(item) for item in value]
    return value
