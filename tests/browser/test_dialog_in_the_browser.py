"""A page's confirm() on screen is one question: Chromium shows it and the panel asks it, and whichever the person
answers settles it. Answered in Chromium, the panel's question goes away at once (nothing left counting down, nothing
left to land in the next task), and the agent is told what the page really got (headed Chromium on Xvfb + openbox)."""

from __future__ import annotations

import asyncio

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmRequest
from tests.browser.helpers import index_of, page_events
from tests.waiting import until
from tests.x_desktop import NEEDS_X_DESKTOP, XDesktop

pytestmark = NEEDS_X_DESKTOP


class PanelQuestion:
    """Stands for the panel's Allow/Cancel: it asks and waits (nobody answers it here); it records being withdrawn."""

    def __init__(self) -> None:
        self.asked: list[ConfirmRequest] = []
        self.withdrawn = 0

    async def __call__(self, request: ConfirmRequest, _signal: AbortSignal) -> bool:
        self.asked.append(request)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.withdrawn += 1
            raise
        return True


@pytest.mark.parametrize(("key", "title", "told"), [("Escape", "cancelled", "Cancel"), ("Return", "confirmed", "OK")])
async def test_answered_in_chromium_the_panels_question_goes_and_the_answer_is_told(
    x_screen: XDesktop, headed: PlaywrightPageController, site: str, key: str, title: str, told: str
) -> None:
    controller, signal = headed, AbortSignal()
    question = PanelQuestion()
    controller.guardrails = Guardrails(confirm=question)
    await controller.go_to_url(f"{site}/tabs.html", signal)
    state = await controller.get_browser_state(signal)
    click = asyncio.ensure_future(controller.click(index_of(state.content, "Confirm"), signal))
    await until(lambda: question.asked, message="the panel asked")
    # The person answers in Chromium's own dialog instead.
    chromium = x_screen.windows("--class", "chromium")
    x_screen.run("xdotool", "windowactivate", "--sync", str(chromium[-1]))
    x_screen.run("xdotool", "key", key)
    await asyncio.wait_for(click, 30)
    events = await page_events(controller, containing="in the browser")
    assert question.withdrawn == 1  # not left counting down
    page = controller.session.active_page
    assert await page.title() == title
    assert events == [
        f'A confirm dialog in tab 1 asked "Delete it?"; the user answered {told} in the browser'
        + (" (allowed)." if told == "OK" else " (not allowed).")
    ]
