"""Where a routine's rows run: windows of the local profile (the user's sign-in, shared), or browsers that run
elsewhere (app/routine/endpoints.py: a CDP endpoint, ``http://host:9222`` or the ``ws://`` URLs browserless, Steel or
Browserbase hand out; a Playwright server's ``ws://``; a Selenium Grid by its own address, ``http://grid:4444``).

A ``Lane`` runs one row at a time in one window (a ``Slot``) with its own controller, so each row's agent sees only its
own tabs. A remote lane gets its window when the endpoint gives one (a grid's queue, a browserless queue that is full),
and a new one when its browser went away between rows. Every ``RENEW_EVERY`` rows a lane's window is replaced by a
fresh one (a remote lane's by its endpoint's next: a grid's next session), so that a window's memory stays flat over
any number of rows. The agent loops stay in this process; only the browsers are elsewhere.

A launched Chromium is closed at the end; a remote browser never is (only the windows opened here are), except a
Selenium Grid's session this routine asked for, which is deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Playwright

from app.browser.controller import PlaywrightPageController
from app.browser.endpoint import hide_endpoint_secrets
from app.browser.recorder import PageRecorder
from app.browser.session import BrowserSession, LaunchOptions
from app.browser.stop_bar import StopBar
from app.core.abort import AbortSignal
from app.core.errors import BrowserClosedError
from app.core.page import ForeignKeys
from app.core.safety.guardrails import Guardrails
from app.routine.endpoints import CdpEndpoint, Endpoint, GridEndpoint, Window
from app.routine.grid import Grid, grid_session_timeout
from app.routine.types import BrowserNote
from app.text.i18n import tr

log = logging.getLogger(__name__)

_FRONT_TIMEOUT = 5.0
# Rows a window runs before a fresh one takes its place: a page's memory grows with every row it runs (2.5 MB a row
# measured in Chromium's renderers), and a fresh window starts from nothing.
RENEW_EVERY = 25
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


class Lane:
    """One row at a time, in one window: ``await ready()`` before each row gives the window (None: this lane runs no
    more rows, ``ended_words`` says why), ``row_ended`` after it."""

    def __init__(
        self,
        name: str,
        browsers: Browsers,
        endpoint: Endpoint | None = None,
        local: BrowserSession | None = None,
    ) -> None:
        """``endpoint``: where a remote lane's windows come from; ``local``: the launched Chromium a local lane's
        windows are of."""
        self.name = name
        self._browsers = browsers
        self._endpoint = endpoint
        self._local = local
        self.slot: Slot | None = None
        self._window: Window | None = None
        self._rows = 0  # rows run in its window
        self.ended_words = ""

    async def ready(self) -> Slot | None:
        """The window for the next row, waiting as long as its endpoint asks (a pause, a queue, a back-off). Safe to
        cancel: what was being asked for is let go."""
        if self._endpoint is not None:
            await self._endpoint.unpaused()
        if self.slot is not None and self.slot.alive and self._rows >= RENEW_EVERY:
            await self._fresh_window()
        if self.slot is not None and self.slot.alive:
            return self.slot
        if self._endpoint is None:
            self.ended_words = self.ended_words or "Its window was closed."
            return None
        await self._let_go()
        try:
            got = await self._endpoint.next_window()
            if isinstance(got, str):
                self.ended_words = got
                return None
            self._window = got
            self.slot = await self._browsers.slot_in(got.session, self.name, got.browser)
        except Exception as exc:  # a failure nobody foresaw: this lane ends, the rows go to the others
            log.exception("no window for %s", self.name)
            await self._let_go()
            self.ended_words = f"No window could be opened in {self._endpoint.label}: {exc}"
            return None
        return self.slot

    def row_ended(self, failed: bool) -> None:
        """A row ended here; ``failed`` when its browser went away or the row could not start in it."""
        self._rows += 1
        if self._endpoint is not None:
            self._endpoint.row_ended(failed)

    async def close(self) -> None:
        await self._let_go()

    async def _fresh_window(self) -> None:
        """A new window in place of one that ran ``RENEW_EVERY`` rows: a remote lane asks its endpoint for the next
        one; a local lane opens it before it closes the old one (which keeps it if none opens)."""
        self._rows = 0
        if self._local is None or self.slot is None:
            await self._let_go()
            return
        try:
            fresh = await self._local.new_window()
        except Exception:  # the old window goes on
            log.warning("no fresh window for %s; it keeps its window", self.name, exc_info=True)
            return
        old, self.slot = self.slot, await self._browsers.slot_in(fresh, self.name, self._local)
        await old.session.close()  # its tabs only: the browser is the routine's other windows' too

    async def _let_go(self) -> None:
        window, self._window, self.slot = self._window, None, None
        if window is not None:
            with contextlib.suppress(Exception):  # an endpoint that went away has nothing left to let go
                await window.release()
            self._browsers.gone(window.browser)


@dataclass
class Browsers:
    """Every lane of one routine; ``close()`` ends what this process started and leaves the rest running."""

    lanes: list[Lane] = field(default_factory=list)
    _endpoints: list[Endpoint] = field(default_factory=list)
    _owners: list[BrowserSession] = field(default_factory=list)
    _bars: dict[int, StopBar] = field(default_factory=dict)
    _on_stop: Callable[[], None] | None = None
    _on_panel: Callable[[], None] | None = None

    @property
    def slots(self) -> list[Slot]:
        """The windows the lanes hold now."""
        return [lane.slot for lane in self.lanes if lane.slot is not None]

    @property
    def stop_bars(self) -> list[StopBar]:
        """One stop bar per browser (the local one, or each remote one), shared by its windows."""
        return list(self._bars.values())

    def tell(self, listener: Callable[[BrowserNote], None]) -> None:
        """``listener(note)`` hears what every remote endpoint does to the routine (waiting, busy, paused, ...)."""
        for endpoint in self._endpoints:
            endpoint.tell = listener

    async def stop_with(self, on_stop: Callable[[], None], on_panel: Callable[[], None] | None = None) -> None:
        """Esc or the bar's Stop in any window of the routine calls ``on_stop()`` (its panel button ``on_panel()``): in
        every browser it has now and in every one it connects to later."""
        self._on_stop, self._on_panel = on_stop, on_panel
        for bar in self.stop_bars:
            await _show_bar(bar, on_stop, on_panel)

    def gone(self, browser: BrowserSession) -> None:
        """A lane let a window of ``browser`` go: once that browser is gone too (a grid's session ends with its only
        window), so is its stop bar, and with it everything this process held of that browser."""
        if not browser.is_connected:
            self._bars.pop(id(browser), None)

    async def slot_in(self, session: BrowserSession, name: str, browser: BrowserSession) -> Slot:
        """A slot for ``session``, a window of ``browser``: the windows of one browser share its stop bar (every
        window's observer leaves it out), installed once."""
        controller = PlaywrightPageController(session)
        shared = self._bars.get(id(browser))
        if shared is not None:
            controller.stop_bar = shared
        else:
            self._bars[id(browser)] = controller.stop_bar
            if self._on_stop is not None:
                await _show_bar(controller.stop_bar, self._on_stop, self._on_panel)
        slot = Slot(name, session, controller)
        session.on_closed(slot.mark_lost)
        return slot

    async def close(self) -> None:
        for lane in self.lanes:
            await lane.close()  # a launched Chromium's windows go with it below; elsewhere only our windows go
        for endpoint in self._endpoints:
            await endpoint.close()
        for owner in self._owners:
            await owner.close()
        self.lanes.clear()
        self._endpoints.clear()
        self._owners.clear()
        self._bars.clear()


def window_name(number: int) -> str:
    """A local window as the rows, the results and the person's questions name it: "window 2"."""
    return tr("window {n}", n=number)


async def local_browsers(options: LaunchOptions, windows: int, playwright: Playwright | None = None) -> Browsers:
    """Chromium with the user's profile, and ``windows`` windows of it."""
    options = options.model_copy(update={"extra_args": [*options.extra_args, *BACKGROUND_FLAGS]})
    owner = await BrowserSession.launch(options, playwright=playwright)
    browsers = Browsers(_owners=[owner])
    try:
        sessions = [BrowserSession.window_of(owner, owner.pages[0])]
        for _ in range(windows - 1):
            sessions.append(await owner.new_window())
        for number, session in enumerate(sessions, 1):
            lane = Lane(window_name(number), browsers, local=owner)
            lane.slot = await browsers.slot_in(session, lane.name, owner)
            browsers.lanes.append(lane)
    except BaseException:
        await browsers.close()
        raise
    return browsers


async def remote_browsers(endpoints: list[str], per_endpoint: int, downloads_dir: Path) -> Browsers:
    """``per_endpoint`` lanes on each endpoint (a Selenium Grid: that many sessions), each named by its address without
    its token. An endpoint that cannot be reached is refused in plain words (RuntimeError) before any row runs; one
    that is full for now (429, 503, a grid's queue) is waited for by its lanes."""
    browsers = Browsers()
    try:
        for address in endpoints:
            hide_endpoint_secrets(address)  # a library's error may quote the whole address
            endpoint = await _endpoint(address, downloads_dir)
            browsers._endpoints.append(endpoint)
            for number in range(1, per_endpoint + 1):
                name = endpoint.label if per_endpoint == 1 else f"{endpoint.label} #{number}"
                browsers.lanes.append(Lane(name, browsers, endpoint))
    except BaseException:
        await browsers.close()
        raise
    return browsers


async def _endpoint(address: str, downloads_dir: Path) -> Endpoint:
    """A Selenium Grid is known by its /status (http(s) addresses only); anything else is a CDP endpoint or a
    Playwright server."""
    if address.startswith(("http://", "https://")):
        timeout = await asyncio.to_thread(grid_session_timeout, address)
        if timeout is not None:
            return GridEndpoint(address, downloads_dir, Grid(address, timeout))
    return await CdpEndpoint.connect(address, downloads_dir)


async def _show_bar(bar: StopBar, on_stop: Callable[[], None], on_panel: Callable[[], None] | None) -> None:
    with contextlib.suppress(Exception):  # a window the person closed, an endpoint that went away
        await bar.install(on_stop, on_panel)
        await bar.show()
