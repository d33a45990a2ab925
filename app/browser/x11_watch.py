"""The X server's news, heard the moment it comes: on a thread and an X connection of their own, so that a busy event
loop never delays it (a window Chromium creates must be held before Chromium maps it, a few milliseconds later).

``RootWatch`` calls its listener on that thread, with its connection (used on that thread only): a new top-level
window as it is created, and again once it says its process (_NET_WM_PID) if it had not yet; each _NET_ACTIVE_WINDOW
request sent to the window manager; and each change of the root window's properties it was asked to follow (the
active window, the window lists), several read at once making one call.
"""

from __future__ import annotations

import logging
import os
import select
import sys
import threading
from typing import Protocol

from app.browser.x11 import X11

log = logging.getLogger(__name__)

_STOP_DEADLINE = 5.0
# How long the event loop's thread may keep Python's lock from the watch once it has news (the interpreter's default
# is 5 ms, a fair part of the moment between Chromium creating a window and mapping it).
_SWITCH_INTERVAL = 0.001


class RootListener(Protocol):
    """What a ``RootWatch`` tells, on its thread, with its connection."""

    def window_created(self, x: X11, window: int) -> None: ...

    def activation_asked(self, x: X11, window: int, source: int) -> None: ...

    def root_changed(self, x: X11) -> None: ...


class RootWatch:
    def __init__(self, x: X11, names: tuple[str, ...], listener: RootListener) -> None:
        self._x = x
        self._listener = listener
        self._atoms = {x.atom(name) for name in names}
        self._pid = x.atom("_NET_WM_PID")
        self._nameless: set[int] = set()  # created, its process not said yet
        self._fd = x.watch_root()
        self._wake, self._woken = os.pipe()
        self._thread = threading.Thread(target=self._run, name="x11 watch", daemon=True)

    @classmethod
    def start(cls, names: tuple[str, ...], listener: RootListener) -> RootWatch | None:
        """None where there is no X display."""
        x = X11.open(keep_lock=True)  # news is acted on at once, without waiting for Python's lock after each call
        if x is None:
            return None
        watch = cls(x, names, listener)
        sys.setswitchinterval(min(sys.getswitchinterval(), _SWITCH_INTERVAL))
        watch._thread.start()
        return watch

    def stop(self) -> None:
        os.write(self._woken, b"x")
        self._thread.join(_STOP_DEADLINE)
        os.close(self._wake)
        os.close(self._woken)
        self._x.close()

    def _run(self) -> None:
        try:
            while True:
                readable, _, _ = select.select([self._fd, self._wake], [], [])
                if self._wake in readable:
                    return
                self._read()
        except Exception:  # the watch ends; the app goes on without it
            log.exception("the X11 watch failed")

    def _read(self) -> None:
        x, listener = self._x, self._listener
        while events := x.events():  # a listener's own requests may read more in
            changed = False
            for event in events:
                if event.kind == "created":
                    x.watch_properties(event.window)  # to hear of its _NET_WM_PID
                    listener.window_created(x, event.window)
                    if not x.pid(event.window):  # told again once it says it
                        self._nameless.add(event.window)
                elif event.kind == "destroyed":
                    self._nameless.discard(event.window)
                elif event.kind == "activation":
                    listener.activation_asked(x, event.window, event.source)
                elif event.window == x.root:
                    changed = changed or event.atom in self._atoms
                elif event.atom == self._pid and event.window in self._nameless:
                    self._nameless.discard(event.window)
                    listener.window_created(x, event.window)
            if changed:
                listener.root_changed(x)
