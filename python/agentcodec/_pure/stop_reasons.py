"""Why a message stopped, from one protocol's words into another's
(``rust/stop_reasons.rs``). Every protocol names the same few reasons in its
own words (``end_turn``, ``stop``, ``STOP``; ``max_tokens``, ``length``,
``MAX_TOKENS``), so the neutral vocabulary gives each word a kind (its
``STOP_REASON_KINDS`` table) and a protocol's vocabulary its word for each
kind (``STOP_REASON_WORDS``), read by ``words.Words``. An encoder keeps a
reason that is one of its own words and writes any other as its word for
the reason's kind; what it has no word for is a loss, where the stream does
not say it otherwise."""

from __future__ import annotations

from typing import Any

from .._vocabulary import tables
from .words import Words

__all__ = ["StopWords", "cuts_short", "is_implied", "is_ordinary", "kind", "loss"]


_KINDS = tables("_vocabulary")["STOP_REASON_KINDS"]
_NEUTRAL = Words(_KINDS, (), ())


def kind(reason: str) -> str | None:
    """The kind of a stop reason (``end``, ``tool_use``, ``stop_sequence``,
    ``length``, ``content_filter``, ``pause``), in whichever protocol's words
    it comes; None for a word of no kind (a model's own, an error)."""
    return _NEUTRAL.kind(reason)


def is_ordinary(reason: str) -> bool:
    """Whether a reason says the message ended as the model meant: at the
    end of its turn, to call tools, or at a stop sequence."""
    return kind(reason) in ("end", "tool_use", "stop_sequence")


def is_implied(reason: str) -> bool:
    """Whether a reason says no more than what a stream says without it:
    that the message ended as the model meant, or that it ran out of tokens
    (the run's status, incomplete, says that). A target with no word for it
    loses nothing."""
    return is_ordinary(reason) or kind(reason) == "length"


def cuts_short(reason: Any) -> bool:
    """Whether a reason says the message was cut short: it ran out of
    tokens, or a filter (a guardrail, a refusal) stopped it. Every decoder
    reads a run that stops so as incomplete, as the Responses API says of
    both (``incomplete_details.reason``), and every encoder reports a status
    its reason does not read back as. (Not a string: no.)"""
    return isinstance(reason, str) and kind(reason) in ("length", "content_filter")


def loss(target: str, reason: Any) -> list[tuple[str, str]]:
    """A message's (or a run's) stop reason the target has no place for, as
    ``(what, why)``: no word, neither its own nor one of its kind, or none
    where it stands. Nothing when there is none, or it says no more than the
    stream does (``is_implied``)."""
    if not isinstance(reason, str) or not reason or is_implied(reason):
        return []
    return [("stop_reason", f"{target} has no place for the stop reason {reason}")]


class StopWords:
    """A protocol's words for why a message stopped: its own (as its
    vocabulary lists them) and its word for each kind of reason."""

    __slots__ = ("_words",)

    def __init__(self, own: tuple[str, ...], by_kind: tuple[str, ...]) -> None:
        self._words = Words(_KINDS, own, by_kind)

    def word(self, reason: str) -> str | None:
        """The word it writes for ``reason``: the reason, where it is one of
        its own words (in its own spelling), or else its word for the
        reason's kind. None where it has neither."""
        return self._words.word(reason)

    def translate(self, target: str, reason: Any) -> tuple[str | None, list[tuple[str, str]]]:
        """``word`` for a reason that may be missing or empty (or not a
        string), and the loss where the target has no word for one that
        says more than the stream does (``is_implied``)."""
        if not isinstance(reason, str) or not reason:
            return None, []
        word = self.word(reason)
        return word, [] if word is not None else loss(target, reason)
