"""A routine's lanes: one row at a time in one window (app/routine/browsers.py makes them), and what the runner asks
of them: a window for the next row, unless no row is left to take; why none is left when every lane has ended."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any, Protocol

from app.routine.row import RunnerSlot
from app.text.i18n import tr


class RunnerLane(Protocol):
    """One row at a time in one window (app/routine/browsers.py's Lane)."""

    @property
    def ended_words(self) -> str:
        """Why it runs no more rows ("" while it may)."""
        ...

    async def ready(self) -> RunnerSlot | None:
        """The window for the next row, once there is one (None: no more rows here). Safe to cancel."""
        ...

    def row_ended(self, failed: bool) -> None: ...


def no_browser_left(lanes: Sequence[RunnerLane]) -> str:
    """Why the rows left end ``error``: no browser is left, and the last reason a lane gave for it."""
    gone = tr("Every browser of the routine went away before this row could start.")
    said = next((words for lane in reversed(lanes) if (words := lane.ended_words)), "")
    return f"{gone} {said}" if said else gone


async def window_unless(lane: RunnerLane, idle: Coroutine[Any, Any, None]) -> RunnerSlot | None:
    """The lane's window, or None when ``idle`` ends first (no row is left to take): what the lane was asking for
    (a grid's session in its queue) is let go."""
    ready = asyncio.ensure_future(lane.ready())
    nothing = asyncio.ensure_future(idle)
    try:
        await asyncio.wait({ready, nothing}, return_when=asyncio.FIRST_COMPLETED)
        needed = not nothing.done()
    finally:
        for waiting in (ready, nothing):
            waiting.cancel()
        await asyncio.gather(ready, nothing, return_exceptions=True)
    return ready.result() if needed and not ready.cancelled() else None
