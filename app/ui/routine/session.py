"""One routine run for the panel: checks it (plan_routine, off the loop), frees the profile, opens it
(open_routine), runs it, and turns the runner's events into Qt signals. No widgets here.

The routine stays open after it ends (its windows show what the rows did) until the next run, leaving Routine mode
or quitting: ``close()``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from app.background import Background
from app.browser.screen_rect import ScreenRect
from app.core.errors import CannotStart
from app.core.llm import LLMClient
from app.routine.launch import OpenRoutine, RoutineSetup, open_routine
from app.routine.paths import PathBook
from app.routine.plan import RoutinePlan, plan_routine
from app.routine.state import RoutineBusy
from app.routine.teach import Teaching
from app.routine.types import PersonRequest, RoutineOptions, RoutineSummary
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.text.i18n import tr

log = logging.getLogger(__name__)


class DemoRoutine(Protocol):
    """The bundled demo routine, handed down by app/ui/desktop.py (app/demo/routine.py's DemoRoutineBundle)."""

    name: str
    template: str

    @property
    def rows(self) -> Path: ...

    async def start_url(self) -> str:
        """Where each row starts, on the demo's local site (started the first time)."""
        ...

    def models(self) -> Callable[[], LLMClient]:
        """Builds the scripted model of each of the routine's windows."""
        ...

    async def close(self) -> None: ...


@dataclass
class RoutineHost:
    """What a routine needs from the app around the panel (app/ui/desktop.py builds it)."""

    settings: Callable[[], Settings]
    paths: AppPaths
    api_key: Callable[[], str | None]
    demo: Callable[[], bool]  # no model: only the demo routine can run
    release_browser: Callable[[], Awaitable[None]]  # the single task's Chromium lets go of the profile
    browser_back: Callable[[], object]  # the single task's Chromium opens again
    window: Callable[[], ScreenRect | None]  # where the browser goes, beside the panel
    open_run: Callable[[str], object]  # a row's run in History, by its id
    demo_routine: DemoRoutine
    headless: bool = False
    # The panel comes forward ("Show the panel" in a window that waits for the person).
    bring_back: Callable[[], None] = lambda: None


async def check(options: RoutineOptions) -> RoutinePlan:
    """RowsError in plain words when the rows or the template cannot be used; nothing has started then."""
    return await asyncio.to_thread(plan_routine, options)


class RoutineSession(QObject):
    rowsPlanned = Signal(object)  # RowsPlanned
    rowStarted = Signal(object)  # RowStarted
    rowActivity = Signal(object)  # RowActivity
    rowFinished = Signal(object)  # RowFinished
    rowsFinished = Signal(object)  # RowsFinished: the rest of a huge file, at once
    personNeeded = Signal(object)  # PersonRequest
    personDone = Signal(object)  # PersonRequest
    progress = Signal(object)  # RoutineProgress
    finished = Signal(object)  # RoutineSummary
    failed = Signal(str)  # the routine could not start, in plain words
    pathChanged = Signal(object)  # PathChange
    teachStarted = Signal(object)  # TeachStarted: Show me once, a row is the person's to do
    taughtStep = Signal(object)  # TaughtStep
    pathShown = Signal(object)  # PathShown

    def __init__(self, host: RoutineHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self._open: OpenRoutine | None = None
        self._task: asyncio.Task[None] | None = None
        self._background = Background("routine panel")

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def current(self) -> asyncio.Task[None] | None:
        return self._task

    @property
    def paths(self) -> PathBook | None:
        """Every path the routine knows, with the kind of row each serves."""
        return self._open.runner.paths if self._open is not None else None

    def start(
        self,
        plan: RoutinePlan,
        *,
        allowed_sites: list[str] | None = None,
        model: Callable[[], LLMClient] | None = None,
    ) -> asyncio.Task[None]:
        """Run ``plan`` (``model``: in place of the configured model, the demo's)."""
        self._task = asyncio.ensure_future(self._run(plan, allowed_sites, model))
        return self._task

    async def _run(
        self, plan: RoutinePlan, allowed_sites: list[str] | None, model: Callable[[], LLMClient] | None
    ) -> None:
        await self.close()
        host = self.host
        try:
            await host.release_browser()
            self._open = await open_routine(
                plan,
                RoutineSetup(
                    settings=host.settings(),
                    paths=host.paths,
                    api_key=host.api_key(),
                    headless=host.headless,
                    person_present=True,
                    confirm=None,
                    allowed_domains=allowed_sites or None,
                    llm_factory=model,
                    demo=model is not None,
                    on_stop_pressed=self.stop,
                    on_panel_pressed=host.bring_back,
                    window=host.window(),
                ),
            )
        except RoutineBusy:
            self.failed.emit(tr("This routine is running in another window of Page Agent (or the CLI) right now."))
            return
        except (CannotStart, RuntimeError, ValueError, OSError) as exc:
            self.failed.emit(tr("The routine could not start: {reason}", reason=str(exc) or type(exc).__name__))
            return
        runner = self._open.runner
        runner.on("rows_planned", self.rowsPlanned.emit)
        runner.on("row_started", self.rowStarted.emit)
        runner.on("row_activity", self.rowActivity.emit)
        runner.on("row_finished", self.rowFinished.emit)
        runner.on("rows_finished", self.rowsFinished.emit)
        runner.on("person_needed", self.personNeeded.emit)
        runner.on("person_done", self.personDone.emit)
        runner.on("progress", self.progress.emit)
        runner.on("path_changed", self.pathChanged.emit)
        runner.on("teach_started", self.teachStarted.emit)
        runner.on("taught_step", self.taughtStep.emit)
        runner.on("path_shown", self.pathShown.emit)
        opened = self._open
        try:
            summary: RoutineSummary = await runner.run()
        except Exception as exc:
            log.exception("the routine failed")
            self.failed.emit(tr("The routine could not go on: {reason}", reason=str(exc) or type(exc).__name__))
            return
        finally:
            await opened.ended()
        self.finished.emit(summary)

    # --- the runner's controls ---------------------------------------------------------------------------------

    def pause(self) -> None:
        if self._open is not None:
            self._open.runner.pause()

    def resume(self) -> None:
        if self._open is not None:
            self._open.runner.resume()

    @property
    def opened(self) -> OpenRoutine | None:
        """The routine last run, while its windows are open."""
        return self._open

    @property
    def paused(self) -> bool:
        return self._open is not None and self._open.runner.paused

    def stop(self) -> None:
        """Rows in flight end stopped, the rest skipped (Esc, Stop, the bar inside Chromium)."""
        if self._open is not None and self.running:
            self._background.spawn(self._open.runner.stop())

    def continue_row(self, request: PersonRequest) -> None:
        if self._open is not None:
            self._open.runner.continue_row(request.id)

    def give_up(self, request: PersonRequest) -> None:
        if self._open is not None:
            self._open.runner.give_up(request.id)

    def answer(self, request: PersonRequest, allow: bool) -> None:
        if self._open is not None:
            self._open.runner.answer(request.id, allow)

    def allow_every_row(self, request: PersonRequest) -> None:
        if self._open is not None:
            self._open.runner.answer(request.id, True, every_row=True)

    # --- Show me once: the person's answers (the bar inside the page gives the same) ------------------------------

    @property
    def teaching(self) -> Teaching | None:
        """The row the person is showing, while they do."""
        return self._open.runner.teaching if self._open is not None else None

    def teach_done(self) -> None:
        if self.teaching is not None:
            self.teaching.done()

    def teach_cancel(self) -> None:
        if self.teaching is not None:
            self.teaching.cancel()

    def use_path(self, use: bool) -> None:
        """Use this path (True) or Show me again (False)."""
        if self.teaching is not None:
            self.teaching.use(use)

    def bring_to_front(self, number: int) -> None:
        if self._open is not None:
            self._background.spawn(self._open.runner.bring_to_front(number))

    async def close(self) -> None:
        """Close the routine's browser and state (stopping it first if it still runs)."""
        opened, self._open = self._open, None
        if opened is None:
            return
        if self._task is not None and not self._task.done() and self._task is not asyncio.current_task():
            await opened.runner.stop()
            await asyncio.wait({self._task})
        await opened.close()

    async def leave(self) -> None:
        """Routine mode closes: the routine's browser goes, the single task's comes back."""
        had = self._open is not None
        await self.close()
        if had:
            self.host.browser_back()
