"""The bytes of media content blocks, whose data arrives as base64 chunks."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .._pure.langchain.errors import LangChainError

__all__ = ["block_bytes"]


def block_bytes(block: dict[str, Any]) -> bytes:
    """Decodes a block's ``base64`` (or ``data``) once, after all its chunks
    were appended. Chunks that were padded one by one do not make valid base64
    together, and are an error rather than a guess."""
    encoded = block.get("base64")
    if encoded is None:
        encoded = block.get("data")
    if not isinstance(encoded, str):
        raise LangChainError("content block has no base64 data")
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise LangChainError(f"content block data is not valid base64: {exc}") from None
