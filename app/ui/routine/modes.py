"""The panel's two modes side by side: one task (the timeline and the task box) or a routine (app/ui/routine).
The switch shows once the panel can build a routine page (built the first time it is asked for, so the panel opens
without loading the routine engine); it is locked while either one runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.text.i18n import tr
from app.ui.routine.look import modes_stylesheet
from app.ui.style import Theme

if TYPE_CHECKING:
    from app.ui.routine.panel import RoutinePanel


class PanelModes(QWidget):
    changed = Signal(bool)  # True: Routine mode

    def __init__(self, task_page: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.task_button = _segment(tr("One task"), "left", self)
        self.routine_button = _segment(tr("Routine"), "right", self)
        self.task_button.setChecked(True)
        self._task_busy = False
        self._routine_busy = False
        self.switch = QWidget(self)
        row = QHBoxLayout(self.switch)
        row.setContentsMargins(14, 0, 14, 6)
        row.setSpacing(0)
        row.addWidget(self.task_button, 1)
        row.addWidget(self.routine_button, 1)
        self.switch.hide()
        self.stack = QStackedWidget(self)
        self.stack.addWidget(task_page)
        self.routine: RoutinePanel | None = None
        self._factory: Callable[[], RoutinePanel] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.switch)
        layout.addWidget(self.stack, 1)
        self.task_button.clicked.connect(lambda: self.show_routine(False))
        self.routine_button.clicked.connect(lambda: self.show_routine(True))

    def offer_routines(self, factory: Callable[[], RoutinePanel]) -> None:
        self._factory = factory
        self.switch.show()

    @property
    def running(self) -> bool:
        """A routine's rows are running (closing the panel asks first, as during a task)."""
        return self.routine is not None and self.routine.running

    @property
    def routine_shown(self) -> bool:
        return self.routine is not None and self.stack.currentWidget() is self.routine

    def show_routine(self, routine: bool) -> None:
        changed = self._factory is not None and routine != self.routine_shown
        if changed and routine and self.routine is None:
            assert self._factory is not None
            self.routine = self._factory()
            self.routine.runningChanged.connect(self._routine_running)
            self.stack.addWidget(self.routine)
        if changed:
            self.stack.setCurrentIndex(1 if routine else 0)
        # Two buttons, not an exclusive group (whose unchecked one is no Tab stop): a click on the one already
        # checked unchecks it, so both are set again.
        self.routine_button.setChecked(self.routine_shown)
        self.task_button.setChecked(not self.routine_shown)
        if changed:
            self.changed.emit(routine)

    def submit(self, task: Callable[[], object]) -> None:
        """Ctrl+Enter: the routine's Run in Routine mode, else ``task`` (what the task box does)."""
        if self.routine is not None and self.routine_shown:
            self.routine.submit()
        else:
            task()

    def stop_routine(self) -> None:
        if self.routine is not None:
            self.routine.stop()

    def restyle(self, t: Theme) -> None:
        self.switch.setStyleSheet(modes_stylesheet(t))
        if self.routine is not None:
            self.routine.restyle()

    def lock(self, task_busy: bool) -> None:
        """While a task runs (or asks, or waits for the person), the other mode waits; so it does while a routine
        runs, whatever the single task's panel state does meanwhile (its browser is let go for the routine)."""
        self._task_busy = task_busy
        self._apply_lock()

    def _routine_running(self, running: bool) -> None:
        self._routine_busy = running
        self._apply_lock()

    def _apply_lock(self) -> None:
        free = not (self._task_busy or self._routine_busy)
        self.task_button.setEnabled(free)
        self.routine_button.setEnabled(free)


def _segment(text: str, side: str, parent: QWidget) -> QPushButton:
    button = QPushButton(text, parent)
    button.setProperty("side", side)
    button.setCheckable(True)
    button.setObjectName("ModeSegment")
    button.setAccessibleName(text)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button
