"""The agent's actions never give Chromium the keyboard, nor raise it over the person's windows.

Why Chromium would take them: a headed Chromium asks the window manager to activate its window (an EWMH
_NET_ACTIVE_WINDOW request "from an application", stamped with the X server's time of that moment, so no focus-stealing
prevention stops it) whenever a pointer press reaches a page through the DevTools protocol (a mouse button, a touch, a
tap: the events Chromium treats as the user reaching for the page), when a tab is created without ``focus: false``, and
on Page.bringToFront. Every click of the agent's would take the keyboard from whatever the person was typing into,
and raise Chromium over the windows covering it (History, Settings, a saved run, another application). Keys, typed
text, scripts, screenshots and moving the window do not.

What this does, on X11 (elsewhere ``WindowFocus.kept()`` does nothing): while the agent presses, and only while it
presses, Chromium's windows follow ICCCM's "no input" model (WM_HINTS input false, no WM_TAKE_FOCUS), so the window
manager cannot hand them the keyboard; once the window manager has handled what Chromium asked (a round trip through
it), the hints are put back as they were, the window that had the keyboard has it again if the window manager moved
it anyway, and Chromium goes back under the windows that covered it if it was raised. Nothing is done while Chromium
is itself the active window: then the press changes nothing. A click of the person's own reaches Chromium as usual,
and the hand-off brings Chromium forward on purpose, outside this.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from app.browser.x11 import X11, FocusHints

log = logging.getLogger(__name__)

# How long the window manager may take to answer the round trip (it answers in a millisecond or two).
_ROUND_TRIP_DEADLINE = 0.5

Pids = Callable[[], Awaitable[set[int]]]


@dataclass
class _Guard:
    active: int  # the window that had the keyboard (0: none)
    stacking: list[int]  # bottom first, as before the press
    hints: dict[int, FocusHints]  # Chromium's windows, and their hints as they were


class WindowFocus:
    """Keeps one Chromium (its processes are ``pids()``) from taking the keyboard while the agent acts."""

    def __init__(self, x: X11 | None, pids: Pids) -> None:
        self._x = x
        self._pids = pids
        self._known: set[int] = set()
        self._depth = 0

    @classmethod
    def for_display(cls, pids: Pids) -> WindowFocus:
        """On an X display, a keeper that works; anywhere else, one that does nothing."""
        return cls(X11.open(), pids)

    @property
    def active(self) -> bool:
        """Whether this keeper can do anything here (an X display)."""
        return self._x is not None

    def active_window(self) -> int:
        """The window that has the keyboard now (0: none known, or not on X11)."""
        return self._x.active_window() if self._x is not None else 0

    async def return_keyboard(self, to: int) -> None:
        """Chromium has just opened its window, which the window manager gives the keyboard as to any new window:
        ``to``, the window that had it before (the panel, where the person is about to type a task), gets it back."""
        x = self._x
        if x is None or not to:
            return
        await x.window_manager_round_trip(_ROUND_TRIP_DEADLINE)
        active = x.active_window()
        if active != to and active in await self._windows(x) and to in x.windows("_NET_CLIENT_LIST"):
            x.activate(to)
            x.sync()

    def close(self) -> None:
        if self._x is not None:
            self._x.close()
            self._x = None

    @asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        """Around an action that may make Chromium ask for the focus (a press, a tab switch)."""
        if self._x is None or self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth += 1
        try:
            guard = await self._take(self._x)
            try:
                yield
            finally:
                if guard is not None:
                    await self._give_back(self._x, guard)
        finally:
            self._depth -= 1

    async def _windows(self, x: X11) -> list[int]:
        """Chromium's top-level windows, the ones the window manager manages."""
        if not self._known:
            self._known = await self._pids()
        return [window for window in x.windows("_NET_CLIENT_LIST") if x.pid(window) in self._known]

    async def _take(self, x: X11) -> _Guard | None:
        windows = await self._windows(x)
        active = x.active_window()
        if not windows or active in windows:
            return None
        hints = {window: x.focus_hints(window) for window in windows}
        for window, found in hints.items():
            x.refuse_focus(window, found)
        x.sync()
        return _Guard(active=active, stacking=x.windows("_NET_CLIENT_LIST_STACKING"), hints=hints)

    async def _give_back(self, x: X11, guard: _Guard) -> None:
        if not await x.window_manager_round_trip(_ROUND_TRIP_DEADLINE):
            log.debug("the window manager did not answer the round trip")
        for window, hints in guard.hints.items():
            x.set_focus_hints(window, hints)
        clients = x.windows("_NET_CLIENT_LIST")
        if guard.active and guard.active in clients and x.active_window() != guard.active:
            x.activate(guard.active)
        now = x.windows("_NET_CLIENT_LIST_STACKING")
        for window in guard.hints:
            sibling = raised_over(guard.stacking, now, window)
            if sibling:
                x.restack_below(window, sibling)
        x.sync()


def raised_over(before: list[int], after: list[int], window: int) -> int:
    """The window ``window`` was raised over between two stacking orders (bottom first), to put it back under: the
    lowest of those that were above it before and are now below it; 0 when it was not raised over anything."""
    if window not in before or window not in after:
        return 0
    was_above = before[before.index(window) + 1 :]
    now_below = set(after[: after.index(window)])
    return next((other for other in was_above if other in now_below), 0)
