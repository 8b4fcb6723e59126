"""Passing on a JSON text that arrives in fragments so that what has been
passed on is always a clean prefix of a JSON text, and can be ended as one
whatever comes next: what a target that reads tool arguments as JSON while
they stream needs (a delta its SDK parses after every fragment). The mirror of
``rust/json_prefix.rs``, which says more."""

from __future__ import annotations

from .json_values import MAX_DEPTH, MAX_INT_DIGITS

__all__ = ["JsonPrefix"]

# Where the reader is (rust/json_prefix.rs's State).
_START, _ARRAY_START, _OBJECT_START, _VALUE, _KEY, _KEY_STRING, _COLON, _STR = range(8)
_NUMBER, _LITERAL, _AFTER, _BROKEN = range(8, 12)

# How far a number has come: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
_MINUS, _ZERO, _INTEGER, _DOT, _FRACTION, _EXPONENT, _EXPONENT_SIGN, _EXPONENT_DIGITS = range(8)
_WHOLE_NUMBER = frozenset({_ZERO, _INTEGER, _FRACTION, _EXPONENT_DIGITS})
_DIGITS = frozenset("0123456789")


def _next_number_part(part: int, char: str) -> int | None:
    """The part after ``char``, or None where it does not go on the number."""
    if char in _DIGITS:
        if part == _MINUS:
            return _ZERO if char == "0" else _INTEGER
        if part == _INTEGER:
            return _INTEGER
        if part in (_DOT, _FRACTION):
            return _FRACTION
        if part in (_EXPONENT, _EXPONENT_SIGN, _EXPONENT_DIGITS):
            return _EXPONENT_DIGITS
        return None
    if char == "." and part in (_ZERO, _INTEGER):
        return _DOT
    if char in "eE" and part in (_ZERO, _INTEGER, _FRACTION):
        return _EXPONENT
    if char in "+-" and part == _EXPONENT:
        return _EXPONENT_SIGN
    return None


_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_LITERALS = {"t": "rue", "f": "alse", "n": "ull"}
_HEX = frozenset("0123456789abcdefABCDEF")


