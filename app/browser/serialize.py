"""The page as the model reads it: a header (address, viewport, scroll), then one line per listed element,
``[index]<tag attrs>text />``, indented by nesting, with context text between and ``*[`` marking what is new since
the last look (app/README.md, "One task, step by step").

The layout (the lines, `[index]<tag`, ` />`, the markers) is the app's; every field from the page is made ``inert``,
and the page's free text stands on its lines as quoted strings ("Billing address"), so that no words of a page can
print one of the listing's own lines ("[End of page]", "Current page: …", an element line).
"""

from __future__ import annotations

import re

from app.browser.observer import ElementItem, Line, Observation
from app.core.safety.untrusted import inert, quoted

_PLAIN_VALUE = re.compile(r"^[^\s\"'<>]+$")
# A title in the header's [title](address) is the page's: its brackets cannot close the app's.
_TITLE_MARKS = str.maketrans({"\\": "\\\\", "[": "\\[", "]": "\\]"})
_END_SLACK = 4.0  # px: subpixel layouts rarely scroll to the exact bottom


def render(observation: Observation) -> str:
    vw, vh = observation.viewport.width, observation.viewport.height
    above, below = scroll_pages(observation)
    lines = [
        f"Current page: [{title_text(observation.title or observation.url)}]({inert(observation.url)})",
        f"Viewport {vw}x{vh}; {above:.1f} pages above, {below:.1f} pages below",
        "[Start of page]" if above < 0.05 else f"... {above:.1f} pages above — scroll up to see more",
    ]
    body = [_line(line) for line in observation.lines]
    lines.extend(body or ["(nothing interactive in view)"])
    if observation.truncated:
        lines.append("... (listing cut short: the page has too many elements; scroll or act on what is listed)")
    lines.append("[End of page]" if below < 0.05 else f"... {below:.1f} pages below — scroll to see more")
    return "\n".join(lines)


def title_text(title: str) -> str:
    """A page's title as the header's [title](address) holds it."""
    return inert(title).translate(_TITLE_MARKS)


def render_crashed(tab_id: int, url: str) -> str:
    """What the model sees of a tab whose renderer died: there is no page to list, only a way on."""
    return (
        f"Current page: [{title_text(url)}]({inert(url)})\n"
        f'Tab {tab_id} crashed: Chromium stopped rendering this page (its "Aw, Snap!" screen), so nothing on it '
        "can be read or clicked. Open the page again with go_to_url, or switch to another tab."
    )


def scroll_pages(observation: Observation) -> tuple[float, float]:
    vh = observation.viewport.height or 1
    scroll = observation.scroll
    above = scroll.y / vh
    below = max(0.0, scroll.height - scroll.y - vh - _END_SLACK) / vh
    return above, below


def _line(line: Line) -> str:
    indent = "\t" * line.depth
    if line.frame_origin:
        return f"{indent}[iframe {inert(line.frame_origin)}]"
    element = line.element
    if element is None:
        return f"{indent}{quoted(line.text)}"
    star = "*" if element.is_new else ""
    body = f">{inert(element.text)}" if element.text and not element.lines else ""
    return f"{indent}{star}[{line.index}]{_open_tag(element)}{body} />"


def _open_tag(element: ElementItem, keys: tuple[str, ...] | None = None) -> str:
    attrs = [(k, v) for k, v in element.attrs if keys is None or k in keys]
    parts = [element.tag] + [name if value == "" else f"{name}={_value(inert(value))}" for name, value in attrs]
    return "<" + " ".join(parts)


def _value(value: str) -> str:
    return value if _PLAIN_VALUE.match(value) else '"' + value.replace('"', "'") + '"'


# Enough to recognise an element in an action's result without repeating its whole line.
_DESCRIBE_KEYS = ("type", "name", "role", "aria-label", "placeholder", "icon")


def describe(index: int, element: ElementItem) -> str:
    """``[12] <button> Save`` / ``[3] <input type=email name=email>``."""
    text = f" {inert(element.text)}" if element.text else ""
    return f"[{index}] {_open_tag(element, _DESCRIBE_KEYS)}>{text}"
