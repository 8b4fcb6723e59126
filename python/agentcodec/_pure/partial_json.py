"""An incremental partial-JSON parser: a JSON text fed in fragments, each
character read once, and at any moment the value so far.

The value so far is what jiter's ``partial_mode="trailing-strings"`` gives
for the whole prefix: complete keys and values, the string being written up
to its last whole character, a number being written while it is a valid
number, containers as soon as they open. It is kept as one live tree, so
reading it after every fragment costs the fragment and the string being
written, not the text so far: the whole stream is linear where re-parsing
the prefix on every delta is quadratic.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from typing import Any, NoReturn

from .._errors import PartialJSONError
from .json_values import MAX_DEPTH, int_from_digits

__all__ = ["DEFAULT_MAX_DEPTH", "PartialJSON", "why_not_json"]

#: How deeply arrays and objects may nest before the text is refused.
DEFAULT_MAX_DEPTH = 512

_WHITESPACE = " \t\n\r"
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_CONTROL = re.compile(r"[\x00-\x1f]")
_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")

# What comes next, outside a token.
_VALUE = 0  # a value
_FIRST_VALUE = 1  # a value or "]": just after "["
_KEY = 2  # a key
_FIRST_KEY = 3  # a key or "}": just after "{"
_COLON = 4
_AFTER = 5  # "," or the container's close
_END = 6  # nothing but whitespace: the value is complete

# The token being read.
_NO_TOKEN = 0
_STRING = 1
_KEY_STRING = 2
_NUMBER_TOKEN = 3
_LITERAL = 4

_ROOT = object()  # the slot of a top-level value
_NOTHING = object()


def _shown(text: str, i: int) -> str:
    """The character at ``i`` in an error message: quoted, or its code
    point when it is a control character."""
    char = text[i]
    if unicodedata.category(char) == "Cc":
        return f"U+{ord(char):04X}"
    return f"'{char}'"


def _number(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int_from_digits(text)


class PartialJSON:
    """Parses a JSON text fed in fragments (``str`` or UTF-8 ``bytes``).

    ``value`` is the value so far (None before any), ``done`` whether the
    text is complete; arrays and objects nest at most ``max_depth`` deep
    (None: 512). Invalid JSON raises ``PartialJSONError`` with the byte
    offset and the reason; the value parsed before it stays, and every later
    ``feed`` raises the same error.
    """

    __slots__ = (
        "_decoder",
        "_displaced",
        "_ended",
        "_error",
        "_escape",
        "_expect",
        "_high",
        "_keys",
        "_max_depth",
        "_offset",
        "_placed",
        "_root",
        "_stack",
        "_text",
        "_token",
    )

    def __init__(self, *, max_depth: int | None = None) -> None:
        if max_depth is None:
            max_depth = DEFAULT_MAX_DEPTH
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
            raise ValueError(f"max_depth must be a positive int, not {max_depth!r}")
        self._max_depth = max_depth
        self._root: Any = _NOTHING
        self._stack: list[Any] = []  # the open containers, outermost first
        self._keys: list[Any] = []  # per open object: the key whose value comes next
        self._expect = _VALUE
        self._token = _NO_TOKEN
        self._text: list[str] = []  # the token's characters (a string's: decoded)
        self._escape = ""  # an escape being read: "\\", "\\u00", ...
        self._high: int | None = None  # a high surrogate waiting for its low half
        self._placed: Any = None  # (container, key) of the leaf shown but not complete
        # What the leaf shown in an object replaced under its key (a key given
        # twice): put back if the leaf is taken back, as jiter keeps it.
        self._displaced: Any = _NOTHING
        self._offset = 0  # bytes read before the current fragment
        self._error: PartialJSONError | None = None
        self._ended = False  # close() was called: the text is over
        self._decoder = codecs.getincrementaldecoder("utf-8")()

    # --- the public face ---------------------------------------------------

    @property
    def value(self) -> Any:
        """The value so far: None until one has begun."""
        return self._value()

    def _value(self) -> Any:
        self._show_pending()
        return None if self._root is _NOTHING else self._root

    @property
    def done(self) -> bool:
        """Whether the JSON text is complete (a top-level number is complete
        once something follows it)."""
        return self._is_done()

    def _is_done(self) -> bool:
        return self._expect == _END and self._token == _NO_TOKEN

    @property
    def offset(self) -> int:
        """How many bytes of JSON text were read."""
        return self._offset

    def _complete_at_end(self) -> bool:
        """Whether the text is complete if it ends here: done, or a
        top-level number that nothing followed (and no character cut in two)."""
        if self._decoder.getstate()[0]:
            return False
        if self._is_done():
            return True
        return (
            not self._stack
            and self._token == _NUMBER_TOKEN
            and _NUMBER.fullmatch("".join(self._text)) is not None
        )

    def feed(self, fragment: str | bytes | bytearray | memoryview) -> None:
        """Reads the next fragment of the text."""
        if self._error is not None:
            raise self._error
        if self._ended:
            self._fail(self._offset, "the text was ended")
        if isinstance(fragment, str):
            try:
                size = len(fragment.encode("utf-8"))
            except UnicodeEncodeError as exc:
                self._fail_after(fragment[: exc.start], "a lone surrogate")
            text = fragment
        elif isinstance(fragment, (bytes, bytearray, memoryview)):
            pending = self._decoder.getstate()[0]
            try:
                text = self._decoder.decode(bytes(fragment))
            except UnicodeDecodeError as exc:
                self._fail_after((pending + bytes(fragment))[: exc.start].decode("utf-8"), "invalid UTF-8")
            size = len(text.encode("utf-8"))
        else:
            raise TypeError(f"feed() takes str or bytes, not {type(fragment).__name__}")
        self._parse(text)
        self._offset += size

    def close(self) -> Any:
        """Ends the text and returns its value; a text that is not one whole
        value raises ``PartialJSONError``, as does a fragment fed after."""
        if self._error is not None:
            raise self._error
        if self._ended:
            return self._value()
        if self._decoder.getstate()[0]:
            self._fail(self._offset, "the text ends inside a character")
        if self._token == _NUMBER_TOKEN and not self._stack:
            self._end_number("", 0)
        if not self._is_done():
            empty = self._expect == _VALUE and not self._stack and self._token == _NO_TOKEN
            reason = "the text ends before a value begins" if empty else "the text ends before its value does"
            self._fail(self._offset, reason)
        self._ended = True
        return self._value()

    def __repr__(self) -> str:
        return f"PartialJSON(offset={self._offset}, done={self._is_done()})"

    # --- errors ------------------------------------------------------------

    def _fail(self, offset: int, reason: str) -> NoReturn:
        self._error = PartialJSONError(offset, reason)
        raise self._error

    def _fail_after(self, text: str, reason: str) -> NoReturn:
        """Fails right after ``text``, the valid start of a fragment that is
        no UTF-8 text, which is read first: an error in it comes first,
        however the text was cut."""
        self._parse(text)
        self._offset += len(text.encode("utf-8"))
        self._fail(self._offset, reason)

    def _fail_at(self, text: str, index: int, reason: str) -> NoReturn:
        self._fail(self._offset + len(text[:index].encode("utf-8")), reason)

    # --- the parser --------------------------------------------------------

    def _parse(self, text: str) -> None:
        i, end = 0, len(text)
        while i < end:
            token = self._token
            if token in (_STRING, _KEY_STRING):
                i = self._string(text, i)
                continue
            if token == _NUMBER_TOKEN:
                j = i
                while j < end and text[j] in _NUMBER_CHARS:
                    j += 1
                self._text.append(text[i:j])
                i = j
                if i < end:
                    self._end_number(text, i)
                continue
            if token == _LITERAL:
                i = self._literal(text, i)
                continue
            char = text[i]
            if char in _WHITESPACE:
                i += 1
                continue
            expect = self._expect
            if expect in (_VALUE, _FIRST_VALUE):
                if char == "]" and expect == _FIRST_VALUE:
                    self._close()
                else:
                    self._begin_value(text, i)
            elif expect in (_KEY, _FIRST_KEY):
                if char == '"':
                    self._token = _KEY_STRING
                    self._text = []
                elif char == "}" and expect == _FIRST_KEY:
                    self._close()
                else:
                    self._fail_at(text, i, f"expected a string key, found {_shown(text, i)}")
            elif expect == _COLON:
                if char != ":":
                    self._fail_at(text, i, f"expected ':' after a key, found {_shown(text, i)}")
                self._expect = _VALUE
            elif expect == _AFTER:
                top = self._stack[-1]
                if char == ",":
                    self._expect = _KEY if type(top) is dict else _VALUE
                elif char == ("}" if type(top) is dict else "]"):
                    self._close()
                else:
                    closer = "}" if type(top) is dict else "]"
                    self._fail_at(text, i, f"expected ',' or '{closer}', found {_shown(text, i)}")
            else:
                self._fail_at(text, i, f"unexpected {_shown(text, i)} after the JSON value")
            i += 1

    def _begin_value(self, text: str, i: int) -> None:
        char = text[i]
        if char in {"{", "["}:
            if len(self._stack) >= self._max_depth:
                self._fail_at(text, i, f"nesting deeper than max_depth={self._max_depth}")
            container: Any = {} if char == "{" else []
            self._attach(container)
            self._stack.append(container)
            self._keys.append(None)
            self._expect = _FIRST_KEY if char == "{" else _FIRST_VALUE
        elif char == '"':
            self._token = _STRING
            self._text = []
        elif char == "-" or "0" <= char <= "9":
            self._token = _NUMBER_TOKEN
            self._text = [char]
        elif char in _LITERALS:
            self._token = _LITERAL
            self._text = [char]
        else:
            self._fail_at(text, i, f"expected a value, found {_shown(text, i)}")

    def _attach(self, value: Any) -> None:
        """Puts a value (complete, or a container just opened) where the
        next value goes, in place of the leaf shown there."""
        placed, self._placed = self._placed, None
        self._displaced = _NOTHING
        if not self._stack:
            self._root = value
            return
        top = self._stack[-1]
        if type(top) is dict:
            top[self._keys[-1]] = value
        elif placed is not None:
            top[-1] = value
        else:
            top.append(value)

    def _complete(self, value: Any) -> None:
        """A scalar is complete: attached, and what comes next follows."""
        self._token = _NO_TOKEN
        self._text = []
        self._attach(value)
        self._expect = _AFTER if self._stack else _END

    def _close(self) -> None:
        self._stack.pop()
        self._keys.pop()
        self._expect = _AFTER if self._stack else _END

    def _end_number(self, text: str, i: int) -> None:
        number = "".join(self._text)
        if _NUMBER.fullmatch(number) is None:
            self._fail_at(text, i, f"invalid number {number!r}")
        try:
            value = _number(number)
        except ValueError as exc:  # an integer of more than MAX_INT_DIGITS digits
            self._fail_at(text, i, str(exc))
        self._complete(value)

    def _literal(self, text: str, i: int) -> int:
        word, value = _LITERALS[self._text[0]]
        have = len(self._text)
        while i < len(text) and have < len(word):
            if text[i] != word[have]:
                self._fail_at(text, i, f"invalid literal, expected {word!r}")
            self._text.append(text[i])
            have += 1
            i += 1
        if have == len(word):
            self._complete(value)
        return i

    def _string(self, text: str, i: int) -> int:
        end = len(text)
        pieces = self._text
        while i < end:
            if self._escape:
                i = self._escaped(text, i)
                continue
            quote = text.find('"', i)
            backslash = text.find("\\", i, quote if quote >= 0 else end)
            stop = backslash if backslash >= 0 else (quote if quote >= 0 else end)
            if stop > i:
                if self._high is not None:  # before anything later in the run
                    self._fail_at(text, i, "a lone surrogate")
                control = _CONTROL.search(text, i, stop)
                if control is not None:
                    self._fail_at(text, control.start(), "a control character in a string")
                pieces.append(text[i:stop])
            if stop == end:
                return end
            if stop == backslash:
                self._escape = "\\"
                i = stop + 1
                continue
            if self._high is not None:
                self._fail_at(text, stop, "a lone surrogate")
            self._end_string("".join(pieces))
            return stop + 1
        return i

    def _escaped(self, text: str, i: int) -> int:
        char = text[i]
        escape = self._escape
        if escape == "\\":
            if char == "u":
                self._escape = "\\u"
                return i + 1
            decoded = _ESCAPES.get(char)
            if decoded is None:
                self._fail_at(text, i, f"invalid escape, found {_shown(text, i)}")
            if self._high is not None:
                self._fail_at(text, i, "a lone surrogate")
            self._text.append(decoded)
            self._escape = ""
            return i + 1
        if char not in _HEX:
            self._fail_at(text, i, f"invalid \\u escape, found {_shown(text, i)}")
        escape += char
        if len(escape) < 6:
            self._escape = escape
            return i + 1
        self._escape = ""
        code = int(escape[2:], 16)
        if 0xD800 <= code < 0xDC00:
            if self._high is not None:
                self._fail_at(text, i, "a lone surrogate")
            self._high = code
        elif 0xDC00 <= code < 0xE000:
            if self._high is None:
                self._fail_at(text, i, "a lone surrogate")
            self._text.append(chr(0x10000 + ((self._high - 0xD800) << 10) + (code - 0xDC00)))
            self._high = None
        else:
            if self._high is not None:
                self._fail_at(text, i, "a lone surrogate")
            self._text.append(chr(code))
        return i + 1

    def _end_string(self, string: str) -> None:
        if self._token == _KEY_STRING:
            self._token = _NO_TOKEN
            self._text = []
            self._keys[-1] = string
            self._expect = _COLON
        else:
            self._complete(string)

    # --- the leaf being written ---------------------------------------------

    def _show_pending(self) -> None:
        """Shows the string or number being written where it goes, in place
        of what was shown there before."""
        pending: Any = _NOTHING
        if self._token == _STRING:
            pending = "".join(self._text)
            self._text[:] = [pending]  # joined once: the next read joins only what is new
        elif self._token == _NUMBER_TOKEN:
            number = "".join(self._text)
            if _NUMBER.fullmatch(number) is not None:
                try:
                    pending = _number(number)
                except ValueError:
                    pending = _NOTHING
        if pending is _NOTHING:
            self._take_back()
            return
        placed = self._placed
        if not self._stack:
            self._root = pending
            self._placed = _ROOT
            return
        top = self._stack[-1]
        if type(top) is dict:
            key = self._keys[-1]
            if placed is None:
                self._displaced = top.get(key, _NOTHING)
            top[key] = pending
        elif placed is not None:
            top[-1] = pending
        else:
            top.append(pending)
        self._placed = top

    def _take_back(self) -> None:
        placed, self._placed = self._placed, None
        if placed is None:
            return
        if placed is _ROOT:
            self._root = _NOTHING
        elif type(placed) is dict:
            displaced, self._displaced = self._displaced, _NOTHING
            if displaced is _NOTHING:
                placed.pop(self._keys[-1], None)
            else:
                placed[self._keys[-1]] = displaced
        else:
            placed.pop()


def why_not_json(text: str) -> str:
    """Why ``text`` is not JSON as ``json_values.loads`` reads it, for its event's error:
    what is wrong and the byte offset where, as ``PartialJSON`` says it on
    both backends. Only called once parsing failed (``rust/json.rs``)."""
    parser = PartialJSON(max_depth=MAX_DEPTH)
    try:
        parser.feed(text)
    except PartialJSONError as exc:
        return f"is not valid JSON: {exc.reason} at byte {exc.offset}"
    if not text.strip(" \t\n\r"):
        return "is not valid JSON: there is no value"
    if not parser._complete_at_end():
        return f"is not valid JSON: incomplete at byte {len(text.encode())}"
    return "is not valid JSON"
