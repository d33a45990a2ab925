"""The panel's row table with half a million rows: a model that keeps a line only for the rows something happened
to, so opening it, scrolling to its end and a row's ending are quick, and its columns are sized to the rows in view;
the rest of a huge file skipped on Stop (one ``rows_finished`` event) reads Skipped at once, in the panel too."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from app.routine.plan import RoutinePlan, plan_routine
from app.routine.types import (
    RoutineOptions,
    RowFinished,
    RowOutcome,
    RowsFinished,
    RowsPlanned,
    RowStarted,
    RowStatus,
)
from app.ui.routine.rows_table import RowsModel, RowsView
from app.ui.routine.words import status_words
from tests.cli.test_routine_big_file import big_rows
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer
from tests.ui.test_routine_panel import DEADLINE, Host, finished, host, set_up  # noqa: F401 - the fixture
from tests.waiting import until

ROWS = 500_000
READY_WITHIN = 1.0  # seconds from the plan to a table shown at its end: 0.03 s here; a line per row took 2.1 s


def _big_table(folder: Path) -> tuple[RoutinePlan, RowsModel, RowsView]:
    """A plan of ROWS rows, and the rows' table shown for it (not yet given the plan)."""
    plan = plan_routine(RoutineOptions(rows_file=big_rows(folder, ROWS), template="Add {name}", parallel=1))
    model = RowsModel()
    view = RowsView(model)
    view.resize(800, 400)
    view.show()
    return plan, model, view


def test_half_a_million_rows_are_shown_at_once_and_a_row_s_ending_at_its_place(
    qapp: QApplication, tmp_path: Path
) -> None:
    plan, model, view = _big_table(tmp_path)
    try:
        began = time.monotonic()
        model.reset(plan)
        view.scrollToBottom()
        qapp.processEvents()
        model.started(RowStarted(ROWS - 1, "window 1", False))
        model.finished(RowFinished(ROWS, RowOutcome(RowStatus.DONE, "Saved Customer 500000.")))
        qapp.processEvents()
        took = time.monotonic() - began
        assert model.rowCount() == ROWS
        assert model.index(ROWS - 1, 0).data().startswith(f"{ROWS}  Customer 500000")
        assert model.index(ROWS - 1, 1).data() == status_words(RowStatus.DONE)
        assert model.index(ROWS - 2, 1).data() == status_words(RowStatus.RUNNING)
        assert model.index(0, 2).data() == "" and model.line(1).label == "Customer 1"
        print(f"table ready in {took:.2f} s")
        assert took < READY_WITHIN, took
    finally:
        view.close()


def test_the_rest_of_half_a_million_rows_skipped_on_stop_reads_skipped_in_one_update(
    qapp: QApplication, tmp_path: Path
) -> None:
    plan, model, view = _big_table(tmp_path)
    changes: list[Any] = []
    model.dataChanged.connect(lambda *args: changes.append(args))
    try:
        model.reset(plan)
        model.planned(RowsPlanned(tuple(range(1, ROWS + 1)), {}))
        model.started(RowStarted(1, "window 1", False))
        model.finished(RowFinished(1, RowOutcome(RowStatus.STOPPED, "You stopped the routine.")))
        view.scrollToBottom()
        qapp.processEvents()
        changes.clear()
        began = time.monotonic()
        skipped = RowOutcome(RowStatus.SKIPPED, "The routine was stopped before this row started.")
        model.rest_finished(RowsFinished(ROWS - 1, skipped))
        qapp.processEvents()
        took = time.monotonic() - began
        assert len(changes) == 1  # one update for the whole table, not a signal per row
        assert model.index(0, 1).data() == status_words(RowStatus.STOPPED)
        for number in (2, ROWS // 2, ROWS):
            assert model.index(number - 1, 1).data() == status_words(RowStatus.SKIPPED)
            assert model.index(number - 1, 2).data() == "The routine was stopped before this row started."
        assert model.line(ROWS).outcome == skipped
        assert took < READY_WITHIN, took
    finally:
        view.close()


async def test_a_stopped_routine_over_a_big_file_shows_every_row_not_begun_as_skipped(
    host: Host, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    count = 12_000  # more rows than the runner tells one by one (results.BIG_FILE)
    scripted = crm_model()
    llm_server.fallback = lambda body: dataclasses.replace(scripted(body), delay=30)
    panel = host.panel
    with crm_site() as site:
        await set_up(panel, big_rows(tmp_path, count), site)
        done = finished(panel)
        await panel.run_routine()
        await until(lambda: len(llm_server.requests) >= 1, timeout=DEADLINE, message="the first model call")
        panel.stop()
        summary = await asyncio.wait_for(done, DEADLINE)
    assert summary.counts == {RowStatus.STOPPED: 1, RowStatus.SKIPPED: count - 1}
    model = panel.run_view.model
    shown = [model.index(n, 1).data() for n in range(count)]
    assert shown == [status_words(RowStatus.STOPPED)] + [status_words(RowStatus.SKIPPED)] * (count - 1)
    assert f"1 stopped · {count - 1} skipped" in panel.run_view.line.text(), panel.run_view.line.text()