class JsonPrefix:
    """See ``rust/json_prefix.rs``."""

    __slots__ = (
        "_digits",
        "_escape",
        "_held",
        "_high_surrogate",
        "_literal",
        "_number",
        "_require_object",
        "_safe_in_string",
        "_stack",
        "_state",
        "_unicode",
    )

    def __init__(self, require_object: bool) -> None:
        self._require_object = require_object
        self._state = _START
        self._number = _MINUS  # the number's part, in _NUMBER
        self._digits = 0  # its digits before any "." or exponent
        self._literal = ""  # the rest of the literal, in _LITERAL
        self._stack: list[bool] = []  # the open containers: True for an object
        # An escape in a string: None, "\\" after a backslash, or "u" and the
        # hex digits read after \u.
        self._escape: str | None = None
        self._unicode = ""
        self._high_surrogate = False  # a high surrogate's escape waits for its low half
        self._held: list[str] = []  # read after the last clean end, not passed on yet
        self._safe_in_string = False  # whether the last clean end was in a string value

    def feed(self, fragment: str) -> str:
        """Reads the next fragment; returns what may be passed on now."""
        clean_end = None
        for at, char in enumerate(fragment):
            self._step(char)
            if self._state == _BROKEN:
                break
            if self._is_clean():
                clean_end = at + 1
                self._safe_in_string = self._state == _STR
        broken = self._state == _BROKEN
        if clean_end is not None:
            out = "".join(self._held) + fragment[:clean_end]
            self._held = [] if broken else [fragment[clean_end:]]
            return out
        if broken:
            self._held = []
        else:
            self._held.append(fragment)
        return ""

    def finish(self) -> str:
        """What ends the text passed on: nothing when it was whole, otherwise
        the closing quote of the string value it stopped in and the closers
        of the containers open there."""
        if self.is_whole():
            return ""
        closers = "".join("}" if obj else "]" for obj in reversed(self._stack))
        return ('"' if self._safe_in_string else "") + closers

    def is_whole(self) -> bool:
        """Whether the text read so far is one whole JSON value (an object,
        where one is required), or nothing at all."""
        state = self._state
        if state == _START:
            return True
        if state == _AFTER:
            return not self._stack
        return state == _NUMBER and not self._stack and self._number_whole()

    def is_broken(self) -> bool:
        """Whether the text can no longer be JSON."""
        return self._state == _BROKEN

    def _number_whole(self) -> bool:
        part = self._number
        return part in _WHOLE_NUMBER and not (part in (_ZERO, _INTEGER) and self._digits > MAX_INT_DIGITS)

    def _is_clean(self) -> bool:
        state = self._state
        if state in (_ARRAY_START, _OBJECT_START, _AFTER):
            return True  # (white space alone is no JSON text: it waits for a value)
        if state == _STR:
            return self._escape is None and not self._high_surrogate
        return state == _NUMBER and self._number_whole()

    def _step(self, char: str) -> None:
        state = self._state
        if state in (_STR, _KEY_STRING):
            self._string_char(char)
            return
        if state == _NUMBER:
            part = _next_number_part(self._number, char)
            if part is not None:
                if part in (_ZERO, _INTEGER):
                    self._digits += 1
                self._number = part
                return
            if not self._number_whole():
                self._state = _BROKEN
                return
            state = self._state = _AFTER  # and char follows it
        if state == _LITERAL:
            if char != self._literal[0]:
                self._state = _BROKEN
            else:
                self._literal = self._literal[1:]
                if not self._literal:
                    self._state = _AFTER
            return
        if char in " \t\n\r":
            return
        if state == _START and char == "{":
            self._state = self._open(True)
        elif state == _START and self._require_object:
            self._state = _BROKEN
        elif (state == _OBJECT_START and char == "}") or (state == _ARRAY_START and char == "]"):
            self._state = self._close()
        elif state in (_START, _ARRAY_START, _VALUE):
            self._state = self._value(char)
        elif state in (_OBJECT_START, _KEY) and char == '"':
            self._escape = None
            self._state = _KEY_STRING
        elif state == _COLON and char == ":":
            self._state = _VALUE
        elif state == _AFTER and char == "," and self._stack:
            self._state = _KEY if self._stack[-1] else _VALUE
        elif state == _AFTER and self._stack and char == ("}" if self._stack[-1] else "]"):
            self._state = self._close()
        else:
            self._state = _BROKEN

    def _value(self, char: str) -> int:
        """The first character of a value."""
        if char == "{":
            return self._open(True)
        if char == "[":
            return self._open(False)
        if char == '"':
            self._escape = None
            return _STR
        if char == "-" or char in _DIGITS:
            self._digits = 0 if char == "-" else 1
            self._number = _MINUS if char == "-" else _ZERO if char == "0" else _INTEGER
            return _NUMBER
        literal = _LITERALS.get(char)
        if literal is not None:
            self._literal = literal
            return _LITERAL
        return _BROKEN

    def _open(self, obj: bool) -> int:
        if len(self._stack) >= MAX_DEPTH:  # as deep as the assemblers read
            return _BROKEN
        self._stack.append(obj)
        return _OBJECT_START if obj else _ARRAY_START

    def _close(self) -> int:
        self._stack.pop()
        return _AFTER

    def _string_char(self, char: str) -> None:
        escape = self._escape
        if escape == "\\":
            if char == "u":
                self._escape, self._unicode = "u", ""
            elif char in _SIMPLE_ESCAPES and not self._high_surrogate:
                self._escape = None
            else:
                self._state = _BROKEN
        elif escape == "u":
            if char not in _HEX:
                self._state = _BROKEN
                return
            self._unicode += char
            if len(self._unicode) < 4:
                return
            self._escape = None
            code = int(self._unicode, 16)
            if 0xD800 <= code <= 0xDBFF and not self._high_surrogate:
                self._high_surrogate = True
            elif 0xDC00 <= code <= 0xDFFF and self._high_surrogate:
                self._high_surrogate = False
            elif 0xD800 <= code <= 0xDFFF or self._high_surrogate:
                self._state = _BROKEN
        elif self._high_surrogate and char != "\\":
            self._state = _BROKEN  # a high surrogate alone
        elif char == "\\":
            self._escape = "\\"
        elif char == '"':
            self._state = _COLON if self._state == _KEY_STRING else _AFTER
        elif char < "\x20":
            self._state = _BROKEN
