"""A risky moment's question in the person's language, from the typed ConfirmRequest (its kind and the page's own
words, quoted and clipped), never from the core's English: the task's confirm bar and a routine's Needs you queue."""

from __future__ import annotations

from app.core.safety.risky import ConfirmRequest
from app.routine.types import PersonRequest
from app.text.i18n import tr

_QUOTE_MAX = 300


def question_words(request: ConfirmRequest) -> str:
    """The question in plain words, the page's own words quoted (and clipped)."""
    quote = request.quote if len(request.quote) <= _QUOTE_MAX else request.quote[: _QUOTE_MAX - 1] + "…"
    if request.kind == "irreversible":
        return tr("The agent wants to click “{name}”.", name=quote)
    if request.dialog_type == "beforeunload":
        return tr("The page asks to confirm leaving it; changes made there may be lost.")
    return tr("The page asks: “{question}”", question=quote)


def allow_question(request: PersonRequest) -> str:
    """A routine's risky moment (a "confirm" request) in the person's language, its site after it; the words it came
    with when it has no typed question."""
    question = request.question
    if question is None:
        return request.words
    site = tr(" ({site})", site=question.url) if question.url else ""
    return f"{question_words(question)}{site}"
