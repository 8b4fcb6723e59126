"""Builders given no ids make their own: unique, so that two streams never
share one (a client's history or a replay store keyed by id would merge
them), and shaped as each provider's own."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from protocol_table import TABLE


def ids(events: list[dict[str, Any]], paths: list[tuple[str, ...]]) -> list[str]:
    found = []
    for event in events:
        for path in paths:
            value: Any = event
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, str):
                found.append(value)
    return sorted(set(found))


# Every protocol whose builder makes up ids: its turn, where its ids are, their shapes.
TURNS = [
    (name, row.built_turn.events, list(row.built_turn.id_paths), list(row.built_turn.id_shapes))
    for name, row in TABLE.items()
    if row.built_turn is not None
]


def flatten_lists(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lists as dicts keyed "0", "1", ..., so that a path can walk them."""

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return {str(i): walk(item) for i, item in enumerate(value)}
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    return [walk(event) for event in events]


@pytest.mark.parametrize(("protocol", "turn", "paths", "shapes"), TURNS, ids=[row[0] for row in TURNS])
def test_two_streams_share_no_id_and_each_id_has_the_providers_shape(
    protocol: str, turn: Callable[[], list[dict[str, Any]]], paths: list[tuple[str, ...]], shapes: list[str]
) -> None:
    first, second = (ids(flatten_lists(turn()), paths) for _ in range(2))
    assert not set(first) & set(second), (first, second)
    for found in first:
        assert any(re.fullmatch(shape, found) for shape in shapes), found
    for shape in shapes:
        assert any(re.fullmatch(shape, found) for found in first), (shape, first)
