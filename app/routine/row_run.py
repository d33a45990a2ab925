"""One row in flight, as one object: taken from the rows to do, run in its window (or shown by the person), until its
ending is saved. What the runner knows of that row lives here, and nowhere beside it: its window, its agent and model
while they run, whether it learns a path, whether it holds for a pause, waits for the person, may have sent its data,
was acted in by the person, or was given up.

``RowsInFlight`` is the one collection of them, and what the runner reads across them (the rows that learn, the
agents to stop, the models whose cost counts).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from app.core.agent import Agent
from app.routine.replay import RowModel
from app.routine.row import Slot
from app.routine.teach import Teaching
from app.routine.types import MaybeSent, RowOutcome, RowStatus
from app.text.i18n import tr


@dataclass(eq=False)
class RowRun:
    number: int
    slot: Slot
    learns: bool  # no path fits it (or the person shows it): the rows like it wait for the path it learns
    agent: Agent | None = None  # once it has one (none: not begun yet, or shown by the person)
    model: RowModel | None = None  # its model: what its calls cost so far
    teaching: Teaching | None = None  # while the person shows it (Show me once)
    running: bool = False  # its agent runs now (its calls count among the run's costs, it holds for a pause)
    held: bool = False  # holds after its step, for a pause or the routine's limit
    parked: bool = False  # waits for the person on a hand-off (it does not count as learning meanwhile)
    sent: bool = False  # may have sent its data (Tool.may_send had begun, or the person acted in its page)
    touched: bool = False  # the person acted in its page (carried on from a hand-off): never learned from
    given_up: str = ""  # the hand-off's words, when the person gave it up (or nobody took it)
    unanswered: bool = False  # nobody took its hand-off in time
    saved: bool = False  # its ending is saved

    @property
    def learning(self) -> bool:
        """Whether it holds back the other rows that learn: it learns, and is not waiting for the person."""
        return self.learns and not self.parked

    def ran(self) -> None:
        """Its agent's run (or the person's showing) has ended: it no longer counts as in flight, nor as learning."""
        self.teaching = None
        self.running = self.learns = self.held = self.parked = False

    def hold(self) -> None:
        """Its agent pauses (for a pause of the routine, or its limit) until ``release``."""
        if self.running and self.agent is not None:
            self.held = True
            self.agent.pause()

    def release(self) -> None:
        """Resume: a row that held goes on."""
        if self.held and self.running and self.agent is not None:
            self.agent.resume()
        self.held = False


class RowsInFlight:
    """The rows in flight, by number."""

    def __init__(self) -> None:
        self._rows: dict[int, RowRun] = {}

    def add(self, row: RowRun) -> None:
        self._rows[row.number] = row

    def remove(self, row: RowRun) -> None:
        self._rows.pop(row.number, None)

    def get(self, number: int) -> RowRun | None:
        return self._rows.get(number)

    def running(self, number: int) -> RowRun | None:
        """The row whose agent runs now (None: none, or it ended)."""
        row = self._rows.get(number)
        return row if row is not None and row.running else None

    def __iter__(self) -> Iterator[RowRun]:
        return iter(list(self._rows.values()))

    @property
    def agents(self) -> list[Agent]:
        """The agents that run now."""
        return [row.agent for row in self._rows.values() if row.running and row.agent is not None]

    @property
    def models(self) -> list[RowModel]:
        """The models of the rows whose agents run now."""
        return [row.model for row in self._rows.values() if row.running and row.model is not None]

    @property
    def learning(self) -> int:
        """How many learn a path now (a row waiting for the person does not count)."""
        return sum(row.learning for row in self._rows.values())


def cut_short(browser: str) -> RowOutcome:
    """A row in flight when the routine ended on a fault of the program: it may or may not have sent its data, so it
    is never run again blindly (never ``done``)."""
    said = tr(
        "The routine ended on an error while this row was running, so its form may or may not have been submitted. "
        "It is not run again unless you ask for it with --retry-interrupted; check the site first."
    )
    return RowOutcome(RowStatus.INTERRUPTED, said, browser=browser, maybe_sent=MaybeSent.ERROR)
