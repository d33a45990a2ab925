"""Browser endpoints a routine's rows run in, treated as the shared, limited services they are.

- **A CDP endpoint or a Playwright server** (browserless, a Chromium with --remote-debugging-port, Steel, Browserbase,
  ``playwright run-server``): one connection, a window in it per lane. When its browser goes away between rows
  (browserless ends a session at its TIMEOUT), the next lane to need it connects again, for the rows not begun.
- **A Selenium Grid** by its own address (app/routine/grid.py): a session per lane, asked of the grid's queue, and
  deleted when the lane is done with it (or its browser died).

Every endpoint is asked with care: an answer of 429 or 503 (a queue that is full, a session rate limit) or an
endpoint that cannot be reached for now means wait and ask again, longer each time, never fail a row; a grid's queue
that times out is asked again too. An endpoint where several rows in a row failed for their browser's sake is paused
for a while (and said) while the others go on. Each of these is said as a ``BrowserNote``. After ``GIVE_UP_AFTER``
seconds without a window a lane stops asking, and says why: its rows go to the others, or end ``error`` before
sending anything when no browser is left.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, async_playwright
from playwright.async_api import Error as PlaywrightError

from app.browser.endpoint import shown_endpoint
from app.browser.playwright_errors import busy_answer, first_line
from app.browser.session import BrowserSession
from app.routine.grid import Grid, GridBusy, GridRefused
from app.routine.types import BrowserNote, BrowserNoteKind

log = logging.getLogger(__name__)

PAUSE_AFTER = 3  # rows in a row that failed because of their browser
PAUSE_SECONDS = 60.0  # the first pause; each next one twice as long, up to MAX_WAIT
FIRST_WAIT = 1.0  # the first wait after a 429/503; then twice as long each time, up to MAX_WAIT
MAX_WAIT = 300.0
GIVE_UP_AFTER = 30 * 60.0  # seconds a lane asks for a window without getting one
_CONNECT_TIMEOUT_MS = 15_000
_PROBE_TIMEOUT = 5.0


class Unavailable(Exception):
    """No window from this endpoint now; the message says why in plain words. ``again``: asking later may work (a
    full queue, a rate limit, an endpoint that cannot be reached); ``busy``: the endpoint said it is full (429/503)."""

    def __init__(self, words: str, *, again: bool, busy: bool = False) -> None:
        super().__init__(words)
        self.again = again
        self.busy = busy


@dataclass
class Window:
    """A window for one lane: its session, which browser it is in (windows of one browser share its stop bar), and
    how to let it go."""

    session: BrowserSession
    browser: BrowserSession
    release: Callable[[], Awaitable[None]]


class Endpoint:
    """One address of ``--browser-endpoint``: its windows, its back-off and its pauses."""

    def __init__(self, endpoint: str, downloads_dir: Path) -> None:
        self.endpoint = endpoint
        self.label = shown_endpoint(endpoint)
        self._downloads_dir = downloads_dir
        self.tell: Callable[[BrowserNote], None] = lambda _note: None
        self._failed_in_a_row = 0
        self._pauses = 0
        self._paused_until = 0.0

    async def window(self) -> Window:
        """A new window for a lane (Unavailable when there is none now)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Let go of everything this process holds there; never a browser it did not start."""

    async def next_window(self) -> Window | str:
        """A window, once the endpoint gives one (waiting out a pause, backing off on 429/503); or, after
        ``GIVE_UP_AFTER`` seconds without one or a refusal for good, why not, in plain words."""
        deadline = time.monotonic() + GIVE_UP_AFTER
        wait = FIRST_WAIT
        while True:
            await self.unpaused()
            try:
                return await self.window()
            except Unavailable as exc:
                words = str(exc)
                if not exc.again or time.monotonic() >= deadline:
                    self._note("gone", words)
                    return words
                if not exc.busy:  # a grid's queue timed out: it has its own wait, ask again at once
                    self._note("waiting", words)
                    continue
                pause = min(random.uniform(wait / 2, wait), max(0.0, deadline - time.monotonic()))
                wait = min(wait * 2, MAX_WAIT)
                self._note("busy", f"{words} Asking again in {pause:.0f} s.", pause)
                await asyncio.sleep(pause)

    def row_ended(self, failed: bool) -> None:
        """A row ended in a window of this endpoint: ``failed`` when its browser went away or it could not start.
        ``PAUSE_AFTER`` such rows in a row pause the endpoint."""
        if not failed:
            self._failed_in_a_row = 0
            return
        self._failed_in_a_row += 1
        if self._failed_in_a_row < PAUSE_AFTER or self.paused:
            return
        seconds = min(PAUSE_SECONDS * 2**self._pauses, MAX_WAIT)
        self._pauses += 1
        self._failed_in_a_row = 0
        self._paused_until = time.monotonic() + seconds
        self._note(
            "paused",
            f"{PAUSE_AFTER} rows in a row failed in the browser at {self.label}: no row starts there for "
            f"{seconds:.0f} s, while the others go on.",
            seconds,
        )

    @property
    def paused(self) -> bool:
        return time.monotonic() < self._paused_until

    async def unpaused(self) -> None:
        """Returns once a pause is over (at once when there is none)."""
        left = self._paused_until - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)

    def _note(self, kind: BrowserNoteKind, words: str, seconds: float = 0.0) -> None:
        log.info("%s: %s", self.label, words)
        self.tell(BrowserNote(self.label, kind, words, seconds))


class CdpEndpoint(Endpoint):
    """A CDP endpoint or a Playwright server: one connection, shared by its lanes' windows, made again when its
    browser went away."""

    def __init__(self, endpoint: str, downloads_dir: Path) -> None:
        super().__init__(endpoint, downloads_dir)
        self._owner: BrowserSession | None = None
        self._served = False
        self._owners: list[BrowserSession] = []
        self._lock = asyncio.Lock()
        self._opening = asyncio.Lock()

    @classmethod
    async def connect(cls, endpoint: str, downloads_dir: Path) -> CdpEndpoint:
        """Connected, or waiting to be when it answered that it is full (429, 503); RuntimeError, in plain words,
        for an endpoint that cannot be used at all."""
        endpoint_ = cls(endpoint, downloads_dir)
        try:
            await endpoint_._connected(first=True)
        except Unavailable as exc:  # its lanes ask again, and say so
            log.info("%s", exc)
        return endpoint_

    async def window(self) -> Window:
        owner = await self._connected()
        try:
            async with self._opening:  # one at a time: a new window is known as the next page the browser opens
                if self._served:  # a Playwright server's browser works in a context made for this connection
                    session = BrowserSession.window_of(owner, await owner.context.new_page())
                else:
                    session = await owner.new_window()
        except PlaywrightError as exc:
            raise Unavailable(f"No new window in the browser at {self.label}: {first_line(exc)}.", again=True) from exc
        return Window(session, owner, session.close)

    async def _connected(self, *, first: bool = False) -> BrowserSession:
        """The connection, made again when its browser went away. ``first``: at the routine's start, where an
        endpoint that cannot be used is refused (RuntimeError); later it is one that may come back (Unavailable)."""
        async with self._lock:
            if self._owner is not None and self._owner.is_connected:
                return self._owner
            if self._owner is not None:
                words = f"The browser at {self.label} went away; connecting again for the next rows."
                self._note("reconnecting", words)
                self._owner = None
            try:
                owner, self._served = await attach(self.endpoint, self._downloads_dir)
            except RuntimeError as exc:
                if first:
                    raise
                raise Unavailable(str(exc), again=True, busy=True) from exc
            self._owner = owner
            self._owners.append(owner)
            return owner

    async def close(self) -> None:
        for owner in self._owners:
            await owner.close()  # a connection ends; the browser at the other end is never closed
        self._owners.clear()


class GridEndpoint(Endpoint):
    """A Selenium Grid: each lane's window is a session of its own, deleted when the lane lets it go."""

    def __init__(self, endpoint: str, downloads_dir: Path, grid: Grid) -> None:
        super().__init__(endpoint, downloads_dir)
        self.grid = grid

    async def window(self) -> Window:
        try:
            session = await self.grid.new_session()
        except GridBusy as exc:
            raise Unavailable(str(exc), again=True, busy=True) from exc
        except GridRefused as exc:
            raise Unavailable(str(exc), again=exc.again) from exc
        except RuntimeError as exc:
            raise Unavailable(str(exc), again=True, busy=True) from exc
        except OSError as exc:
            words = f"The Selenium Grid at {self.label} cannot be reached: {exc.strerror or exc}."
            raise Unavailable(words, again=True, busy=True) from exc
        try:
            owner = await BrowserSession.attach(session.cdp, downloads_dir=self._downloads_dir)
        except BaseException as exc:
            await self.grid.end(session.id)
            if isinstance(exc, RuntimeError):
                raise Unavailable(str(exc), again=True, busy=True) from exc
            raise

        async def release() -> None:
            try:
                await owner.close()  # the connection; deleting the session ends its browser
            finally:
                await self.grid.end(session.id)

        return Window(owner, owner, release)

    async def close(self) -> None:
        await self.grid.close()


