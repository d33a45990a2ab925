"""Following a run from outside it: what it does, in words, as it goes, and a stop when whoever asked for the run
cancels it. An MCP task run headless and one run in the panel (its socket's door) report the same ``RunProgress``,
put in words here once; the MCP task's view takes it as it is (``McpTask.progress``), whichever way it came.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel

from app.background import Background
from app.core.events import EventName, Listener
from app.core.types import AgentActivity, HandOffActivity, HistoricalEvent, PausedActivity, StepEvent
from app.text.wording import describe_activity


class RunProgress(BaseModel):
    """The run moved on: ``steps`` taken so far, ``words`` what it does now; ``needs_person`` while it waits for the
    person's hand-off (``reason``: what the agent asks them to do). Also the panel socket's progress line (``kind``)."""

    kind: Literal["progress"] = "progress"
    steps: int
    words: str
    needs_person: bool = False
    reason: str = ""


class RunEvents(Protocol):
    """Where a run's events come from: the agent itself, or the panel's bridge to whichever agent it runs."""

    def on(self, event: EventName, listener: Listener) -> Callable[[], None]: ...


@contextlib.contextmanager
def following(run: RunEvents, report: Callable[[RunProgress], None]) -> Iterator[None]:
    """While inside, each change of the run is ``report``-ed as a ``RunProgress``: what it does now, a step taken, a
    hand-off to the person. A pause for the person's Take over changes nothing: the run is where it was."""
    follower = _Follower(report)
    unsubscribes = [run.on("activity", follower.activity), run.on("event_added", follower.event)]
    try:
        yield
    finally:
        for unsubscribe in unsubscribes:
            unsubscribe()


class _Follower:
    def __init__(self, report: Callable[[RunProgress], None]) -> None:
        self._report = report
        self._steps = 0
        self._words = ""

    def activity(self, activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity):
            words = describe_activity(activity)  # the agent's words, quoted
            self._report(RunProgress(steps=self._steps, words=words, needs_person=True, reason=activity.reason))
        elif not isinstance(activity, PausedActivity):
            self._words = describe_activity(activity)
            self._report(RunProgress(steps=self._steps, words=self._words))

    def event(self, event: HistoricalEvent) -> None:
        if isinstance(event, StepEvent):
            self._steps = event.step_index
            self._report(RunProgress(steps=self._steps, words=self._words))


@dataclass
class Cancelling:
    """Whether the cancel came (and ``stop`` was called) while the run went on."""

    came: bool = False


_background = Background("stop-when-cancelled")


@contextlib.asynccontextmanager
async def stop_when_cancelled(
    cancelled: Awaitable[bool], stop: Callable[[], Awaitable[None] | None]
) -> AsyncIterator[Cancelling]:
    """While inside, ``cancelled`` is awaited beside the body: once it returns True, ``stop()`` is called (False: no
    cancel will come, the one asking went away). Leaving ends the waiting, and a stop still under way."""
    cancelling = Cancelling()
    asked = asyncio.ensure_future(cancelled)

    async def wait() -> None:
        if await asked:
            cancelling.came = True
            stopping = stop()
            if stopping is not None:
                await stopping

    waiter = _background.spawn(wait())
    try:
        yield cancelling
    finally:
        asked.cancel()
        waiter.cancel()
