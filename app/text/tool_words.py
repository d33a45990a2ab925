"""Fills a tool's words (ToolWords in app/core/tools/base.py) for a person: the template in the panel's language,
its placeholders from the action's input and the element it acts on. No element numbers, no HTML, no tool names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from app.core.safety.secrets import HIDDEN, PLACEHOLDER
from app.core.tools.base import ToolWords
from app.core.types import ActionTarget
from app.text.element_words import clip, list_words, quote, target_words
from app.text.hand_off import quoted_reason
from app.text.i18n import tr

# "[...]": a part left out when a value in it is missing; "{field}" or "{field:spec}": a value.
_PART = re.compile(r"\[(?P<optional>[^\[\]]*)\]|\{(?P<field>\w+)(?::(?P<spec>[^{}]*))?\}")
_CLIP_MAX = 120
# Quotes in the timeline's sentences, and in the narrower status pill.
SENTENCE_QUOTE = 40
PILL_QUOTE = 24


class _Missing(Exception):
    """A placeholder without a value, inside an optional part: the part is left out."""


def typed(text: str, limit: int = SENTENCE_QUOTE) -> str:
    """What is typed, quoted; a saved secret by its name ("your secret demo_password"), never its markup (the
    placeholder the vault fills in)."""
    whole = PLACEHOLDER.fullmatch(text.strip())
    if whole:
        return tr("your secret {name}", name=whole.group(1))
    return quote(PLACEHOLDER.sub(HIDDEN, text), limit)


def fill(
    template: str,
    words: ToolWords,
    values: Mapping[str, Any],
    target: ActionTarget | None,
    quote_limit: int = SENTENCE_QUOTE,
) -> str:
    """``template`` (one of ``words``) in the panel's language, filled from the action's input ``values`` and the
    element ``target`` it acts on (None when unknown: then ``words.element`` names it)."""

    def part(match: re.Match[str], optional: bool) -> str:
        if match["optional"] is not None:
            try:
                return _PART.sub(lambda inner: part(inner, True), match["optional"])
            except _Missing:
                return ""
        name, spec = match["field"], match["spec"] or ""
        if name == "target":
            if target is None and optional:
                raise _Missing(name)
            return list_words(target) if spec == "list" else target_words(target, tr(words.element))
        value = values.get(name)
        if value is None:
            if optional:
                raise _Missing(name)
            return ""
        return _render(value, spec, quote_limit)

    return _PART.sub(lambda match: part(match, False), tr(template))


def _render(value: Any, spec: str, quote_limit: int) -> str:
    if "|" in spec:  # "yes words|no words", for a yes/no field
        yes, no = spec.split("|", 1)
        return yes if value else no
    match spec:
        case "":
            return str(value)
        case "quote":
            return quote(value, quote_limit)
        case "typed":
            return typed(str(value), quote_limit)
        case "clip":
            return clip(value, _CLIP_MAX)
        case "said":
            return quoted_reason(str(value), _CLIP_MAX)
        case "pages":
            pages = float(value)
            return tr("1 page") if pages == 1 else tr("{n:g} pages", n=pages)
        case "host":
            return urlparse(str(value)).netloc or str(value)
        case "file":
            return quote(str(value).rsplit("/", 1)[-1], quote_limit)
    return format(value, spec)
