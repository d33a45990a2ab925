"""Reading the serialized page the way the model does (find an element's [index] by what its line says), the events
the controller tells, and where a button of the app's own bars is on the page."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Page

from app.browser.controller import PlaywrightPageController
from tests.waiting import until

_LINE = re.compile(r"^\t*(\*?)\[(\d+)\](.*)$")


def index_of(content: str, *needles: str) -> int:
    """The index of the only element line containing every needle."""
    found = [
        int(m.group(2)) for line in content.splitlines() if (m := _LINE.match(line)) and all(n in line for n in needles)
    ]
    assert len(found) == 1, f"{needles} matched {found} in:\n{content}"
    return found[0]


def element_lines(content: str) -> list[str]:
    return [line for line in content.splitlines() if _LINE.match(line)]


def is_new(content: str, *needles: str) -> bool:
    line = next(line for line in element_lines(content) if all(n in line for n in needles))
    return line.lstrip("\t").startswith("*")


async def page_events(controller: PlaywrightPageController, count: int = 1, containing: str = "") -> list[str]:
    """The page events the controller tells, once ``count`` of them have come and (if given) one ``containing``
    those words (the controller is polled: it is told of a page's dialogs, tabs and downloads by Playwright's
    callbacks, and sends no event of its own)."""
    events: list[str] = []

    def enough() -> bool:
        events.extend(controller.drain_events())
        return len(events) >= count and any(containing in event for event in events)

    await until(enough, message=f"{count} page event(s)" + (f" with {containing!r}" if containing else ""))
    return events


async def bar_button(page: Page, label: str, timeout: float = 20.0) -> tuple[float, float]:
    """The centre (in the page's coordinates) of the button ``label`` of a bar of the app's own, once the page has it
    (a page just loaded gets its bar a moment later): it lives in a closed shadow root, which no selector reaches, so
    its place comes from Chromium's own view of the page."""
    cdp = await page.context.new_cdp_session(page)

    async def button() -> dict[str, Any] | None:
        tree = await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        return _button(tree["root"], label)

    try:
        found = await until(button, timeout, f"the {label} button in the page")
        quad = (await cdp.send("DOM.getBoxModel", {"nodeId": found["nodeId"]}))["model"]["content"]
    finally:
        await cdp.detach()
    return (quad[0] + quad[2]) / 2, (quad[1] + quad[5]) / 2


def _button(node: dict[str, Any], label: str) -> dict[str, Any] | None:
    inside = [*node.get("children", []), *node.get("shadowRoots", [])]
    if node.get("nodeName") == "BUTTON" and any(child.get("nodeValue") == label for child in inside):
        return node
    return next((found for child in inside if (found := _button(child, label)) is not None), None)
