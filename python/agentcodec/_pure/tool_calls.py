"""Every assembler's ``tool_calls``: each call's arguments parsed as they
stream, by one incremental parser per call kept between reads, so that
reading them after every delta costs the delta, not the arguments so far.
Mirrors ``rust/python/tool_calls.rs``.

An assembler describes its calls as ``ToolCall`` views: the call's own
fields, the field its arguments go in, and the arguments as it holds them
(a ``str``, ``Pieces`` being appended to, or a value already parsed). A
``str`` never changes and ``Pieces`` only grow (their ``joins`` count says
when they were joined), so the reader goes on from where it stopped as
long as the assembler holds the same object; a replaced one is read anew.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._errors import PartialJSONError
from .accumulate import Pieces, render
from .partial_json import PartialJSON

__all__ = ["NO_ARGUMENTS", "ArgumentValue", "ToolCall", "ToolCallReader"]

_SUBJECTS = {"input": "input is", "args": "args are"}
#: A call whose arguments have not begun.
NO_ARGUMENTS: Any = object()


class ArgumentValue(NamedTuple):
    """Arguments the protocol already gave parsed: a ``str`` here is a
    string value, not JSON text to read."""

    value: Any


class ToolCall(NamedTuple):
    key: Any  # which call this is, stable while the stream goes on
    fields: dict[str, Any]  # its id and name, in the protocol's names
    field: str  # where its arguments go: "arguments", "input" or "args"
    arguments: Any  # str or Pieces (JSON text), a value (ArgumentValue for a str), or NO_ARGUMENTS
    finished: bool  # no more arguments will come


class _Parsed:
    __slots__ = ("consumed", "error", "joins", "parser", "pieces", "source")

    def __init__(self, source: str | Pieces) -> None:
        self.source = source  # the str or Pieces being read
        self.parser = PartialJSON()
        self.error: PartialJSONError | None = None
        self.consumed = 0  # characters read
        self.pieces = 0  # pieces read
        self.joins = getattr(source, "joins", 0)

    def reads(self, source: str | Pieces) -> bool:
        """Whether ``source`` is the text this parser reads, continued:
        the same object, or the pieces a str it read whole became when
        appended to (``accumulate.append``)."""
        if source is self.source:
            return True
        if isinstance(source, Pieces) and source and source[0] is self.source and self.pieces == 1:
            self.source = source
            self.joins = getattr(source, "joins", 0)
            return True
        return self._goes_on(source)

    def _goes_on(self, source: str | Pieces) -> bool:
        """Whether a text that replaced the one read begins with what was
        read (a snapshot of the arguments so far): then the parser reads on
        and the value keeps its containers, as the native reader's does.
        The check reads the text, as the assembler did when it replaced it."""
        old = self.source if isinstance(self.source, str) else "".join(self.source)
        new = source if isinstance(source, str) else source.text()
        if len(new) < self.consumed or not new.startswith(old[: self.consumed]):
            return False
        self.feed(new[self.consumed :])
        self.source = source
        self.pieces = 1 if isinstance(source, str) else len(source)
        self.joins = getattr(source, "joins", 0)
        return True

    def feed(self, text: str) -> None:
        self.consumed += len(text)
        if self.error is None and text:
            try:
                self.parser.feed(text)
            except PartialJSONError as exc:
                self.error = exc

    def catch_up(self) -> None:
        source = self.source
        if isinstance(source, str):
            if self.pieces == 0:
                self.feed(source)
                self.pieces = 1
            return
        joins = getattr(source, "joins", 0)
        if joins != self.joins:
            # Joined since the last read (the whole, or a batch of the last
            # pieces): the piece where the unread text starts is found by
            # length, and read from there.
            self.joins = joins
            index, at = 0, 0
            while index < len(source) and at + len(source[index]) <= self.consumed:
                at += len(source[index])
                index += 1
            if index < len(source):
                self.feed(source[index][self.consumed - at :])
                index += 1
            self.pieces = index
        for piece in source[self.pieces :]:
            self.feed(piece)
        self.pieces = len(source)


def _subject(field: str) -> str:
    return _SUBJECTS.get(field, "arguments are")


class ToolCallReader:
    """The parsers of one assembler's calls, by each call's key."""

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[Any, _Parsed] = {}

    def read(self, calls: list[ToolCall]) -> list[dict[str, Any]]:
        """``tool_calls``: every call's fields, its arguments under the
        protocol's field (the value so far while they stream), ``done`` (the
        argument text is complete JSON, or the call ended), and an ``error``
        for arguments that are not valid JSON, which then stay as they came."""
        previous = self._parsed
        self._parsed = parsed_calls = {}  # calls no longer listed are forgotten
        entries = []
        for call in calls:
            entry = render(call.fields)
            arguments = call.arguments
            if arguments is NO_ARGUMENTS:
                entry[call.field] = None
                entry["done"] = call.finished
                if call.finished:
                    entry["error"] = f"{_subject(call.field)} missing: the call ended without any"
                entries.append(entry)
                continue
            given = isinstance(arguments, ArgumentValue)
            if given or not isinstance(arguments, (str, Pieces)):
                entry[call.field] = render(arguments.value if given else arguments)
                entry["done"] = call.finished
                entries.append(entry)
                continue
            parsed = previous.get(call.key)
            if parsed is None or not parsed.reads(arguments):
                parsed = _Parsed(arguments)
            parsed_calls[call.key] = parsed
            parsed.catch_up()
            parser = parsed.parser
            if parsed.error is not None:
                failure: str | None = f"{parsed.error.reason} at byte {parsed.error.offset}"
            elif call.finished and not parser._complete_at_end():
                failure = f"incomplete at byte {parser.offset}"
            else:
                failure = None
            if failure is not None:
                entry[call.field] = arguments if isinstance(arguments, str) else arguments.text()
                entry["done"] = call.finished
                entry["error"] = f"{_subject(call.field)} not valid JSON: {failure}"
            else:
                entry[call.field] = parser.value
                entry["done"] = parser.done or call.finished
            entries.append(entry)
        return entries
