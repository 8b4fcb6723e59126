"""Where the AI SDK's provider packages keep a reasoning signature: in a
chunk's ``providerMetadata`` (a reasoning part's, and for some packages a
text part's or a tool call's too), under a key and in fields of each
package's own. The protocol of a provider's models says where, in its
vocabulary's ``PROVIDER_METADATA`` table: the codec names no provider. The
mirror of ``rust/ai_sdk/providers.rs``, which says what a table's words are."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..._vocabulary import tables
from ..events import PROTOCOL_NAMES

__all__ = ["PARTS", "TABLE", "Place", "metadata", "places", "read", "signature"]

#: The vocabulary table a provider's protocol declares its place in.
TABLE = "PROVIDER_METADATA"

#: The kinds of block a signature may ride on, as the AI SDK's parts are.
PARTS = ("reasoning", "text", "tool_call")


@dataclass(frozen=True)
class Place:
    """One provider package's place for signatures."""

    #: Whose the signatures are: a signature's neutral ``encrypted_by``.
    by: str
    keys: tuple[str, ...] = ()
    signature: str | None = None
    redacted: tuple[str, ...] = ()
    item_id: str | None = None
    #: The kinds of block whose parts carry a signature.
    parts: tuple[str, ...] = ("reasoning",)


def read(by: str, words: tuple[str, ...]) -> Place:
    """A protocol's table, read (``by``: the protocol's name); a ValueError
    names the word it cannot read."""
    keys: list[str] = []
    redacted: list[str] = []
    parts: list[str] = []
    single: dict[str, str] = {}
    for word in words:
        what, equals, name = word.partition("=")
        if equals and what == "key":
            keys.append(name)
        elif equals and what == "redacted":
            redacted.append(name)
        elif equals and what == "part" and name in PARTS and name not in parts:
            parts.append(name)
        elif equals and what in ("by", "signature", "item_id") and what not in single:
            single[what] = name
        else:
            raise ValueError(f"{by}'s {TABLE}: {word!r} is not one of its words")
    if not keys or ("signature" not in single and not redacted):
        raise ValueError(f"{by}'s {TABLE} needs a key and a field")
    return Place(
        single.get("by", by),
        tuple(keys),
        single.get("signature"),
        tuple(redacted),
        single.get("item_id"),
        tuple(parts) or ("reasoning",),
    )


@cache
def places() -> tuple[Place, ...]:
    """Every provider's place, in the registry's order (a table that does
    not read is left out: the tests read every one)."""
    found = []
    for name in PROTOCOL_NAMES:
        words = tables(name).get(TABLE)
        if words is not None:
            try:
                found.append(read(name, words))
            except ValueError:
                continue
    return tuple(found)


def signature(metadata: Any, kind: str) -> tuple[str, bool, str] | None:
    """The signature a chunk's ``providerMetadata`` carries for a block of
    ``kind``: the encrypted value, whether it is redacted reasoning, and
    whose it is."""
    if not isinstance(metadata, dict):
        return None
    for place in places():
        if kind not in place.parts:
            continue
        # The first key the chunk has an object under, as the package reads them.
        fields = next((metadata[key] for key in place.keys if isinstance(metadata.get(key), dict)), None)
        if fields is None:
            continue
        for name, redacted in ((place.signature, False), *((name, True) for name in place.redacted)):
            value = fields.get(name) if name is not None else None
            if isinstance(value, str) and value:
                return value, redacted, place.by
    return None


def metadata(by: str, kind: str, encrypted: str, redacted: bool, item_id: str) -> dict[str, Any] | None:
    """A signature as the AI SDK's package for ``by``'s models keeps it in
    the ``providerMetadata`` of a block of ``kind``'s part (``item_id``: the
    item it belongs to); None where no package has a place for it."""
    place = next((place for place in places() if place.by == by and kind in place.parts), None)
    if place is None:
        return None
    name = (place.redacted[0] if place.redacted else None) if redacted else place.signature
    if name is None:
        return None
    fields = {} if place.item_id is None else {place.item_id: item_id}
    fields[name] = encrypted
    return {key: dict(fields) for key in place.keys}
