"""encode_sse, encode_sse_comment and frame_json_string on both backends."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import NATIVE, PURE, examples
from sse_helpers import decode


def test_fields_and_order(backend: ModuleType) -> None:
    assert backend.encode_sse("x", event="delta", id="7", retry=1500) == (
        b"id: 7\nevent: delta\nretry: 1500\ndata: x\n\n"
    )
    assert backend.encode_sse("") == b"data: \n\n"
    assert backend.encode_sse("a", id="") == b"id: \ndata: a\n\n"


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\nb", [b"a", b"b"]),
        ("a\r\nb", [b"a", b"b"]),
        ("a\rb", [b"a", b"b"]),
        ("a\n", [b"a", b""]),
        ("\r\n\r\n", [b"", b"", b""]),
        ("a\n\rb", [b"a", b"", b"b"]),
    ],
)
def test_line_breaks_become_data_lines(backend: ModuleType, text: str, lines: list[bytes]) -> None:
    assert backend.encode_sse(text) == b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"


def test_json_objects_are_compact_and_keep_non_ascii(backend: ModuleType) -> None:
    payload = {"text": "h\u00e9llo \u4e16\u754c\n", "n": [1, 2.5, None, True], "nested": {"k": "v"}}
    expected = '{"text":"h\u00e9llo \u4e16\u754c\\n","n":[1,2.5,null,true],"nested":{"k":"v"}}'
    assert backend.encode_sse(payload) == b"data: " + expected.encode() + b"\n\n"
    assert backend.encode_sse([1, "a"]) == b'data: [1,"a"]\n\n'
    assert backend.encode_sse(42) == b"data: 42\n\n"


def test_json_rejects_nan(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        backend.encode_sse({"x": float("nan")})


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_data(backend: ModuleType, kind: type) -> None:
    assert (
        backend.encode_sse(kind('{"a":"\u00e9"}\n'.encode()))
        == '{"a":"\u00e9"}'.join(["data: ", "\ndata: \n\n"]).encode()
    )


def test_invalid_utf8_bytes(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"^SSE data is not valid UTF-8 \(at byte 2\)$"):
        backend.encode_sse(b"ab\xffcd")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"event": "a\nb"}, "SSE event name must not contain CR or LF"),
        ({"event": "a\r"}, "SSE event name must not contain CR or LF"),
        ({"id": "1\n"}, "SSE id must not contain CR or LF"),
        ({"id": "\r2"}, "SSE id must not contain CR or LF"),
        ({"id": "a\0b"}, "SSE id must not contain NUL (decoders ignore such an id)"),
        ({"retry": -1}, "SSE retry must not be negative"),
        ({"retry": 2**64}, "SSE retry does not fit in 64 bits"),
    ],
)
def test_rejects_what_cannot_round_trip(backend: ModuleType, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        backend.encode_sse("x", **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("kwargs", [{"retry": "5"}, {"retry": 1.0}, {"retry": True}, {"event": 5}, {"id": 1}])
def test_type_errors(backend: ModuleType, kwargs: dict) -> None:
    with pytest.raises(TypeError):
        backend.encode_sse("x", **kwargs)


def test_lone_surrogate_is_an_error(backend: ModuleType) -> None:
    with pytest.raises(UnicodeEncodeError):
        backend.encode_sse("\ud800")


@pytest.mark.parametrize(
    "text", ["", " lead", "  two", "trail ", "a\nb", "\n", "\n\n", "tab\t", "nul\0", "\ufeffbom", "\u2028x"]
)
def test_round_trip(backend: ModuleType, text: str) -> None:
    stream = backend.encode_sse(text, event=" name", id=" id", retry=10)
    events, decoder = decode(backend, [stream])
    assert events == [(" name", text, " id", 10)]
    assert decoder.last_event_id == " id"


def test_round_trip_normalises_cr(backend: ModuleType) -> None:
    events, _ = decode(backend, [backend.encode_sse("a\r\nb\rc\n")])
    assert events[0][1] == "a\nb\nc\n"


def test_comments(backend: ModuleType) -> None:
    assert backend.encode_sse_comment() == b":\n"
    assert backend.encode_sse_comment("ping") == b": ping\n"
    assert backend.encode_sse_comment("a\r\nb\n") == b": a\n: b\n:\n"
    stream = backend.encode_sse("x", id="1") + backend.encode_sse_comment("keep-alive") + b"\n"
    events, decoder = decode(backend, [stream])
    assert events == [("message", "x", "1", None)]
    assert decoder.last_event_id == "1"


def _frame_outcome(call: Callable[[], bytes]) -> object:
    try:
        return call()
    except UnicodeEncodeError as error:
        return (type(error), str(error))


@settings(max_examples=examples(300), deadline=None)
@given(st.text(), st.text(), st.text())
def test_frame_json_string_is_json_dumps(prefix: str, text: str, suffix: str) -> None:
    """Lone surrogates included: the UTF-8 error is Python's own, on both."""
    expected = _frame_outcome((prefix + json.dumps(text, ensure_ascii=False) + suffix).encode)
    for module in (NATIVE, PURE):
        if module is not None:
            assert _frame_outcome(lambda m=module: m.frame_json_string(prefix, text, suffix)) == expected


def test_frame_json_string_escapes(backend: ModuleType) -> None:
    text = 'a"b\\c\n\r\t\b\f\x00\x1f\x7f é🙂/'
    assert backend.frame_json_string("data: {", text, "}\n\n") == (
        b'data: {"a\\"b\\\\c\\n\\r\\t\\b\\f\\u0000\\u001f\x7f \xc3\xa9\xf0\x9f\x99\x82/"}\n\n'
    )


# --- JSON data: the native writer against agentcodec._json.dumps -------------------------------


