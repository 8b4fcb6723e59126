"""JSON Patch (RFC 6902), as AG-UI's STATE_DELTA and ACTIVITY_DELTA apply it:
exactly, atomically, and the same on both backends. The judge is the
``jsonpatch`` package, an independent implementation of the RFC."""

from __future__ import annotations

import copy
import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcodec import AGUIEventError
from agentcodec._pure.json_patch import PatchError, apply_patch, json_equal
from agentcodec._pure.stream import Budget
from conftest import NATIVE, PURE, examples, requires_native

jsonpatch = pytest.importorskip("jsonpatch")

# RFC 6902, Appendix A: (document, patch, result or None when it must fail).
RFC_EXAMPLES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    (
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], None),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
        {"foo": "bar", "baz": "qux"},
    ),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], None),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}], None),
    (
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
]


@pytest.mark.parametrize(("document", "patch", "expected"), RFC_EXAMPLES)
def test_rfc_appendix(document: Any, patch: list[Any], expected: Any) -> None:
    before = copy.deepcopy(document)
    if expected is None:
        with pytest.raises(PatchError):
            apply_patch(document, patch, Budget(None))
        assert document == before
    else:
        assert apply_patch(document, patch, Budget(None)) == expected


keys = st.sampled_from(["a", "b", "c", "~", "/", "0", "1", "-", "é"])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.0, 0.5]), st.text(max_size=2)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)
tokens = st.one_of(keys, st.sampled_from(["00", "01", "2", "5", "~0", "~1", "~2", ""]))
pointers = st.one_of(
    st.just(""), st.lists(tokens, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))
)


@st.composite
def operations(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "add", "replace"]))
    operation: dict[str, Any] = {"op": op, "path": draw(pointers)}
    if op in ("move", "copy"):
        operation["from"] = draw(pointers)
    if op in ("add", "replace", "test"):
        operation["value"] = draw(values)
    return operation


SETTINGS = settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])


FAILED = object()


def reference(document: Any, patch: list[Any]) -> Any:
    """What the jsonpatch package makes of the patch; FAILED when it does not apply."""
    try:
        return jsonpatch.apply_patch(copy.deepcopy(document), patch)
    except (
        jsonpatch.JsonPatchException,
        jsonpatch.JsonPointerException,
        TypeError,
        KeyError,
        IndexError,
        ValueError,
    ):
        return FAILED


def differs_by_design(patch: list[dict[str, Any]]) -> bool:
    """Where the jsonpatch package reads RFC 6901 more loosely than this one:
    it accepts the invalid escape ``~2`` and removing the whole document."""
    return any(
        "~2" in str(operation.get("path")) + str(operation.get("from", ""))
        or (operation["op"] in ("remove", "move") and "" in (operation.get("path"), operation.get("from")))
        for operation in patch
    )


@SETTINGS
@given(document=values, patch=st.lists(operations(), max_size=4))
def test_agrees_with_jsonpatch(document: Any, patch: list[dict[str, Any]]) -> None:
    if differs_by_design(patch):
        return
    expected = reference(document, patch)
    before = copy.deepcopy(document)
    try:
        result = apply_patch(copy.deepcopy(document), patch, Budget(None))
    except PatchError:
        assert expected is FAILED, (document, patch, expected)
        return
    assert expected is not FAILED, (document, patch, result)
    assert json_equal(result, expected)
    assert json.dumps(result) == json.dumps(expected)
    assert document == before


@SETTINGS
@given(
    document=st.dictionaries(keys, values, max_size=4), patch=st.lists(operations(), min_size=1, max_size=4)
)
def test_a_failed_patch_leaves_the_document_as_it_was(document: Any, patch: list[dict[str, Any]]) -> None:
    working = copy.deepcopy(document)
    try:
        apply_patch(working, patch, Budget(None))
    except PatchError:
        # Equal, and in the same key order.
        assert json.dumps(working) == json.dumps(document)


def test_json_equality() -> None:
    assert json_equal(1, 1.0)
    assert not json_equal(1, True)
    assert not json_equal(0, False)
    assert not json_equal(None, False)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal([1, 2], [2, 1])
    assert json_equal({"x": 1, "y": 2}, {"y": 2, "x": 1})


def state_after(backend: ModuleType, document: Any, patches: list[Any]) -> tuple[Any, list[Any]]:
    assembler = backend.AGUIAssembler(on_error="skip")
    assembler.feed_event({"type": "STATE_SNAPSHOT", "snapshot": document})
    for patch in patches:
        assembler.feed_event({"type": "STATE_DELTA", "delta": patch})
    return assembler.state, assembler.errors


@requires_native
@SETTINGS
@given(document=values, patches=st.lists(st.lists(operations(), max_size=3), max_size=3))
def test_both_backends_agree(document: Any, patches: list[Any]) -> None:
    native, pure = state_after(NATIVE, document, patches), state_after(PURE, document, patches)
    assert json.dumps(native) == json.dumps(pure)


def test_errors_name_the_operation(backend: ModuleType) -> None:
    assembler = backend.AGUIAssembler()
    assembler.feed_event({"type": "STATE_SNAPSHOT", "snapshot": {"a": 1, "b": [1]}})
    cases = [
        ([{"op": "remove", "path": "/x"}], 'operation 0 (remove): "/x": no member "x"'),
        (
            [{"op": "add", "path": "/b/01", "value": 1}],
            'operation 0 (add): "/b/01": "01" is not an array index',
        ),
        ([{"op": "add", "path": "/b/5", "value": 1}], 'operation 0 (add): "/b/5": index 5 is out of range'),
        ([{"op": "jump", "path": ""}], 'operation 0 has an unknown op "jump"'),
        ([{"op": "add", "path": "a", "value": 1}], "operation 0 (add): 'path' \"a\" does not start with '/'"),
        ([{"op": "replace", "path": "/a"}], "operation 0 (replace) has no 'value'"),
        (
            [{"op": "test", "path": "/a", "value": True}],
            'operation 0 (test) failed: "/a" is not the value tested',
        ),
        ([{"op": "add", "path": "/c", "value": 1}, "x"], "operation 1 is not an object"),
        ([{"op": "move", "from": "/b", "path": "/b/0"}], 'operation 0 moves "/b" into itself'),
    ]
    for number, (patch, message) in enumerate(cases, start=2):
        with pytest.raises(AGUIEventError) as caught:
            assembler.feed_event({"type": "STATE_DELTA", "delta": patch})
        assert caught.value.event == number
        assert (
            str(caught.value) == f"AG-UI event {number} (STATE_DELTA) does not apply to the state: {message}"
        )
        assert assembler.state == {"a": 1, "b": [1]}
