"""One Chromium the agent works in: launched with a persistent profile, or attached over CDP; its tabs; its end."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, CDPSession, Page, Playwright, ViewportSize, async_playwright
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from app.browser.chromium import CHROMIUM_FLAGS, find_chromium
from app.browser.chromium_window import set_window_bounds, window_bounds, window_state
from app.browser.downloads import Downloads
from app.browser.endpoint import hide_endpoint_secrets, shown_endpoint
from app.browser.playwright_errors import first_line, missing_library, profile_in_use
from app.browser.private_files import private_folder
from app.browser.processes import kill_profile_processes, runs_profile
from app.browser.profile import quiet_profile
from app.browser.screen_rect import ScreenRect
from app.browser.window_focus import WindowFocus
from app.core.errors import BrowserClosedError, CannotStart

log = logging.getLogger(__name__)

_CLOSE_TIMEOUT = 10.0
_ATTACH_TIMEOUT_MS = 15_000
_STAGING = "Page Agent downloads in progress"
_ATTACHED_STAGING = ".page-agent-downloads-in-progress"


class LaunchOptions(BaseModel):
    executable: str | None = None  # None: found by app.browser.chromium
    data_dir: Path | None = None  # the app's data folder, where a browser it downloaded lives (None: the default)
    profile_dir: Path
    downloads_dir: Path | None = None  # None: <profile_dir>/../downloads
    headless: bool = False
    window: ScreenRect | None = None  # where the headed window goes
    viewport: tuple[int, int] = (1280, 800)  # headless only; a headed page follows its window
    extra_args: list[str] = Field(default_factory=list)


class BrowserSession:
    """Tabs get stable ids (1, 2, ...) for the session's lifetime; the active tab is where the agent works.

    A tab the agent opens (``new_tab``) or that its own action sets off (``adopting_popup``) becomes the active tab; a
    tab the page opens on its own does not: a page cannot pull the agent away. ``close()`` ends a launched Chromium
    with every helper process, and only disconnects from an attached one.
    """

    def __init__(
        self,
        playwright: Playwright,
        context: BrowserContext,
        *,
        browser: Browser | None,
        downloads: Downloads,
        profile_dir: Path | None,
        headed: bool = False,
        window: Page | None = None,
        window_focus: WindowFocus | None = None,
    ) -> None:
        """``window``: this session is one window of a browser another session owns (``window_of``), whose
        ``window_focus`` it shares."""
        self._playwright = playwright
        self.context = context
        self._browser = browser  # set when attached: the browser we must not close
        self.downloads = downloads
        self.downloads_dir = downloads.folder
        self._profile_dir = profile_dir
        self._ids = itertools.count(1)
        self._tabs: dict[Page, int] = {}
        self._active: Page | None = None
        self._crashed: set[Page] = set()
        self._connected = True
        self._closing = False
        self._closed_callbacks: list[Callable[[], None]] = []
        self._page_callbacks: list[Callable[[Page], None]] = []
        self._opening_own = 0
        self._by_page: set[Page] = set()
        # While the agent acts (and ``_adopt_until`` after), the first tab the page opens is the action's outcome.
        self._acting = 0
        self._adopt_until = 0.0
        self._adopted = False
        # A window's session knows only its own tabs and the tabs they open; the owner's knows them all.
        self._window = window is not None
        # A Chromium of our own, on screen: the agent's actions must not take the keyboard (browser/window_focus.py).
        self._headed = headed and browser is None and (profile_dir is not None or window_focus is not None)
        if window_focus is not None:
            self.window_focus = window_focus
        elif self._headed and profile_dir is not None:
            self.window_focus = WindowFocus.for_display(_owned_by(profile_dir))
        else:
            self.window_focus = WindowFocus(None, _nobody)
        self._browser_cdp: CDPSession | None = None
        for page in [window] if window is not None else context.pages:
            self._track(page, activate=False)
        if window is None:
            context.on("page", self._appeared)
        if browser is not None:
            browser.on("disconnected", self._lost)
        else:
            context.on("close", self._lost)

    # --- starting ----------------------------------------------------------------------------------------------

    @classmethod
    async def launch(cls, options: LaunchOptions, playwright: Playwright | None = None) -> BrowserSession:
        """Start Chromium with the persistent profile (logins survive restarts), on ``playwright`` when a driver was
        started ahead (the session owns it from now on)."""
        playwright = playwright or await async_playwright().start()
        profile = options.profile_dir.resolve()
        # Watched from before it starts: its first window does not take the keyboard (browser/window_focus.py).
        focus = WindowFocus(None, _nobody) if options.headless else WindowFocus.for_display(_owned_by(profile))
        focus.watch()
        before = focus.active_window()
        try:
            executable = await find_chromium(options.executable, options.data_dir)
            downloads = (options.downloads_dir or profile.parent / "downloads").resolve()
            await asyncio.to_thread(_make_dirs, profile, downloads)
            await asyncio.to_thread(quiet_profile, profile)
            args = [*CHROMIUM_FLAGS, *options.extra_args]
            if options.window is not None and not options.headless:
                x, y, width, height = options.window
                args += [f"--window-position={x},{y}", f"--window-size={width},{height}"]
            viewport: ViewportSize | None = None
            if options.headless:
                viewport = {"width": options.viewport[0], "height": options.viewport[1]}
            try:
                context = await playwright.chromium.launch_persistent_context(
                    str(profile),
                    executable_path=executable,
                    headless=options.headless,
                    args=args,
                    viewport=viewport,
                    no_viewport=viewport is None,
                    accept_downloads=True,
                    downloads_path=str(downloads),
                )
            except PlaywrightError as exc:
                raise CannotStart(_launch_failure(exc, executable, profile)) from exc
            # Unfinished downloads stay inside the private profile until they are complete.
            session = cls(
                playwright,
                context,
                browser=None,
                profile_dir=profile,
                downloads=await _take_downloads(context, profile / _STAGING, downloads),
                headed=not options.headless,
                window_focus=focus,
            )
            await session._ensure_tab()
            # A new window takes the keyboard; the one the person was in (the panel) has it back, if the watch missed.
            await session.window_focus.return_keyboard(before)
            return session
        except BaseException:
            focus.close()
            await playwright.stop()
            raise

    @classmethod
    async def attach(
        cls, cdp_url: str, downloads_dir: Path | None = None, playwright: Playwright | None = None
    ) -> BrowserSession:
        """Work in a running Chromium/Chrome (started with --remote-debugging-port) and its active tab."""
        hide_endpoint_secrets(cdp_url)  # a library's error may quote the whole address
        playwright = playwright or await async_playwright().start()
        try:
            try:
                browser = await playwright.chromium.connect_over_cdp(cdp_url, timeout=_ATTACH_TIMEOUT_MS)
            except PlaywrightError as exc:
                raise RuntimeError(
                    f"Could not attach to the browser at {shown_endpoint(cdp_url)}: {first_line(exc)}. Start "
                    "Chrome/Chromium with --remote-debugging-port=9222 and pass http://127.0.0.1:9222."
                ) from exc
            return await cls.over(browser, downloads_dir=downloads_dir, playwright=playwright)
        except BaseException:
            await playwright.stop()
            raise

    @classmethod
    async def over(cls, browser: Browser, *, downloads_dir: Path | None, playwright: Playwright) -> BrowserSession:
        """Work in ``browser``, already connected (over CDP, or to a Playwright server), and its active tab; the
        session owns ``playwright`` from now on and never closes the browser."""
        context = browser.contexts[0] if browser.contexts else await browser.new_context()
        downloads = (downloads_dir or Path.home() / "Downloads").resolve()
        # Another machine's browser may be at the other end: the unfinished files wait in a hidden folder.
        session = cls(
            playwright,
            context,
            browser=browser,
            profile_dir=None,
            downloads=await _take_downloads(context, downloads / _ATTACHED_STAGING, downloads),
        )
        session._active = await _visible_page(context.pages)
        await session._ensure_tab()
        return session

    @classmethod
    def window_of(cls, owner: BrowserSession, page: Page) -> BrowserSession:
        """``page``'s window of ``owner``'s browser as a session of its own (see ``new_window``)."""
        return cls(
            owner._playwright,
            owner.context,
            browser=owner._browser,
            downloads=owner.downloads,
            profile_dir=None,
            headed=owner._headed,
            window=page,
            window_focus=owner.window_focus,
        )

    async def new_window(self) -> BrowserSession:
        """A new window of this browser (same profile: the sign-in is shared) as a session of its own, for one agent
        among several. Closing it closes its tabs only."""
        return BrowserSession.window_of(self, await self._open_window())

    async def _open_window(self) -> Page:
        browser = self.context.browser
        if browser is not None:
            try:
                cdp = await browser.new_browser_cdp_session()
            except PlaywrightError:
                cdp = None  # not a CDP connection (a Playwright server): a tab instead
            if cdp is not None:
                try:
                    async with self.context.expect_page(timeout=_ATTACH_TIMEOUT_MS) as opened:
                        # In the background: it does not take the keyboard as it opens.
                        target = {"url": "about:blank", "newWindow": True, "background": True}
                        await cdp.send("Target.createTarget", target)
                    return await opened.value
                except PlaywrightError as exc:
                    log.info("no new window (%s): a new tab instead", first_line(exc))
                finally:
                    with contextlib.suppress(PlaywrightError):
                        await cdp.detach()
        return await self.context.new_page()

    async def _ensure_tab(self) -> None:
        if not self._tabs:
            await self.new_tab()
        if self._active is None:
            self._active = next(iter(self._tabs))

    # --- tabs --------------------------------------------------------------------------------------------------

    def _appeared(self, page: Page) -> None:
        if self._opening_own:
            self._track(page, activate=True)
            return
        self._by_page.add(page)
        self._track(page, activate=self._adopt())

    def _adopt(self) -> bool:
        if self._adopted or not (self._acting or time.monotonic() < self._adopt_until):
            return False
        self._adopted = True
        return True

    @contextlib.contextmanager
    def adopting_popup(self, grace: float) -> Iterator[None]:
        """The first tab the page opens during the block, or within ``grace`` s after it, becomes the active tab: the
        agent's own action (a click on a target=_blank link, a script) opened it."""
        self._acting += 1
        self._adopted = False
        try:
            yield
        finally:
            self._acting -= 1
            self._adopt_until = time.monotonic() + grace

    async def new_tab(self) -> Page:
        """A blank tab of the agent's own, made the active tab. On screen it opens in front, in a window that stays
        where it is among the others (Chromium would otherwise take the keyboard for it)."""
        self._opening_own += 1
        try:
            # On screen, in a window Chromium picks (of a browser with several windows, not always this session's).
            page = await (self._tab_in_front() if self._headed else self.context.new_page())
        finally:
            self._opening_own -= 1
        self._track(page, activate=True)  # usually done already by the context's "page" event
        self._active = page
        return page

    async def _tab_in_front(self) -> Page:
        browser = self.context.browser
        if browser is None:  # Playwright always has one for a launched Chromium
            return await self.context.new_page()
        if self._browser_cdp is None:
            self._browser_cdp = await browser.new_browser_cdp_session()
        async with self.context.expect_page() as opened:
            await self._browser_cdp.send("Target.createTarget", {"url": "about:blank", "focus": False})
        return await opened.value

    async def bring_to_front(self) -> None:
        """The active tab's window comes forward with the keyboard, on purpose: the person acts in it (a hand-off, a
        row's "Show its window"). It keeps the keyboard while the agent presses in other windows."""
        await self.window_focus.show(self.active_page.bring_to_front)

    def opened_by_page(self, page: Page) -> bool:
        """Whether a page opened this tab (window.open, target=_blank), not the agent nor the browser at start."""
        return page in self._by_page

    def _track(self, page: Page, *, activate: bool) -> None:
        if page in self._tabs:
            return
        self._tabs[page] = next(self._ids)
        if self._window:
            page.on("popup", self._appeared)
        page.on("close", self._untrack)
        page.on("crash", self._crash)
        if activate or self._active is None:
            self._active = page
        for callback in list(self._page_callbacks):
            callback(page)

    def _crash(self, page: Page) -> None:
        self.mark_crashed(page)

    def mark_crashed(self, page: Page) -> None:
        """Count ``page`` as crashed: its "crash" event, or a call that failed with "Target crashed" before the
        event arrived."""
        if page in self._tabs:
            self._crashed.add(page)

    def _untrack(self, page: Page) -> None:
        self._tabs.pop(page, None)
        self._crashed.discard(page)
        self._by_page.discard(page)
        if self._active is page:
            # The most recently opened tab left is the likeliest next place to work.
            self._active = next(reversed(self._tabs), None)

    @property
    def pages(self) -> list[Page]:
        """Open tabs, oldest first."""
        return list(self._tabs)

    def tab_id(self, page: Page) -> int:
        return self._tabs[page]

    def page_for(self, tab_id: int) -> Page | None:
        return next((page for page, pid in self._tabs.items() if pid == tab_id), None)

    @property
    def active_page(self) -> Page:
        if not self._connected or self._active is None:
            raise BrowserClosedError("The browser was closed.")
        return self._active

    def activate(self, page: Page) -> None:
        if page not in self._tabs:
            raise ValueError("not a tab of this session")
        self._active = page

    def is_crashed(self, page: Page) -> bool:
        """Chromium stopped rendering this tab ("Aw, Snap!"): nothing works in it any more, not even a reload."""
        return page in self._crashed

    async def replace_crashed(self, page: Page) -> Page:
        """A fresh tab in place of a crashed one: same tab id, active if the crashed one was."""
        active = self._active
        fresh = await self.new_tab()
        self._tabs = {(fresh if p is page else p): pid for p, pid in self._tabs.items() if p is not fresh}
        self._active = fresh if active is page or active is fresh else active
        with contextlib.suppress(PlaywrightError):
            await page.close()
        return fresh

    def on_page(self, callback: Callable[[Page], None]) -> None:
        """Call ``callback(page)`` for every tab opened from now on (read ``pages`` for the current ones)."""
        self._page_callbacks.append(callback)

    # --- the window ---------------------------------------------------------------------------------------------

    async def window_state(self) -> str:
        """Chromium's window state: normal, maximized, minimized or fullscreen."""
        return await window_state(self.context, self.active_page)

    async def window_bounds(self) -> ScreenRect:
        """Chromium's window (the one holding the active tab) as x, y, width, height."""
        return await window_bounds(self.context, self.active_page)

    async def set_window_bounds(self, rect: ScreenRect) -> None:
        """Move and size Chromium's window, un-maximising it first (a maximised window ignores bounds)."""
        await set_window_bounds(self.context, self.active_page, rect)

    # --- the end -----------------------------------------------------------------------------------------------

    @property
    def is_connected(self) -> bool:
        return self._connected

    @property
    def attached(self) -> bool:
        return self._browser is not None

    @property
    def on_screen(self) -> bool:
        """Whether a person sees this browser (launched headed, or theirs, attached): its own dialogs show too."""
        return self._headed or self.attached

    def on_closed(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` once when the browser goes away without ``close()`` (the user closed it, a crash)."""
        self._closed_callbacks.append(callback)

    def _lost(self, _gone: object = None) -> None:
        if not self._connected:
            return
        self._connected = False
        if self._closing:
            return
        for callback in list(self._closed_callbacks):
            try:
                callback()
            except Exception:
                log.exception("browser-closed callback failed")

    async def close(self) -> None:
        """Idempotent. A launched Chromium is ended (killed if it will not go); an attached one keeps running."""
        if self._closing:
            return
        self._closing = True
        if self._window:  # one window of a browser another session owns: only its own tabs
            for page in self.pages:
                with contextlib.suppress(PlaywrightError, TimeoutError):
                    await asyncio.wait_for(page.close(), _CLOSE_TIMEOUT)
            self._connected = False
            # Off what the windows share: a browser must not keep every window it had alive in this process.
            (self._browser or self.context).remove_listener("disconnected" if self._browser else "close", self._lost)
            return
        try:
            if self._browser is not None and self._connected:
                # The user's own browser goes back to saving downloads its usual way.
                await self.downloads.release()
            if self._browser is None and self._connected:
                try:
                    await asyncio.wait_for(self.context.close(), _CLOSE_TIMEOUT)
                except (TimeoutError, PlaywrightError) as exc:
                    log.warning("Chromium did not close cleanly: %s", first_line(exc))
        finally:
            self._connected = False
            self.window_focus.close()
            # Stopping the driver drops a CDP connection without closing the browser at the other end.
            await self._playwright.stop()
            if self._profile_dir is not None:
                killed = await kill_profile_processes(self._profile_dir)
                if killed:
                    log.warning("killed %d Chromium processes left behind", len(killed))


async def _take_downloads(context: BrowserContext, staging: Path, folder: Path) -> Downloads:
    browser = context.browser
    if browser is None:  # Playwright always has one for Chromium; without it nothing can be downloaded
        raise RuntimeError("Chromium started without a browser connection.")
    return await Downloads.take_over(browser, staging, folder)


def _nobody(_pid: int) -> bool:
    return False


def _owned_by(profile: Path) -> Callable[[int], bool]:
    """Whether a process is one of the Chromium's running ``profile``."""
    resolved = profile.resolve()
    return lambda pid: runs_profile(pid, resolved)


def _make_dirs(*dirs: Path) -> None:
    # The profile holds the user's signed-in sessions, the downloads what pages sent: the user's eyes only.
    for directory in dirs:
        private_folder(directory)


def _launch_failure(exc: PlaywrightError, executable: str, profile: Path) -> str:
    if profile_in_use(exc):
        return (
            f"The browser profile {profile} is in use by another Chromium window. Close that window (or the "
            "other Page Agent) and try again."
        )
    if missing_library(exc, "libatomic"):
        return "Chromium is missing a library: on Debian/Ubuntu run `sudo apt-get install libatomic1`."
    return f"Chromium ({executable}) did not start: {first_line(exc)}"


async def _visible_page(pages: list[Page]) -> Page | None:
    """The tab the user is looking at in an attached browser (CDP does not say which one is focused)."""
    for page in reversed(pages):
        try:
            state = await asyncio.wait_for(page.evaluate("document.visibilityState"), 2.0)
        except (TimeoutError, PlaywrightError):
            continue
        if state == "visible":
            return page
    return pages[-1] if pages else None
