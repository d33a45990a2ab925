"""Typing ordinary text as a person does: key by key into the checked field, then reading the field back.

Setting a field's value (Playwright's ``fill``) fires ``input`` and ``change`` but no key event, so a widget that
listens to keys (an airline's airport field opening its suggestions on keyup) never reacts. The field is emptied and
focused, and the text is pressed on the keyboard; a text longer than ``KEYS_MAX`` goes in by value except its last
character, which is pressed (the widget still hears a key, without hundreds of round trips). Fields whose value is
not typed character by character (dates, times, colours, ranges) are set by value.

Keys go wherever the focus is: they are pressed only once the field holds the focus, and what the field holds
afterwards is read back, so that typing a popup swallowed is never reported as done. A field that holds letters or
digits beyond what was typed got keys from elsewhere (someone typing in Chromium's window meanwhile): the controller
keeps it as ``ForeignKeys`` (app/core/page.py), and a routine's row with one is not done. The field read back is also
remembered in its page (``typed`` on the observer's state): a list that shows right under it is its suggestions, and
the next look lists their items as choices (resources/js/observe.js).

Secrets never come this way (app/browser/secret_typing.py).
"""

from __future__ import annotations

import re

from playwright.async_api import ElementHandle, Keyboard

from app.core.abort import AbortSignal
from app.core.page import ForeignKeys

KEYS_MAX = 200
# Characters that press Enter or Tab when typed as keys.
_CONTROL = re.compile(r"(\r\n|[\r\n\t])")
_LINE_BREAK = re.compile(r"\r\n|[\r\n]")
# Input types Playwright sets by value: keys would fill a date's or a time's segments one by one, in the locale's order.
_BY_VALUE = frozenset({"date", "time", "datetime-local", "month", "week", "color", "range"})

# What kind of field it is: an input's type, "editable" for a rich text editor, else its tag ("textarea").
_KIND_JS = "el => el.tagName === 'INPUT' ? el.type : el.isContentEditable ? 'editable' : el.tagName.toLowerCase()"
_MULTILINE = frozenset({"textarea", "editable"})

# Focus the field; whether it (the deepest active element of its document) holds the focus and takes input now.
_FOCUS_JS = """el => {
  el.focus();
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  return active === el && !el.disabled && !el.readOnly;
}"""

# What the field holds (a wrapper's: the text field that has the focus inside its document), or null when there is
# no field to read; the field is remembered as the one typed into.
_READ_BACK_JS = """el => {
  let field = el;
  if (!('value' in el) && !el.isContentEditable) {
    field = document.activeElement;
    while (field && field.shadowRoot && field.shadowRoot.activeElement) field = field.shadowRoot.activeElement;
    if (!field || !(('value' in field && field.tagName !== 'BUTTON') || field.isContentEditable)) return null;
  }
  const state = window.__pageAgent;
  if (state) state.typed = el;
  return 'value' in field ? field.value : field.innerText;
}"""


async def type_text(
    element: ElementHandle, text: str, keyboard: Keyboard, timeout_ms: float, signal: AbortSignal
) -> str:
    """Empty the field behind ``element`` and type ``text`` into it as key presses (see the module's docstring).
    Returns the text as it was typed (a one-line field's line breaks are spaces)."""
    kind: str = await signal.race(element.evaluate(_KIND_JS))
    if kind in _BY_VALUE or kind == "select":
        await signal.race(element.fill(text, timeout=timeout_ms))
        return text
    if kind not in _MULTILINE:
        # A one-line field keeps no line break (a line break inserted there submits its form): a space, as fill().
        text = _LINE_BREAK.sub(" ", text)
    by_value, by_key = (text[:-1], text[-1:]) if len(text) > KEYS_MAX else ("", text)
    await signal.race(element.fill(by_value, timeout=timeout_ms))
    if not by_key or not await signal.race(element.evaluate(_FOCUS_JS)):
        return text
    for piece in _CONTROL.split(by_key):
        if _CONTROL.fullmatch(piece):
            # A line break or a tab goes in as text: as a key it would submit a form, send a chat message or move
            # the focus (what Enter and Tab do is send_keys', where the irreversible check sees it).
            await signal.race(keyboard.insert_text(piece.replace("\r\n", "\n")))
        elif piece:
            await signal.race(keyboard.type(piece))
    return text


async def read_back(element: ElementHandle, signal: AbortSignal) -> str | None:
    """What the field behind ``element`` holds now (None: no field to read)."""
    value: str | None = await signal.race(element.evaluate(_READ_BACK_JS))
    return value


def holds(value: str, text: str) -> bool:
    """Whether a field holding ``value`` holds what was typed (a text area keeps line breaks as \\n; a rich text
    editor adds a trailing one)."""
    return value.replace("\r\n", "\n").strip() == text.replace("\r\n", "\n").strip()


def foreign_keys(field: str, text: str, value: str, *, hidden: bool) -> ForeignKeys | None:
    """``field``, typed ``text`` into, holds ``value``: the keys from elsewhere it got, if any (``hidden``: a password
    field's, whose value is never told)."""
    if not foreign_characters(value, text):
        return None
    return ForeignKeys(field=field, typed="••••" if hidden else text, holds="••••" if hidden else value)


def foreign_characters(value: str, text: str) -> str:
    """The letters and digits ``value`` holds beyond the characters of ``text`` (in their order, whatever their case):
    what keys from elsewhere leave in a field. A field that formats what it is given (a phone number's mask) adds
    only spaces and punctuation; one that drops characters adds nothing."""
    extra: list[str] = []
    matched = 0
    for character in value:
        if matched < len(text) and character.casefold() == text[matched].casefold():
            matched += 1
        elif character.isalnum():
            extra.append(character)
    return "".join(extra)
