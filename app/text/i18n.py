"""UI language: English strings are the keys; translations come from resources/i18n/<lang>/*.json.

Every module that shows text wraps it in ``tr("English text")``; each area of the UI keeps its translations in its
own JSON file so that no two people edit one table.
"""

from __future__ import annotations

import json
from functools import cache

from app.assets import resources_root
from app.core.languages import LANGUAGES as KNOWN_LANGUAGES

# Each language by its code, in its own words (app/core/languages.py declares them).
LANGUAGES = {code: known.name for code, known in KNOWN_LANGUAGES.items()}
_current = "en"


def set_language(language: str) -> None:
    global _current
    _current = language if language in LANGUAGES else "en"


def language() -> str:
    return _current


@cache
def _table(lang: str) -> dict[str, str]:
    folder = resources_root() / "i18n" / lang
    table: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            table.update(json.loads(path.read_text(encoding="utf-8")))
    return table


def tr(text: str, **values: object) -> str:
    """The current language's version of ``text``, with ``{name}`` placeholders filled from ``values``."""
    translated = text if _current == "en" else _table(_current).get(text, text)
    return translated.format(**values) if values else translated
