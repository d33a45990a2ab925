"""Waiting in panel and dialog tests on what Qt does next, rather than for a while.

An async test on qasync's loop must not call ``processEvents()``: that runs the loop's own callbacks inside the test's
task, and a task woken there is never woken again. ``QCoreApplication.sendPostedEvents()`` runs no timer and no
callback of the loop's, so it is safe.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QWidget

_ROUNDS = 50  # a window still busy after this many rounds is busy for good


def laid_out(window: QWidget) -> None:
    """``window`` at rest, now: Qt's posted events sent (layout requests; calls queued for the next turn, such as a
    dialog's fit once it is shown), then what its widgets put off to the next turn on a zero-interval timer (a
    dialog's refit) done at once, and again until nothing is left. AssertionError when the window keeps finding more
    to do (a refit that sets off the next one)."""
    for _ in range(_ROUNDS):
        QCoreApplication.sendPostedEvents()
        pending = [timer for timer in window.findChildren(QTimer) if timer.isActive() and timer.interval() == 0]
        if not pending:
            return
        for timer in pending:
            timer.stop()
            timer.timeout.emit()
    raise AssertionError(f"{type(window).__name__} never came to rest: it lays itself out again and again")


async def tasks_ended(before: set[asyncio.Task[Any]], timeout: float = 5.0) -> None:
    """Every task started since ``before`` (``asyncio.all_tasks()`` then) has ended: the work a closed window
    cancelled finishes on this loop, not after it."""
    started = asyncio.all_tasks() - before - {asyncio.current_task()}
    if started:
        _, running = await asyncio.wait(started, timeout=timeout)
        assert not running, f"still running after {timeout:g} s: {running}"
