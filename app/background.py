"""Work started on the event loop and not awaited (a Qt slot starting a coroutine, a browser event handler).

asyncio keeps only a weak reference to a task, so one nobody holds can vanish mid-way, and an exception in a task
nobody awaits is reported late or never. ``Background`` holds each task until it ends and logs what it raised.
No Qt, no Playwright: the panel, the browser layer and the CLI share it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


class Background:
    def __init__(self, owner: str) -> None:
        self._owner = owner  # named in the log line of a failure
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        return task

    def cancel_all(self) -> None:
        """Cancel every task still running, except the one calling (it may be closing its own window)."""
        current = asyncio.current_task() if _loop_running() else None
        for task in list(self._tasks):
            if task is not current:
                task.cancel()

    def __len__(self) -> int:
        return len(self._tasks)

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("%s: background work failed", self._owner, exc_info=error)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
