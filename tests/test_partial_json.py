"""PartialJSON, on both backends, judged by jiter's partial mode: after every
fragment of any JSON text cut anywhere, the value so far is what
``jiter.from_json(prefix, partial_mode="trailing-strings")`` gives for the
whole prefix, and the final value is what ``json.loads`` gives."""

from __future__ import annotations

import itertools
import json
import re
from types import ModuleType
from typing import Any

import jiter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcodec import PartialJSONError
from conftest import BACKENDS, NATIVE, PURE, examples

SETTINGS = settings(max_examples=examples(400), deadline=None)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)


def reference(prefix: bytes) -> Any:
    """What jiter gives for a prefix (None where it has no value yet)."""
    text = prefix.decode("utf-8", errors="ignore")  # a cut character is not read yet
    try:
        return jiter.from_json(text.encode(), partial_mode="trailing-strings")
    except ValueError:
        return None


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[start:end] for start, end in itertools.pairwise(points)]


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    value=JSON_VALUES,
    writing=st.tuples(st.booleans(), st.sampled_from([None, 0, 2])),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
    as_str=st.booleans(),
)
def test_every_prefix_gives_what_jiter_gives(
    backend: ModuleType, value: Any, writing: tuple[bool, int | None], cuts: list[int], as_str: bool
) -> None:
    ascii_only, indent = writing
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    data = text.encode()
    parser = backend.PartialJSON()
    seen = b""
    for piece in split(data, cuts):
        if as_str:
            # A str fragment holds whole characters: a character cut in two is dropped.
            fragment = piece.decode("utf-8", errors="ignore")
            parser.feed(fragment)
            seen += fragment.encode()
        else:
            parser.feed(piece)
            seen += piece
        assert parser.value == reference(seen), seen
    if as_str and seen != data:
        return  # characters cut in two were dropped on the way: not the whole text
    assert parser.value == json.loads(text)
    assert parser.offset == len(data)
    # A top-level number may still grow: it is complete once something follows it.
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        assert parser.done
    else:
        assert not parser.done
        parser.feed(" ")
        assert parser.done


@pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
@SETTINGS
@given(
    text=st.text(alphabet='{}[]":,0123456789.eE+-tfnrulase \\u\n\té😀', max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=100), max_size=5),
)
def test_backends_agree_on_any_text(text: str, cuts: list[int]) -> None:
    """Valid or not: the same values after each fragment, the same error."""
    outcomes = []
    for backend in (NATIVE, PURE):
        assert backend is not None
        parser = backend.PartialJSON()
        values: list[Any] = []
        error = None
        for fragment in split(text.encode(), cuts):
            try:
                parser.feed(fragment)
            except PartialJSONError as exc:
                error = (exc.offset, exc.reason, str(exc))
                break
            finally:
                values.append(parser.value)
        outcomes.append((values, error, parser.done))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize(
    ("fragments", "offset", "reason"),
    [
        (['{"a": 1,}'], 8, "expected a string key, found '}'"),
        (["[1, 2", " x]"], 6, "expected ',' or ']', found 'x'"),
        (['{"a" 1}'], 5, "expected ':' after a key, found '1'"),
        (["[01]"], 3, "invalid number '01'"),
        (["[1.]"], 3, "invalid number '1.'"),
        (["[tru", "e, nul", "x]"], 10, "invalid literal, expected 'null'"),
        (['"a\nb"'], 2, "a control character in a string"),
        (['"\\x"'], 2, "invalid escape, found 'x'"),
        (['"\\\x01"'], 2, "invalid escape, found U+0001"),
        (['"\\u12g4"'], 5, "invalid \\u escape, found 'g'"),
        (['"\\ud83d"'], 7, "a lone surrogate"),
        (['"\\ude00"'], 6, "a lone surrogate"),
        (["{} {}"], 3, "unexpected '{' after the JSON value"),
        ([b'["\xff"]'], 2, "invalid UTF-8"),
        (['["é', "\ud800"], 4, "a lone surrogate"),
        (["[" * 3], 2, "nesting deeper than max_depth=2"),
    ],
)
def test_invalid_json_says_where_and_what_and_keeps_what_came_before(
    backend: ModuleType, fragments: list[Any], offset: int, reason: str
) -> None:
    parser = backend.PartialJSON(max_depth=2)
    with pytest.raises(PartialJSONError) as raised:
        for fragment in fragments:
            before = parser.value
            parser.feed(fragment)
    assert (raised.value.offset, raised.value.reason) == (offset, reason)
    assert str(raised.value) == f"invalid JSON at byte {offset}: {reason}"
    # What was parsed before the error stays; every later call raises it again.
    assert parser.value == before or before is None
    with pytest.raises(PartialJSONError, match=f"at byte {offset}:"):
        parser.feed("1")


