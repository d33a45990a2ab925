"""Pieces the controller's actions share: in-page helpers, option matching, URL fixing, readable failures."""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from app.browser.playwright_errors import covering_element, first_line, not_ready_reason, tab_crashed
from app.core.safety.untrusted import quoted

# Options of a native <select>, by visible label and value.
SELECT_OPTIONS_JS = "el => Array.from(el.options, o => ({label: o.text.replace(/\\s+/g, ' ').trim(), value: o.value}))"

# The suggestions of a field's datalist (null for a field without one), as its line lists them.
SUGGESTIONS_JS = """el => el.list
  ? Array.from(el.list.options, o => (o.disabled ? '' : o.value.replace(/\\s+/g, ' ').trim())).filter(Boolean)
  : null"""

# Visible options of custom listboxes/menus in the element's document (they are often portaled to <body>).
# `pick` = null lists their texts; a number returns that option element.
CUSTOM_OPTIONS_JS = """(el, pick) => {
  const root = el.getRootNode();
  const scope = (() => {
    const id = el.getAttribute('aria-controls') || el.getAttribute('aria-owns');
    const owned = id && root.getElementById ? root.getElementById(id) : null;
    return owned || (el.getAttribute('role') === 'listbox' ? el : document);
  })();
  const found = Array.from(scope.querySelectorAll('[role=option], [role=menuitem], [role=menuitemradio], option'))
    .filter(o => o.checkVisibility({opacityProperty: true, visibilityProperty: true})
                 && o.getBoundingClientRect().width > 0);
  if (pick === null) return found.map(o => (o.innerText || o.textContent).replace(/\\s+/g, ' ').trim());
  return found[pick];
}"""

# The file input behind an element: itself, a label's control, or one inside it.
FILE_INPUT_JS = """el => {
  if (el.tagName === 'INPUT' && el.type === 'file') return el;
  if (el.tagName === 'LABEL' && el.control && el.control.type === 'file') return el.control;
  return el.querySelector('input[type=file]');
}"""

# Scroll the page (or, when the page itself cannot scroll, its biggest scrollable area) or one element.
# Returns [movedPx, pagesAbove, pagesBelow] of whatever scrolled.
SCROLL_JS = """(el, fraction) => {
  const scrollable = (n) => {
    const s = getComputedStyle(n);
    return (s.overflowY === 'auto' || s.overflowY === 'scroll') && n.scrollHeight > n.clientHeight + 4;
  };
  let target = el;
  if (!target) {
    const root = document.scrollingElement || document.documentElement;
    target = root;
    if (root.scrollHeight <= window.innerHeight + 4) {
      let best = null;
      for (const n of document.querySelectorAll('*')) {
        if (scrollable(n) && (!best || n.clientHeight * n.clientWidth > best.clientHeight * best.clientWidth)) best = n;
      }
      target = best || root;
    }
  }
  const isRoot = target === (document.scrollingElement || document.documentElement);
  const height = isRoot ? window.innerHeight : target.clientHeight;
  const before = target.scrollTop;
  target.scrollBy({top: fraction * height, behavior: 'instant'});
  const after = target.scrollTop;
  const below = Math.max(0, target.scrollHeight - after - height) / (height || 1);
  return [after - before, after / (height || 1), below];
}"""


def match_option(choices: list[str], wanted: str) -> int | None:
    """Index of the choice the model meant: exact (ignoring case and spaces), else the only one containing it."""
    key = _norm(wanted)
    normalized = [_norm(choice) for choice in choices]
    if key in normalized:
        return normalized.index(key)
    containing = [i for i, choice in enumerate(normalized) if key and key in choice]
    return containing[0] if len(containing) == 1 else None


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def list_choices(choices: list[str], limit: int = 20) -> str:
    shown = ", ".join(quoted(c) for c in choices[:limit])
    return shown + (f" and {len(choices) - limit} more" if len(choices) > limit else "") if choices else "none"


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_LOCAL_HOST = re.compile(r"^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(/|$)")


def normalize_url(url: str) -> str:
    """Add a scheme when the model left it out: http for this machine, https for the rest."""
    url = url.strip()
    if _LOCAL_HOST.match(url):
        return "http://" + url
    if _SCHEME.match(url) and not re.match(r"^[^/:]+:\d+", url):
        return url
    return "https://" + url


def failure_text(exc: PlaywrightError) -> str:
    """A Playwright failure in words the model can act on (its call log is for developers)."""
    blocker = covering_element(exc)
    if blocker is not None:
        return f"another element is covering it ({blocker[:120]}); close that first or scroll"
    if isinstance(exc, PlaywrightTimeoutError):
        reason = not_ready_reason(exc)
        return f"timed out: {reason}" if reason else "timed out waiting for the element to be ready"
    if tab_crashed(exc):
        return "the tab crashed; open the page again with go_to_url, or switch to another tab"
    return re.sub(r"^\w+\.\w+: ", "", first_line(exc))
