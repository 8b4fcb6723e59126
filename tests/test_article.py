"""The article a loss or an error puts before a word it names as it came
(``rust/article.rs``'s cases, for the pure module that mirrors it)."""

from __future__ import annotations

import pytest

from agentcodec._pure.article import article


@pytest.mark.parametrize(
    "word", ["image", "updates", "item_id", "audio", "ACTIVITY_SNAPSHOT", '"error"', "output_index"]
)
def test_an_before_a_vowels_sound(word: str) -> None:
    assert article(word) == "an"


@pytest.mark.parametrize(
    "word", ["text", "tool_call", "usage", "user", "unit", "euro", "one", "RAW", "", "5", '"values"', "İtem"]
)
def test_a_before_any_other(word: str) -> None:
    assert article(word) == "a"
