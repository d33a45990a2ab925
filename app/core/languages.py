"""The languages Page Agent speaks, declared once. A language here is offered in Settings → Language; the panel, the
dialogs and the reports are translated from resources/i18n/<code>/*.json (English is the key, so English needs
none); the model is told to write its reflections in it; an export names it for the browser. Pure data: the core's
prompt, the text layer and the history's exports all read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    code: str  # the "language" setting's value, and the folder of its translations under resources/i18n/
    name: str  # in its own words, as Settings → Language lists it
    html_lang: str  # an exported run's <html lang>
    model_note: str  # what the system prompt adds so that the model writes in it ("" for English)


LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("en", "English", "en", ""),
        Language(
            "zh",
            "简体中文",
            "zh-CN",
            "\n\n# Language\nWrite evaluation_previous_goal, memory, next_goal and done's text in "
            "Simplified Chinese (简体中文).",
        ),
    )
}
