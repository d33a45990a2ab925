"""Page events as sentences: new tabs (and the switch to them), dialogs, downloads, navigations."""

from __future__ import annotations

import stat

import pytest
from playwright.async_api import Error as PlaywrightError

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmRequest
from tests.browser.helpers import index_of, page_events
from tests.waiting import until

# Tab ids, dialogs and downloads are the browser's own history: each test starts a Chromium of its own.
pytestmark = pytest.mark.fresh_browser


async def open_page(controller: PlaywrightPageController, signal: AbortSignal, url: str) -> str:
    await controller.go_to_url(url, signal)
    return (await controller.get_browser_state(signal)).content


async def test_target_blank_opens_a_tab_and_the_agent_follows(controller, signal, site) -> None:
    content = await open_page(controller, signal, f"{site}/tabs.html")
    result = await controller.click(index_of(content, "Open report"), signal)
    assert result.endswith(f"it opened a new tab (tab 2) — now working in it: {site}/echo.html?from=blank")
    state = await controller.get_browser_state(signal)
    assert state.url == f"{site}/echo.html?from=blank"
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, False), (2, True)]
    assert controller.drain_events() == []  # told by the click already
    assert await controller.switch_to_tab(1, signal) == f"Switched to tab 1: {site}/tabs.html"
    assert (await controller.get_browser_state(signal)).url == f"{site}/tabs.html"


async def test_a_tab_opened_by_the_page_itself_is_an_event(controller, signal, site) -> None:
    await open_page(controller, signal, f"{site}/tabs.html")
    await controller.execute_javascript(f"window.open('{site}/form.html'); 1", signal)
    assert await page_events(controller) == [f"A new tab opened (tab 2): {site}/form.html — now working in it."]
    assert (await controller.get_browser_state(signal)).title == "New customer"


async def test_an_alert_is_acknowledged_and_a_confirm_is_cancelled_without_anyone_to_allow_it(
    controller, signal, site
) -> None:
    content = await open_page(controller, signal, f"{site}/tabs.html")
    await controller.click(index_of(content, "Show alert"), signal)
    await controller.click(index_of(content, "Confirm"), signal)
    assert await page_events(controller, 2) == [
        'An alert dialog in tab 1 said "Record saved"; it was accepted automatically.',
        'A confirm dialog in tab 1 asked "Delete it?"; it was answered Cancel: nobody was there to allow it.',
    ]
    assert (await controller.get_browser_state(signal)).title == "cancelled"


async def test_a_confirm_asks_the_running_agents_person(controller, signal, site) -> None:
    asked: list[ConfirmRequest] = []

    async def allow(request: ConfirmRequest, _signal: AbortSignal) -> bool:
        asked.append(request)
        return True

    controller.guardrails = Guardrails(confirm=allow)
    content = await open_page(controller, signal, f"{site}/tabs.html")
    assert (await controller.click(index_of(content, "Confirm"), signal)).startswith("Clicked")
    assert controller.drain_events() == [
        'A confirm dialog in tab 1 asked "Delete it?"; the user answered OK (allowed).'
    ]
    assert [(r.kind, r.dialog_type, r.quote, r.url) for r in asked] == [
        ("dialog", "confirm", "Delete it?", f"{site}/tabs.html")
    ]
    assert (await controller.get_browser_state(signal)).title == "confirmed"


async def test_download_is_saved_and_told(controller, signal, site, launch_options) -> None:
    content = await open_page(controller, signal, f"{site}/tabs.html")
    await controller.click(index_of(content, "Download file"), signal)
    target = launch_options.downloads_dir.resolve() / "download.txt"
    assert await page_events(controller) == [f'Downloaded "download.txt" to {target}.']
    assert target.read_text() == "hello download\n"


async def test_navigation_by_the_page_is_an_event(controller, signal, site) -> None:
    await open_page(controller, signal, f"{site}/form.html")
    await controller.execute_javascript(f"setTimeout(() => location.href = '{site}/echo.html?late=1', 50); 1", signal)
    assert await page_events(controller) == [f"Tab 1 navigated to {site}/echo.html?late=1"]
    assert controller.drain_events() == []


async def crash_active_tab(controller: PlaywrightPageController, signal: AbortSignal) -> None:
    page = controller.session.active_page
    try:
        await page.goto("chrome://crash", timeout=5_000)  # Chromium's own way to kill a tab's renderer
    except PlaywrightError:
        pass
    await until(lambda: controller.session.is_crashed(page), message="the tab to crash")


async def test_a_crashed_tab_is_told_and_go_to_url_brings_it_back(controller, signal, site) -> None:
    await open_page(controller, signal, f"{site}/tabs.html")
    await controller.open_new_tab(f"{site}/form.html", signal)
    await crash_active_tab(controller, signal)
    assert "Tab 2 crashed (Chromium stopped rendering it)." in controller.drain_events()
    state = await controller.get_browser_state(signal)
    assert "Tab 2 crashed" in state.content and "go_to_url" in state.content
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, False), (2, True)]
    with pytest.raises(ToolError, match="no longer on the page"):
        await controller.click(1, signal)
    with pytest.raises(ToolError, match="Could not go back: the tab crashed; open the page again with go_to_url"):
        await controller.go_back(signal)

    assert await controller.go_to_url(f"{site}/form.html", signal) == f'Opened {site}/form.html — "New customer"'
    state = await controller.get_browser_state(signal)
    assert state.title == "New customer" and "[1]" in state.content
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, False), (2, True)]
    assert controller.drain_events() == []  # the reopening is the go_to_url's own result


async def test_two_downloads_of_one_name_are_told_under_the_names_they_were_saved_as(
    controller, signal, site, launch_options
) -> None:
    content = await open_page(controller, signal, f"{site}/tabs.html")
    downloads = launch_options.downloads_dir.resolve()
    told: list[str] = []
    for _ in range(2):
        await controller.click(index_of(content, "Download file"), signal)
        told += await page_events(controller)
    assert told == [
        f'Downloaded "download.txt" to {downloads / "download.txt"}.',
        f'Downloaded "download (1).txt" to {downloads / "download (1).txt"}.',
    ]
    # Only the user's files, no GUID-named copy beside them; Chromium's own copy (what its download list opens) is
    # in the private profile under the real name.
    assert sorted(p.name for p in downloads.iterdir()) == ["download (1).txt", "download.txt"]
    staging = launch_options.profile_dir / "Page Agent downloads in progress"
    assert [p.name for p in staging.iterdir()] == ["download.txt"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in downloads.iterdir()} == {0o600}
    assert {p.read_text() for p in downloads.iterdir()} == {"hello download\n"}
