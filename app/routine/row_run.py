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
from app.routine.row import RunnerSlot
from app.routine.teach import Teaching


@dataclass(eq=False)
class RowRun:
    number: int
    slot: RunnerSlot
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

    @property
    def live_agent(self) -> Agent | None:
        """Its agent while it runs."""
        return self.agent if self.running else None

    def ran(self) -> None:
        """Its agent's run (or the person's showing) has ended: it no longer counts as in flight, nor as learning."""
        self.teaching = None
        self.running = self.learns = self.held = self.parked = False

    def hold(self) -> None:
        """Its agent pauses (for a pause of the routine, or its limit) until ``release``."""
        if (agent := self.live_agent) is not None:
            self.held = True
            agent.pause()

    def release(self) -> None:
        """Resume: a row that held goes on."""
        if self.held and (agent := self.live_agent) is not None:
            agent.resume()
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

    def __iter__(self) -> Iterator[RowRun]:
        return iter(list(self._rows.values()))

    @property
    def agents(self) -> list[Agent]:
        """The agents that run now."""
        return [agent for row in self._rows.values() if (agent := row.live_agent) is not None]

    @property
    def models(self) -> list[RowModel]:
        """The models of the rows whose agents run now."""
        return [row.model for row in self._rows.values() if row.running and row.model is not None]

    @property
    def learning(self) -> int:
        """How many learn a path now (a row waiting for the person does not count)."""
        return sum(row.learning for row in self._rows.values())
