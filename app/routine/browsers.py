"""Where a routine's rows run: windows of the local profile (the user's sign-in, shared), or pages of browsers that
run elsewhere (a CDP endpoint: ``http://host:9222``, the ``ws://`` URLs browserless, a Selenium Grid 4 node, Steel or
Browserbase hand out; or a Playwright server's ``ws://``). Each slot is one window with its own controller, so each
row's agent sees only its own tabs. The agent loops stay in this process; only the browsers are elsewhere.

A launched Chromium is closed at the end; a remote browser never is (only the pages opened here are).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from app.browser.controller import PlaywrightPageController
from app.browser.endpoint import hide_endpoint_secrets, shown_endpoint
from app.browser.recorder import PageRecorder
from app.browser.session import BrowserSession, LaunchOptions
from app.browser.stop_bar import StopBar
from app.core.abort import AbortSignal
from app.core.errors import BrowserClosedError
from app.core.page import ForeignKeys
from app.core.safety.guardrails import Guardrails
from app.text.i18n import tr

log = logging.getLogger(__name__)

_CONNECT_TIMEOUT_MS = 15_000
_FRONT_TIMEOUT = 5.0
_PROBE_TIMEOUT = 5.0
# Timers, settling and observation work the same in a window behind others: Chromium would otherwise slow a
# background window's timers down to once a second (Playwright's own launch adds these too; said here for clarity).
BACKGROUND_FLAGS = (
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
)


@dataclass
class Slot:
    """One window a row runs in. ``name`` says which browser, as the results file's ``browser`` column."""

    name: str
    session: BrowserSession
    controller: PlaywrightPageController
    endpoint: str = ""  # "" : the local profile
    lost: bool = False  # its browser went away

    @property
    def alive(self) -> bool:
        return not self.lost and self.session.is_connected and bool(self.session.pages)

    def mark_lost(self) -> None:
        self.lost = True

    def use(self, guardrails: Guardrails) -> None:
        """A row begins in this window, with its policies."""
        self.controller.guardrails = guardrails
        self.controller.foreign_keys.clear()

    @property
    def foreign_keys(self) -> list[ForeignKeys]:
        """The fields of this row's pages that got keys the agent did not type."""
        return self.controller.foreign_keys

    async def open(self, url: str, signal: AbortSignal) -> None:
        await self.controller.open(url, signal)

    def recorder(self) -> PageRecorder:
        """What the person does in this window (Show me once: app/routine/teach.py)."""
        return PageRecorder(self.controller)

    async def bring_to_front(self) -> None:
        """This row's window comes to the front with the keyboard, and keeps it while the other rows go on: the
        person acts in it."""
        with contextlib.suppress(PlaywrightError, TimeoutError, BrowserClosedError):
            await asyncio.wait_for(self.session.bring_to_front(), _FRONT_TIMEOUT)


@dataclass
class Browsers:
    """Every slot of one routine; ``close()`` ends what this process started and leaves the rest running."""

    slots: list[Slot] = field(default_factory=list)
    _owners: list[BrowserSession] = field(default_factory=list)

    @property
    def stop_bars(self) -> list[StopBar]:
        """One stop bar per browser (the local one, or each endpoint's), shared by its windows."""
        bars: dict[int, StopBar] = {}
        for slot in self.slots:
            bars.setdefault(id(slot.controller.stop_bar), slot.controller.stop_bar)
        return list(bars.values())

    async def close(self) -> None:
        for slot in self.slots:
            if slot.endpoint:  # a launched Chromium is closed whole below; elsewhere only our windows go
                with contextlib.suppress(Exception):
                    await slot.session.close()
        for owner in self._owners:
            await owner.close()
        self.slots.clear()
        self._owners.clear()


def window_name(number: int) -> str:
    """A local window as the rows, the results and the person's questions name it: "window 2"."""
    return tr("window {n}", n=number)


