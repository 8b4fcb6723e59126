"""Adding LangChain message chunks as langchain-core adds them
(``AIMessageChunk.__add__``: ``merge_content``, ``merge_dicts``,
``merge_lists``, ``add_usage``, the id it keeps), into state held so that
each addition costs what it adds: strings grow as ``Pieces``, and a list's
elements are found by their ``index`` through a table, not a scan. The
mirror of ``rust/langgraph/merge.rs``.

Where langchain-core raises (two values of one key whose types differ, two
booleans that differ), ``MergeError`` says which key.
"""

from __future__ import annotations

from typing import Any

from ..._json import dumps
from ..accumulate import Pieces
from ..events import as_int
from ..json_values import json_kind

__all__ = [
    "Held",
    "MergeError",
    "add_usage",
    "best_id",
    "hold",
    "merge_content",
    "merge_dicts",
    "merge_lists",
]

# The id langchain-core gives a message its provider gave none: its run's.
LC_RUN_PREFIX = "lc_run-"
LC_PREFIX = "lc_"
# Keys whose string values are the same in every chunk: kept, not joined.
_KEPT_WHEN_EQUAL = frozenset(("id", "output_version", "model_provider"))
# Keys whose integer values are a position or a time: the latest wins.
_LATEST_INTEGER = frozenset(("index", "created", "timestamp"))


class MergeError(ValueError):
    """Two chunks hold values that langchain-core cannot add."""


class Held(list[Any]):
    """A list being merged into: its elements with an ``index`` found by it."""

    __slots__ = ("positions",)

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        self.positions: dict[Any, list[int]] = {}
        for item in items:
            self.add(item)

    def add(self, item: Any) -> None:
        if isinstance(item, dict) and _mergeable_index(item.get("index")):
            self.positions.setdefault(_index_key(item["index"]), []).append(len(self))
        self.append(item)


def _mergeable_index(index: Any) -> bool:
    """An element merges with its like when its index is an integer or an
    ``lc_`` string (as ``merge_lists`` says)."""
    return (isinstance(index, int) and not isinstance(index, bool)) or (
        isinstance(index, str) and index.startswith(LC_PREFIX)
    )


def _index_key(index: Any) -> tuple[str, Any]:
    # 1 and "1" are not one index; True is no index at all (refused above).
    return ("int", index) if isinstance(index, int) else ("str", index)


def hold(value: Any) -> Any:
    """A value of a chunk, copied into held form."""
    if isinstance(value, dict):
        return {key: hold(item) for key, item in value.items()}
    if isinstance(value, list):
        return Held(hold(item) for item in value)
    return value


def _same_type(held: Any, value: Any) -> bool:
    if isinstance(held, Pieces):
        return isinstance(value, str)
    if isinstance(held, Held):
        return isinstance(value, list)
    return type(held) is type(value)


def _text(value: Any) -> str:
    return value.text() if isinstance(value, Pieces) else value


def merge_dicts(held: dict[str, Any], right: dict[str, Any]) -> None:
    """``merge_dicts(held, right)``, into ``held``."""
    for key, value in right.items():
        if key not in held or (value is not None and held[key] is None):
            held[key] = hold(value)
            continue
        if value is None:
            continue
        current = held[key]
        if not _same_type(current, value):
            raise MergeError(
                f'cannot add its "{key}" ({json_kind(value)}) to the {json_kind(_plain(current))} before it'
            )
        if isinstance(current, (str, Pieces)):
            if (key == "index" and _text(current).startswith(LC_PREFIX)) or (
                key in _KEPT_WHEN_EQUAL and _text(current) == value
            ):
                continue
            if isinstance(current, Pieces):
                current.append(value)
            elif value:
                held[key] = Pieces([current, value])
        elif isinstance(current, dict):
            merge_dicts(current, value)
        elif isinstance(current, Held):
            merge_lists(current, value)
        elif current == value:
            continue
        elif isinstance(current, bool) or not isinstance(current, int):
            raise MergeError(f'cannot add its "{key}" ({dumps(value)}) to the {dumps(current)} before it')
        elif key in _LATEST_INTEGER:
            held[key] = value
        else:
            held[key] = _sum(current, value, f'its "{key}"')


def _plain(value: Any) -> Any:
    if isinstance(value, Pieces):
        return ""
    if isinstance(value, Held):
        return []
    return value


def merge_lists(held: Held, right: list[Any]) -> None:
    """``merge_lists(held, right)``, into ``held``: an element with an index
    merges into the first held one of that index whose id is not another's."""
    for element in right:
        if isinstance(element, dict) and _mergeable_index(element.get("index")):
            position = _like(held, element)
            if position is not None:
                new = {key: item for key, item in element.items() if key != "type"}
                merge_dicts(held[position], new)
                continue
        held.add(hold(element))


def _like(held: Held, element: dict[str, Any]) -> int | None:
    element_id = element.get("id")
    for position in held.positions.get(_index_key(element["index"]), ()):
        existing = held[position].get("id")
        if existing in (None, "") or element_id in (None, "") or _text(existing) == element_id:
            return position
    return None


def merge_content(held: Any, right: Any) -> Any:
    """``merge_content(held, right)``: the content held after it."""
    if isinstance(held, (str, Pieces)):
        if isinstance(right, str):
            if isinstance(held, Pieces):
                held.append(right)
                return held
            return Pieces([held, right]) if right else held
        return Held([held if isinstance(held, str) else held.text(), *(hold(item) for item in right)])
    if isinstance(right, list):
        merge_lists(held, right)
    elif held and isinstance(held[-1], (str, Pieces)):
        last = held[-1]
        if isinstance(last, Pieces):
            last.append(right)
        else:
            held[-1] = Pieces([last, right])
    elif right == "":
        pass
    elif held:
        held.add(right)
    return held


def add_usage(held: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any] | None:
    """``add_usage``: integers summed, nested dicts added alike."""
    if not held:
        return hold(right) if right else held
    if not right:
        return held
    _add_ints(held, right, "usage_metadata")
    return held


def _add_ints(held: dict[str, Any], right: dict[str, Any], at: str) -> None:
    for key, value in right.items():
        current = held.get(key, 0 if isinstance(value, int) else {})
        if _int(current) and _int(value):
            held[key] = _sum(current, value, f"its {at}.{key}")
        elif isinstance(current, dict) and isinstance(value, dict):
            held[key] = current
            _add_ints(current, value, f"{at}.{key}")
        else:
            raise MergeError(f"cannot add its {at}.{key}: only integers and objects of them add")


def _sum(left: int, right: int, what: str) -> int:
    """Two integers added, as the Rust core holds them (64 bits)."""
    total = left + right
    if as_int(left) is None or as_int(right) is None or as_int(total) is None:
        raise MergeError(f"{what} adds up past 64 bits")
    return total


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def best_id(held: str | None, right: Any) -> str | None:
    """The id langchain-core keeps: the first the provider gave, else the
    first of a run (``lc_run-``), else the first."""
    if not isinstance(right, str) or not right:
        return held
    if held is None:
        return right
    if not held.startswith(LC_PREFIX):
        return held
    if not right.startswith(LC_PREFIX):
        return right
    if held.startswith(LC_RUN_PREFIX) or not right.startswith(LC_RUN_PREFIX):
        return held
    return right
