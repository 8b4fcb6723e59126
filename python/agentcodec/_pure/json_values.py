"""JSON as both backends accept it: the pure-Python mirror of
``rust/json.rs``.

Event data is parsed strictly (RFC 8259): no ``NaN`` or ``Infinity``, no lone
surrogate escapes, nesting at most ``MAX_DEPTH`` deep; integers of any size are
exact. Values handed in from Python (``feed_event``) are checked against the
same rules and copied, so that the caller may reuse or change its own objects
afterwards.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "int_from_digits",
    "LONG_INT",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "JSONValueError",
    "copy_value",
    "loads",
    "quote",
    "scan_document",
]

# The Rust core's JSON parser refuses the 128th level of nesting.
MAX_DEPTH = 127
# CPython makes no int from text of more digits (its default
# int_max_str_digits); a longer integer is its event's error on both backends,
# whatever the interpreter's own limit was set to.
MAX_INT_DIGITS = 4300
LONG_INT = f"an integer of more than {MAX_INT_DIGITS} digits"
_SMALLEST_LONG_INT = 10**MAX_INT_DIGITS
_get_int_max_str_digits: Callable[[], int] | None = getattr(sys, "get_int_max_str_digits", None)

_SURROGATE_ESCAPE = re.compile(r"\\+u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JSONValueError(ValueError):
    """Text that is not strict JSON, or a Python value JSON cannot carry."""


def _no_constants(name: str) -> Any:
    raise JSONValueError(f"{name} is not valid JSON")


_strict_scan = json.JSONDecoder(parse_constant=_no_constants).scan_once  # type: ignore[attr-defined]
# json.decoder.WHITESPACE; a "*" pattern always matches.
_whitespace: Callable[[str, int], re.Match[str]] = re.compile(r"[ \t\n\r]*").match  # type: ignore[assignment]


def scan_document(scan_once: Callable[[str, int], tuple[Any, int]], text: str) -> Any:
    """What ``JSONDecoder.decode(text)`` does, for the decoder whose C scanner
    is ``scan_once``, with the same errors: decode and raw_decode are two
    Python frames around the scanner, a tenth of the pure assembler's time
    per event."""
    try:
        value, end = scan_once(text, _whitespace(text, 0).end())
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", text, exc.value) from None
    end = _whitespace(text, end).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def quote(text: str) -> str:
    """``text`` as a JSON string: how error messages quote what they name,
    the same in both backends."""
    return json.dumps(text, ensure_ascii=False)


def loads(text: str) -> Any:
    """Parses ``text`` strictly; raises ``JSONValueError`` on anything else."""
    try:
        value = scan_document(_strict_scan, text)
    except JSONValueError:
        raise
    except (ValueError, RecursionError) as exc:
        if not (isinstance(exc, ValueError) and _int_limit_lowered()):
            raise JSONValueError(str(exc)) from None
        # The interpreter's limit was set under ours: read the integers the
        # native backend reads, from pieces under it.
        try:
            value = scan_document(_digits_scan, text)
        except JSONValueError:
            raise
        except (ValueError, RecursionError) as again:
            raise JSONValueError(str(again)) from None
    # The rare checks the standard library does not make, behind cheap tests.
    if "\\u" in text and _has_lone_surrogate(text):
        raise JSONValueError("lone surrogate in a \\u escape")
    # json.loads holds the interpreter's digit limit; where it was raised
    # (or lifted) the value is checked against ours.
    if len(text) > MAX_INT_DIGITS and _int_limit_raised() and _has_long_int(value):
        raise JSONValueError(LONG_INT)
    # Nesting deeper than MAX_DEPTH takes at least two characters a level.
    if (
        len(text) > 2 * MAX_DEPTH
        and (text.count("[") + text.count("{")) > MAX_DEPTH
        and _depth(value) > MAX_DEPTH
    ):
        raise JSONValueError(f"nesting deeper than {MAX_DEPTH}")
    return value


def _int_limit() -> int:
    return MAX_INT_DIGITS if _get_int_max_str_digits is None else _get_int_max_str_digits()


def _int_limit_raised() -> bool:
    limit = _int_limit()
    return limit == 0 or limit > MAX_INT_DIGITS


def _int_limit_lowered() -> bool:
    return 0 < _int_limit() < MAX_INT_DIGITS


def int_from_digits(text: str) -> int:
    """``int(text)`` for up to ``MAX_INT_DIGITS`` digits, whatever the
    interpreter's limit (at least 640): 18 digits at a time."""
    digits = text.lstrip("-")
    if len(digits) <= 640:  # under any limit the interpreter takes
        return int(text)
    if len(digits) > MAX_INT_DIGITS:
        raise JSONValueError(LONG_INT)
    value = 0
    for start in range(0, len(digits), 18):
        piece = digits[start : start + 18]
        value = value * 10 ** len(piece) + int(piece)
    return -value if text.startswith("-") else value


