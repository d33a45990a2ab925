"""The stop bar inside Chromium: Stop and Esc reach Python, pages can neither read nor swallow it, the model never
sees it, and it follows the agent (on while it works, off when the run ends or waits for the person)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Page

from app.browser.controller import PlaywrightPageController
from app.browser.session import BrowserSession
from app.browser.stop_bar import StopBar, bar_labels
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.types import AgentStatus, ExecutingActivity, HandOffActivity
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.text import i18n
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.waiting import until

# The bar, once installed, stays in every tab of its browser: each test starts a Chromium of its own.
pytestmark = pytest.mark.fresh_browser

PAGE = "/stop_bar.html"
# A binding of the tests' own: the page's calls to Python are handled in the order it made them.
_BARRIER = "__testBarrier"


class Stops:
    """Counts the stop requests and lets a test wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self._event = asyncio.Event()

    def __call__(self) -> None:
        self.count += 1
        self._event.set()

    async def next(self, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self._event.wait(), timeout)
        self._event.clear()


async def _bar_box(page: Page, bar: StopBar) -> dict[str, float] | None:
    return await page.evaluate(
        "tag => { const el = document.querySelector(tag); if (!el) return null;"
        " const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height,"
        " open: el.shadowRoot !== null}; }",
        bar.tag,
    )


async def press_the_bars_button(page: Page, bar: StopBar) -> None:
    """A click on the button at the bar's right end (Stop, or Show the panel), as the person makes it."""
    box = await _bar_box(page, bar)
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] - 30, box["y"] + box["height"] / 2)


async def _answered(page: Page) -> None:
    """Once Python has handled every call the page made before now (a key the bar reported, its question on
    loading) and the page has had the answers: a call of the test's own, answered last."""
    await page.evaluate(f"() => window.{_BARRIER}()")


async def _setup(session: BrowserSession, site: str) -> tuple[PlaywrightPageController, Stops, Page]:
    controller = PlaywrightPageController(session)
    stops = Stops()
    await session.context.expose_binding(_BARRIER, lambda _source: None)
    await controller.stop_bar.install(stops)
    page = session.active_page
    await page.goto(site + PAGE)
    return controller, stops, page


async def test_the_bar_shows_in_a_closed_shadow_root_and_survives_navigation(
    session: BrowserSession, site: str
) -> None:
    controller, _stops, page = await _setup(session, site)
    bar = controller.stop_bar
    assert await _bar_box(page, bar) is None  # no run, no bar
    await bar.show()
    box = await _bar_box(page, bar)
    assert box is not None and box["open"] is False  # the page cannot look inside
    # A small pill in the bottom-right corner, not a band across the page.
    viewport = page.viewport_size
    assert viewport is not None
    assert box["width"] < 400 and box["height"] < 60
    assert box["x"] + box["width"] > viewport["width"] - 40 and box["y"] + box["height"] > viewport["height"] - 40
    # The page's own text search does not find it either.
    assert "Page Agent" not in await page.evaluate("document.documentElement.innerText")

    await page.goto(site + "/shop.html")  # a new document asks whether a run is on
    await until(lambda: _bar_box(page, bar))
    new_tab = await session.context.new_page()
    await new_tab.goto(site + PAGE)
    await until(lambda: _bar_box(new_tab, bar))

    await bar.hide()
    assert await _bar_box(page, bar) is None and await _bar_box(new_tab, bar) is None
    await page.goto(site + PAGE)
    await _answered(page)  # the new document's question to Python has had its answer
    assert await _bar_box(page, bar) is None


async def test_esc_stops_even_on_a_page_that_swallows_keys_and_stop_button_too(
    session: BrowserSession, site: str
) -> None:
    controller, stops, page = await _setup(session, site)
    await page.keyboard.press("Escape")
    await _answered(page)
    assert stops.count == 0  # no run on: Esc is the page's

    await controller.stop_bar.show()
    await page.focus("input")
    await page.keyboard.press("Escape")
    await stops.next()
    assert stops.count == 1

    # A page cannot press Stop for the user: its events are not trusted.
    await page.evaluate("window.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")
    await _answered(page)
    assert stops.count == 1

    # The Stop button at the pill's right end.
    await press_the_bars_button(page, controller.stop_bar)
    await stops.next()
    assert stops.count == 2


async def test_esc_inside_a_frame_stops(session: BrowserSession, site: str) -> None:
    controller, stops, page = await _setup(session, site)
    await page.goto(site + "/frames.html")
    await controller.stop_bar.show()
    frame = page.frames[1]
    await frame.wait_for_load_state()
    focusable = frame.locator("input, button, a").first
    await focusable.focus()
    await page.keyboard.press("Escape")
    await stops.next()


