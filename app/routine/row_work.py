"""The routine's rows at work: one worker per lane, all under one ``asyncio.TaskGroup`` (a fault of the program in one
ends the others, and the run ends with it); which row starts next (one that learns a path waits while another learns,
none while paused); and each row's life as a ``RowRun`` (app/routine/row_run.py), from its start written in the state
to its ending saved there, whatever ends it.

``RoutineRunner`` (app/routine/runner.py) is this, with what its clients call: pause, resume, stop, the person's
answers. No Qt here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from app.background import Background
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.llm import LLMClient
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmHandler
from app.core.types import (
    AgentActivity,
    AgentStatus,
    ExecutedActivity,
    ExecutingActivity,
    ExecutionResult,
    HandOffActivity,
    PausedActivity,
    StepEvent,
    ThinkingActivity,
)
from app.routine.cost import Meter
from app.routine.lanes import RunnerLane, window_unless
from app.routine.learning import Learning
from app.routine.ledger import RunLedger
from app.routine.path import may_send
from app.routine.person import PersonQueue
from app.routine.plan import RoutinePlan
from app.routine.replay import RowModel
from app.routine.results import BIG_FILE
from app.routine.row import RowHistory, RunnerSlot, build_agent, cut_short, outcome_of, row_guardrails
from app.routine.row_run import RowRun, RowsInFlight
from app.routine.teach import Teaching, show_row
from app.routine.types import (
    PersonRequest,
    RoutineProgress,
    RowActivity,
    RowFinished,
    RowOutcome,
    RowsFinished,
    RowStarted,
    RowStatus,
)
from app.text.i18n import tr
from app.text.wording import describe_activity

log = logging.getLogger(__name__)


class RowWork(ABC):
    """The state a run shares across its rows, the rows' work, and how far it has come (``progress``)."""

    def __init__(
        self,
        plan: RoutinePlan,
        lanes: Sequence[RunnerLane],
        model: LLMClient,
        ledger: RunLedger,
        *,
        config: AgentConfig,
        guardrails: Guardrails,
        person_present: bool,
        confirm: ConfirmHandler | None,
        history: Callable[[Agent], RowHistory] | None,
        hand_off_wait: float | None,
        meter: Meter,
        person_queue: PersonQueue,
        paths: Learning,
    ) -> None:
        self.plan = plan
        self._lanes, self._lanes_left = list(lanes), len(lanes)
        self._model = model
        self._ledger = ledger
        self._config = config
        self._guardrails = guardrails
        self._person_present = person_present
        self._confirm = confirm
        self._history = history
        self._hand_off_wait = hand_off_wait
        self._meter = meter
        self.person_queue = person_queue
        self._paths = paths
        self._listeners: dict[str, list[Callable[[Any], None]]] = {}
        self._todo: deque[int] = deque()
        self._this_run: list[str] = []  # the keys of the rows this run runs
        self._rows = RowsInFlight()
        self._wake = asyncio.Condition()
        self._paused = False
        self._stopping = False
        self._background = Background("routine")

    def progress(self) -> RoutineProgress:
        counts = {status: n for status, n in self._ledger.counts.items() if n and status != RowStatus.RUNNING}
        in_flight = len(self._rows.agents)
        left = len(self._todo) + in_flight
        learns = self._paths.learns_next
        return RoutineProgress(
            total=len(self._this_run),
            counts=counts,
            in_flight=in_flight,
            left=left,
            seconds_left=self._meter.seconds_left(left=left, learns=learns, at_once=self._lanes_left),
            paused=self._paused,
            at_limit=self.person_queue.limit_asked is not None,
            path_learned=bool(self._paths.book.live()),
            earlier=len(self.plan.keys) - len(self._this_run),
            costs=self._meter.costs(left=left, learns=learns, in_flight=self._rows.models),
        )

    @abstractmethod
    def check_limit(self, number: int | None = None) -> None:
        """Past the routine's limit, it pauses and asks (row ``number``, about to call the model, holds at once)."""

    @property
    def teaching(self) -> Teaching | None:
        """The row the person is showing (Show me once), while they do."""
        return next((row.teaching for row in self._rows if row.teaching is not None), None)

    # --- scheduling --------------------------------------------------------------------------------------------

    async def _work_all(self) -> None:
        """Every lane's worker under one TaskGroup; the first fault of one cancels the others (each row cancelled in
        flight saves its ending) and is raised here, as itself."""
        try:
            async with asyncio.TaskGroup() as workers:
                for lane in self._lanes:
                    workers.create_task(self._work(lane))
        except ExceptionGroup as failed:
            first = failed.exceptions[0]
            raise first from first.__cause__

    async def _work(self, lane: RunnerLane) -> None:
        """A lane's rows, one after another, each once the lane has a window for it (a queue waits, never fails)."""
        try:
            while (slot := await window_unless(lane, self._nothing_to_take())) is not None:
                row = await self._next_row(slot)
                if row is None:
                    return
                lane.row_ended(await self._run_row(row))
        finally:
            self._lanes_left -= 1

    async def _nothing_to_take(self) -> None:
        async with self._wake:
            await self._wake.wait_for(lambda: self._stopping or not self._todo)

    async def _next_row(self, slot: RunnerSlot) -> RowRun | None:
        """The next row that may start in ``slot``: a row no path fits (or the one the person shows) learns, one at
        a time (a row waiting for the person does not count), so that the rows like it can replay its path; the rows
        a path fits go on meanwhile."""
        async with self._wake:
            await self._wake.wait_for(lambda: self._stopping or not self._todo or self._startable() is not None)
            startable = None if self._stopping else self._startable()
            if startable is None:
                return None
            self._todo.remove(startable[0])
            row = RowRun(startable[0], slot, startable[1])
            self._rows.add(row)
            if not self._todo:
                self._wake.notify_all()  # the lanes still waiting for a window need none now
            return row

    def _startable(self) -> tuple[int, bool] | None:
        return None if self._paused else self._paths.startable(self._todo, self._rows.learning)

    async def _notify(self) -> None:
        async with self._wake:
            self._wake.notify_all()

    # --- one row -----------------------------------------------------------------------------------------------

    async def _run_row(self, row: RowRun) -> bool:
        """Runs the row; whether it failed for its browser's sake (it went away, or the row could not start in it).
        Whatever ends it (a fault of the program, its worker cancelled), a row begun ends saved, never ``done``
        unless its agent said so."""
        try:
            await self._ledger.start(row.number, row.slot.name)
        except BaseException:
            self._rows.remove(row)
            row.ran()
            raise
        try:
            if row.learns and self._paths.teach:
                await self._taught_row(row)
                return False
            return await self._agent_row(row)
        except BaseException:
            await self._cut_short(row)
            raise
        finally:
            self._rows.remove(row)  # a window renewed since is let go with it

    async def _agent_row(self, row: RowRun) -> bool:
        plan, slot, number = self.plan, row.slot, row.number
        followed = self._paths.choose(number)
        path = followed.path if followed is not None else None
        model = row.model = RowModel(self._model, number, plan.public_values(number), path)
        confirm = self._confirm if self._confirm is not None else self.person_queue.confirm_handler(number, slot.name)
        guardrails = row_guardrails(self._guardrails, plan, number, confirm)
        agent = row.agent = build_agent(model, slot, self._config, guardrails, self._person_present)
        row.running = True
        recorder = self._history(agent) if self._history is not None else None
        agent.on("activity", lambda activity: self._activity(row, activity, guardrails))
        agent.on("event_added", lambda event: self._hold_if_paused(row, event))
        self._emit("row_started", RowStarted(number, slot.name, path is not None))
        started = time.monotonic()
        could_not_start = False
        try:
            if plan.options.start_url:
                await slot.open(plan.options.start_url, AbortSignal())
            result = await agent.execute(plan.task(number), own_words=plan.own_words)
        except Exception as exc:  # the start page could not open, the browser went away before the row began
            could_not_start = True
            said = tr("The row could not start: {reason}", reason=exc)
            result = ExecutionResult(success=False, data=said, status=AgentStatus.ERROR)
        finally:
            row.ran()
            self.person_queue.drop_row(number)
        run = await recorder.finish() if recorder is not None else ""
        outcome = outcome_of(
            result,
            model,
            slot=slot,
            seconds=time.monotonic() - started,
            run=run,
            gave_up=row.given_up,
            unanswered=row.unanswered,
            outputs=plan.options.output_columns,
            sent=row.sent,
        )
        touched = row.touched or bool(slot.foreign_keys)
        await self._paths.after_row(number, model, followed, outcome, touched, self._todo)
        self._meter.row_ended(outcome, model.usage)
        await agent.dispose()
        await self._save(row, outcome)
        self.check_limit()
        await self._notify()
        return could_not_start or not slot.alive

    async def _taught_row(self, row: RowRun) -> None:
        """Show me once: the person does the row (``teach.show_row``); the path they take is followed from now on."""
        number = row.number
        teaching = row.teaching = Teaching(number)
        try:
            over, path = await show_row(teaching, row.slot, self.plan, self._emit, self._shown, self._hand_off_wait)
            if path is not None and not self._stopping:
                await self._paths.taught(number, path, self._todo)
            elif over != "done":
                self._paths.teach = False  # cancelled, or nobody came: the model learns from the next rows
        finally:
            row.ran()
            await self._notify()

    async def _shown(self, number: int, outcome: RowOutcome) -> None:
        """The ending of the row the person showed (``show_row`` saves it)."""
        row = self._rows.get(number)
        if row is not None:
            row.saved = True
        await self._finish(number, outcome)

    async def _save(self, row: RowRun, outcome: RowOutcome) -> None:
        row.saved = True
        await self._finish(row.number, outcome)

    async def _cut_short(self, row: RowRun) -> None:
        """A row begun whose ending is not saved when its work ends on an error, or is cancelled: its agent is
        stopped, and it ends ``interrupted`` (it may have sent its data: never run again blindly)."""
        row.ran()
        self.person_queue.drop_row(row.number)
        try:
            if row.agent is not None:
                await row.agent.dispose()  # stopped first, when it still runs
            if not row.saved:
                await self._save(row, cut_short(row.slot.name))
        except Exception:
            log.exception("row %d's ending could not be saved; the state says it was running", row.number)

    async def _finish(self, numbers: int | list[int], outcome: RowOutcome) -> None:
        numbers = await self._ledger.finish(numbers, outcome)
        many = len(numbers) > BIG_FILE  # the rest of a huge file: one event, not one per row
        for event in [RowsFinished(len(numbers), outcome)] if many else [RowFinished(n, outcome) for n in numbers]:
            self._emit("rows_finished" if many else "row_finished", event)
        self._emit("progress", self.progress())

    # --- what rows do ------------------------------------------------------------------------------------------

    def _activity(self, row: RowRun, activity: AgentActivity, guardrails: Guardrails) -> None:
        number, model = row.number, row.model
        if isinstance(activity, HandOffActivity):
            row.parked = True
            if row.learns:  # a row that learns may start meanwhile
                self._background.spawn(self._notify())
            if model is not None and model.held_back:  # the routine's own hand-off, in the model's stead
                self.person_queue.add(number, "unclear", guardrails.secrets.mask(model.held_back), row.slot.name)
            else:
                self.person_queue.add(number, "hand_off", activity.reason, row.slot.name)
            return
        if isinstance(activity, ExecutingActivity) and may_send(activity.tool):
            row.sent = True
        if isinstance(activity, ThinkingActivity):  # a model call is about to be made
            self.check_limit(number)
            if row.held:  # it holds before the call: its row says so, not "Thinking"
                return
        if isinstance(activity, (ThinkingActivity, ExecutingActivity, ExecutedActivity, PausedActivity)):
            if not isinstance(activity, PausedActivity):  # handed back: it goes on
                row.parked = False
            paused = isinstance(activity, PausedActivity)
            at_limit = paused and self.person_queue.limit_asked is not None
            self._emit("row_activity", RowActivity(number, describe_activity(activity), paused, at_limit))

    def _hold_if_paused(self, row: RowRun, event: object) -> None:
        """Pause: a row in flight holds once its step is done (not in the middle of one)."""
        if self._paused and isinstance(event, StepEvent) and not row.held:
            row.hold()

    def _person_changed(self, request: PersonRequest, added: bool) -> None:
        self._emit("person_needed" if added else "person_done", request)

    def _emit(self, event: str, payload: object) -> None:
        for listener in list(self._listeners.get(event, [])):
            try:
                listener(payload)
            except Exception:
                log.exception("routine listener for %s failed", event)
