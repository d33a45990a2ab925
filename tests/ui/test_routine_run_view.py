"""Routine mode's run page on a short screen: the rows' table keeps its rows in sight, and the learned path, however
long, scrolls in the room that is left instead of squeezing the table or running off the panel's bottom edge."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.routine.path import PathStep, RoutinePath
from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions, RoutineSummary
from app.ui import style
from app.ui.routine.run_view import RunView

# The run page of a 1280x720 screen: the panel's width, and its height under the header, banner and mode switch.
SHORT = (420, 540)


def _path(steps: int) -> RoutinePath:
    return RoutinePath(
        learned_from=1,
        steps=[
            PathStep(action="input_text", input={"text": f"{{note_{n}}}"}, templated=["text"]) for n in range(steps)
        ],
    )


def _finished_view(tmp_path: Path, rows: int, steps: int) -> RunView:
    table = tmp_path / "rows.csv"
    table.write_text("name\n" + "".join(f"Person {n}\n" for n in range(rows)), encoding="utf-8")
    plan = plan_routine(RoutineOptions(rows_file=table, template="Add {name}"))
    view = RunView()
    style.apply(view)  # the panel's fonts and spacing
    view.resize(*SHORT)
    view.begin(plan, "New customers")
    view.finish(RoutineSummary(rows, {"done": rows}, tmp_path / "results.csv", 14, rows, 30.0))
    view.show_path(_path(steps))
    view.show()
    QApplication.processEvents()
    return view


def test_a_long_learned_path_scrolls_and_the_rows_stay_in_sight(qapp: QApplication, tmp_path: Path) -> None:
    view = _finished_view(tmp_path, rows=5, steps=24)
    try:
        # Every row is in the table's view, none scrolled away.
        assert view.rows.verticalScrollBar().maximum() == 0
        # Nothing runs off the bottom: the page fits, and the path's last lines are reached by scrolling it.
        assert view.minimumSizeHint().height() <= SHORT[1]
        area = view.path_area
        assert area.geometry().bottom() <= view.height()
        assert area.verticalScrollBar().maximum() > 0
        assert view.path.text().splitlines()[-1].startswith("24. ")
    finally:
        view.close()


def test_a_short_path_takes_only_its_lines_and_the_table_the_rest(qapp: QApplication, tmp_path: Path) -> None:
    view = _finished_view(tmp_path, rows=40, steps=2)
    try:
        area = view.path_area
        assert area.verticalScrollBar().maximum() == 0  # both lines shown whole
        assert area.height() <= view.path.sizeHint().height() + 4  # no blank band below them
        assert view.rows.height() > SHORT[1] // 3  # the table has the room that is left
    finally:
        view.close()
