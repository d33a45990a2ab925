"""After an action the page is read once it has settled: what the action set off a moment later is seen at once."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page

from app.browser.controller import PlaywrightPageController
from app.browser.settle import CAP, Settler
from app.core.abort import AbortController, AbortError, AbortSignal
from tests.browser.helpers import index_of


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
    loop = asyncio.get_running_loop()
    started = loop.time()
    await controller.click(index_of(content, "Start"), signal)
    assert loop.time() - started < CAP + 3  # the cap, plus the click itself on a loaded machine


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
        await asyncio.wait_for(click, 2)
