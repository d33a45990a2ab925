"""After an action, wait for the page to settle before it is read again.

What an action sets off often shows a little later: suggestions under a field a few hundred milliseconds after
typing (a debounce, then a request), a menu after a hover delay, a validation message. The page is read once it has
been quiet for ``QUIET`` seconds: no DOM mutation in the main document and no fetch/XHR or document load in flight.
``CAP`` ends the wait on a page that never stops changing (a ticking clock, a spinner), so a step never stalls on it.
Stop ends the wait at once.

Every look also waits for a navigation under way to arrive (``arrived``): one the action set off after the settle's
cap, a person's click just before they hand the browser back, a page's own redirect. The old page is about to go and
the new one may be committed but not yet parsed (a title and no body): the model reads neither.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request

from app.browser.playwright_errors import first_line
from app.core.abort import AbortSignal

log = logging.getLogger(__name__)

T = TypeVar("T")

# Longer than the usual debounce of a search-as-you-type field (200-300 ms) before its request starts: a shorter
# window would call a page quiet in the pause between the keystroke and the request.
QUIET = 0.35
# Most pages settle well within this; a page that keeps changing is read as it is then.
CAP = 2.0
# Requests the page's own scripts make, and documents loading: the ones whose answers change what is shown.
_WATCHED = frozenset({"fetch", "xhr", "document"})
# A navigation is waited for at most this long from when it began (its request, or the commit of a document whose
# request was not seen), its new document's parsing included; a page still loading then is read as it is. Well within
# a look's own deadline (AgentConfig.observe_timeout).
LOADING_CAP = 5.0
_READY_STATE_JS = "() => document.readyState"

# Resolves once no mutation has happened in the document for `quiet` ms, or after `cap` ms: how long it waited.
_DOM_QUIET_JS = """([quiet, cap]) => new Promise(resolve => {
  const start = performance.now();
  let timer = 0;
  const done = () => {
    observer.disconnect(); clearTimeout(timer); clearTimeout(limit); resolve(performance.now() - start);
  };
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, quiet); });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  timer = setTimeout(done, quiet);
  const limit = setTimeout(done, cap);
})"""


@dataclass
class _InFlight:
    """The watched requests of one page that have not finished (``idle`` is set while there are none), and its
    navigation under way (``arrived`` is set while there is none): from its document request, through its redirects,
    until the new document is committed, or until the request failed (stopped, blocked, a download, no content).
    ``began``: when the last navigation began (the watch's start before any)."""

    requests: set[Request] = field(default_factory=set)
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    navigation: Request | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    began: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.idle.set()
        self.arrived.set()

    def started(self, request: Request) -> None:
        if request.frame.parent_frame is not None:
            return
        if request.resource_type in _WATCHED:
            self.requests.add(request)
            self.idle.clear()
        if request.is_navigation_request():
            if self.navigation is None:
                self.began = time.monotonic()
            self.navigation = request  # a redirect's next hop, or a navigation that replaced the one under way
            self.arrived.clear()

    def ended(self, request: Request) -> None:
        self.requests.discard(request)
        if not self.requests:
            self.idle.set()

    def failed(self, request: Request) -> None:
        self.ended(request)
        if request is self.navigation:
            self._arrived()

    def committed(self, frame: Frame) -> None:
        if frame.parent_frame is not None:
            return
        if self.navigation is None:  # a document whose request was not seen (from the history cache, say)
            self.began = time.monotonic()
        self._arrived()

    def _arrived(self) -> None:
        self.navigation = None
        self.arrived.set()


class Settler:
    """Knows what is in flight on each page (from the moment it is first watched) and waits for quiet.

    ``prepare``: run on the page as each wait for a quiet document begins, to use the wait (the controller has a new
    document rehearse its first look); it must return at once and leave the page's work for later.
    """

    def __init__(
        self,
        quiet: float = QUIET,
        cap: float = CAP,
        prepare: Callable[[Page], Awaitable[None]] | None = None,
        loading_cap: float = LOADING_CAP,
    ) -> None:
        self.quiet = quiet
        self.cap = cap
        self.loading_cap = loading_cap
        self.prepare = prepare
        self._pages: dict[Page, _InFlight] = {}
        # Pages settling while nobody waits for them yet (``settle_later``).
        self._later: dict[Page, asyncio.Task[None]] = {}

    def watch(self, page: Page) -> None:
        """Count ``page``'s requests from now on (called before the agent acts on it)."""
        if page in self._pages or page.is_closed():
            return
        flight = self._pages[page] = _InFlight()
        page.on("request", flight.started)
        page.on("requestfinished", flight.ended)
        page.on("requestfailed", flight.failed)
        page.on("framenavigated", flight.committed)

        def closed(_page: Page) -> None:
            self._pages.pop(page, None)
            if (later := self._later.pop(page, None)) is not None:
                later.cancel()

        page.on("close", closed)

    def settle_later(self, page: Page) -> None:
        """Let ``page`` (watched since before it navigated) settle while nobody waits for it: the start page, opened
        before a task begins. The next look at it waits for what is left of that (``settled``)."""
        if page.is_closed():
            return
        if (earlier := self._later.get(page)) is not None:
            earlier.cancel()  # the page navigated again: only the newer document's settling counts
        task = asyncio.ensure_future(self._settle_unattended(page))
        self._later[page] = task

        def done(_task: asyncio.Task[None]) -> None:
            if self._later.get(page) is task:
                del self._later[page]

        task.add_done_callback(done)

    async def _settle_unattended(self, page: Page) -> None:
        try:
            await self.settle(page, AbortSignal())
        except PlaywrightError as exc:
            log.debug("settle: %s", first_line(exc))

    async def settled(self, page: Page, signal: AbortSignal) -> None:
        """Once a page left to settle by ``settle_later`` has (at once for any other page). Raises AbortError on
        Stop; the page goes on settling."""
        later = self._later.get(page)
        if later is not None:
            # asyncio.wait neither cancels the settling on Stop nor raises if the page closed and it was cancelled.
            await signal.race(asyncio.wait([later]))

    async def arrived(self, page: Page, signal: AbortSignal) -> None:
        """Once ``page``'s navigation under way, if any, has committed its new document and that document is parsed
        (``page`` is watched from now on if it was not): at most ``loading_cap`` seconds, and at most that from when
        the navigation began. Raises AbortError on Stop; a closed page ends the wait."""
        self.watch(page)
        flight = self._pages.get(page)
        if flight is None:
            return
        deadline = time.monotonic() + self.loading_cap

        def left() -> float:
            return min(deadline, flight.began + self.loading_cap) - time.monotonic()

        # A round trip to the page first: whatever Chromium told of it before (a navigation's request) is in by then.
        await self._tolerant(signal, page.evaluate(_READY_STATE_JS), self.loading_cap)
        await self._until(signal, flight.arrived.wait(), left())
        await self._tolerant(signal, page.wait_for_load_state("domcontentloaded"), left())

    async def _tolerant(self, signal: AbortSignal, work: Awaitable[object], timeout: float) -> None:
        """``work`` waited for at most ``timeout`` seconds, whatever it raises but Stop (a document being replaced,
        a closed page): the events that follow say the rest."""
        try:
            await self._until(signal, work, timeout)
        except PlaywrightError as exc:
            log.debug("arrival: %s", first_line(exc))

    async def settle(self, page: Page, signal: AbortSignal) -> float:
        """Wait until ``page`` is quiet, at most ``cap`` seconds; returns the seconds waited. Raises AbortError on
        Stop; anything else (a closed tab, a navigation under way) just ends the wait early or goes on with it."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + self.cap
        flight = self._pages.get(page)
        while (left := deadline - loop.time()) > 0 and not page.is_closed():
            if flight is not None and not flight.idle.is_set():
                await self._until(signal, flight.idle.wait(), left)
                continue
            if self.prepare is not None:
                await self._until(signal, self.prepare(page), left)
            quiet_for = await self._dom_quiet(page, signal, min(self.quiet, left), deadline - loop.time())
            if quiet_for is None:  # a navigation replaced the document: wait for the new one to be readable
                await self._until(signal, page.wait_for_load_state("domcontentloaded"), deadline - loop.time())
                continue
            if flight is None or flight.idle.is_set():
                break
        return loop.time() - started

    async def _dom_quiet(self, page: Page, signal: AbortSignal, quiet: float, left: float) -> float | None:
        """Milliseconds until the document was quiet; None when it could not be watched (it navigated away, or
        its script does not answer)."""
        try:
            waited = await self._until(signal, page.evaluate(_DOM_QUIET_JS, [quiet * 1000, left * 1000]), left + 1)
        except PlaywrightError as exc:
            # "Execution context was destroyed": the action navigated. A closed page ends the caller's loop.
            log.debug("settle: %s", first_line(exc))
            return None
        return float(waited) if waited is not None else None

    @staticmethod
    async def _until(signal: AbortSignal, work: Awaitable[T], timeout: float) -> T | None:
        """``work``'s result, or None once ``timeout`` seconds have passed; AbortError on Stop."""
        if timeout <= 0:
            # No time left: the work is not started (closed, so it is not reported as a coroutine never awaited).
            if inspect.iscoroutine(work):
                work.close()
            return None
        try:
            return await asyncio.wait_for(signal.race(work), timeout)
        except TimeoutError:
            return None
