"""The panel's row table with half a million rows: a model that keeps a line only for the rows something happened
to, so opening it, scrolling to its end and a row's ending are quick, and its columns are sized to the rows in view."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions, RowFinished, RowOutcome, RowStarted, RowStatus
from app.ui.routine.rows_table import RowsModel, RowsView
from app.ui.routine.words import status_words
from tests.cli.test_routine_big_file import big_rows

ROWS = 500_000
READY_WITHIN = 1.0  # seconds from the plan to a table shown at its end: 0.03 s here; a line per row took 2.1 s


def test_half_a_million_rows_are_shown_at_once_and_a_row_s_ending_at_its_place(
    qapp: QApplication, tmp_path: Path
) -> None:
    plan = plan_routine(RoutineOptions(rows_file=big_rows(tmp_path, ROWS), template="Add {name}", parallel=1))
    model = RowsModel()
    view = RowsView(model)
    view.resize(800, 400)
    view.show()
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
