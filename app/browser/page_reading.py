"""The agent's eyes: the active tab read into the state the model sees (its elements, its tabs), a crashed tab or
a refused address said plainly instead, and the labelled screenshot. The controller (app/browser/controller.py)
acts on what was read last (``last``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from app.browser.failures import as_tool_errors
from app.browser.navigation_guard import NavigationGuard, unread_page
from app.browser.observer import ElementItem, ElementRef, Observation, observe, preload, rehearse, resolve
from app.browser.playwright_errors import document_replaced, first_line, tab_crashed
from app.browser.screenshot import capture
from app.browser.serialize import render, render_crashed
from app.browser.session import BrowserSession
from app.browser.settle import Settler
from app.browser.stop_bar import StopBar
from app.core.abort import AbortSignal
from app.core.errors import ToolError
from app.core.page import BrowserState, ElementInfo, ListedElement, Screenshot, TabInfo
from app.core.safety.guardrails import Guardrails

log = logging.getLogger(__name__)

_LET_GO_TIMEOUT = 1.0  # letting go of elements waits on the page's main thread, which a page may keep busy


class ReadingOwner(Protocol):
    """What the reader reads with: the controller's, which the composition root and tests may replace."""

    session: BrowserSession
    settler: Settler
    stop_bar: StopBar
    guardrails: Guardrails
    margin: float