async def attach(endpoint: str, downloads_dir: Path) -> tuple[BrowserSession, bool]:
    """The browser at a CDP endpoint or a Playwright server, and whether a Playwright server started it for us. A
    Playwright server (ws:// from ``playwright run-server``) is known by its answer to a plain GET; else a CDP
    endpoint (http(s):// or a DevTools ws://), else a Playwright server after all. A CDP handshake sent to a
    Playwright server waits for its whole timeout (and has the server start a browser for nothing): hence the look
    first. Unavailable when it answered 429 or 503; RuntimeError, in plain words, when it cannot be used."""
    websocket = endpoint.startswith(("ws://", "wss://"))
    if websocket and await asyncio.to_thread(_is_playwright_server, endpoint):
        return await _connect(endpoint, downloads_dir), True
    try:
        return await BrowserSession.attach(endpoint, downloads_dir=downloads_dir), False
    except RuntimeError as cdp_failure:
        _refuse_if_busy(endpoint, cdp_failure.__cause__)
        if not websocket:
            raise
        try:
            return await _connect(endpoint, downloads_dir), True
        except PlaywrightError as exc:
            _refuse_if_busy(endpoint, exc)
            raise RuntimeError(str(cdp_failure)) from None


def _refuse_if_busy(endpoint: str, exc: BaseException | None) -> None:
    status = busy_answer(exc) if exc is not None else None
    if status is not None:
        words = f"The browser endpoint {shown_endpoint(endpoint)} is full for now (HTTP {status})."
        raise Unavailable(words, again=True, busy=True) from None


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
