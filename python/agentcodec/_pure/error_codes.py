"""A failed run's error code, from one protocol's words into another's, for
a target whose codes are a closed set (``rust/error_codes.rs``): its
vocabulary lists them (an API's codes, an SDK's exception classes or error
types, gRPC statuses). The neutral vocabulary gives every protocol's code a kind (its
``ERROR_CODE_KINDS`` table) and the target's vocabulary its code for each
kind (``ERROR_CODE_WORDS``), read by ``words.Words``: a throttle stays a
rate limit, whatever protocol's words it came in."""

from __future__ import annotations

from typing import Any

from .._vocabulary import tables
from .events import error_code_loss
from .words import Words

__all__ = ["ErrorCodes"]


_KINDS = tables("_vocabulary")["ERROR_CODE_KINDS"]


class ErrorCodes:
    """A protocol's error codes: its own, its code for each kind, and the
    one it writes for a code of no kind (or none)."""

    __slots__ = ("_fallback", "_words")

    def __init__(self, own: tuple[str, ...], by_kind: tuple[str, ...], fallback: str) -> None:
        self._words = Words(_KINDS, own, by_kind)
        self._fallback = fallback

    def write(self, target: str, code: Any) -> tuple[str, list[tuple[str, str]]]:
        """The code it writes for ``code`` (one of its own, in its own
        spelling, or its code of the kind, or else its fallback), and the
        loss where that is not the code as it came."""
        written = (self._words.word(code) if isinstance(code, str) else None) or self._fallback
        return written, error_code_loss(target, code, written)
