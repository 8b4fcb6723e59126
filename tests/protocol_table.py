"""The protocols, a row each, in the registry's order: what the cross-cutting
tests need of a protocol. Each row is its protocol's module in protocols/
(its recorded streams, its backend class, the name of its final object, ...);
nothing here names a protocol."""

from __future__ import annotations

import importlib

from agentcodec.events import PROTOCOLS
from protocols import FIXTURES, Row

__all__ = ["FIXTURES", "TABLE", "Row"]


def _row(name: str) -> Row:
    row: Row = importlib.import_module(f"protocols.{name.replace('-', '_')}").ROW
    assert row.name == name, f"protocols/{name}.py declares {row.name!r}"
    return row


TABLE: dict[str, Row] = {name: _row(name) for name in PROTOCOLS}
