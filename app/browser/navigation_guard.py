"""Keeps every tab and frame of a BrowserSession inside the agent's NavigationPolicy, in the browser itself.

No single mechanism sees every navigation, so there are three:
- Routing, while only some sites are allowed: every navigation request of every tab, popup and frame (link, form
  post, ``location=``, meta refresh, ``window.open``, iframe) is checked before it leaves, and a refused one is
  answered "204 No Content", which leaves the page where it was. Sub-resources (images, scripts, XHR) pass untouched.
- Routing does not see redirect hops (Playwright lets them through without asking the route) nor addresses that are
  no network request at all (chrome:, data:, view-source:, blob:). So the controller never reads a tab, or a frame,
  on a refused address, whatever got it there: before it looks, and after each navigation, the guard takes such
  frames away (``take_away``): a tab goes back (or to about:blank), a frame inside a page to about:blank.
Each block is told to the model as a sentence (``drain``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request, Route

from app.browser.playwright_errors import first_line
from app.browser.session import BrowserSession
from app.core.safety.navigation import NavigationPolicy

log = logging.getLogger(__name__)

# Chromium's own "this page did not load" page: harmless, and the model needs to read why a page failed.
_ERROR_PAGE = "chrome-error://"
_LEAVE_MS = 10_000
_URL_MAX = 200


class NavigationGuard:
    """``policy()`` is read at every check, so the guard always follows the agent's current guardrails; ``sync()``
    adds or removes the route to match it."""

    def __init__(self, session: BrowserSession, policy: Callable[[], NavigationPolicy]) -> None:
        self._session = session
        self._policy = policy
        self._routed = False
        self._sync_lock = asyncio.Lock()
        self._notes: list[tuple[Page | None, str]] = []
        # The last refused address each tab tried to open (blocked) or reached (taken back), and why.
        self._refused: dict[Page, tuple[str, str]] = {}
        for page in session.pages:
            self._watch(page)
        session.on_page(self._watch)

    # --- routing -----------------------------------------------------------------------------------------------

    async def sync(self) -> None:
        """Route navigations while the policy allows only some sites, and only then: routing pauses every request
        of the context (sub-resources included) for a round trip to this process."""
        async with self._sync_lock:
            wanted = self._policy().restricted
            if wanted == self._routed:
                return
            if wanted:
                await self._session.context.route("**/*", self._route)
            else:
                await self._session.context.unroute("**/*", self._route)
            self._routed = wanted

    async def _route(self, route: Route, request: Request) -> None:
        try:
            if not request.is_navigation_request():
                await route.fallback()
                return
            frame = _frame_of(request)
            policy = self._policy()
            is_subframe = frame is not None and frame.parent_frame is not None
            reason = policy.check_frame(request.url) if is_subframe else policy.check(request.url)
            if reason is None:
                await route.fallback()
                return
            # 204 makes the browser drop the navigation and stay on the page it was on (no error page).
            await route.fulfill(status=204)
        except PlaywrightError as exc:  # the page closed meanwhile
            log.debug("navigation route: %s", first_line(exc))
            return
        # Each sentence leads with what happened: the panel's timeline shows the first two lines.
        url = _clip(request.url)
        if frame is None:
            self._note(None, f"Blocked: the page tried to open {url} in a new tab: {reason}")
        elif is_subframe:
            self._note(frame.page, f"Blocked: a frame in tab {self._tab(frame.page)} tried to load {url}: {reason}")
        else:
            self._refused[frame.page] = (request.url, reason)
            self._note(
                frame.page,
                f"Blocked: the page in tab {self._tab(frame.page)} tried to go to {url}, and the "
                f"tab stayed where it was: {reason}",
            )

    # --- taking refused frames away ----------------------------------------------------------------------------

    def _watch(self, page: Page) -> None:
        page.on("framenavigated", lambda frame: self._navigated(page, frame))

        def closed(_page: Page) -> None:
            self._refused.pop(page, None)

        page.on("close", closed)

    def _navigated(self, page: Page, frame: Frame) -> None:
        # Only noted here; ``take_away`` acts when the agent next looks or navigates, so that a person using the
        # browser between tasks or during a hand-off is not fought over every page they open.
        if frame.parent_frame is None and (reason := self._frame_refusal(frame)) is not None:
            self._refused[page] = (frame.url, reason)

    async def take_away(self, page: Page) -> None:
        """Move the tab and its frames off refused addresses: the tab goes back (or, without a usable history, to
        about:blank), a frame inside it to about:blank. Each move is told."""
        reason = self.refusal(page)
        if reason is not None:
            url = _clip(page.url)
            with contextlib.suppress(PlaywrightError):
                await page.go_back(wait_until="commit", timeout=_LEAVE_MS)
            if self.refusal(page) is not None:  # no history to go back to, or that was refused too
                with contextlib.suppress(PlaywrightError):
                    await page.goto("about:blank", timeout=_LEAVE_MS)
            if page.is_closed():
                return
            self._note(
                page,
                f"Taken back: tab {self._tab(page)} was on {url}, which was not read; it is now on "
                f"{_clip(page.url)}. Why: {reason}",
            )
        for frame in page.frames[1:]:
            reason = self._frame_refusal(frame)
            if reason is None or frame.is_detached():
                continue
            url = _clip(frame.url)
            with contextlib.suppress(PlaywrightError):
                await frame.goto("about:blank", timeout=_LEAVE_MS)
            self._note(page, f"Emptied: a frame in tab {self._tab(page)} was on {url}, which was not read: {reason}")

    # --- what the controller asks ------------------------------------------------------------------------------

    def last_refused(self, page: Page) -> tuple[str, str] | None:
        """The refused address the tab last tried to open or reached (and why), forgotten once asked: a navigation
        clears it before it starts and asks after it ended, so it learns what the route or the guard undid."""
        return self._refused.pop(page, None)

    def refusal(self, page: Page) -> str | None:
        """Why the tab must not be read where it is now, or None."""
        return self._frame_refusal(page.main_frame)

    def any_refused(self, page: Page) -> bool:
        """Whether the tab or any frame inside it is on a refused address."""
        return any(self._frame_refusal(frame) is not None for frame in page.frames)

    def _frame_refusal(self, frame: Frame) -> str | None:
        url = frame.url
        if not url or url.startswith(_ERROR_PAGE):  # nothing committed yet, or Chromium's error page
            return None
        policy = self._policy()
        return policy.check(url) if frame.parent_frame is None else policy.check_frame(url)

    # --- telling the model -------------------------------------------------------------------------------------

    def _note(self, page: Page | None, text: str) -> None:
        self._notes.append((page, text))

    def tell(self, page: Page, text: str) -> None:
        """A sentence about ``page`` for the model's next look."""
        self._note(page, text)

    def forget(self, page: Page) -> None:
        """Drop pending sentences about ``page`` that an action's own result already told."""
        self._notes = [(p, text) for p, text in self._notes if p is not page]

    def drain(self) -> list[str]:
        notes, self._notes = self._notes, []
        # Once each: a page that embeds the same blocked frame on every load says so once per look.
        return list(dict.fromkeys(text for _page, text in notes))

    def _tab(self, page: Page) -> str:
        try:
            return str(self._session.tab_id(page))
        except KeyError:
            return "?"


def _frame_of(request: Request) -> Frame | None:
    """The frame a navigation request is for; None for a new tab's first request (its frame does not exist yet)."""
    try:
        return request.frame
    except PlaywrightError:
        return None


def _clip(url: str) -> str:
    return url if len(url) <= _URL_MAX else url[: _URL_MAX - 1] + "…"


def unread_page(tab_id: int, url: str, reason: str) -> str:
    """The page state shown instead of a page the policy refuses: what it is, that it was not read, how to go on."""
    return (
        f"Tab {tab_id} is on {_clip(url)}: {reason} The page was not read. Use go_back, or go_to_url with an "
        "allowed http(s) page, to go on."
    )
