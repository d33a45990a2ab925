"""The panel from the keyboard alone: Tab and Shift+Tab visit every control once, in reading order (top to bottom,
left to right), in One task and in Routine mode, and every stop shows that it has the focus."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from app.ui.main_window import MainWindow
from app.ui.routine.panel import RoutinePanel
from tests.cli.routine_helpers import rows_file
from tests.fakes.llm_server import FakeLLMServer
from tests.ui.test_routine_mode import offer
from tests.ui_waiting import laid_out
from tests.waiting import until


def tab_through(start: QWidget, presses: int, *, back: bool = False) -> list[QWidget]:
    """The widgets that hold the focus, from ``start``, after each of ``presses`` Tabs (or Shift+Tabs)."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    seen = [start]
    for _ in range(presses):
        current = QApplication.focusWidget()
        assert current is not None
        modifier = Qt.KeyboardModifier.ShiftModifier if back else Qt.KeyboardModifier.NoModifier
        QTest.keyClick(current, Qt.Key.Key_Backtab if back else Qt.Key.Key_Tab, modifier)
        focused = QApplication.focusWidget()
        assert focused is not None
        seen.append(focused)
    return seen


def one_task_order(window: MainWindow) -> list[QWidget]:
    composer, header = window.composer, window._header
    return [
        header.about_button,
        window.history_button,
        window.settings_button,
        window.modes.task_button,
        window.modes.routine_button,
        window.timeline,
        composer.input,
        composer.run,
        composer.try_demo,
    ]


def setup_order(window: MainWindow, panel: RoutinePanel) -> list[QWidget]:
    setup = panel.setup
    return [
        window._header.about_button,
        window.history_button,
        window.settings_button,
        window.modes.task_button,
        window.modes.routine_button,
        setup.name,
        setup.open_button,
        setup.paste_button,
        setup.preview,  # one stop, however many cells
        *setup.chips.chips,
        setup.template,
        setup.start_url,
        setup.parallel,
        setup.retry_failed,
        setup.secret_columns,
        setup.output_columns,
        setup.allowed_sites,
        setup.save_button,
        setup.run_button,
    ]


def names(widgets: list[QWidget]) -> list[str]:
    return [widget.accessibleName() or widget.objectName() or type(widget).__name__ for widget in widgets]


async def test_tab_visits_one_task_in_reading_order_and_back(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    offer(window, tmp_path, llm_server)
    window.composer.input.setPlainText("Add a customer")  # Run is a stop once there is a task
    laid_out(window)
    order = one_task_order(window)
    assert names(tab_through(order[0], len(order))) == names([*order, order[0]])
    assert names(tab_through(order[0], len(order), back=True)) == names([order[0], *reversed(order)])


async def test_tab_visits_the_routine_setup_in_reading_order_with_the_preview_as_one_stop(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    built = offer(window, tmp_path, llm_server)
    window.modes.routine_button.click()
    panel = built[0]
    await until(lambda: panel.setup.saved.count() > 0, message="the saved routines read")  # none: no stop
    assert await panel.open_file(rows_file(tmp_path))
    laid_out(window)
    order = setup_order(window, panel)
    assert len(panel.setup.chips.chips) == 5
    visited = tab_through(order[0], len(order))
    assert names(visited) == names([*order, order[0]])
    assert names(tab_through(order[0], len(order), back=True)) == names([order[0], *reversed(order)])
    await panel.shutdown()


async def test_a_short_panel_scrolls_each_stop_into_sight_and_a_chip_is_pressed_with_space(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    built = offer(window, tmp_path, llm_server)
    window.resize(420, 560)
    window.modes.routine_button.click()
    panel = built[0]
    await until(lambda: panel.setup.saved.count() > 0, message="the saved routines read")
    assert await panel.open_file(rows_file(tmp_path))
    laid_out(window)
    order = setup_order(window, panel)
    hidden = []
    for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):  # down from the mode switch, then up from the footer
        order[0].setFocus(Qt.FocusReason.TabFocusReason)
        for _ in order:
            QTest.keyClick(QApplication.focusWidget(), key)
            laid_out(window)
            stop = QApplication.focusWidget()
            assert stop is not None
            if panel.setup.isAncestorOf(stop) and stop.visibleRegion().isEmpty():
                hidden.append(names([stop])[0])
    assert hidden == []
    template, chip = panel.setup.template, panel.setup.chips.chips[1]
    template.setPlainText("Add ")
    template.moveCursor(template.textCursor().MoveOperation.End)
    chip.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(chip, Qt.Key.Key_Space)
    assert template.toPlainText() == "Add {email}" and template.hasFocus()
    await panel.shutdown()


def looks(widget: QWidget) -> QImage:
    return widget.grab().toImage()


async def test_every_stop_shows_it_has_the_focus(window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer) -> None:
    built = offer(window, tmp_path, llm_server)
    window.composer.input.setPlainText("Add a customer")
    laid_out(window)
    elsewhere = QWidget(window)  # a focus that draws nothing
    elsewhere.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    elsewhere.resize(1, 1)
    elsewhere.show()

    def unmarked(stops: list[QWidget]) -> list[str]:
        missing = []
        for stop in stops:
            stop.setFocus(Qt.FocusReason.TabFocusReason)
            laid_out(window)
            focused = looks(stop)
            elsewhere.setFocus(Qt.FocusReason.TabFocusReason)
            laid_out(window)
            if looks(stop) == focused:
                missing.append(names([stop])[0])
        return missing

    assert unmarked(one_task_order(window)) == []
    window.modes.routine_button.click()
    panel = built[0]
    assert await panel.open_file(rows_file(tmp_path))
    laid_out(window)
    assert unmarked(setup_order(window, panel)[3:]) == []
    await panel.shutdown()


async def test_rows_just_opened_lead_to_the_task_box_in_sight(
    window: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    # The next thing to do is the task: the person types it at once, without a click or a walk through the chips.
    built = offer(window, tmp_path, llm_server)
    window.resize(420, 560)
    window.modes.routine_button.click()
    panel = built[0]
    setup = panel.setup
    setup.open_button.setFocus(Qt.FocusReason.TabFocusReason)
    assert await panel.open_file(rows_file(tmp_path))
    laid_out(window)
    assert QApplication.focusWidget() is setup.template
    assert not setup.template.visibleRegion().isEmpty()
    # A task already written stays as it is, and so does the focus.
    setup.template.setPlainText("Add {name}")
    setup.open_button.setFocus(Qt.FocusReason.TabFocusReason)
    assert await panel.open_file(rows_file(tmp_path))
    assert QApplication.focusWidget() is setup.open_button
    await panel.shutdown()
