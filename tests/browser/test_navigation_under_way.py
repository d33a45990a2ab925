"""A look while a navigation is under way (a person's click just before they hand the browser back, a page's own
redirect, an action's navigation that outlasts the settle) reads the page it goes to once that page is there: never
the old page about to go, nor the new one committed but not yet parsed. Each navigation is waited for at most
``LOADING_CAP``; one that ends without a new page (no content, a download, a blocked address) is not waited for.

The site answers late the way a slow server does; the test waits only on events (the request reaching the server)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from app.browser.controller import PlaywrightPageController
from app.browser.settle import LOADING_CAP
from app.core.abort import AbortSignal
from tests.fakes.html_site import Answer, html_site

_OLD = b"<!doctype html><title>Security check</title><h1>Security check</h1><p>Wait for a person.</p>"
_NEW = b"<!doctype html><title>Saved</title><h1>Saved customer</h1><a href=/new>New customer</a>"
# The new page's body comes after a script that makes the parser wait: committed, titled, and not yet parsed.
_HALF = b"<!doctype html><title>Saved</title><script src=/late.js></script><h1>Saved customer</h1><a href=/>New</a>"
_LATE = 1.0  # seconds the slow server takes to answer


class _Site:
    """``/old`` and the pages it goes to; ``reached`` is set when the browser asks for ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.reached = threading.Event()
        self.ended = threading.Event()  # the test is over: a held answer is given up

    def respond(self, path: str) -> Answer:
        if path == self.path:
            self.reached.set()
        if path == "/old":
            return _OLD
        if path == "/slow":  # answers late
            self.ended.wait(_LATE)
            return _NEW
        if path == "/half":
            return _HALF
        if path == "/late.js":
            self.ended.wait(_LATE)
            return (200, b"")
        if path == "/never":  # a server that does not answer while the test runs
            self.ended.wait(60)
            return None
        if path == "/empty":
            return (204, b"")
        return (404, b"")


@pytest.fixture
def long_cap(controller: PlaywrightPageController, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cap far beyond what these pages take, so that a loaded machine never reaches it."""
    monkeypatch.setattr(controller.settler, "loading_cap", 60.0)


async def _look_while_going(
    controller: PlaywrightPageController, signal: AbortSignal, path: str, reached: str = ""
) -> str:
    """Open /old, look at it, have the page itself go to ``path`` (not an action of the agent's), and look again as
    soon as the browser's request for ``reached`` (``path`` itself by default) has reached the server."""
    site = _Site(reached or path)
    with html_site(site.respond) as origin:
        try:
            await controller.go_to_url(f"{origin}/old", signal)
            assert "Security check" in (await controller.get_browser_state(signal)).content
            await controller.session.active_page.evaluate(f"location = {origin + path!r}")
            assert await asyncio.to_thread(site.reached.wait, 30)
            return (await asyncio.wait_for(controller.get_browser_state(signal), 30)).content
        finally:
            site.ended.set()


@pytest.mark.usefixtures("long_cap")
async def test_a_look_while_the_page_goes_elsewhere_reads_the_new_page_once_it_has_come(
    controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    content = await _look_while_going(controller, signal, "/slow")
    assert "Saved customer" in content and "New customer" in content and "Security check" not in content


@pytest.mark.usefixtures("long_cap")
async def test_a_look_at_a_new_page_not_yet_parsed_waits_for_its_content(
    controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    content = await _look_while_going(controller, signal, "/half", reached="/late.js")
    assert "Saved customer" in content and "New" in content


@pytest.mark.usefixtures("long_cap")
async def test_a_navigation_that_ends_without_a_new_page_is_not_waited_for(
    controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    content = await _look_while_going(controller, signal, "/empty")  # "204 No Content": the page stays
    assert "Security check" in content


async def test_a_navigation_that_never_comes_is_waited_for_at_most_the_cap(
    controller: PlaywrightPageController, signal: AbortSignal
) -> None:
    site = _Site("/never")
    with html_site(site.respond) as origin:
        try:
            await controller.go_to_url(f"{origin}/old", signal)
            page = controller.session.active_page
            await page.evaluate(f"location = {origin + '/never'!r}")
            assert await asyncio.to_thread(site.reached.wait, 30)
            # The cap, plus the round trip on a loaded machine (a look then waits on Playwright, which reads no page
            # while its navigation is under way, until the agent's own deadline for a look).
            await asyncio.wait_for(controller.settler.arrived(page, signal), LOADING_CAP + 5)
        finally:
            site.ended.set()
