"""What an action is about to set off, read from the page at the moment of acting, for the irreversible check
(app/core/safety/risky.py ``Act``): the element a click hits, by every name it has; and the control a key press
activates: the focused button or link, a list box's active option, or, for Enter in a form's field, the form's
submit control (implicit submission), in whichever frame holds the focus.
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from app.browser.observer import ElementItem
from app.core.abort import AbortSignal
from app.core.safety.risky import Act

# Keys that activate the focused control: Enter (any modifiers: Control+Enter sends in many apps) and Space.
_ACTIVATING = frozenset({"enter", "numpadenter", "space", " "})
# The attributes that name an element as the observer lists them (its words are its text).
_NAMING = ("label", "aria-label", "title", "alt", "placeholder", "icon")

# Names of what the key sets off in this frame; null when this frame does not hold the focus (a frame inside it
# does, or none).
_FOCUSED_ACT_JS = """(enter) => {
  if (!document.hasFocus()) return null;
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el.tagName === 'IFRAME' || el.tagName === 'FRAME') return null;
  const clean = (s) => (s || '').replace(/\\s+/g, ' ').trim();
  const root = el.getRootNode();
  const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
  const namesOf = (n) => {
    const names = [clean(n.textContent), n.getAttribute('aria-label'), n.getAttribute('title'), n.getAttribute('alt')];
    const ids = n.getAttribute('aria-labelledby');
    if (ids) names.push(clean(ids.split(/\\s+/).map((id) => (byId(id) || {}).textContent || '').join(' ')));
    if (n.tagName === 'INPUT') names.push(n.value);
    for (const img of n.querySelectorAll ? n.querySelectorAll('img[alt]') : []) names.push(img.alt);
    return names.map(clean).filter(Boolean);
  };
  const tag = el.tagName;
  const type = (el.getAttribute('type') || '').toLowerCase();
  const role = el.getAttribute('role') || '';
  const controls = ['button', 'link', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'option', 'tab', 'checkbox',
    'radio', 'switch', 'treeitem'];
  if (['BUTTON', 'A', 'SUMMARY'].includes(tag) || controls.includes(role)
      || (tag === 'INPUT' && ['submit', 'button', 'reset', 'image', 'checkbox', 'radio'].includes(type))) {
    return namesOf(el);
  }
  if (tag === 'SELECT') return Array.from(el.selectedOptions, namesOf).flat();
  const active = el.getAttribute('aria-activedescendant');
  if (active && byId(active)) return namesOf(byId(active));
  if (enter && tag === 'INPUT' && el.form) {
    const submits = (c) => (c.tagName === 'BUTTON' && c.type === 'submit')
      || (c.tagName === 'INPUT' && ['submit', 'image'].includes(c.type));
    const submit = Array.from(el.form.elements).find((c) => !c.disabled && submits(c));
    if (submit) return namesOf(submit);
    return [el.form.getAttribute('aria-label'), el.form.getAttribute('name'), el.form.getAttribute('title')]
      .map(clean).filter(Boolean);
  }
  return [];
}"""


def activates(combo: str) -> bool:
    """Whether pressing ``combo`` ("Enter", "Control+Enter", "Space") activates the focused control."""
    return combo.rsplit("+", 1)[-1].lower() in _ACTIVATING


async def key_act(page: Page, combo: str, where: str, signal: AbortSignal) -> Act:
    """What pressing ``combo`` on ``page`` would set off now (``where``: the page's address and title)."""
    enter = combo.rsplit("+", 1)[-1].lower() in ("enter", "numpadenter")
    names: list[str] = []
    for frame in page.frames:
        if frame.is_detached():
            continue
        try:
            found = await signal.race(frame.evaluate(_FOCUSED_ACT_JS, enter))
        except PlaywrightError:
            continue  # a frame that navigated away holds no focus
        if found is not None:
            names = [str(name) for name in found]
            break
    return Act(how="key", key=combo, names=names, page=where)


# What picks a value rather than commits: an option of a list, a radio button, a check box, a tab, a switch.
_CHOICE_ROLES = frozenset(
    {"option", "radio", "checkbox", "menuitemradio", "menuitemcheckbox", "tab", "switch", "treeitem"}
)


def is_choice(item: ElementItem) -> bool:
    """Whether clicking the element picks a value (a plan in a list) rather than commits to something."""
    attrs = dict(item.attrs)
    return (
        item.tag == "option"
        or attrs.get("role", "") in _CHOICE_ROLES
        or (item.tag == "input" and attrs.get("type") in ("radio", "checkbox"))
    )


# What flips a state and sends nothing by itself: a check box, a radio button, a switch (not a menu's items, which
# act when chosen).
_TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch"})


def is_toggle(item: ElementItem) -> bool:
    """Whether clicking the element only ticks or unticks something (risky.py ``Act.toggle``): never a question."""
    attrs = dict(item.attrs)
    return attrs.get("role", "") in _TOGGLE_ROLES or (
        item.tag == "input" and attrs.get("type") in ("radio", "checkbox") and "role" not in attrs
    )


def element_names(item: ElementItem) -> list[str]:
    """Every name an element has as the observer lists it: its words, its label and accessible name, its title, alt
    text and placeholder, and a button input's value."""
    attrs = dict(item.attrs)
    names = [item.text, *(attrs.get(key, "") for key in _NAMING)]
    if item.tag == "input" and attrs.get("type") in ("submit", "button", "reset", "image"):
        names.append(attrs.get("value", ""))
    return [name for name in names if name]
