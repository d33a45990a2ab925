"""The routine runner: reads the state, hands rows to slots, learns the paths (from the first good row, the row the
person showed, each new kind of row, the row that met a changed site: app/routine/learning.py) and replays the one
that fits each row, queues the rows that need the person, and writes each row's status before and after it runs.

It sits above the agent, never inside it: a row is one ordinary run of the agent. No Qt here; the CLI and the panel
are its clients (events, the person queue, pause / resume / stop, progress).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque
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
from app.routine.cost import NO_LIMIT, Meter, first_row_calls
from app.routine.lanes import RunnerLane, no_browser_left, window_unless
from app.routine.learning import Learning
from app.routine.ledger import RunLedger
from app.routine.path import RoutinePath, may_send
from app.routine.paths import PathBook
from app.routine.person import PersonQueue
from app.routine.plan import RoutinePlan
from app.routine.replay import RowModel
from app.routine.results import BIG_FILE
from app.routine.row import RowHistory, RunnerSlot, build_agent, outcome_of, row_guardrails
from app.routine.state import RoutineStore
from app.routine.teach import Teaching, show_row
from app.routine.types import (
    BrowserNote,
    Limit,
    PersonRequest,
    RoutineEvent,
    RoutineProgress,
    RoutineSummary,
    RowActivity,
    RowFinished,
    RowOutcome,
    RowsFinished,
    RowsPlanned,
    RowStarted,
    RowStatus,
)
from app.settings.presets import TokenPrice
from app.text.cost_words import limit_words
from app.text.i18n import tr
from app.text.wording import describe_activity

log = logging.getLogger(__name__)

# How long closing a routine that still runs waits for its stopped rows to save their endings.
WIND_DOWN = 30.0


class RoutineRunner:
    """``await run()`` once; its events (``on``) and their payloads are listed at ``types.RoutineEvent``."""

    def __init__(
        self,
        plan: RoutinePlan,
        store: RoutineStore,
        lanes: Sequence[RunnerLane],
        model: LLMClient,
        *,
        config: AgentConfig,
        guardrails: Guardrails,
        person_present: bool,
        confirm: ConfirmHandler | None = None,
        history: Callable[[Agent], RowHistory] | None = None,
        hand_off_wait: float | None = None,
        price: TokenPrice | None = None,
        limit: Limit = NO_LIMIT,
    ) -> None:
        """``confirm``: who answers risky moments; None asks the person through the queue. ``person_present``:
        someone can take a row's browser (a hand-off waits in the queue); else a hand-off ends the row needs_person.
        ``hand_off_wait``: seconds a hand-off waits before its row ends needs_person (None: until answered).
        ``price``: the model's (None: not known); ``limit``: past it the routine pauses and asks (cost.py)."""
        self.plan = plan
        self._store = store
        self._lanes, self._lanes_left = list(lanes), len(lanes)
        self._model = model
        self._config = config.model_copy(update={"result_fields": plan.options.output_columns})
        self._guardrails = guardrails
        self._person_present = person_present
        self._confirm = confirm
        self._history = history
        self._listeners: dict[str, list[Callable[[Any], None]]] = {}
        self.person_queue = PersonQueue(self._person_changed, wait_s=hand_off_wait, on_expired=self._nobody_came)
        self._todo: deque[int] = deque()
        self._this_run: list[str] = []  # the keys of the rows this run runs
        self._wake = asyncio.Condition()
        self._paused = False
        self._stopping = False
        self._learning = 0  # rows in flight that learn a path, not waiting for the person
        self._agents: dict[int, Agent] = {}
        self._held: set[int] = set()
        self._parked: set[int] = set()  # rows waiting for the person on a hand-off
        self._sent: set[int] = set()  # rows in flight that may have sent their data (see Tool.may_send)
        self._given_up: dict[int, str] = {}
        self._unanswered: set[int] = set()  # rows whose hand-off nobody took in time
        self._slot_of: dict[int, RunnerSlot] = {}
        self._paths = Learning(plan, store, guardrails.secrets.mask, self._emit)
        self.teaching: Teaching | None = None  # the row the person is showing (Show me once), while they do
        self._hand_off_wait = hand_off_wait
        self._ledger = RunLedger(plan, store)
        self._models: dict[int, RowModel] = {}  # the rows in flight
        columns = len(set(plan.template.columns))
        self._meter = Meter(price=price, limit=limit, first_row=first_row_calls(columns), replays=plan.options.replay)
        self._started = time.monotonic()
        self._background = Background("routine")
        self._over: asyncio.Event | None = None  # made when run() begins, set once it has ended

    # --- public API --------------------------------------------------------------------------------------------

    def on(self, event: RoutineEvent, listener: Callable[[Any], None]) -> Callable[[], None]:
        self._listeners.setdefault(event, []).append(listener)
        return lambda: self._listeners[event].remove(listener)

    @property
    def path(self) -> RoutinePath | None:
        """The newest path (None until a row succeeded, or with replay off)."""
        return self._paths.newest

    @property
    def paths(self) -> PathBook:
        """Every path learned: the live ones, and the ones a mend replaced (with the row that replaced them)."""
        return self._paths.book

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        """Rows in flight finish their step and hold; no row starts until ``resume()``."""
        self._paused = True
        self._emit("progress", self.progress())

    def resume(self) -> None:
        """Rows start again (past the limit, when the pause was its: it is not said again)."""
        self.person_queue.settle_limit(True)
        self._paused = False
        for number in list(self._held):
            agent = self._agents.get(number)
            if agent is not None:
                agent.resume()
        self._held.clear()
        self._background.spawn(self._notify())
        self._emit("progress", self.progress())

    async def stop(self) -> None:
        """Every row in flight ends ``stopped`` (``interrupted`` when it may have sent its data already); the rows
        not started are ``skipped``; the results are kept."""
        self._stopping = True
        if self.teaching is not None:
            self.teaching.stop()
        self.person_queue.settle_limit(False)
        await self._notify()
        await asyncio.gather(*(agent.stop() for agent in list(self._agents.values())), return_exceptions=True)

    async def wind_down(self) -> None:
        """A run under way is stopped (as ``stop``), and this returns once it has ended with every row's ending saved,
        at most ``WIND_DOWN`` seconds: what closes the routine's state calls it first. At once when none runs."""
        over = self._over
        if over is None or over.is_set():
            return
        await self.stop()
        try:
            await asyncio.wait_for(over.wait(), WIND_DOWN)
        except TimeoutError:
            log.warning("the routine's rows did not end within %g s of its stop; its state closes anyway", WIND_DOWN)

    def continue_row(self, request_id: int, note: str = "") -> None:
        """The person did what a hand-off asked: that row carries on (``note`` goes to the agent)."""
        request = self._request(request_id)
        if request is not None and self.person_queue.answer(request_id, True, note):
            self._sent.add(request.number)  # the person acted in the row's page: they may have sent its form
            self._paths.touched.add(request.number)
            agent = self._agents.get(request.number)
            if agent is not None:
                agent.resume(note)

    def give_up(self, request_id: int) -> None:
        """Nobody will do what a hand-off asked: that row ends ``needs_person`` (it is tried again next run)."""
        request = self._request(request_id)
        if request is not None and self.person_queue.answer(request_id, False):
            self._given_up[request.number] = request.words
            agent = self._agents.get(request.number)
            if agent is not None:
                self._background.spawn(agent.stop())

    def _nobody_came(self, request: PersonRequest) -> None:
        """A hand-off nobody took within ``hand_off_wait``: given up, and the row says so."""
        if request.kind == "limit":  # nobody said to go on past the limit: the routine stops
            self.answer(request.id, False)
            return
        self._unanswered.add(request.number)
        self.give_up(request.id)

    def answer(self, request_id: int, allow: bool, *, every_row: bool = False) -> None:
        """A risky moment's answer: allowed or not; ``every_row``: the same act is allowed on every row of this run
        without asking again. The limit's question: go on past it (allow), or stop."""
        if request_id == self.person_queue.limit_asked and allow:
            self.resume()
        elif request_id == self.person_queue.limit_asked:
            self._background.spawn(self.stop())
        else:
            self.person_queue.answer(request_id, allow, every_row=every_row)

    async def bring_to_front(self, number: int) -> None:
        """The row's window comes to the front (the person is about to act in it)."""
        slot = self._slot_of.get(number)
        if slot is not None:
            await slot.bring_to_front()

    def progress(self) -> RoutineProgress:
        counts = {status: n for status, n in self._ledger.counts.items() if n and status != RowStatus.RUNNING}
        left = len(self._todo) + len(self._agents)
        learns = self._paths.learns_next
        return RoutineProgress(
            total=len(self._this_run),
            counts=counts,
            in_flight=len(self._agents),
            left=left,
            seconds_left=self._meter.seconds_left(left=left, learns=learns, at_once=self._lanes_left),
            paused=self._paused,
            at_limit=self.person_queue.limit_asked is not None,
            path_learned=bool(self._paths.book.live()),
            earlier=len(self.plan.keys) - len(self._this_run),
            costs=self._meter.costs(left=left, learns=learns, in_flight=self._models.values()),
        )

    def _check_limit(self, number: int | None = None) -> None:
        """Past its limit, with rows left, the routine pauses (row ``number``, about to call the model, at once) and
        asks the person (a "limit" request: go on past it, or stop); with nobody to ask it stops. Said once."""
        progress = self.progress()
        passed = self._meter.passed(progress.costs) if progress.left else None
        if passed is None:
            return
        self._emit("limit_reached", passed)
        if not self._person_present:
            self._background.spawn(self.stop())
            return
        self.person_queue.ask_limit(limit_words(passed))
        self.pause()
        if number is not None and number in self._agents:  # the row about to call the model holds at once
            self._held.add(number)
            self._agents[number].pause()

    async def run(self) -> RoutineSummary:
        over = self._over = asyncio.Event()
        try:
            return await self._run()
        finally:
            over.set()

    async def _run(self) -> RoutineSummary:
        records = await asyncio.to_thread(self._store.records)
        await self._paths.load()
        options = self.plan.options
        kept: dict[int, RowOutcome] = {}
        for number, key in enumerate(self.plan.keys, 1):
            record = records.get(key)
            if record is None or options.runs_again(record.outcome, key):
                self._todo.append(number)
                if record is not None:
                    self._ledger.known.add(number)
            else:
                kept[number] = record.outcome
        records = {}  # every record let go
        self._this_run = [self.plan.keys[number - 1] for number in self._todo]
        self._emit("rows_planned", RowsPlanned(tuple(self._todo), kept))
        self._emit("progress", self.progress())  # what it is about to cost, before any row
        for number in [n for n in self._todo if n in self.plan.problems]:
            self._todo.remove(number)
            await self._finish(number, RowOutcome(RowStatus.ERROR, self.plan.problems[number]))
        ran = len(self._todo)
        await self._ledger.write()
        try:
            await asyncio.gather(*(self._work(lane) for lane in self._lanes))
        finally:
            stopped = self._stopping
            reason = tr("The routine was stopped before this row started.") if stopped else no_browser_left(self._lanes)
            left, self._todo = list(self._todo), deque()
            if left:
                await self._finish(left, RowOutcome(RowStatus.SKIPPED if stopped else RowStatus.ERROR, reason))
            await self._ledger.write(final=True)
        counts = Counter(outcome.status for outcome in kept.values()) + self._ledger.counts
        return RoutineSummary(
            rows=len(self.plan.table.rows),
            counts=dict(counts),
            results=options.results_path(),
            model_calls=self._meter.calls,
            ran=ran,
            seconds=time.monotonic() - self._started,
            stopped=self._stopping,
        )

    # --- scheduling --------------------------------------------------------------------------------------------

    async def _work(self, lane: RunnerLane) -> None:
        """A lane's rows, one after another, each once the lane has a window for it (a queue waits, never fails)."""
        try:
            while (slot := await window_unless(lane, self._nothing_to_take())) is not None:
                taken = await self._next_row()
                if taken is None:
                    return
                lane.row_ended(await self._run_row(slot, *taken))
        finally:
            self._lanes_left -= 1

    async def _nothing_to_take(self) -> None:
        async with self._wake:
            await self._wake.wait_for(lambda: self._stopping or not self._todo)

    async def _next_row(self) -> tuple[int, bool] | None:
        """The next row that may start, and whether it learns a path: a row no path fits (or the one the person
        shows) learns, one at a time (a row waiting for the person does not count), so that the rows like it can
        replay its path; the rows a path fits go on meanwhile."""
        async with self._wake:
            await self._wake.wait_for(lambda: self._stopping or not self._todo or self._startable() is not None)
            startable = None if self._stopping else self._startable()
            if startable is None:
                return None
            self._todo.remove(startable[0])
            self._learning += int(startable[1])
            if not self._todo:
                self._wake.notify_all()  # the lanes still waiting for a window need none now
            return startable

    def _startable(self) -> tuple[int, bool] | None:
        return None if self._paused else self._paths.startable(self._todo, self._learning)

    async def _notify(self) -> None:
        async with self._wake:
            self._wake.notify_all()

    # --- one row -----------------------------------------------------------------------------------------------

    async def _run_row(self, slot: RunnerSlot, number: int, learning: bool) -> bool:
        """Runs the row; whether it failed for its browser's sake (it went away, or the row could not start in it)."""
        plan = self.plan
        values = plan.public_values(number)
        await self._ledger.start(number, slot.name)
        if learning and self._paths.teach:
            await self._taught_row(slot, number)
            return False
        followed = self._paths.choose(number)
        path = followed.path if followed is not None else None
        model = RowModel(self._model, number, values, path)
        confirm = self._confirm if self._confirm is not None else self.person_queue.confirm_handler(number, slot.name)
        guardrails = row_guardrails(self._guardrails, plan, number, confirm)
        agent = build_agent(model, slot, self._config, guardrails, self._person_present)
        recorder = self._history(agent) if self._history is not None else None
        self._agents[number] = agent
        self._models[number] = model
        self._slot_of[number] = slot
        agent.on("activity", lambda activity: self._activity(number, slot, model, activity, learning, guardrails))
        agent.on("event_added", lambda event: self._hold_if_paused(number, agent, event))
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
            self._agents.pop(number, None)
            self._models.pop(number, None)
            self._held.discard(number)
            self.person_queue.drop_row(number)
            if learning and number not in self._parked:
                self._learning -= 1
            self._parked.discard(number)
        run = await recorder.finish() if recorder is not None else ""
        outcome = outcome_of(
            result,
            model,
            slot=slot,
            seconds=time.monotonic() - started,
            run=run,
            gave_up=self._given_up.pop(number, ""),
            unanswered=number in self._unanswered,
            outputs=plan.options.output_columns,
            sent=number in self._sent,
        )
        self._sent.discard(number)
        self._unanswered.discard(number)
        self._slot_of.pop(number, None)  # a window renewed since is let go with it
        await self._paths.after_row(number, model, followed, outcome, bool(slot.foreign_keys), self._todo)
        self._meter.row_ended(outcome, model.usage)
        await agent.dispose()
        await self._finish(number, outcome)
        self._check_limit()
        await self._notify()
        return could_not_start or not slot.alive

    async def _taught_row(self, slot: RunnerSlot, number: int) -> None:
        """Show me once: the person does the row (``teach.show_row``); the path they take is followed from now on."""
        teaching = self.teaching = Teaching(number)
        self._slot_of[number] = slot
        try:
            over, path = await show_row(teaching, slot, self.plan, self._emit, self._finish, self._hand_off_wait)
            if path is not None and not self._stopping:
                await self._paths.taught(number, path, self._todo)
            elif over != "done":
                self._paths.teach = False  # cancelled, or nobody came: the model learns from the next rows
        finally:
            self.teaching = None
            self._learning -= 1
            await self._notify()

    async def _finish(self, numbers: int | list[int], outcome: RowOutcome) -> None:
        numbers = await self._ledger.finish(numbers, outcome)
        many = len(numbers) > BIG_FILE  # the rest of a huge file: one event, not one per row
        for event in [RowsFinished(len(numbers), outcome)] if many else [RowFinished(n, outcome) for n in numbers]:
            self._emit("rows_finished" if many else "row_finished", event)
        self._emit("progress", self.progress())

    # --- what rows do ------------------------------------------------------------------------------------------

    def _activity(
        self,
        number: int,
        slot: RunnerSlot,
        model: RowModel,
        activity: AgentActivity,
        learning: bool,
        guardrails: Guardrails,
    ) -> None:
        if isinstance(activity, HandOffActivity):
            self._parked.add(number)
            if learning:
                self._learning -= 1
                self._background.spawn(self._notify())
            if model.held_back:  # the routine's own hand-off, in the model's stead: its words are the app's
                self.person_queue.add(number, "unclear", guardrails.secrets.mask(model.held_back), slot.name)
            else:
                self.person_queue.add(number, "hand_off", activity.reason, slot.name)
            return
        if isinstance(activity, ExecutingActivity) and may_send(activity.tool):
            self._sent.add(number)
        if isinstance(activity, ThinkingActivity):  # a model call is about to be made
            self._check_limit(number)
            if number in self._held:  # it holds before the call: its row says so, not "Thinking"
                return
        if isinstance(activity, (ThinkingActivity, ExecutingActivity, ExecutedActivity, PausedActivity)):
            if number in self._parked and not isinstance(activity, PausedActivity):  # handed back: it goes on
                self._parked.discard(number)
                if learning:
                    self._learning += 1
            paused = isinstance(activity, PausedActivity)
            at_limit = paused and self.person_queue.limit_asked is not None
            self._emit("row_activity", RowActivity(number, describe_activity(activity), paused, at_limit))

    def _hold_if_paused(self, number: int, agent: Agent, event: object) -> None:
        """Pause: a row in flight holds once its step is done (not in the middle of one)."""
        if self._paused and isinstance(event, StepEvent) and number not in self._held:
            self._held.add(number)
            agent.pause()

    def browser_note(self, note: BrowserNote) -> None:
        """What a remote endpoint does to the routine (waiting, busy, paused, ...), as the ``browser_note`` event."""
        self._emit("browser_note", note)

    def _person_changed(self, request: PersonRequest, added: bool) -> None:
        self._emit("person_needed" if added else "person_done", request)

    def _request(self, request_id: int) -> PersonRequest | None:
        return next((r for r in self.person_queue.requests if r.id == request_id), None)

    def _emit(self, event: str, payload: object) -> None:
        for listener in list(self._listeners.get(event, [])):
            try:
                listener(payload)
            except Exception:
                log.exception("routine listener for %s failed", event)