def _encode_outcome(module: ModuleType, data: object, **fields: object) -> tuple[type, str] | bytes:
    try:
        return module.encode_sse(data, **fields)
    except Exception as error:  # the outcome compared is the error itself
        return (type(error), str(error))


def _expected(data: object, **fields: object) -> tuple[type, str] | bytes:
    """What the pure backend writes, agentcodec._json.dumps being the rule."""
    return _encode_outcome(PURE, data, **fields)


_json_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | st.sampled_from([0.0, -0.0, 1e16, 1e15, 1e-4, 1e-5, 1.5e-5, 1.5e-7, 1e300, 5e-324, 0.1, 123456.789])
    | st.text()
    | st.text(st.characters(codec=None, exclude_categories=()))  # lone surrogates too
)
_json_values = st.recursive(
    _json_leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(500), deadline=None)
@given(_json_values, st.sampled_from([{}, {"event": "delta", "id": "7"}, {"retry": 5}, {"id": "a\nb"}]))
def test_native_json_writing_is_the_pure_backends(data: object, fields: dict) -> None:
    if NATIVE is None:
        pytest.skip("the native backend is not built")
    assert _encode_outcome(NATIVE, data, **fields) == _expected(data, **fields)


def test_native_floats_are_pythons_repr_on_many_floats() -> None:
    """Floats whose shortest digits have two candidates, which the native
    writer once broke the other way from Python's repr (1658206780088562.3
    for Python's 1658206780088562.2), and a spread of others: random bit
    patterns, and decimals of up to 17 digits at every scale."""
    if NATIVE is None:
        pytest.skip("the native backend is not built")
    rng = __import__("random").Random(7)
    floats = [1658206780088562.2, 271821092707313.62, -26829767983277.312, 1e-5, 1.5e-5, 9.999999999999999e-6]
    floats += [__import__("struct").unpack("<d", rng.randbytes(8))[0] for _ in range(20000)]
    floats += [rng.randrange(10**17) / 10 ** rng.randrange(-5, 30) for _ in range(20000)]
    for value in filter(__import__("math").isfinite, floats):
        assert NATIVE.encode_sse({"x": value}) == PURE.encode_sse({"x": value}), repr(value)


class _Colour(str, __import__("enum").Enum):
    RED = "red"


class _Level(__import__("enum").IntEnum):
    HIGH = 3


class _Dict(dict):
    pass


class _Text(str):
    def __str__(self) -> str:
        return "not this"


def _deep(levels: int) -> object:
    value: object = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def _cycle() -> object:
    items: list = []
    items.append(items)
    return items


def _dict_cycle() -> object:
    looped: dict = {"a": 1}
    looped["self"] = looped
    return looped


@pytest.mark.parametrize(
    "data",
    [
        {"colour": _Colour.RED, "level": _Level.HIGH},
        _Dict(a=1),
        {"text": _Text("own")},
        {1: "int key", None: "none key", 2.5: "float key", False: "bool key"},
        {"big": 2**70, "negative": -(2**64)},
        {"nan": float("nan")},
        {"inf": float("-inf")},
        {"surrogate": "\ud800"},
        {"\udfff": 1},
        _deep(63),
        _deep(64),
        _deep(200),
        _cycle(),
        _dict_cycle(),
        {"object": object()},
        {"bytes": b"x"},
        {"float": 1e-5, "small": 1.5e-7, "large": 1e16, "zero": -0.0},
        ("tuple", ("nested",)),
    ],
    ids=lambda data: type(data).__name__,
)
def test_native_json_writing_leaves_the_rest_to_python(data: object) -> None:
    """Subclasses, keys that are not str, values JSON cannot hold, cycles and
    deep nesting: the same bytes or the same error as the pure backend."""
    if NATIVE is None:
        pytest.skip("the native backend is not built")
    assert _encode_outcome(NATIVE, data) == _expected(data)


@pytest.mark.parametrize(
    "special", ['"', "\\", "\n", "\x00", "\x1f", " ", "~", "\x7f", "é", "€", "😀", "\ud800"]
)
def test_native_json_writing_escapes_at_every_position_of_short_strings(special: str) -> None:
    """Strings of every length up to 40, as values and as keys, with one
    character at each position: the native writer tests a short string's
    bytes as overlapping words, so each length and place is its own case."""
    if NATIVE is None:
        pytest.skip("the native backend is not built")
    for length in range(41):
        texts = ["a" * length] + ["a" * at + special + "a" * (length - at - 1) for at in range(length)]
        for text in texts:
            data = {text: [text, {"k": text}]}
            assert _encode_outcome(NATIVE, data) == _expected(data), repr(text)


class _NotJSON:
    """A value JSON cannot hold, with a repr that is the same in every
    process (pytest-xdist's workers must collect the same test ids)."""

    def __repr__(self) -> str:
        return "_NotJSON()"


@pytest.mark.parametrize(
    "data", [[["\ud800"]], "\ud800", "x\ud800y", {"a": "\ud800"}, b"\xff", {"a": 1}, _NotJSON()], ids=ascii
)
@pytest.mark.parametrize(
    "fields",
    [{}, {"id": "a\nb"}, {"event": "a\rb"}, {"id": "a\0"}, {"retry": -1}, {"id": "ok", "retry": "x"}],
)
def test_native_reports_the_first_error_the_pure_backend_meets(data: object, fields: dict) -> None:
    """Bad data and a bad field together: the same error from both backends,
    in the pure backend's order (the data's JSON, then retry, id and event,
    then a lone surrogate, met when the text becomes UTF-8)."""
    if NATIVE is None:
        pytest.skip("the native backend is not built")
    assert _encode_outcome(NATIVE, data, **fields) == _expected(data, **fields)