class PageReader:
    def __init__(self, owner: ReadingOwner, guard: NavigationGuard, navigation_ms: float) -> None:
        self._owner = owner
        self._guard = guard
        self._navigation_ms = navigation_ms
        # What the agent saw last, and in which tab: its indexes are what the actions act on.
        self.last: Observation | None = None
        self.last_page: Page | None = None
        # Whether new documents get the observer from an init script (the first look adds it).
        self._preloaded = False
        # The elements the actions used since that look: each one is held, in the page and in this process, until
        # it is let go or its tab closes (over a window's rows, thousands of them).
        self._used: list[ElementHandle] = []

    async def element(self, ref: ElementRef, signal: AbortSignal) -> ElementHandle | None:
        """The live element behind ``ref`` (None when it is gone), held until the next look."""
        element = await signal.race(resolve(ref))
        if element is not None:
            self._used.append(element)
        return element

    async def read(self, signal: AbortSignal) -> BrowserState:
        await self._let_go()
        if not self._preloaded:
            # Set first: a second look while this one waits must not add the script twice.
            self._preloaded = True
            try:
                await signal.race(preload(self._owner.session.context))
            except PlaywrightError as exc:
                # Not fatal: then each document's first look installs the observer itself, a little slower.
                log.debug("observer not preloaded: %s", first_line(exc))
        page = self._owner.session.active_page
        if self._owner.session.is_crashed(page):
            return await self._crashed_state(page, signal)
        # The start page of a run that begins at once (the CLI's) is read as the page shows itself, not its spinner.
        await self._owner.settler.settled(page, signal)
        # A navigation under way (a click of the person's just before they hand the browser back, a redirect) is
        # read once its new page is there, never the old one about to go or the new one half-built.
        await self._owner.settler.arrived(page, signal)
        await signal.race(self._guard.sync())
        try:
            observation = await self._observe_allowed(page, signal)
        except ToolError as exc:
            # A tab that crashes while it is being read is the crash, told once as the tab's state, not also a
            # page that "could not be read" (which would cost the agent a failure of its own).
            if not (self._owner.session.is_crashed(page) or tab_crashed(exc.__cause__)):
                raise
            self._owner.session.mark_crashed(page)
            return await self._crashed_state(page, signal)
        if observation is None:
            self.last, self.last_page = None, page
            reason = self._guard.refusal(page) or "a frame inside it is on an address that is not allowed."
            tabs = await signal.race(self._tabs(page, ""))
            return BrowserState(
                url=page.url,
                title="",
                tabs=tabs,
                content=unread_page(self._owner.session.tab_id(page), page.url, reason),
            )
        self.last, self.last_page = observation, page
        elements = self._listed(observation)
        tabs = await signal.race(self._tabs(page, observation.title))
        return BrowserState(
            url=observation.url, title=observation.title, tabs=tabs, content=render(observation), elements=elements
        )

    async def _let_go(self) -> None:
        """The elements used since the last look let go of: a new look makes them stale anyway."""
        used, self._used = self._used, []
        if not used:
            return
        letting = [asyncio.ensure_future(_dispose(each)) for each in used]
        try:
            await asyncio.wait(letting, timeout=_LET_GO_TIMEOUT)
        finally:
            for task in letting:
                task.cancel()

    def _listed(self, observation: Observation) -> list[ListedElement]:
        """What ``render`` lists, as data, each element as ``element_info`` tells it."""
        return [listed_element(ref.item, index, ref.frame.url) for index, ref in observation.refs.items()]

    async def screenshot(self, signal: AbortSignal) -> Screenshot:
        page = self._owner.session.active_page
        refs = self.last.refs if self.last is not None and self.last_page is page else {}
        vault = self._owner.guardrails.secrets
        return await capture(page, refs, lambda text: vault.mask(text) != text, signal)

    async def _crashed_state(self, page: Page, signal: AbortSignal) -> BrowserState:
        self.last, self.last_page = None, page
        tabs = await signal.race(self._tabs(page, ""))
        return BrowserState(
            url=page.url, title="", tabs=tabs, content=render_crashed(self._owner.session.tab_id(page), page.url)
        )

    async def _observe_allowed(self, page: Page, signal: AbortSignal) -> Observation | None:
        """Observe the tab unless it, or a frame in it, stays on a refused address (None). Such frames are taken away
        before the look, and the page is looked at again if one got there during the look."""
        for _attempt in range(2):
            await signal.race(self._guard.take_away(page))
            if self._guard.any_refused(page):
                continue
            observation = await self._observe(page, signal)
            if not self._guard.any_refused(page):
                return observation
        return None

    async def rehearse(self, page: Page) -> None:
        """Let a new document get ready for its first look while the page settles; nothing is read back, and a tab
        on a refused address is left alone."""
        if not self._guard.any_refused(page):
            await rehearse(page, self._owner.margin, self._owner.stop_bar.tag)

    async def _observe(self, page: Page, signal: AbortSignal) -> Observation:
        async with as_tool_errors(self._owner.session, "The page could not be read"):
            try:
                return await signal.race(observe(page, self._owner.margin, self._owner.stop_bar.tag))
            except PlaywrightError as exc:
                if not document_replaced(exc):
                    raise
                # The page navigated mid-read: look again once it has a document.
                await signal.race(page.wait_for_load_state("domcontentloaded", timeout=self._navigation_ms))
                return await signal.race(observe(page, self._owner.margin, self._owner.stop_bar.tag))

    async def _tabs(self, active: Page, active_title: str) -> list[TabInfo]:
        async def title(page: Page) -> str:
            if page is active:
                return active_title
            if self._guard.refusal(page) is not None:
                return ""  # a title is page content too
            try:
                return await asyncio.wait_for(page.title(), 1.0)
            except (TimeoutError, PlaywrightError):
                return ""

        # Ids taken now: a page may close a tab (or we a pop-up) while the titles are read.
        tabs = [(page, self._owner.session.tab_id(page)) for page in self._owner.session.pages]
        titles = await asyncio.gather(*(title(page) for page, _id in tabs))
        return [
            TabInfo(tab_id=tab_id, url=p.url, title=t, active=p is active)
            for (p, tab_id), t in zip(tabs, titles, strict=True)
            if not p.is_closed()
        ]

    def element_info(self, index: int) -> ElementInfo | None:
        ref = self.last.refs.get(index) if self.last is not None else None
        return info_of(ref.item, ref.frame.url) if ref is not None else None


def info_of(item: ElementItem, frame_url: str) -> ElementInfo:
    """What the model is told of a listed element, as data."""
    attrs = dict(item.attrs)
    input_type = attrs.get("type", "") if item.tag == "input" else ""
    # A button input is named by its value; any other field's value is what was typed, never its name.
    value = attrs.get("value", "") if input_type in ("submit", "button", "reset") else ""
    name = item.reads() or value or attrs.get("title") or attrs.get("alt") or ""
    # observe.js lists autocomplete only where it names a password or a code.
    return ElementInfo(
        tag=item.tag,
        name=name,
        input_type=input_type,
        secret_autocomplete=item.tag == "input" and "autocomplete" in attrs,
        frame_url=frame_url,
    )


def listed_element(item: ElementItem, index: int, frame_url: str) -> ListedElement:
    """A listed element as data (``BrowserState.elements``), under ``index``."""
    return ListedElement(**info_of(item, frame_url).model_dump(), index=index, text=item.text, attrs=dict(item.attrs))


async def _dispose(element: ElementHandle) -> None:
    with contextlib.suppress(PlaywrightError):  # its tab or document is gone, and the element with it
        await element.dispose()