_digits_scan = json.JSONDecoder(parse_constant=_no_constants, parse_int=int_from_digits).scan_once  # type: ignore[attr-defined]


def _is_long_int(value: int) -> bool:
    # 4300 digits take at least 14284 bits: most ints are ruled out by that.
    return value.bit_length() > 14_283 and abs(value) >= _SMALLEST_LONG_INT


def _has_long_int(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) is int and _is_long_int(item):
            return True
    return False


def _has_lone_surrogate(text: str) -> bool:
    # Only escapes inside strings matter, and a backslash outside a string
    # is not valid JSON (already rejected), so the text can be scanned as is.
    for match in _SURROGATE_ESCAPE.finditer(text):
        backslashes = len(match.group()) - 5
        if backslashes % 2 == 0:
            continue  # an escaped backslash followed by "u...": not an escape
        start = match.end() - 6
        code = int(text[start + 2 : start + 6], 16)
        if code <= 0xDBFF:  # high surrogate: needs a low one right after
            low = text[start + 6 : start + 12]
            if not (len(low) == 6 and low[:2] == "\\u" and 0xDC00 <= int(low[2:], 16) <= 0xDFFF):
                return True
        else:  # low surrogate: must follow a high one
            high = text[start - 6 : start]
            if not (len(high) == 6 and high[:2] == "\\u" and 0xD800 <= int(high[2:], 16) <= 0xDBFF):
                return True
            # ...and that high one must be an escape itself, not escaped text.
            before = text[: start - 6]
            if (len(before) - len(before.rstrip("\\"))) % 2 == 1:
                return True
    return False


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON: a scalar is 0, ``[]`` is 1."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def utf8_size(text: str) -> int:
    """The length of ``text`` in UTF-8 bytes (``len`` when it is ASCII,
    which CPython knows without looking)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def measure(value: Any) -> tuple[int, int]:
    """A value's size and nesting depth, as ``json::measure`` in the Rust
    core: one byte a value plus the UTF-8 bytes of its strings and keys, and
    the depth ``_depth`` gives; walked without recursion."""
    size = 0
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        size += 1
        if isinstance(item, str):
            size += utf8_size(item)
        elif isinstance(item, dict):
            deepest = max(deepest, depth + 1)
            for key, child in item.items():
                size += utf8_size(key)
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in item)
    return size, deepest


def copy_value(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON-compatible Python value, checked as ``loads`` would
    check its text: dicts with ``str`` keys, lists (or tuples), ``str``,
    ``int``, finite ``float``, ``bool`` and ``None``."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, int):
        if type(value) is not int:
            value = int(value)  # an IntEnum is its number, as JSON has it
        if _is_long_int(value):
            raise JSONValueError(LONG_INT)
        return value
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise JSONValueError("lone surrogate in a string") from None
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise JSONValueError(f"{value!r} is not valid JSON")
        return value
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            raise JSONValueError(f"nesting deeper than {MAX_DEPTH}")
        copied = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise JSONValueError(f"JSON object keys must be str, not {type(key).__name__}")
            if not key.isascii():
                copy_value(key)  # checked as any string is
            copied[key] = copy_value(item, depth + 1)
        return copied
    if isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            raise JSONValueError(f"nesting deeper than {MAX_DEPTH}")
        return [copy_value(item, depth + 1) for item in value]
    raise JSONValueError(f"{type(value).__name__} is not a JSON value")


def json_kind(value: Any) -> str:
    """What kind of JSON value this is, for error messages (``json::kind``)."""
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool):
        return "a JSON boolean"
    if value is None:
        return "JSON null"
    return "a JSON number"
