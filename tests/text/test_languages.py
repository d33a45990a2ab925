"""The languages table (app/core/languages.py): each language the app offers has what it needs."""

from __future__ import annotations

from app.assets import resources_root
from app.core.languages import LANGUAGES
from app.core.prompt import system_prompt
from app.text.i18n import LANGUAGES as OFFERED


def test_every_language_but_english_has_translations_and_tells_the_model() -> None:
    assert OFFERED.keys() == LANGUAGES.keys() and "en" in LANGUAGES
    for code, language in LANGUAGES.items():
        if code == "en":
            assert language.model_note == "" and system_prompt("en") == system_prompt("xx")
            continue
        assert any((resources_root() / "i18n" / code).glob("*.json")), code
        assert system_prompt(code).endswith(language.model_note) and language.model_note
