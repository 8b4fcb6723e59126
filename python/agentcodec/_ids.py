"""Ids for what the builders write when the caller gives none: unique, so
that two streams never share one (a client's history, or a replay store
keyed by id, would merge them), and shaped as the provider's own, so that
code which looks at an id's prefix or alphabet reads them as it reads the
provider's."""

from __future__ import annotations

import os
import secrets

__all__ = ["base62", "hex_id"]

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(length: int) -> str:
    """``length`` random characters of ``[0-9A-Za-z]`` (about 5.95 bits
    each, from eight random bits each)."""
    number = int.from_bytes(os.urandom(length), "big")
    characters = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        characters.append(_BASE62[digit])
    return "".join(characters)


def hex_id(prefix: str) -> str:
    """``prefix_`` and 48 random hex digits, as OpenAI's Responses ids are
    (``resp_…``, ``msg_…``, ``fc_…``, ``rs_…``)."""
    return f"{prefix}_{secrets.token_hex(24)}"
