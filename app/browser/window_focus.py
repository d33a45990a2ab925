"""Chromium's windows never take the keyboard from the person, nor rise over the window they work in when the agent
acts, unless the person asks for one of them.

Why Chromium would take them: a headed Chromium asks the window manager to activate its window (an EWMH
_NET_ACTIVE_WINDOW request "from an application", stamped with the X server's time of that moment, so no focus-stealing
prevention stops it) whenever a pointer press reaches a page through the DevTools protocol (a mouse button, a touch, a
tap: the events Chromium treats as the user reaching for the page), when a tab is created without ``focus: false``, and
on Page.bringToFront; and the window manager gives the keyboard to every window Chromium maps (its first window as it
starts, a window a page opens). Every click of the agent's would take the keyboard from whatever the person was typing
into, and raise Chromium over the windows covering it (History, Settings, a saved run, another application). Keys,
typed text, scripts, screenshots and moving the window do not; the windows the app opens itself open in the
background (browser/session.py).

What this does, on X11 (elsewhere nothing):

- ``kept()``, around each press: Chromium's windows, except the one that has the keyboard, follow ICCCM's "no input"
  model (WM_HINTS input false, no WM_TAKE_FOCUS), so the window manager cannot hand them the keyboard. The presses of
  several windows at once (a routine's rows) share one hold: once the last of them is over and the window manager has
  handled what Chromium asked (a round trip through it), the hints are put back as they were, the window that had the
  keyboard has it again if the window manager moved it to one of Chromium's windows (or to none), and Chromium's
  windows go back under the windows they were raised over.
- ``watch()``, from before Chromium starts (browser/x11_watch.py: a thread that hears of each new window at once): each
  window Chromium creates follows the "no input" model from before it is mapped until it has been on screen for
  ``_NEW_WINDOW_GRACE`` (it opens where the window manager puts it, without the keyboard; under a window shown to the
  person, while they are in it); one that takes the keyboard that soon all the same gives it back at once to the
  window that had it; and so does a window Chromium asks the keyboard for on its own outside a press (for a tab a
  click opened, a moment later; for a page's window.focus()). Only while a window has the keyboard: on an empty
  desktop Chromium's first window takes it.
- ``show(bring)``: the person asked for one window (a hand-off, a row's "Show its window"). Presses wait while it comes
  forward with the keyboard, and it keeps it: a hold leaves the window that has the keyboard alone, and gives the
  keyboard back to it.

The person's taskbar (a _NET_ACTIVE_WINDOW request "from a pager", as xdotool sends too) gives a held window the
keyboard at once. Their click reaches Chromium as usual, and gives it the keyboard outside a hold (a press of the
agent's lasts a moment; a new window's hold, ``_NEW_WINDOW_GRACE``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from app.browser.x11 import SOURCE_APPLICATION, SOURCE_PAGER, X11, FocusHints
from app.browser.x11_watch import RootWatch

log = logging.getLogger(__name__)

# How long the window manager may take to answer the round trip (it answers in a millisecond or two).
_ROUND_TRIP_DEADLINE = 0.5
# How long a new window of Chromium's is held once on screen: Chromium asks for the keyboard for it within a fraction
# of a second of mapping it (a click of the person's on a window that new does not give it the keyboard; their taskbar
# does).
_NEW_WINDOW_GRACE = 2.0
# How long a window shown to the person waits for the presses in flight to end (a press that waits for its element
# may last the action's whole timeout: then it comes forward anyway).
_SHOW_WAIT = 3.0
# How soon after Chromium asked for the keyboard on its own the window manager is taken to have given it.
_UNASKED_GRACE = 1.0
_ACTIVE = "_NET_ACTIVE_WINDOW"
_CLIENTS = "_NET_CLIENT_LIST"
_STACKING = "_NET_CLIENT_LIST_STACKING"

Owns = Callable[[int], bool]


@dataclass
class _Refused:
    hints: FocusHints  # the window's own, to put back
    holds: int = 1  # the holds that refuse it (a press, its being new)


@dataclass
class _Hold:
    active: int  # the window that had the keyboard (0: none)
    stacking: list[int]  # bottom first, as before the first press
    windows: set[int] = field(default_factory=set)  # Chromium's windows it refuses the keyboard


class WindowFocus:
    """Keeps one Chromium (the processes ``owns(pid)`` says are its) from taking the keyboard. Its state is shared
    between the event loop (the agent's presses, a window shown) and the watch's thread (windows as they appear):
    each reads and changes it holding ``_state``, and uses an X connection of its own."""

    def __init__(self, x: X11 | None, owns: Owns) -> None:
        self._x = x  # the event loop's connection
        self._owns = owns
        self._state = threading.Lock()
        self._known: set[int] = set()  # its processes seen so far
        self._refused: dict[int, _Refused] = {}
        self._presses = 0
        self._hold: _Hold | None = None
        self._turn = asyncio.Lock()  # a hold taken, grown, given back, or a window shown: one at a time
        self._idle = asyncio.Event()  # no press in flight
        self._idle.set()
        self._not_showing = asyncio.Event()  # presses wait while a window is shown to the person
        self._not_showing.set()
        self._watch: RootWatch | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._seen: set[int] = set()  # every window the window manager has managed
        self._managed: list[int] = []  # the windows it manages now, as last heard (on the watch's thread)
        self._new: set[int] = set()  # Chromium's windows refused the keyboard for being new
        self._clients: set[int] = set()  # Chromium's X connections (X11.client_of)
        self._unasked: dict[int, float] = {}  # Chromium's windows it asked the keyboard for on its own, and when
        self._keyboard = 0  # the window the person has the keyboard in, as last seen
        self._shown = 0  # the window shown to the person (``show``), while it has the keyboard
        self._root_changes = asyncio.Event()  # set at each change of the active window or of the windows

    @classmethod
    def for_display(cls, owns: Owns) -> WindowFocus:
        """On an X display, a keeper that works; anywhere else, one that does nothing."""
        return cls(X11.open(), owns)

    @property
    def active(self) -> bool:
        """Whether this keeper can do anything here (an X display)."""
        return self._x is not None

    def active_window(self) -> int:
        """The window that has the keyboard now (0: none known, or not on X11)."""
        return self._x.active_window() if self._x is not None else 0

    def watch(self) -> None:
        """From now on, Chromium's new windows do not take the keyboard as they appear (see the module's docstring).
        Called on the event loop before Chromium starts, for its first window too."""
        x = self._x
        if x is None or self._watch is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._keyboard = x.active_window()
        self._managed = x.windows(_CLIENTS)
        self._seen = set(self._managed)
        self._watch = RootWatch.start((_ACTIVE, _CLIENTS, _STACKING), self)

    async def return_keyboard(self, to: int) -> None:
        """Chromium has just opened its window, which the window manager gives the keyboard as to any new window:
        ``to``, the window that had it before (the panel, where the person is about to type a task), gets it back."""
        x = self._x
        if x is None or not to:
            return
        await x.window_manager_round_trip(_ROUND_TRIP_DEADLINE)
        with self._state:
            active = x.active_window()
            if active != to and active in self._windows(x) and to in x.windows(_CLIENTS):
                x.activate(to)
        x.sync()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.stop()
            self._watch = None
        if self._x is not None:
            self._x.close()
            self._x = None

    # --- refusing the keyboard, window by window (holding ``_state``) -------------------------------------------

    def _refuse(self, x: X11, window: int) -> None:
        refused = self._refused.get(window)
        if refused is not None:
            refused.holds += 1
            return
        self._refused[window] = _Refused(x.refuse_focus(window))

    def _allow(self, x: X11, window: int) -> None:
        refused = self._refused.get(window)
        if refused is None:
            return
        refused.holds -= 1
        if not refused.holds:
            del self._refused[window]
            x.restore_focus(window, refused.hints)

    def _windows(self, x: X11) -> list[int]:
        """Chromium's top-level windows, the ones the window manager manages."""
        return [window for window in x.windows(_CLIENTS) if self._is_chromium(x.pid(window))]

    def _is_chromium(self, pid: int) -> bool:
        if pid in self._known:
            return True
        if pid and self._owns(pid):
            self._known.add(pid)
            return True
        return False

    # --- the agent's presses ------------------------------------------------------------------------------------

    @asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        """Around an action that may make Chromium ask for the focus (a press, a tab switch)."""
        x = self._x
        if x is None:
            yield
            return
        with contextlib.suppress(TimeoutError):  # a window shown to the person meanwhile (bounded by its own wait)
            await asyncio.wait_for(self._not_showing.wait(), _SHOW_WAIT + 2 * _ROUND_TRIP_DEADLINE)
        async with self._turn:
            self._hold_more(x)
            self._presses += 1
            self._idle.clear()
        try:
            yield
        finally:
            self._presses -= 1
            if not self._presses:
                # Given back even when the press was cancelled: a window left without input would stay so.
                await asyncio.shield(self._release(x))

    def _hold_more(self, x: X11) -> None:
        """Hold Chromium's windows not held yet, except the one that has the keyboard."""
        # Read before taking the lock: the watch, which may have a new window to refuse at once, waits for it only
        # while the refusals are written.
        active, stacking, windows = x.active_window(), x.windows(_STACKING), self._windows(x)
        with self._state:
            hold = self._hold
            if hold is None:
                hold = self._hold = _Hold(active=active, stacking=stacking)
            for window in windows:
                if window != hold.active and window not in hold.windows:
                    hold.windows.add(window)
                    self._refuse(x, window)
        x.sync()

    async def _release(self, x: X11) -> None:
        async with self._turn:
            if self._presses:  # another press began meanwhile: the hold is its now
                return
            hold = self._hold
            if hold is not None and hold.windows:
                if not await x.window_manager_round_trip(_ROUND_TRIP_DEADLINE):
                    log.debug("the window manager did not answer the round trip")
                self._give_back(x, hold)
            self._hold = None
            self._idle.set()

    def _give_back(self, x: X11, hold: _Hold) -> None:
        with self._state:
            for window in hold.windows:
                self._allow(x, window)
        clients = x.windows(_CLIENTS)
        active = x.active_window()
        # Moved to one of Chromium's windows, or to none: back where it was. Moved by the person to another program
        # meanwhile: left there.
        moved = active != hold.active and (active not in clients or active in self._windows(x))
        if hold.active and hold.active in clients and moved:
            x.activate(hold.active)
        now = x.windows(_STACKING)
        for window in hold.windows:
            sibling = raised_over(hold.stacking, now, window)
            if sibling:
                x.restack_below(window, sibling)
        x.sync()

    # --- the person's window -----------------------------------------------------------------------------------

    async def show(self, bring: Callable[[], Awaitable[None]]) -> None:
        """``bring()`` brings one window of Chromium's forward for the person; it keeps the keyboard from now on."""
        x = self._x
        if x is None:
            await bring()
            return
        self._not_showing.clear()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), _SHOW_WAIT)
            async with self._turn:
                # Whatever holds Chromium's windows (a press still in flight after the wait, their being new) lets
                # go while the window comes forward; a press's hold is taken again around it.
                with self._state:
                    hold, self._hold = self._hold, None
                    for window in [*(hold.windows if hold is not None else ()), *self._new]:
                        self._allow(x, window)
                    self._new.clear()
                x.sync()
                await bring()
                shown = await self._chromium_active(x)
                with self._state:
                    self._keyboard = self._shown = shown
                if hold is not None:
                    self._hold_more(x)
        finally:
            self._not_showing.set()

    async def _chromium_active(self, x: X11) -> int:
        """The window of Chromium's that has the keyboard, once it has it (Chromium asks for it after answering; the
        active window as it is after ``_SHOW_WAIT``)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + _SHOW_WAIT
        while True:
            self._root_changes.clear()
            with self._state:
                active = x.active_window()
                if active in self._windows(x) or self._watch is None:
                    return active
            if loop.time() >= until:
                return active
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._root_changes.wait(), until - loop.time())

    # --- windows as they appear (on the watch's thread, with its connection) ------------------------------------

    def window_created(self, x: X11, window: int) -> None:
        """Told as it is created, and again once it says its process: a window made on Chromium's X connection is
        known to be its own before it can say anything (a page's window may be mapped a moment after)."""
        with self._state:
            # Nothing asked of the X server before the refusal but what it needs: Chromium maps its window a few
            # milliseconds after creating it.
            client = x.client_of(window)
            if client not in self._clients:
                if not self._is_chromium(x.pid(window)):
                    return
                # Known from now on, refused or not (its first window, on an empty desktop, is not): the next window
                # made on this connection is Chromium's before it says its process.
                self._clients.add(client)
            if window in self._new or self._keyboard not in self._managed or not self._not_showing.is_set():
                return
            self._new.add(window)
            self._refuse(x, window)
        x.sync()

    def root_changed(self, x: X11) -> None:
        loop = self._loop
        assert loop is not None
        loop.call_soon_threadsafe(self._root_changes.set)
        with self._state:
            clients = self._managed = x.windows(_CLIENTS)
            for window in set(clients) - self._seen:
                self._seen.add(window)
                if window in self._new:  # on screen: it may take the keyboard once past the grace
                    loop.call_soon_threadsafe(loop.call_later, _NEW_WINDOW_GRACE, self._settled, window)
            stacking = x.windows(_STACKING)
            if self._shown in stacking:  # a window shown to the person, and in use: new ones go under it
                for window in self._new & set(stacking[stacking.index(self._shown) + 1 :]):
                    x.restack_below(window, self._shown)
            active = x.active_window()
            if active != self._keyboard and active in clients:  # the keyboard on no window: nothing to give back
                unasked = time.monotonic() - self._unasked.pop(active, float("-inf")) < _UNASKED_GRACE
                if (active in self._new or unasked) and self._not_showing.is_set() and self._keyboard in clients:
                    log.debug("a window of Chromium's took the keyboard by itself: given back")
                    x.activate(self._keyboard)
                else:
                    self._keyboard = active
                    if active != self._shown:  # the person left it
                        self._shown = 0
        x.sync()

    def activation_asked(self, x: X11, window: int, source: int) -> None:
        if source == SOURCE_PAGER:
            self._asked_by_person(x, window)
            return
        if source != SOURCE_APPLICATION:
            return
        with self._state:
            # Chromium asking for a window on its own, outside a press and a show (a tab a click opened comes a moment
            # later, a page's window.focus()), while the person is in another window: given back once it lands.
            if (
                self._not_showing.is_set()
                and window not in self._refused
                and window != x.active_window()
                and self._keyboard in x.windows(_CLIENTS)
                and (x.client_of(window) in self._clients or self._is_chromium(x.pid(window)))
            ):
                self._unasked[window] = time.monotonic()

    def _asked_by_person(self, x: X11, window: int) -> None:
        with self._state:
            if window not in self._refused:
                return
            # The person asked for it (their taskbar): it takes the keyboard, new or not, during a press or not.
            if window in self._new:
                self._new.discard(window)
                self._allow(x, window)
            hold = self._hold
            if hold is not None and window in hold.windows:
                hold.windows.discard(window)
                hold.active = window  # where the press gives the keyboard back
                self._allow(x, window)
            x.activate(window)  # asked again: the window manager refused it while it was held
        x.sync()

    def _settled(self, window: int) -> None:
        """On the event loop, ``_NEW_WINDOW_GRACE`` after ``window`` appeared."""
        x = self._x
        if x is None:
            return
        with self._state:
            if window in self._new:
                self._new.discard(window)
                self._allow(x, window)
        x.sync()


def raised_over(before: list[int], after: list[int], window: int) -> int:
    """The window ``window`` was raised over between two stacking orders (bottom first), to put it back under: the
    lowest of those that were above it before and are now below it; 0 when it was not raised over anything."""
    if window not in before or window not in after:
        return 0
    was_above = before[before.index(window) + 1 :]
    now_below = set(after[: after.index(window)])
    return next((other for other in was_above if other in now_below), 0)
