"""Each protocol's vocabulary is written once (``agentcodec/<name>/vocabulary.txt``)
and read by both backends: the Rust core's build script makes constants of
it, the pure backend and the public types read it at import."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcodec._vocabulary import parse, tables

FILES = sorted((Path(__file__).parent.parent / "python" / "agentcodec").glob("*/vocabulary.txt"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.parent.name)
def test_every_file_parses_into_tables_of_distinct_words(path: Path) -> None:
    found = tables(path.parent.name)
    assert found, f"{path.parent.name}/vocabulary.txt holds no table"
    for name, words in found.items():
        assert words, f"{path.parent.name}/vocabulary.txt: {name} is empty"
        assert len(set(words)) == len(words), f"{path.parent.name}/vocabulary.txt: {name} repeats a word"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("stop\n", "line 1: a word before any table"),
        ("[lower] x\nstop\n", "line 1: a table needs a new upper-case name"),
        ("[A] x\none\n[A] again\n", "line 3: a table needs a new upper-case name"),
        ('[A] x\n\n# a comment\nsay "hi"\n', "line 4: a word holds a quote or a backslash"),
    ],
)
def test_a_malformed_file_is_refused_at_its_line(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse(text, "x.txt")


def test_comments_and_blank_lines_are_not_words() -> None:
    assert parse("# head\n\n[A] what\n one \n\n# note\ntwo\n[B] other\nthree\n", "x.txt") == {
        "A": ("one", "two"),
        "B": ("three",),
    }
