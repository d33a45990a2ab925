"""Each named check of app/browser/playwright_errors.py against the failure itself, provoked in the locked
Playwright and the machine's Chromium: when an upgrade changes a wording, the check that no longer recognises it
fails here, by name."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from app.browser.controller import PlaywrightPageController
from app.browser.playwright_errors import (
    busy_answer,
    covering_element,
    document_replaced,
    first_line,
    missing_library,
    not_ready_reason,
    profile_in_use,
    tab_crashed,
)
from app.browser.session import BrowserSession, LaunchOptions
from app.core.errors import CannotStart
from tests.cli.test_cli import unused_port
from tests.fakes.busy_endpoint import busy_endpoint
from tests.fakes.external_chromium import external_chromium

PAGE = """data:text/html,
<button id=covered style="position:absolute;top:10px;left:10px">Save</button>
<div id=overlay style="position:absolute;top:0;left:0;width:300px;height:100px;background:white">Cookies?</div>
<button id=hidden style="display:none">Hidden</button>
<button id=off disabled>Off</button>
"""


async def _failure(call: object) -> PlaywrightError:
    try:
        await call  # type: ignore[misc]
    except PlaywrightError as exc:
        return exc
    raise AssertionError("the call did not fail")


async def _page(controller: PlaywrightPageController) -> Page:
    page = controller.session.active_page
    await page.goto(PAGE)
    return page


async def test_a_click_on_a_covered_element_names_what_covers_it(controller: PlaywrightPageController) -> None:
    page = await _page(controller)
    exc = await _failure(page.click("#covered", timeout=1_500))
    covering = covering_element(exc)
    assert covering is not None and "overlay" in covering
    assert covering_element(await _failure(page.click("#hidden", timeout=500))) is None


@pytest.mark.parametrize(("selector", "reason"), [("#hidden", "not visible"), ("#off", "not enabled")])
async def test_an_element_that_never_got_ready_says_why(
    controller: PlaywrightPageController, selector: str, reason: str
) -> None:
    page = await _page(controller)
    said = not_ready_reason(await _failure(page.click(selector, timeout=800)))
    assert said == f"element is {reason}"


async def test_a_script_whose_page_navigates_has_its_document_replaced(controller: PlaywrightPageController) -> None:
    page = await _page(controller)
    exc = await _failure(page.evaluate("() => { location.href = 'about:blank'; return new Promise(() => {}); }"))
    assert document_replaced(exc), first_line(exc)
    assert not tab_crashed(exc)


async def test_a_call_into_a_crashed_tab_says_it_crashed(controller: PlaywrightPageController) -> None:
    page = await _page(controller)
    async with page.expect_event("crash", timeout=10_000):
        with contextlib.suppress(PlaywrightError):  # the navigation itself is aborted
            await page.goto("chrome://crash", timeout=5_000)  # Chromium's own way to kill a tab's renderer
    crash = await _failure(page.evaluate("1"))
    assert tab_crashed(crash), first_line(crash)
    assert not document_replaced(crash)


@pytest.mark.fresh_browser
async def test_a_profile_another_chromium_holds_is_said_to_be_in_use(tmp_path: Path) -> None:
    options = LaunchOptions(profile_dir=tmp_path / "profile", downloads_dir=tmp_path / "downloads", headless=True)
    first = await BrowserSession.launch(options)
    try:
        with pytest.raises(CannotStart) as refused:
            await BrowserSession.launch(options)
        cause = refused.value.__cause__
        assert isinstance(cause, PlaywrightError) and profile_in_use(cause), first_line(cause or refused.value)
        assert "is in use by another Chromium window" in str(refused.value)
    finally:
        await first.close()


def test_a_missing_library_is_named_as_the_loader_names_it() -> None:
    # Not provoked here (the machine has the library): the loader's own words, as Chromium's launch reports them.
    exc = PlaywrightError(
        "BrowserType.launch_persistent_context: Target page, context or browser has been closed\nBrowser logs:\n"
        "/usr/lib/chromium/chromium: error while loading shared libraries: libatomic.so.1: cannot open shared "
        "object file: No such file or directory"
    )
    assert missing_library(exc, "libatomic") and not missing_library(exc, "libnss3")
    assert first_line(exc).startswith("BrowserType.launch_persistent_context")


@pytest.mark.parametrize("status", [429, 503])
def test_an_endpoint_that_is_full_for_now_is_said_to_be_busy(tmp_path: Path, status: int) -> None:
    with external_chromium(tmp_path / "remote") as (cdp, _), busy_endpoint(cdp, [status] * 3) as busy:
        asyncio.run(_refused_as_busy(busy.address, status))


async def _refused_as_busy(address: str, status: int) -> None:
    websocket = "ws" + address.removeprefix("http") + "/devtools/browser/x"
    async with async_playwright() as playwright:
        over_http = await _failure(playwright.chromium.connect_over_cdp(address, timeout=5_000))
        over_ws = await _failure(playwright.chromium.connect_over_cdp(websocket, timeout=5_000))
        served = await _failure(playwright.chromium.connect(websocket, timeout=5_000))
        assert [busy_answer(over_http), busy_answer(over_ws), busy_answer(served)] == [status] * 3
        nobody = await _failure(playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{unused_port()}"))
        assert busy_answer(nobody) is None, first_line(nobody)
