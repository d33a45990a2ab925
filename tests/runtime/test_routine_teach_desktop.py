"""Show me once on a real X desktop (Xvfb + openbox), as the panel runs it, with the mouse: the person clicks their
way through row 1 in the window that came forward (real pointer input, xdotool), types the values, picks the plan in
the list's own popup, ticks the box, saves, and presses Done in the bar inside the page; then "Use this path", and the
other rows replay it at one model call each. Where each element is on screen is read from the page; everything done
to the page is the pointer's and the keyboard's."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from playwright.async_api import Page

from app.routine.launch import open_routine
from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions
from tests.browser.helpers import bar_button
from tests.cli.routine_helpers import rows_file
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.runtime.test_routine_runner import setup
from tests.runtime.test_routine_teach import CUSTOMERS, SHORT, Watch, page_of, rows_of, saved
from tests.waiting import until
from tests.x_desktop import KEYBOARD, XDesktop, x_desktop

pytestmark = KEYBOARD

PLANS = ("Free", "Starter", "Pro")
OPTION_HEIGHT = 24  # px: a line of Chromium's own popup for a <select> on this desktop


class Pointer:
    """The person's mouse, on the page's window: page coordinates to the screen's."""

    def __init__(self, desktop: XDesktop, page: Page) -> None:
        self.desktop, self.page = desktop, page
        self.left = self.top = 0.0

    async def measure(self) -> None:
        x, y, outer_w, inner_w, outer_h, inner_h = await self.page.evaluate(
            "() => [screenX, screenY, outerWidth, innerWidth, outerHeight, innerHeight]"
        )
        border = (outer_w - inner_w) / 2
        self.left, self.top = x + border, y + outer_h - inner_h - border

    def click_at(self, x: float, y: float) -> None:
        self.desktop.run(
            "xdotool", "mousemove", str(round(self.left + x)), str(round(self.top + y)), "click", "1", check=True
        )

    async def click(self, selector: str, across: float = 0.5) -> tuple[float, float, float, float]:
        """A click on the element, ``across`` its width from the left (in the middle, as a rule)."""
        box = await self.page.locator(selector).bounding_box()
        assert box is not None, selector
        self.click_at(box["x"] + box["width"] * across, box["y"] + box["height"] / 2)
        return box["x"], box["y"], box["width"], box["height"]

    def type(self, text: str) -> None:
        self.desktop.run("xdotool", "type", "--delay", "40", text, check=True)


async def by_mouse(pointer: Pointer, customer: tuple[str, ...]) -> None:
    name, email, plan, start, newsletter = customer
    page = pointer.page
    async with page.expect_navigation():
        await pointer.click("a")  # "New customer"
    await pointer.click("[name=name]")
    pointer.type(name)
    await pointer.click("[name=email]")
    pointer.type(email)
    x, y, width, height = await pointer.click("select")  # its popup opens under it
    await until(lambda: page.evaluate("() => document.activeElement.tagName === 'SELECT'"), message="the list open")
    pointer.click_at(x + width / 2, y + height + 2 + OPTION_HEIGHT * (PLANS.index(plan) + 0.5))
    await until(lambda: page.evaluate(f"() => document.querySelector('select').value === {plan!r}"), 20, "the plan")
    year, month, day = start.split("-")
    await pointer.click("[name=start]", 0.1)  # its month, the first part of the field (en-US)
    pointer.type(month + day + year)
    if newsletter == "yes":
        await pointer.click("[name=newsletter]")
    async with page.expect_navigation():
        await pointer.click("button")  # Save


@pytest.mark.fresh_browser
async def test_row_one_done_with_the_mouse_and_done_in_the_page_is_the_path_of_the_other_rows(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.fallback = crm_model()
    rows = rows_file(tmp_path, rows_of(CUSTOMERS))
    with crm_site() as site, x_desktop() as desktop:
        monkeypatch.setenv("DISPLAY", desktop.display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        options = RoutineOptions(rows, SHORT, start_url=site.url + "/customers", teach=True)
        plan = await asyncio.to_thread(plan_routine, options)
        routine = await open_routine(plan, dataclasses.replace(setup(tmp_path, llm_server), headless=False))
        watch = Watch(routine)
        runner = routine.runner
        try:
            running = asyncio.ensure_future(runner.run())
            await asyncio.wait_for(watch.started.get(), 60)
            page = page_of(routine)
            pointer = Pointer(desktop, page)
            await pointer.measure()
            await by_mouse(pointer, CUSTOMERS[0])
            pointer.click_at(*await bar_button(page, "Done"))  # in the page's own bar
            shown = await asyncio.wait_for(watch.shown.get(), 60)
            assert [step.action for step in shown.path.steps] == [
                "click_element_by_index",
                "input_text",
                "input_text",
                "select_dropdown_option",
                "input_text",
                "click_element_by_index",
                "click_element_by_index",
            ]
            assert runner.teaching is not None
            runner.teaching.use(True)
            summary = await asyncio.wait_for(running, 300)
        finally:
            await routine.close()
        assert saved(site) == CUSTOMERS and site.posts == len(CUSTOMERS)
    assert watch.finished[1].outcome.model_calls == 0
    assert [watch.finished[n].outcome.model_calls for n in (2, 3, 4)] == [1, 1, 1]
    assert summary.counts == {"done": 4}
