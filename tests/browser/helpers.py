"""Reading the serialized page the way the model does (find an element's [index] by what its line says), and the
events the controller tells."""

from __future__ import annotations

import re

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