async def test_the_agent_pressing_escape_itself_is_not_a_stop(session: BrowserSession, site: str) -> None:
    controller, stops, page = await _setup(session, site)
    await controller.stop_bar.show()
    await controller.send_keys("Escape", AbortSignal())
    await _answered(page)
    assert stops.count == 0


async def test_the_model_never_sees_the_bar_and_it_covers_nothing(session: BrowserSession, site: str) -> None:
    controller, _stops, page = await _setup(session, site)
    await controller.stop_bar.show()
    bar = await _bar_box(page, controller.stop_bar)
    corner = await page.locator("#corner").bounding_box()
    assert bar is not None and corner is not None
    centre = (corner["x"] + corner["width"] / 2, corner["y"] + corner["height"] / 2)
    # The test is only worth something if the bar really lies over the button.
    assert bar["x"] <= centre[0] <= bar["x"] + bar["width"] and bar["y"] <= centre[1] <= bar["y"] + bar["height"]
    state = await controller.get_browser_state(AbortSignal())
    assert "Export" in state.content
    assert "Page Agent" not in state.content and "Stop" not in state.content
    assert controller.stop_bar.tag not in state.content


def test_the_bar_speaks_the_panels_language() -> None:
    i18n.set_language("zh")
    try:
        assert bar_labels() == {"working": "Page Agent 正在工作", "stop": "停止 (Esc)"}
    finally:
        i18n.set_language("en")
    assert bar_labels() == {"working": "Page Agent is working", "stop": "Stop (Esc)"}


# --- on the real runtime, following a real agent --------------------------------------------------------------


def _runtime(llm_server: FakeLLMServer, tmp_path: Path) -> Runtime:
    settings = Settings(base_url=llm_server.base_url, model="fake-model", max_steps=10)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    return Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")


async def test_esc_in_chromium_stops_the_run_and_the_bar_follows_the_agent(
    llm_server: FakeLLMServer, tmp_path: Path, site: str
) -> None:
    runtime = _runtime(llm_server, tmp_path)
    # The model is slow to answer the second step: Esc arrives while it thinks.
    llm_server.add(tool_reply({"go_to_url": {"url": site + PAGE}}), done_reply("Too late.", delay=20))
    try:
        agent = await runtime.agent()
        bar = runtime._controller.stop_bar  # type: ignore[attr-defined]
        run = asyncio.ensure_future(agent.execute("Export the orders"))
        page = runtime.active_page
        assert page is not None
        await until(lambda: _wait_until_on(page, bar, site + PAGE), timeout=30)

        agent.pause()  # Take over: the bar goes away, the user has the page
        await until(lambda: _gone(page, bar))
        agent.resume()
        await until(lambda: _bar_box(page, bar), timeout=30)

        await page.keyboard.press("Escape")  # nobody subscribed: the runtime stops the agent itself
        result = await asyncio.wait_for(run, 10)
        assert agent.status is AgentStatus.STOPPED and not result.success
        await until(lambda: _gone(page, bar))
    finally:
        await runtime.shutdown()


async def test_stop_in_chromium_goes_to_the_panels_callback(
    llm_server: FakeLLMServer, tmp_path: Path, site: str
) -> None:
    runtime = _runtime(llm_server, tmp_path)
    stops = Stops()
    runtime.on_stop_requested(stops)
    llm_server.add(tool_reply({"go_to_url": {"url": site + PAGE}}), done_reply("Done.", delay=3))
    try:
        agent = await runtime.agent()
        bar = runtime._controller.stop_bar  # type: ignore[attr-defined]
        run = asyncio.ensure_future(agent.execute("Export the orders"))
        page = runtime.active_page
        assert page is not None
        await until(lambda: _wait_until_on(page, bar, site + PAGE), timeout=30)
        await page.keyboard.press("Escape")
        await stops.next()
        assert agent.status is AgentStatus.RUNNING  # the panel decides what Stop does
        await asyncio.wait_for(run, 30)
    finally:
        await runtime.shutdown()


