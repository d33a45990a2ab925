"""The element an action acts on, as a person names it: "the Email field", "the Save button", "the “Pricing”
link"; and the clipping every short text in the panel goes through."""

from __future__ import annotations

import re
from enum import Enum

from app.core.types import ActionTarget
from app.text.i18n import tr

_NAME_MAX = 32
# A form's marks beside a label, not part of its name: "Notes (optional)", "Email *".
_LABEL_MARKS = re.compile(r"(?:\s*[(（]?\s*(?:optional|required)\s*[)）]?|[\s:*：]+)+$", re.IGNORECASE)
# Input types a person calls a button, a checkbox, an option; every other input is a field.
_BUTTON_INPUTS = frozenset({"submit", "button", "reset", "image"})


def quote(text: object, limit: int = 40) -> str:
    return "“" + clip(text, limit) + "”"


def clip(text: object, limit: int, *, lines: bool = False) -> str:
    """One line of at most ``limit`` characters, cut after a whole word where one ends near the limit; with
    ``lines``, the text's lines are kept (each made one line of single spaces, empty ones left out)."""
    if lines:
        text = "\n".join(line for line in (" ".join(part.split()) for part in str(text).splitlines()) if line)
    else:
        text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—\n") + "…"


# --- the element acted on ------------------------------------------------------------------------------------


class _Role(Enum):
    FIELD = "field"
    BUTTON = "button"
    CHECKBOX = "checkbox"
    OPTION = "option"
    LIST = "list"
    LINK = "link"
    IMAGE = "image"
    ITEM = "item"


def _role(target: ActionTarget) -> _Role:
    tag, kind = target.tag.lower(), target.input_type.lower()
    if tag == "input":
        if kind in _BUTTON_INPUTS:
            return _Role.BUTTON
        if kind == "checkbox":
            return _Role.CHECKBOX
        if kind == "radio":
            return _Role.OPTION
        return _Role.FIELD
    return {
        "textarea": _Role.FIELD,
        "select": _Role.LIST,
        "button": _Role.BUTTON,
        "a": _Role.LINK,
        "img": _Role.IMAGE,
        "option": _Role.OPTION,
    }.get(tag, _Role.ITEM)


def _named(role: _Role, name: str) -> str:
    # A control's label reads as a name ("the Email field"); a link's or an item's words are quoted, since they
    # are often a phrase of the page's text.
    match role:
        case _Role.FIELD:
            return tr("the {name} field", name=name)
        case _Role.BUTTON:
            return tr("the {name} button", name=name)
        case _Role.CHECKBOX:
            return tr("the {name} checkbox", name=name)
        case _Role.OPTION:
            return tr("the {name} option", name=name)
        case _Role.LIST:
            return tr("the {name} list", name=name)
        case _Role.LINK:
            return tr("the “{name}” link", name=name)
        case _Role.IMAGE:
            return tr("the “{name}” image", name=name)
    return tr("the “{name}” item", name=name)


def _unnamed(role: _Role) -> str:
    match role:
        case _Role.FIELD:
            return tr("a text field")
        case _Role.BUTTON:
            return tr("a button")
        case _Role.CHECKBOX:
            return tr("a checkbox")
        case _Role.OPTION:
            return tr("an option")
        case _Role.LIST:
            return tr("a list")
        case _Role.LINK:
            return tr("a link")
        case _Role.IMAGE:
            return tr("an image")
    return tr("an element on the page")


def _person_name(name: str) -> str:
    """A label as a person says it: one line, without the form's "*", ":" or "(optional)", and clipped."""
    return clip(_LABEL_MARKS.sub("", " ".join(name.split())), _NAME_MAX)


def target_words(target: ActionTarget | None, fallback: str = "") -> str:
    """The element as a person names it: "the Email field", "the Save button", "the “Pricing” link"; without a
    target, ``fallback`` (or "an element on the page")."""
    if target is None:
        return fallback or tr("an element on the page")
    role = _role(target)
    name = _person_name(target.name)
    return _named(role, name) if name else _unnamed(role)


def list_words(target: ActionTarget | None) -> str:
    """The list an option is chosen in. A custom dropdown is a button or a div whose words are a prompt or the
    current choice ("Select a plan"), so they are quoted; a native list is named by its label."""
    if target is None:
        return tr("a list")
    name = _person_name(target.name)
    if target.tag.lower() == "select" or not name:
        return _named(_Role.LIST, name) if name else _unnamed(_Role.LIST)
    return tr("the “{name}” list", name=name)
