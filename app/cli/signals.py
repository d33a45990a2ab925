"""Ctrl+C, SIGTERM and SIGHUP on the command line. The first stops the run the way Stop does (the report is printed,
Chromium is closed, exit 3); while Chromium is still starting it stops at once. A second one stops at once too:
the work under way is cancelled, Chromium is still closed, and no traceback is printed. One that came before the
event loop ran (``app/stop_signals.py`` remembered it) stops the run as soon as the handlers are in place."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.stop_signals import STOP_SIGNALS, on_stop_signals

T = TypeVar("T")


class StopSignals:
    """``install()`` before anything slow starts; ``hold_until_exit()`` once the run's last words are out."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.force = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        self._loop = asyncio.get_running_loop()
        on_stop_signals(self._loop, self._received)

    def hold_until_exit(self) -> None:
        """The run is over and the process ends next: a late Ctrl+C must not raise KeyboardInterrupt in the
        interpreter's shutdown (a traceback, or death by SIGINT). The signals are ignored from now on, process-wide:
        blocking them in this thread alone is not enough, since the kernel hands a signal to any thread that does
        not block it (the executor's, the driver's) and Python then runs the handler of the moment, which removing
        the loop's handler makes the default one again. Blocked here first, so none slips in between."""
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        if self._loop is not None:
            for signum in STOP_SIGNALS:
                self._loop.remove_signal_handler(signum)
                signal.signal(signum, signal.SIG_IGN)
            self._loop = None

    def _received(self, _signum: int) -> None:
        if self.stop.is_set():
            self.force.set()
        self.stop.set()

    async def until_stopped(
        self, work: asyncio.Future[T], stop: Callable[[], Awaitable[None]] | None = None
    ) -> T | None:
        """``work``'s result, or None when it was cancelled. A stop calls ``stop()`` and lets ``work`` end on its
        own; without ``stop``, or on a second signal, ``work`` is cancelled."""
        if self.stop.is_set() and stop is None:
            work.cancel()  # stopped before it began: it never starts (no Chromium launched only to be closed)
        stopped: asyncio.Future[Any] = asyncio.ensure_future(self.stop.wait())
        forced: asyncio.Future[Any] = asyncio.ensure_future(self.force.wait())
        stopping: asyncio.Future[None] | None = None
        try:
            await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not work.done() and stop is not None:
                stopping = asyncio.ensure_future(stop())
                await asyncio.wait({work, forced}, return_when=asyncio.FIRST_COMPLETED)
            if not work.done():
                work.cancel()
            await asyncio.wait({work})
        finally:
            for waiter in (stopped, forced):
                waiter.cancel()
            if stopping is not None:
                # The cancelled work settles the run, so the stop returns promptly.
                await asyncio.gather(stopping, return_exceptions=True)
        return None if work.cancelled() else work.result()


async def under_stop_signals(run: Callable[[StopSignals], Awaitable[int]]) -> int:
    """``run`` with Ctrl+C and SIGTERM turned into a stop from the start (a signal before Playwright's driver or
    Chromium is up stops the run too, without a traceback), and held until the process exits."""
    signals = StopSignals()
    signals.install()
    try:
        return await run(signals)
    finally:
        signals.hold_until_exit()
