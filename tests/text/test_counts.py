"""Things counted in words (app/text/counts.py): one of a thing is never "1 rows"."""

from __future__ import annotations

from app.text.counts import columns_count, model_calls_about, rows_count, steps_count
from app.text.i18n import set_language


def test_one_is_said_in_the_singular_and_any_other_count_in_the_plural() -> None:
    assert [rows_count(n) for n in (0, 1, 2)] == ["0 rows", "1 row", "2 rows"]
    assert [columns_count(n) for n in (1, 5)] == ["1 column", "5 columns"]
    assert [steps_count(n) for n in (1, 12)] == ["1 step", "12 steps"]
    assert [model_calls_about(n) for n in (1, 210)] == ["about 1 model call", "about 210 model calls"]


def test_in_chinese_too() -> None:
    set_language("zh")
    try:
        assert [rows_count(1), rows_count(3), columns_count(1), steps_count(1)] == ["1 行", "3 行", "1 列", "1 步"]
    finally:
        set_language("en")
