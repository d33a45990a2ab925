"""Things counted in words, "1 row" and "2 rows": one function per noun, each with its literal strings for tr()."""

from __future__ import annotations

from app.text.i18n import tr


def rows_count(n: int) -> str:
    return tr("1 row") if n == 1 else tr("{n} rows", n=n)


def columns_count(n: int) -> str:
    return tr("1 column") if n == 1 else tr("{n} columns", n=n)


def steps_count(n: int) -> str:
    return tr("1 step") if n == 1 else tr("{n} steps", n=n)


def model_calls_about(n: int) -> str:
    """An estimate: "about 1 model call", "about 210 model calls"."""
    return tr("about 1 model call") if n == 1 else tr("about {n} model calls", n=n)