def test_the_value_is_kept_as_it_grows(backend: ModuleType) -> None:
    """One live tree: containers are the same objects from one read to the
    next, and the leaf being written shows as far as it is written."""
    parser = backend.PartialJSON()
    parser.feed('{"path": "a.txt", "lines": [')
    value = parser.value
    assert value == {"path": "a.txt", "lines": []}
    parser.feed('"one", "tw')
    assert parser.value is value
    assert value == {"path": "a.txt", "lines": ["one", "tw"]}
    parser.feed('o"], "count": 1')
    assert parser.value == {"path": "a.txt", "lines": ["one", "two"], "count": 1}
    parser.feed(".")  # "1." is no number: not shown until it is one
    assert parser.value == {"path": "a.txt", "lines": ["one", "two"]}
    parser.feed("5}")
    assert parser.value == {"path": "a.txt", "lines": ["one", "two"], "count": 1.5}
    assert parser.done


def test_a_key_given_twice_keeps_its_value_while_the_new_one_is_no_number(backend: ModuleType) -> None:
    """jiter keeps the earlier value of a key given twice until the new one
    is a value: a number that stops being one for a while (``-2.`` on the
    way to ``-2.5``) puts it back, in its place among the keys. (Property
    testing found this where a cut character made two keys the same.)"""
    parser = backend.PartialJSON()
    parser.feed('{"a": 1, "b": 2, "a": -2')
    assert parser.value == {"a": -2, "b": 2}
    parser.feed(".")
    assert list(parser.value.items()) == [("a", 1), ("b", 2)]
    assert parser.value == jiter.from_json(b'{"a": 1, "b": 2, "a": -2.', partial_mode="trailing-strings")
    parser.feed("5e")
    assert list(parser.value.items()) == [("a", 1), ("b", 2)]
    parser.feed("1")
    assert parser.value == {"a": -25.0, "b": 2}
    parser.feed(', "a": tr')  # a literal shows only once whole
    assert parser.value == {"a": -25.0, "b": 2}
    parser.feed("ue}")
    assert parser.value == {"a": True, "b": 2}
    assert parser.done


def test_nothing_yet_is_none_and_arguments_are_checked(backend: ModuleType) -> None:
    parser = backend.PartialJSON()
    assert parser.value is None
    parser.feed("  tr")
    assert parser.value is None  # a literal shows once it is whole
    assert not parser.done
    with pytest.raises(TypeError, match="str or bytes"):
        parser.feed(1)
    for bad in (0, -1, True, "2"):
        with pytest.raises(ValueError, match="max_depth must be a positive int"):
            backend.PartialJSON(max_depth=bad)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b"\x04\x9d", "invalid JSON at byte 0: expected a value, found U+0004"),
        (b'["\xc3\xa9",\xff', "invalid JSON at byte 6: invalid UTF-8"),
        ("x\ud800", "invalid JSON at byte 0: expected a value, found 'x'"),
        ("[1,\ud800", "invalid JSON at byte 3: a lone surrogate"),
        # A high surrogate's escape, then plain text with a control character
        # in it: the lone surrogate comes first (found by the partial_json
        # fuzz target: fed whole, the control character was reported).
        (b' {"f\\udaeaeead at\x01+', "invalid JSON at byte 10: a lone surrogate"),
    ],
)
def test_the_first_error_wins_however_the_text_is_cut(
    backend: ModuleType, text: str | bytes, error: str
) -> None:
    """A fragment that stops being UTF-8 is read up to that point first, so
    an error before it is the error, whole or cut anywhere (found by the
    partial_json fuzz target: fed whole, the bad byte was reported first)."""
    for cut in range(len(text) + 1):
        parser = backend.PartialJSON()
        with pytest.raises(PartialJSONError) as caught:
            parser.feed(text[:cut])
            parser.feed(text[cut:])
        assert str(caught.value) == error, cut


@pytest.mark.parametrize(
    ("fragments", "value"),
    [(["12"], 12), (["-1.5e", "3"], -1500.0), (['{"a": [1, "x"]}', " "], {"a": [1, "x"]}), (["true"], True)],
)
def test_close_ends_the_text_and_returns_its_value(
    backend: ModuleType, fragments: list[str], value: Any
) -> None:
    """A top-level number is complete only once something follows it, or
    the text is closed; close() says so, as every other reader's does."""
    parser = backend.PartialJSON()
    for fragment in fragments:
        parser.feed(fragment)
    assert parser.close() == value
    assert parser.done
    assert parser.close() == value  # closed once: it stays so
    with pytest.raises(PartialJSONError, match="the text was ended"):
        parser.feed(" ")


@pytest.mark.parametrize(
    ("fragment", "reason", "offset"),
    [
        ("", "the text ends before a value begins", 0),
        ("  ", "the text ends before a value begins", 2),
        ('{"a": [1', "the text ends before its value does", 8),
        ('"abc', "the text ends before its value does", 4),
        ("1.", "invalid number '1.'", 2),
        (b'"\xc3', "the text ends inside a character", 1),
    ],
)
def test_close_refuses_a_text_that_is_not_one_whole_value(
    backend: ModuleType, fragment: str | bytes, reason: str, offset: int
) -> None:
    parser = backend.PartialJSON()
    parser.feed(fragment)
    with pytest.raises(PartialJSONError, match=re.escape(reason)) as caught:
        parser.close()
    assert caught.value.offset == offset
    with pytest.raises(PartialJSONError, match=re.escape(reason)):
        parser.feed("}")  # the error stays
