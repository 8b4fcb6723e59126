"""Each protocol's vocabulary (its event types, finish reasons, error codes),
written once in the protocol's package (``agentcodec/<name>/vocabulary.txt``)
and read by both backends (the neutral vocabulary's event types are this
package's own, ``tables("_vocabulary")``):
the Rust core's ``build.rs`` makes a constant of each table, and this module
reads them for the pure backend and the protocols' public types.

A file holds tables, each a line ``[NAME] what it is`` followed by one word
a line; ``#`` starts a comment line."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

__all__ = ["parse", "tables"]


@cache
def tables(protocol: str) -> dict[str, tuple[str, ...]]:
    """The protocol's tables, by its name (a ``-`` in it read as ``_``)."""
    package = protocol.replace("-", "_")
    # (from the top package, already imported: the protocol's own package
    # may be importing this very module)
    text = files("agentcodec").joinpath(package).joinpath("vocabulary.txt").read_text(encoding="utf-8")
    return parse(text, f"{package}/vocabulary.txt")


def parse(text: str, source: str) -> dict[str, tuple[str, ...]]:
    """The tables a vocabulary file holds; a ValueError names the line of
    one that is malformed (``build.rs`` refuses the same)."""
    found: dict[str, list[str]] = {}
    words: list[str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            name = line[1 : line.index("]")] if "]" in line else ""
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) is None or name in found:
                raise ValueError(f"{source} line {number}: a table needs a new upper-case name: {line!r}")
            words = found[name] = []
        elif words is None:
            raise ValueError(f"{source} line {number}: a word before any table: {line!r}")
        elif '"' in line or "\\" in line:
            raise ValueError(f"{source} line {number}: a word holds a quote or a backslash: {line!r}")
        else:
            words.append(line)
    return {name: tuple(words) for name, words in found.items()}
