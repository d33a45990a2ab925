"""What a routine's run has done so far: each row's start and ending in the state (app/routine/state.py), this run's
rows counted by status as they change (never by reading every record again: a file may have half a million rows),
and the results file written at its pace (results.ResultsPace: after every row, or every few seconds for a big file).
"""

from __future__ import annotations

import asyncio
from collections import Counter

from app.routine.plan import RoutinePlan
from app.routine.results import ResultsPace, write_results
from app.routine.state import RoutineStore
from app.routine.types import RowOutcome, RowStatus


class RunLedger:
    def __init__(self, plan: RoutinePlan, store: RoutineStore) -> None:
        self._plan = plan
        self._store = store
        self._write_lock = asyncio.Lock()
        self._pace = ResultsPace(len(plan.keys))
        self.counts: Counter[str] = Counter()  # this run's rows by status
        self._status_of: dict[int, str] = {}  # the status each row of this run is counted under
        self.known: set[int] = set()  # the rows of this run the state knows from an earlier run
        self._rest: RowOutcome | None = None  # what became of the rows never begun that the state does not know

    async def start(self, number: int, browser: str) -> None:
        """Before the row: it is in flight (``running``) on disk before anything is typed."""
        await asyncio.to_thread(self._store.start, self._plan.keys[number - 1], number, browser)
        self._count(number, RowStatus.RUNNING)

    async def finish(self, numbers: int | list[int], outcome: RowOutcome) -> list[int]:
        """A row's ending, saved and counted, and the results written when due; or the same ending for the rest of a
        run (a list, never begun): only the rows the state knows get it there, the others in the results only (one
        write, whatever their number), and they run next time as any row the state does not know. The rows."""
        if isinstance(numbers, int):
            numbers = saved = [numbers]
        else:
            saved, self._rest = [n for n in numbers if n in self.known], outcome
        keys = self._plan.keys
        await asyncio.to_thread(self._store.finish_all, [(keys[n - 1], n) for n in saved], outcome)
        for number in numbers:
            self._count(number, outcome.status)
        await self.write()
        return numbers

    def _count(self, number: int, status: str) -> None:
        before, self._status_of[number] = self._status_of.get(number), status
        self.counts.update({status: 1, **({before: -1} if before else {})})

    async def write(self, *, final: bool = False) -> None:
        """The results file, when due (a big file's: every few seconds); ``final``: now."""
        if not (final or self._pace.due()):
            return
        plan = self._plan
        async with self._write_lock, self._pace.writing():
            records = await asyncio.to_thread(self._store.records)
            await asyncio.to_thread(
                write_results,
                plan.options.results_path(),
                plan.table,
                plan.keys,
                records,
                list(plan.secrets),
                plan.options.output_columns,
                self._rest,
            )
