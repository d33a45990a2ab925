"""The rehearsal of a new document's first look (app/browser/observer.py, rehearse) runs the observer in a page the
app does not trust: the page can run it at will, and a page on a refused address is never rehearsed at all."""

from __future__ import annotations

from pathlib import Path

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from tests.browser.helpers import element_lines
from tests.security.conftest import HostileSite

PAGES = Path(__file__).resolve().parents[1] / "pages"


async def test_a_page_that_runs_the_rehearsal_at_will_changes_nothing_the_agent_sees(
    controller: PlaywrightPageController, signal: AbortSignal, hostile: HostileSite
) -> None:
    page = controller.session.active_page
    await controller.get_browser_state(signal)  # the observer is preloaded into documents from the first look on
    await controller.go_to_url(f"{hostile.page}/rehearsal-hijack.html", signal)
    assert await page.evaluate("() => window.kept.length") == 1  # the page got hold of the rehearsal
    await page.evaluate("() => window.replay()")  # before the first look
    await page.evaluate("() => window.addLater()")  # had the replays counted as a look, this would read as new

    first = (await controller.get_browser_state(signal)).content
    await page.evaluate("() => window.replay()")  # and between looks
    second = (await controller.get_browser_state(signal)).content

    lines = element_lines(first)
    assert any("<button>Export" in line for line in lines) and any("Next page" in line for line in lines)
    assert any("Added later" in line for line in lines)
    assert element_lines(second) == lines
    # Nothing is news: the replayed rehearsals did not make the first look compare with anything.
    assert not any(line.lstrip("\t").startswith("*") for line in lines + element_lines(second))


async def test_a_tab_on_a_refused_address_is_not_rehearsed(
    controller: PlaywrightPageController, signal: AbortSignal, tmp_path: Path
) -> None:
    page = controller.session.active_page
    await controller.get_browser_state(signal)
    local = tmp_path / "rehearsal.html"
    local.write_text((PAGES / "rehearsal.html").read_text())  # counts the observer's measurements
    await page.goto(local.as_uri())  # what no route sees: something puts the tab on a local file
    await controller.settler.settle(page, signal)
    assert await page.evaluate("() => window.measured") == 0
