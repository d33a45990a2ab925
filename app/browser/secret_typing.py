"""Typing a secret: only into the element the agent checked, in the frame that owns it, never as keystrokes.

Keystrokes (and Playwright's ``fill``, which inserts text as if typed) go wherever the focus is at that moment, and a
page, or another site's frame inside it, can move the focus between the check and the typing. A secret is therefore
put into the checked field by its own document, through the field's native value setter and the input and change
events a person's typing fires (frameworks that track the value, React's included, keep it). The field must hold the
focus when the value goes in; a page that moves it away gets nothing and the model is told why.

Ordinary text goes through ``PlaywrightPageController.input_text``; this path is for secrets only and stays apart
from it, so that a change to how ordinary text is typed cannot weaken it.
"""

from __future__ import annotations

from enum import StrEnum

from playwright.async_api import ElementHandle

from app.core.abort import AbortSignal
from app.core.errors import ToolError


class SecretPut(StrEnum):
    """How putting a secret into a field ended (what the in-page script answers)."""

    TYPED = "typed"
    NO_FIELD = "no-field"  # the element is not a text field and holds none
    FOCUS_MOVED = "focus-moved"  # the page took the focus away from the field before the value went in
    NOT_TAKEN = "not-taken"  # the field did not keep the value (a script changed it back)


# The field: the element itself, or the one text field inside a wrapper. Its own document's deepest active element
# must be that field once it is focused; then the value goes in with no keystroke, and must read back.
_PUT_SECRET_JS = """(el, value) => {
  const editable = (n) => n.matches('input:not([type=hidden]):not([type=checkbox]):not([type=radio]), textarea')
    || n.isContentEditable;
  const field = editable(el) ? el
    : el.querySelector('input:not([type=hidden]):not([type=checkbox]):not([type=radio]), textarea, [contenteditable]');
  if (!field || !editable(field) || field.disabled || field.readOnly) return 'no-field';
  const active = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  field.focus();
  if (active() !== field) return 'focus-moved';
  if (field.isContentEditable) {
    getSelection().selectAllChildren(field);
    document.execCommand('insertText', false, value);
    return field.innerText.trim() === value ? 'typed' : 'not-taken';
  }
  const proto = field.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(field, value);
  field.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true, inputType: 'insertReplacementText'}));
  field.dispatchEvent(new Event('change', {bubbles: true}));
  return field.value === value ? 'typed' : 'not-taken';
}"""


async def put_secret(element: ElementHandle, value: str, label: str, signal: AbortSignal) -> None:
    """Put ``value`` into the field behind ``element`` (``label`` names it for the model); ToolError, naming no
    value, when it could not go there and only there."""
    outcome = SecretPut(await signal.race(element.evaluate(_PUT_SECRET_JS, value)))
    if outcome is SecretPut.TYPED:
        return
    reasons = {
        SecretPut.NO_FIELD: "it is not a text field, and holds none; use the index of the field itself",
        SecretPut.FOCUS_MOVED: "the page moved the focus away from it the moment it got it (a secret goes only "
        "into the field you chose, never to wherever the focus is); do not try it another way, and tell the user",
        SecretPut.NOT_TAKEN: "the field did not keep the value (the page changed it back)",
    }
    raise ToolError(f"Nothing was typed into {label}: {reasons[outcome]}.")