async def test_a_hand_off_says_your_turn_and_brings_the_agents_tab_to_the_front(
    session: BrowserSession, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = PlaywrightPageController(session)
    stops, panels = Stops(), Stops()
    await controller.stop_bar.install(stops, panels)
    page = session.active_page
    await page.goto(site + PAGE)
    agent = Agent(_NeverCalled(), controller)
    controller.stop_bar.follow(agent)
    await controller.stop_bar.show()
    other = await session.context.new_page()
    await other.goto(site + "/shop.html")
    session.activate(page)
    # Headless tabs are all "visible", so the call itself is what can be checked here.
    fronted: list[Page] = []
    original = page.bring_to_front

    async def bring_to_front() -> None:
        fronted.append(page)
        await original()

    monkeypatch.setattr(page, "bring_to_front", bring_to_front)
    # What the agent emits when the model calls hand_off_to_user.
    agent._events.emit("activity", HandOffActivity(reason="Please solve the captcha."))
    await until(lambda: fronted)
    bar = controller.stop_bar
    await until(lambda: bar.mode == "waiting" and _bar_box(page, bar))
    assert bar._labels() == {  # what the tab shows (the bar's words are out of the page's reach)
        "working": "Your turn — see the panel",
        "stop": "Show the panel",
        "action": "panel",
        "waiting": True,
        "passive": False,
    }
    # Esc is the person's now, in the page they act on: it stops nothing.
    await page.keyboard.press("Escape")
    # Its button brings the panel forward.
    await press_the_bars_button(page, bar)
    await panels.next()
    assert stops.count == 0


async def test_a_question_or_an_allow_cancel_turns_the_bar_to_your_turn(session: BrowserSession, site: str) -> None:
    controller, stops, page = await _setup(session, site)
    bar = controller.stop_bar
    agent = Agent(_NeverCalled(), controller)
    bar.follow(agent)
    await bar.show()
    agent._events.emit("activity", ExecutingActivity(tool="ask_user", input={"question": "Which plan?"}))
    await until(lambda: bar.mode == "waiting")
    # Without a panel (the CLI), the bar points at the terminal and has no button.
    assert bar._labels() == {
        "working": "Your turn — see the terminal",
        "stop": "",
        "action": "",
        "waiting": True,
        "passive": False,
    }
    await bar.show()
    with bar.waiting_for_person():  # the Allow/Cancel question (app/runtime.py wraps its handler so)
        assert bar.mode == "waiting"
        await until(lambda: _bar_box(page, bar))
        await page.keyboard.press("Escape")
    assert bar.mode == "working"
    await _answered(page)
    assert stops.count == 0


class _NeverCalled:
    async def complete(self, *_args: object, **_kwargs: object) -> object:
        raise AssertionError("the model is not asked in this test")


async def _gone(page: Page, bar: StopBar) -> bool:
    return await _bar_box(page, bar) is None


async def _wait_until_on(page: Page, bar: StopBar, url: str) -> bool:
    return page.url == url and await _bar_box(page, bar) is not None


async def test_the_agent_can_click_an_element_under_the_bar(session: BrowserSession, site: str) -> None:
    controller, stops, page = await _setup(session, site)
    await controller.stop_bar.show()
    state = await controller.get_browser_state(AbortSignal())
    index = next(line for line in state.content.splitlines() if "Export" in line).split("]")[0].lstrip("[")
    assert (await controller.click(int(index), AbortSignal())).startswith("Clicked")
    assert await page.evaluate("presses") == 1 and stops.count == 0
    # The user can still press Stop afterwards.
    await press_the_bars_button(page, controller.stop_bar)
    await stops.next()


async def _pointer(page: Page, bar: StopBar) -> str:
    return str(await page.evaluate("tag => getComputedStyle(document.querySelector(tag)).pointerEvents", bar.tag))


async def test_an_agent_acting_in_one_window_leaves_the_bar_of_a_window_waiting_for_the_person_clickable(
    session: BrowserSession, site: str
) -> None:
    """A routine's windows share one bar. While a row's agent clicks in its window, the bar there lets the pointer
    through; in the window where a row waits for the person, its "Show the panel" must still take their click, not let
    it fall on the page under it (a captcha, a form)."""
    bar = StopBar(session)
    stops, panels = Stops(), Stops()
    await bar.install(stops, panels)
    mine, other = await session.new_window(), await session.new_window()
    for window in (mine, other):
        await window.active_page.goto(site + PAGE)
    await bar.show()
    bar.say_in_window(mine, "waiting")
    async with bar.step_aside(other):
        assert await _pointer(other.active_page, bar) == "none"
        assert await _pointer(mine.active_page, bar) == "auto"
        await press_the_bars_button(mine.active_page, bar)
        await panels.next()
    assert await _pointer(other.active_page, bar) == "auto"
    assert await mine.active_page.evaluate("presses") == 0 and stops.count == 0
