"""Appending to strings inside JSON-like state in linear time: the pieces
are kept in a list and joined once, when the state is read. Shared by the
pure-Python assemblers (the Rust core appends to its strings in place)."""

from __future__ import annotations

from typing import Any

__all__ = ["Pieces", "append", "is_text", "render"]


class Pieces(list[str]):
    """A string being appended to. ``joins`` counts the times its pieces
    were joined into one, so that a reader that went through them piece by
    piece knows where it stands."""

    __slots__ = ("joins",)

    def text(self) -> str:
        if len(self) > 1:
            joined = "".join(self)
            self[:] = [joined]
            self.joins = getattr(self, "joins", 0) + 1
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
