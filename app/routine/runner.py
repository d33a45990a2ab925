"""The routine runner: reads the state, hands rows to slots, learns the paths (from the first good row, the row the
person showed, each new kind of row, the row that met a changed site: app/routine/learning.py) and replays the one
that fits each row, queues the rows that need the person, and writes each row's status before and after it runs.

It sits above the agent, never inside it: a row is one ordinary run of the agent. No Qt here; the CLI and the panel
are its clients (events, the person queue, pause / resume / stop, progress). The rows' work itself (the workers, which
row starts next, each row's life as a RowRun) is app/routine/row_work.py's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import Any

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.llm import LLMClient
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmHandler
from app.routine.cost import NO_LIMIT, Meter, first_row_calls
from app.routine.lanes import RunnerLane, no_browser_left
from app.routine.learning import Learning
from app.routine.ledger import RunLedger
from app.routine.path import RoutinePath
from app.routine.paths import PathBook
from app.routine.person import PersonQueue
from app.routine.plan import RoutinePlan
from app.routine.row import RowHistory
from app.routine.row_work import RowWork
from app.routine.state import RoutineStore
from app.routine.types import (
    BrowserNote,
    Limit,
    PersonRequest,
    RoutineEvent,
    RoutineSummary,
    RowOutcome,
    RowsPlanned,
    RowStatus,
)
from app.settings.presets import TokenPrice
from app.text.cost_words import limit_words
from app.text.i18n import tr

log = logging.getLogger(__name__)

# How long closing a routine that still runs waits for its stopped rows to save their endings.
WIND_DOWN = 30.0


class RoutineRunner(RowWork):
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
        columns = len(set(plan.template.columns))
        super().__init__(
            plan,
            lanes,
            model,
            RunLedger(plan, store),
            config=config.model_copy(update={"result_fields": plan.options.output_columns}),
            guardrails=guardrails,
            person_present=person_present,
            confirm=confirm,
            history=history,
            hand_off_wait=hand_off_wait,
            meter=Meter(price=price, limit=limit, first_row=first_row_calls(columns), replays=plan.options.replay),
            person_queue=PersonQueue(self._person_changed, wait_s=hand_off_wait, on_expired=self._nobody_came),
            paths=Learning(plan, store, guardrails.secrets.mask, self._emit),
        )
        self._store = store
        self._started = time.monotonic()
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
        for row in self._rows:
            row.release()
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
        await asyncio.gather(*(agent.stop() for agent in self._rows.agents), return_exceptions=True)

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
            row = self._rows.get(request.number)
            if row is not None:
                row.sent = row.touched = True  # the person acted in the row's page: they may have sent its form
            if row is not None and (agent := row.live_agent) is not None:
                agent.resume(note)

    def give_up(self, request_id: int) -> None:
        """Nobody will do what a hand-off asked: that row ends ``needs_person`` (it is tried again next run)."""
        request = self._request(request_id)
        row = self._rows.get(request.number) if request is not None else None
        if request is not None and self.person_queue.answer(request_id, False) and row is not None:
            row.given_up = request.words
            if (agent := row.live_agent) is not None:
                self._background.spawn(agent.stop())

    def _nobody_came(self, request: PersonRequest) -> None:
        """A hand-off nobody took within ``hand_off_wait``: given up, and the row says so."""
        if request.kind == "limit":  # nobody said to go on past the limit: the routine stops
            self.answer(request.id, False)
            return
        row = self._rows.get(request.number)
        if row is not None:
            row.unanswered = True
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
        row = self._rows.get(number)
        if row is not None:
            await row.slot.bring_to_front()

    def check_limit(self, number: int | None = None) -> None:
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
        row = self._rows.get(number) if number is not None else None
        if row is not None:  # the row about to call the model holds at once
            row.hold()

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
        failed = False
        try:
            await self._work_all()
        except Exception:
            failed = True
            raise
        finally:
            stopped = self._stopping and not failed
            if failed:
                reason = tr("The routine ended on an error before this row started.")
            elif stopped:
                reason = tr("The routine was stopped before this row started.")
            else:
                reason = no_browser_left(self._lanes)
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

    def browser_note(self, note: BrowserNote) -> None:
        """What a remote endpoint does to the routine (waiting, busy, paused, ...), as the ``browser_note`` event."""
        self._emit("browser_note", note)

    def _request(self, request_id: int) -> PersonRequest | None:
        return next((r for r in self.person_queue.requests if r.id == request_id), None)
