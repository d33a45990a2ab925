"""After an action the page is read once it has settled: what the action set off a moment later is seen at once."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page

from app.browser.controller import PlaywrightPageController
from app.browser.settle import CAP, Settler
from app.core.abort import AbortController, AbortError, AbortSignal
from tests.browser.helpers import element_lines, index_of
from tests.waiting import finishes


async def _look(controller: PlaywrightPageController, signal: AbortSignal) -> str:
    return (await controller.get_browser_state(signal)).content


async def _open(controller: PlaywrightPageController, signal: AbortSignal, url: str) -> str:
    await controller.go_to_url(url, signal)
    return await _look(controller, signal)


async def test_suggestions_that_come_after_a_debounce_and_a_request_are_seen_right_after_typing(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    content = await _open(controller, signal, f"{site}/settle_autocomplete.html")
    await controller.input_text(index_of(content, "City"), "Li", signal)
    content = await _look(controller, signal)
    assert "Lisbon" in content and "Lima" in content and "London" not in content


async def test_a_menu_that_opens_after_a_hover_delay_is_seen_right_after_the_hover(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    content = await _open(controller, signal, f"{site}/settle_hover_menu.html")
    await controller.hover(index_of(content, "Account"), signal)
    content = await _look(controller, signal)
    assert "Profile" in content and "Log out" in content


async def test_a_form_that_validates_as_you_type_shows_its_message_right_after_typing(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    content = await _open(controller, signal, f"{site}/settle_validation.html")
    await controller.input_text(index_of(content, "Email"), "ada", signal)
    assert "Enter a valid email address" in await _look(controller, signal)


async def test_a_page_that_never_stops_changing_is_read_once_the_cap_is_reached(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    content = await _open(controller, signal, f"{site}/settle_clock.html")
    # Without the cap the click would wait for a page that never settles.
    await finishes(controller.click(index_of(content, "Start"), signal), CAP + 20, "the click, settled at the cap")


async def test_a_start_page_opened_before_the_task_is_first_read_once_its_content_has_come(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    await controller.open(f"{site}/settle_app.html", signal)  # returns once the shell is parsed
    content = await _look(controller, signal)
    assert "New order" in content and "open orders" in content and "Loading" not in content


class _Watched(Settler):
    def __init__(self, cap: float) -> None:
        super().__init__(cap=cap)
        self.waiting = asyncio.Event()

    async def settle(self, page: Page, signal: AbortSignal) -> float:
        self.waiting.set()
        return await super().settle(page, signal)


async def test_stop_ends_the_wait_at_once(controller: PlaywrightPageController, signal: AbortSignal, site: str) -> None:
    content = await _open(controller, signal, f"{site}/settle_clock.html")
    settler = controller.settler = _Watched(cap=60)  # a wait only Stop can end
    stop = AbortController()
    click = asyncio.ensure_future(controller.click(index_of(content, "Start"), stop.signal))
    await asyncio.wait_for(settler.waiting.wait(), 10)
    stop.abort("Task aborted")
    with pytest.raises(AbortError):
        await finishes(click, 20, "the stop")  # not the minute's cap


# The first look at a new document is rehearsed while the page settles (app/browser/observer.py, rehearse), so that
# the look the agent waits for runs warm code. The rehearsal reads the page and nothing else.

_MEASURED = "() => window.measured"
_FRAME_MARKED = "() => document.getElementById('frame').__pageAgentSlot !== undefined"


async def test_a_new_document_rehearses_its_first_look_while_it_settles(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    page = controller.session.active_page
    await _look(controller, signal)  # the observer is preloaded into documents from the first look on
    rehearse, controller.settler.prepare = controller.settler.prepare, None
    await controller.go_to_url(f"{site}/rehearsal.html?copy=1", signal)
    assert await page.evaluate(_MEASURED) == 0  # without a rehearsal nothing measures the page before the look
    controller.settler.prepare = rehearse
    await controller.go_to_url(f"{site}/rehearsal.html?copy=2", signal)
    assert await page.evaluate(_MEASURED) > 0


async def test_the_rehearsal_changes_nothing_the_first_look_says_or_marks(
    controller: PlaywrightPageController, signal: AbortSignal, site: str
) -> None:
    page = controller.session.active_page
    await _look(controller, signal)
    await controller.go_to_url(f"{site}/rehearsal.html?copy=1", signal)
    assert await page.evaluate(_MEASURED) > 0  # rehearsed
    assert not await page.evaluate(_FRAME_MARKED)  # only a real look marks the frames it lists
    rehearsed = await _look(controller, signal)
    assert await page.evaluate(_FRAME_MARKED)
    rehearse, controller.settler.prepare = controller.settler.prepare, None
    await controller.go_to_url(f"{site}/rehearsal.html?copy=2", signal)
    plain = await _look(controller, signal)
    controller.settler.prepare = rehearse
    # The same listing, and nothing in it marked new: the first look at a document has nothing to compare with.
    assert element_lines(rehearsed) == element_lines(plain)
    assert "Inner button frame" in rehearsed and "Export" in rehearsed
    assert not any(line.lstrip("\t").startswith("*") for line in element_lines(rehearsed))
