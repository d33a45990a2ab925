"""The "Page Agent is working · Stop (Esc)" bar inside Chromium, so Stop is at hand wherever the user is.

While a run is on, every tab shows a small pill at its bottom-right corner (resources/js/stop_bar.js, in a closed
shadow root); its Stop button and Esc pressed anywhere in the page call ``on_stop``. The bar follows the agent: it
shows while the agent works and goes away when the run ends or is paused for Take over. While the run waits for the
person (the agent handed the browser over, asked a question, or an Allow/Cancel waits) it says so instead: "Your turn —
see the panel", with a button that brings the panel forward (``on_panel``); Esc then stops nothing. The observer leaves
it out (``tag``): the model never sees it, and it covers nothing in the observation.

A routine's windows share one bar, and each window may say something of its own (``say_in_window``): the window of a
row that waits for the person says "Your turn", while the others say the agent works, or "Paused by you" while the
person paused the routine (``pause``); Esc stops nothing in either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from app.assets import read_resource
from app.background import Background
from app.browser.session import BrowserSession
from app.core.agent import Agent
from app.core.errors import BrowserClosedError
from app.core.types import TERMINAL_STATUSES, AgentStatus, ExecutingActivity, HandOffActivity, PausedActivity
from app.text.i18n import tr

log = logging.getLogger(__name__)

SCRIPT = "js/stop_bar.js"
_APPLY = "([hook, labels]) => { const set = window[hook]; if (set) set(labels); }"
# An Esc reaches the bar a moment after it was pressed: one the agent pressed itself (send_keys) after the key action
# returned, one the person pressed at an Allow/Cancel question after the question ended. Neither is a stop.
_LATE_ESC_GRACE = 0.5
# The tool whose answer only the person can give.
_ASK_USER = "ask_user"

Mode = Literal["hidden", "working", "waiting", "paused"]


class StopBar:
    """Install once per Chromium session (``install``), then ``follow`` each agent built on it."""

    def __init__(self, session: BrowserSession) -> None:
        self._session = session
        # Random per session: a page cannot name the bar (to hide its own content from the model as "the bar") or
        # call the binding before it has seen the bar.
        self.tag = f"pa-{secrets.token_hex(6)}"
        self._binding = f"__pa{secrets.token_hex(8)}"
        self._hook = f"__pa{secrets.token_hex(8)}"
        self._on_stop: Callable[[], None] = lambda: None
        self._on_panel: Callable[[], None] | None = None
        self._on_resized: Callable[[], None] = lambda: None
        self._mode: Mode = "hidden"
        # Windows that say something else than the rest (a routine's row waiting for the person), by session.
        self._windows: dict[int, tuple[BrowserSession, Mode]] = {}
        # Every tab that asked for the bar (the other windows of a routine's browser too), kept to update it.
        self._asked: dict[Page, None] = {}
        self._agent_keys = 0
        self._late_esc_until = 0.0
        # The windows an agent acts in now: their tabs' bar lets the pointer through (``step_aside``).
        self._aside: list[BrowserSession] = []
        self._lock = asyncio.Lock()
        self._background = Background("stop bar")

    async def install(self, on_stop: Callable[[], None], on_panel: Callable[[], None] | None = None) -> None:
        """Bind the bar into every document from now on; ``on_stop()`` runs when the user asks to stop, ``on_panel()``
        when they ask for the panel while the run waits for them (None: there is no panel, the person is at a
        terminal)."""
        self._on_stop = on_stop
        self._on_panel = on_panel
        context = self._session.context
        await context.expose_binding(self._binding, self._called)
        config = json.dumps({"binding": self._binding, "hook": self._hook, "tag": self.tag})
        script = f"({read_resource(SCRIPT)})({config});"
        await context.add_init_script(script)
        # Documents already open missed the init script.
        for page in self._session.pages:
            for frame in page.frames:
                with contextlib.suppress(PlaywrightError):
                    await frame.evaluate(script)

    def follow_resizes(self, on_resized: Callable[[], None]) -> None:
        """``on_resized()`` runs when a tab's window has been resized (the bar's script sees it in every document)."""
        self._on_resized = on_resized

    def follow(self, agent: Agent) -> None:
        """Show the bar while ``agent`` works; hide it when the run ends or waits for the person."""
        agent.on("status_changed", self._status_changed)
        agent.on("activity", lambda activity: self._activity(agent, activity))

    @contextlib.contextmanager
    def agent_keys(self) -> Iterator[None]:
        """While the agent presses keys itself, an Esc in the page is the agent's, not a request to stop."""
        self._agent_keys += 1
        try:
            yield
        finally:
            self._agent_keys -= 1
            self._late_esc_until = time.monotonic() + _LATE_ESC_GRACE

    @property
    def mode(self) -> Mode:
        return self._mode

    async def show(self) -> None:
        await self._set("working")

    async def hide(self) -> None:
        await self._set("hidden")

    async def wait_for_person(self) -> None:
        """The run waits for the person: the bar says where to answer."""
        await self._set("waiting")

    def pause(self, paused: bool) -> None:
        """A routine the person paused (True) or resumed: every window says so, but one waiting for the person."""
        if self._mode in ("working", "paused"):
            self._mode = "paused" if paused else "working"
            self._background.spawn(self._apply())

    def say_in_window(self, window: BrowserSession, mode: Mode | None) -> None:
        """``window``'s tabs say ``mode`` (a routine's row waiting there for the person: "waiting"), whatever the
        others say; None: as the others again. The tabs are updated in the background."""
        if mode is None:
            self._windows.pop(id(window), None)
        else:
            self._windows[id(window)] = (window, mode)
        self._background.spawn(self._apply())

    def mode_in(self, page: Page | None) -> Mode:
        """What the bar says in ``page``: its window's own mode, else the bar's."""
        if self._mode != "hidden":
            for window, mode in self._windows.values():
                if page in window.pages:
                    return mode
        return self._mode

    @contextlib.contextmanager
    def waiting_for_person(self) -> Iterator[None]:
        """Around a moment that waits for the person (an Allow/Cancel question), then back to what it was. The tabs
        are updated in the background: a page frozen by its own confirm() must not hold the question up."""
        before = self._mode
        self._mode = "waiting"
        self._background.spawn(self._apply())
        try:
            yield
        finally:
            self._late_esc_until = time.monotonic() + _LATE_ESC_GRACE
            if self._mode == "waiting":
                self._mode = before
                self._background.spawn(self._apply())

    async def _set(self, mode: Mode) -> None:
        self._mode = mode
        if mode == "hidden":
            self._windows.clear()
        await self._apply()

    @contextlib.asynccontextmanager
    async def step_aside(self, window: BrowserSession) -> AsyncIterator[None]:
        """While an agent acts on a page of ``window``, the bar there lets the pointer through: an element under it
        stays clickable (Playwright's click would otherwise wait for the bar to move away, and fail). In a routine's
        other windows it stays as it is: the person may be clicking it there."""
        if self._mode == "hidden":
            yield
            return
        self._aside.append(window)
        await self._apply(window)
        try:
            yield
        finally:
            self._aside.remove(window)
            await self._apply(window)

    # --- the page's side ---------------------------------------------------------------------------------------

    def _called(self, source: dict[str, Any], what: str) -> dict[str, str | bool] | None:
        page = source.get("page")
        if what == "ask":
            if isinstance(page, Page):
                self._asked[page] = None
            return self._labels(self.mode_in(page), page if isinstance(page, Page) else None)
        mode = self.mode_in(page)
        if what in ("stop", "escape") and mode == "working":
            if what == "escape" and (self._agent_keys or time.monotonic() < self._late_esc_until):
                return None
            log.info("stop asked from Chromium (%s)", what)
            self._on_stop()
        elif what == "panel" and mode in ("waiting", "paused") and self._on_panel is not None:
            self._on_panel()
        elif what == "resize":
            self._on_resized()
        return None

    def _labels(self, mode: Mode | None = None, page: Page | None = None) -> dict[str, str | bool] | None:
        """What the bar shows in ``page`` (None: a page no agent acts in) when it says ``mode``."""
        mode = self._mode if mode is None else mode
        panel = self._on_panel is not None
        passive = page is not None and any(page in window.pages for window in self._aside)
        if mode == "working":
            return {**bar_labels(), "action": "stop", "waiting": False, "passive": passive}
        if mode == "waiting":
            return {**waiting_labels(panel=panel), "waiting": True, "passive": passive}
        if mode == "paused":
            return {**paused_labels(panel=panel), "waiting": False, "paused": True, "passive": passive}
        return None

    async def _apply(self, window: BrowserSession | None = None) -> None:
        """Every tab shows what the bar says there now (only ``window``'s tabs, if given)."""
        # Serialised, and each pass applies the state current when it runs: the last show/hide wins.
        async with self._lock:
            for page in [page for page in self._asked if page.is_closed()]:
                del self._asked[page]
            pages = window.pages if window is not None else [*self._session.pages, *self._asked]
            for page in dict.fromkeys(pages):
                try:
                    labels = self._labels(self.mode_in(page), page)
                    await asyncio.wait_for(page.evaluate(_APPLY, [self._hook, labels]), 2.0)
                except (TimeoutError, PlaywrightError) as exc:  # closing, or frozen by a dialog
                    log.debug("stop bar not updated in a tab: %s", exc)

    # --- following the agent -----------------------------------------------------------------------------------

    def _status_changed(self, status: AgentStatus) -> None:
        if status == AgentStatus.RUNNING:
            self._background.spawn(self.show())
        elif status in TERMINAL_STATUSES:
            self._background.spawn(self.hide())

    def _activity(self, agent: Agent, activity: object) -> None:
        if isinstance(activity, PausedActivity):
            self._background.spawn(self.hide())
        elif isinstance(activity, HandOffActivity):
            self._background.spawn(self.wait_for_person())
            self._background.spawn(self._bring_to_front())
        elif isinstance(activity, ExecutingActivity) and activity.tool == _ASK_USER:
            self._background.spawn(self.wait_for_person())
        elif self._mode != "working" and agent.status == AgentStatus.RUNNING and not agent.paused:
            # Any other activity of a running agent after a pause or an answer means it works again.
            self._background.spawn(self.show())

    async def _bring_to_front(self) -> None:
        try:
            await self._session.bring_to_front()
        except (PlaywrightError, BrowserClosedError) as exc:
            log.debug("could not bring the tab to the front: %s", exc)


def bar_labels() -> dict[str, str]:
    """The bar's words in the panel's language, read at each show (a language switch applies at once)."""
    return {"working": tr("Page Agent is working"), "stop": tr("Stop (Esc)")}


def paused_labels(*, panel: bool) -> dict[str, str]:
    """The bar's words while the person paused a routine: nothing runs in this window until they resume it."""
    if panel:
        return {"working": tr("Paused by you"), "stop": tr("Show the panel"), "action": "panel"}
    return {"working": tr("Paused by you"), "stop": "", "action": ""}


def waiting_labels(*, panel: bool) -> dict[str, str]:
    """The bar's words while the run waits for the person: where to answer (the panel, or the terminal)."""
    if panel:
        return {"working": tr("Your turn — see the panel"), "stop": tr("Show the panel"), "action": "panel"}
    return {"working": tr("Your turn — see the terminal"), "stop": "", "action": ""}