async def local_browsers(options: LaunchOptions, windows: int, playwright: Playwright | None = None) -> Browsers:
    """Chromium with the user's profile, and ``windows`` windows of it."""
    options = options.model_copy(update={"extra_args": [*options.extra_args, *BACKGROUND_FLAGS]})
    owner = await BrowserSession.launch(options, playwright=playwright)
    browsers = Browsers(_owners=[owner])
    try:
        first = owner.pages[0]
        sessions = [BrowserSession.window_of(owner, first)]
        for _ in range(windows - 1):
            sessions.append(await owner.new_window())
        _add_slots(browsers, sessions, [window_name(i) for i in range(1, windows + 1)], "")
    except BaseException:
        await browsers.close()
        raise
    return browsers


async def remote_browsers(endpoints: list[str], per_endpoint: int, downloads_dir: Path) -> Browsers:
    """``per_endpoint`` pages in each remote browser, each named by its address without its token. An endpoint that
    cannot be reached is refused in plain words (RuntimeError) before any row runs."""
    browsers = Browsers()
    try:
        for endpoint in endpoints:
            hide_endpoint_secrets(endpoint)  # a library's error may quote the whole address
            owner, served = await _attach(endpoint, downloads_dir)
            browsers._owners.append(owner)
            sessions = [await _window(owner, served) for _ in range(per_endpoint)]
            label = shown_endpoint(endpoint)
            names = [label if per_endpoint == 1 else f"{label} #{i}" for i in range(1, per_endpoint + 1)]
            _add_slots(browsers, sessions, names, endpoint)
    except BaseException:
        await browsers.close()
        raise
    return browsers


def _add_slots(browsers: Browsers, sessions: list[BrowserSession], names: list[str], endpoint: str) -> None:
    """The slots of one browser. They share its stop bar (``stop_bars``): every window's observer leaves it out."""
    shared_bar = None
    for session, slot_name in zip(sessions, names, strict=True):
        controller = PlaywrightPageController(session)
        if shared_bar is None:
            shared_bar = controller.stop_bar
        else:
            controller.stop_bar = shared_bar
        slot = Slot(slot_name, session, controller, endpoint)
        session.on_closed(slot.mark_lost)
        browsers.slots.append(slot)


async def _attach(endpoint: str, downloads_dir: Path) -> tuple[BrowserSession, bool]:
    """The browser, and whether a Playwright server started it for us. A Playwright server (ws:// from
    ``playwright run-server``) is known by its answer to a plain GET; else a CDP endpoint (http(s):// or a DevTools
    ws://), else a Playwright server after all. A CDP handshake sent to a Playwright server waits for its whole
    timeout (and has the server start a browser for nothing): hence the look first."""
    websocket = endpoint.startswith(("ws://", "wss://"))
    if websocket and await asyncio.to_thread(_is_playwright_server, endpoint):
        return await _connect(endpoint, downloads_dir), True
    try:
        return await BrowserSession.attach(endpoint, downloads_dir=downloads_dir), False
    except RuntimeError as cdp_failure:
        if not websocket:
            raise
        try:
            return await _connect(endpoint, downloads_dir), True
        except PlaywrightError:
            raise RuntimeError(str(cdp_failure)) from None


async def _window(owner: BrowserSession, served: bool) -> BrowserSession:
    """One more window for a row. A Playwright server's browser works in a context Playwright made for this
    connection, where a window opened over CDP would never appear: a tab of that context instead."""
    if served:
        return BrowserSession.window_of(owner, await owner.context.new_page())
    return await owner.new_window()


async def _connect(endpoint: str, downloads_dir: Path) -> BrowserSession:
    """A browser of a Playwright server (PlaywrightError when it is not one)."""
    playwright = await async_playwright().start()
    try:
        browser: Browser = await playwright.chromium.connect(endpoint, timeout=_CONNECT_TIMEOUT_MS)
        return await BrowserSession.over(browser, downloads_dir=downloads_dir, playwright=playwright)
    except BaseException:
        await playwright.stop()
        raise


def _is_playwright_server(endpoint: str) -> bool:
    """A Playwright server answers a plain GET at its address with "Running"; a CDP endpoint never does."""
    address = "http" + endpoint.removeprefix("ws")
    try:
        with urllib.request.urlopen(address, timeout=_PROBE_TIMEOUT) as response:
            return bool(response.status == 200 and response.read(64).strip() == b"Running")
    except (OSError, ValueError):
        return False
