"""The runner's paths over one run: read from the routine's state, chosen for each row (``choose``), learned from the
rows that succeed (``after_row``: a first path, a further one for another kind of row, a mend when the site changed,
app/routine/paths.py), or taken from the row the person showed (``taught``), and saved after each change (masked:
no secret's value is ever saved). Each change is told as a ``path_changed`` event (``PathChange``).

A path is learned only from a row that ended ``done`` on its own: never from one that failed, needed the person,
or that the person acted in by hand, and never in the middle of a row (a row follows the path it started with).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterable

from app.routine.path import RoutinePath, learn_path
from app.routine.paths import KnownPath, PathBook, PathChange, change_for
from app.routine.plan import RoutinePlan
from app.routine.replay import RowModel
from app.routine.state import RoutineStore
from app.routine.types import RowOutcome, RowStatus

log = logging.getLogger(__name__)
# How far down the rows to look for one a path fits, while a row that learns one runs.
_LOOK_AHEAD = 64


class Learning:
    def __init__(
        self, plan: RoutinePlan, store: RoutineStore, mask: Callable[[str], str], emit: Callable[[str, object], None]
    ) -> None:
        self._plan = plan
        self._store = store
        self._mask = mask
        self._emit = emit
        self.book = PathBook()
        # Show me once: the next row to learn from is the person's own (until they take a path they showed).
        self.teach = plan.options.teach and plan.options.replay

    @property
    def on(self) -> bool:
        return self._plan.options.replay

    async def load(self) -> None:
        if not self.on:
            return
        saved = await asyncio.to_thread(self._store.path_for, self._plan.template.text)
        if saved is None:
            return
        try:
            self.book = PathBook.read(saved[0])
        except ValueError:
            log.warning("the routine's saved paths could not be read; they are learned again")

    def choose(self, number: int) -> KnownPath | None:
        """The path row ``number`` follows (None: the model does it, or it is shown by the person)."""
        if not self.on or self.teach:
            return None
        return self.book.choose(self._plan.public_values(number))

    def learns(self, number: int) -> bool:
        """Whether the row is one to learn from: shown by the person, or no path fits it (one at a time learns)."""
        return self.on and (self.teach or self.choose(number) is None)

    def startable(self, todo: Iterable[int], learning: int) -> tuple[int, bool] | None:
        """The first row of ``todo`` that may start, and whether it learns a path: one that learns waits while another
        does (``learning`` of them in flight); the rows a path fits go on meanwhile."""
        for number in itertools.islice(todo, _LOOK_AHEAD):
            learns = self.learns(number)
            if not learns or learning == 0:
                return number, learns
        return None

    @property
    def newest(self) -> RoutinePath | None:
        known = self.book.newest
        return known.path if known is not None else None

    @property
    def learns_next(self) -> bool:
        """Whether a row still learns a path before the others replay one (for what the rows left will cost)."""
        return self.on and (self.teach or not self.book.live())

    async def after_row(
        self,
        number: int,
        model: RowModel,
        followed: KnownPath | None,
        outcome: RowOutcome,
        touched: bool,
        todo: Iterable[int],
    ) -> None:
        """What a row that ended teaches: a path of its own when it succeeded without a path, or with one the model
        took over (a mend, or a path for its kind of row); nothing when the person acted in it, or when its page got
        keys the agent did not type (``touched``)."""
        if not self.on or outcome.status != RowStatus.DONE or touched or (followed is not None and not model.took_over):
            return
        values = self._plan.public_values(number)
        path = learn_path(model.taken, number, values, self._plan.values_for_path, self._plan.template.literal_text)
        if path is None:
            return
        known, change = self.book.learned(path, values, followed, model.took_over_at)
        await self._changed(known, change, todo)

    async def taught(self, number: int, path: RoutinePath, todo: Iterable[int]) -> None:
        """The person took the path of the row they showed."""
        self.teach = False
        known = self.book.taught(path, self._plan.public_values(number))
        await self._changed(known, PathChange("taught", number, (), {}), todo)

    async def _changed(self, known: KnownPath, change: PathChange, todo: Iterable[int]) -> None:
        body = self._mask(self.book.model_dump_json())
        await asyncio.to_thread(self._store.save_path, self._plan.template.text, body, known.number)
        rows = [(n, self._plan.public_values(n)) for n in todo]
        self._emit("path_changed", change_for(change, self.book, known, rows))
