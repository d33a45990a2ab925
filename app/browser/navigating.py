"""Where the agent goes: opening an address (refused ones said plainly, a crashed tab replaced), going back, new
tabs, and finding a tab by its number. The controller's navigation tools (app/browser/controller.py) act through it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from app.browser.actions import failure_text, normalize_url
from app.browser.events import PageEvents
from app.browser.failures import press, race, raise_if_closed
from app.browser.navigation_guard import NavigationGuard
from app.browser.session import BrowserSession
from app.browser.settle import Settler
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.safety.guardrails import Guardrails

T = TypeVar("T")


class RefusedLanding(ToolError):
    """A navigation led to an address the policy refuses; the tab was kept or taken back where it may be."""


class NavigationOwner(Protocol):
    """The controller's parts a navigation uses (the composition root and tests may replace them)."""

    session: BrowserSession
    settler: Settler
    guardrails: Guardrails


class Navigator:
    def __init__(
        self, owner: NavigationOwner, guard: NavigationGuard, events: PageEvents, navigation_ms: float
    ) -> None:
        self._owner = owner
        self._guard = guard
        self._events = events
        self._navigation_ms = navigation_ms

    async def _race(self, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
        return await race(self._owner.session, signal, what, work)

    async def open(self, url: str, signal: AbortSignal) -> str:
        target = self._allowed_url(url)
        page = self._owner.session.active_page
        if self._owner.session.is_crashed(page):
            # Not even a reload brings a crashed tab back: the page opens in a fresh tab that takes its place.
            crashed = page
            page = await self._race(
                signal, "Could not reopen the crashed tab", self._owner.session.replace_crashed(crashed)
            )
            self._events.forget(crashed)
        self._owner.settler.watch(page)  # its requests count from before it navigates
        return await self._navigate(page, target, signal, "Opened")

    def _allowed_url(self, url: str) -> str:
        """The URL the model asked for, made whole, or a ToolError saying why it may not be opened."""
        target = normalize_url(url)
        reason = self._owner.guardrails.navigation.check(target)
        if reason is not None:
            raise ToolError(f"Refused to open {target}: {reason}")
        return target

    async def _navigate(self, page: Page, url: str, signal: AbortSignal, verb: str) -> str:
        await signal.race(self._guard.sync())
        self._guard.last_refused(page)
        slow = ""
        try:
            await signal.race(page.goto(url, wait_until="domcontentloaded", timeout=self._navigation_ms))
        except PlaywrightError as exc:
            raise_if_closed(self._owner.session, exc)
            await self._refuse_landing(page, url, signal)
            if not isinstance(exc, PlaywrightTimeoutError):
                raise ToolError(f"Could not open {url}: {failure_text(exc)}") from exc
            slow = f" (still loading after {self._navigation_ms / 1000:g} s)"
        await self._refuse_landing(page, url, signal)
        self._events.forget(page)
        title = await self._title(page)
        return f"{verb} {page.url}{slow}" + (f" — {json.dumps(title, ensure_ascii=False)}" if title else "")

    async def _refuse_landing(self, page: Page, what: str, signal: AbortSignal) -> None:
        """The navigation led to a refused address (a redirect, or history), which the route blocked or the guard
        undid: say so here, once, instead of a bare net::ERR_ABORTED or the address the tab is back on."""
        refused = self._guard.last_refused(page)
        if refused is None:
            return
        target, reason = refused
        await signal.race(self._guard.take_away(page))
        self._guard.forget(page)
        self._events.forget(page)
        raise RefusedLanding(
            f"{what} led to {target}, which was refused and not read: {reason} The tab is now on {page.url}."
        )

    async def _title(self, page: Page) -> str:
        try:
            return await asyncio.wait_for(page.title(), 2.0)
        except (TimeoutError, PlaywrightError):
            return ""

    async def go_back(self, signal: AbortSignal) -> str:
        page = self._owner.session.active_page
        url_before = page.url
        response = None
        self._guard.last_refused(page)
        try:
            response = await signal.race(page.go_back(wait_until="domcontentloaded", timeout=self._navigation_ms))
        except PlaywrightError as exc:
            raise_if_closed(self._owner.session, exc)
            await self._refuse_landing(page, "Going back", signal)
            if not isinstance(exc, PlaywrightTimeoutError):
                raise ToolError(f"Could not go back: {failure_text(exc)}") from exc
        await self._refuse_landing(page, "Going back", signal)
        # go_back answers None both for "no history" and for an in-page (#hash, pushState) step back.
        if response is None and page.url == url_before:
            raise ToolError("There is no previous page in this tab.")
        self._events.forget(page)
        return f"Went back to {page.url}"

    async def open_in_new_tab(self, url: str, signal: AbortSignal) -> str:
        target = self._allowed_url(url)
        page = await self._race(signal, "Could not open a new tab", self._owner.session.new_tab())
        self._events.forget(page)
        result = await self._navigate(page, target, signal, "Opened")
        return f"{result} in a new tab (tab {self._owner.session.tab_id(page)}), now the active tab"

    def tab(self, tab_id: int) -> Page:
        page = self._owner.session.page_for(tab_id)
        if page is None:
            open_ids = ", ".join(str(self._owner.session.tab_id(p)) for p in self._owner.session.pages)
            raise ToolError(f"There is no tab {tab_id}; open tabs: {open_ids}.")
        return page

    async def switch_to(self, tab_id: int, signal: AbortSignal) -> str:
        page = self.tab(tab_id)
        self._owner.session.activate(page)
        # The tab comes to the front of Chromium's window; the window stays where it is among the person's.
        await self._press(signal, f"Could not switch to tab {tab_id}", page.bring_to_front())
        return f"Switched to tab {tab_id}: {page.url}"

    async def close(self, tab_id: int, signal: AbortSignal) -> str:
        page = self.tab(tab_id)
        if len(self._owner.session.pages) == 1:
            # Closing the last tab would end Chromium; keep an empty one to work in.
            await self._race(signal, "Could not open a new tab", self._owner.session.new_tab())
        await self._race(signal, f"Could not close tab {tab_id}", page.close())
        self._events.forget(page)
        active = self._owner.session.active_page
        return f"Closed tab {tab_id}; now on tab {self._owner.session.tab_id(active)}: {active.url}"

    async def _press(self, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
        return await press(self._owner.session, signal, what, work)
