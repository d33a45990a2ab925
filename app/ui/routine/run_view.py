"""Routine mode while and after it runs: the progress bar with counts and time left, Pause/Resume and Stop, the
"Needs you" queue, Show me once (app/ui/routine/teach_box.py), the live row table, each path learned or mended as
it happens, and at the end Retry failed rows, Check and run again… (the rows that may have reached the site), a row's
timeline, the results (copy or save) and what it learned: each path in plain words with the rows it serves, which
scrolls in the room the rows' table leaves it."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.routine.paths import PathBook, PathChange
from app.routine.plan import RoutinePlan
from app.routine.types import RoutineProgress, RoutineSummary, RowStarted, RowStatus, TeachStarted
from app.text.i18n import tr
from app.text.path_words import change_words, path_words
from app.text.row_words import counts_words
from app.text.wording import format_duration
from app.ui.routine.needs_you import NeedsYouBar
from app.ui.routine.recheck import RecheckDialog
from app.ui.routine.rows_table import RowsModel, RowsView
from app.ui.routine.setup_view import heading
from app.ui.routine.teach_box import TeachBox
from app.ui.routine.words import learned_words, progress_words, rows_through


class RunView(QWidget):
    pauseToggled = Signal()
    stopRequested = Signal()
    retryRequested = Signal()
    rerunRequested = Signal(frozenset)  # the state keys of the rows the person checked: they run again
    timelineRequested = Signal(str)  # the row's run id in History
    copyRequested = Signal()
    saveRequested = Signal()
    editRequested = Signal()  # back to the setup

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setObjectName("RoutineTitle")
        self.title.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(8)
        self.bar.setAccessibleName(tr("Routine progress"))
        self.line = QLabel(self)
        self.line.setObjectName("RoutineHint")
        self.line.setWordWrap(True)
        self.note = QLabel(self)  # what became of Copy / Save results
        self.note.setObjectName("RoutineHint")
        self.note.setWordWrap(True)
        self.note.hide()
        self.changes = QLabel(self)  # each path learned or mended, as it happens
        self.changes.setObjectName("RoutineHint")
        self.changes.setWordWrap(True)
        self.changes.setTextFormat(Qt.TextFormat.PlainText)  # names of the site's fields
        self.changes.hide()
        self.teach = TeachBox(self)
        self.pause_button = QPushButton(tr("Pause"), self)
        self.stop_button = QPushButton(tr("Stop"), self)
        self.stop_button.setProperty("role", "danger")
        self.stop_button.setToolTip(tr("Stop every row (Esc)"))
        self.needs_you = NeedsYouBar(self)
        self.model = RowsModel(self)
        self.rows = RowsView(self.model, self)
        self.timeline_button = QPushButton(tr("Open the row's timeline"), self)
        self.timeline_button.setEnabled(False)
        self.retry_button = QPushButton(tr("Retry failed rows"), self)
        self.recheck_button = QPushButton(tr("Check and run again…"), self)
        self.recheck_button.setToolTip(tr("Rows that may have reached the site: check them there, then run them again"))
        self.copy_button = QPushButton(tr("Copy results"), self)
        self.save_button = QPushButton(tr("Save results…"), self)
        self.edit_button = QPushButton(tr("Edit routine"), self)
        self.path_heading = heading(tr("What it learned"), self)
        self.path = QLabel(self)
        self.path.setObjectName("RoutinePath")
        self.path.setWordWrap(True)
        self.path.setTextFormat(Qt.TextFormat.PlainText)
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_area = PathArea(self.path, self)
        self._plan: RoutinePlan | None = None
        self._first_row_said = False  # the line under the bar said what the first row does (until a row ends)
        self._lay_out()
        self.pause_button.clicked.connect(self.pauseToggled)
        self.stop_button.clicked.connect(self.stopRequested)
        self.retry_button.clicked.connect(self.retryRequested)
        self.recheck_button.clicked.connect(self.check_and_run_again)
        self.copy_button.clicked.connect(self.copyRequested)
        self.save_button.clicked.connect(self.saveRequested)
        self.edit_button.clicked.connect(self.editRequested)
        self.timeline_button.clicked.connect(self._open_timeline)
        self.rows.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.rows.doubleClicked.connect(lambda _index: self._open_timeline())

    def _lay_out(self) -> None:
        controls = QHBoxLayout()
        controls.addStretch(1)
        controls.addWidget(self.pause_button)
        controls.addWidget(self.stop_button)
        after = QHBoxLayout()
        after.addWidget(self.retry_button)
        after.addWidget(self.recheck_button)
        after.addStretch(1)
        after.addWidget(self.timeline_button)
        results = QHBoxLayout()
        results.addWidget(self.edit_button)
        results.addStretch(1)
        results.addWidget(self.copy_button)
        results.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 6, 14, 12)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.bar)
        layout.addWidget(self.line)
        layout.addWidget(self.changes)
        layout.addLayout(controls)
        layout.addWidget(self.teach)
        layout.addWidget(self.needs_you)
        layout.addWidget(self.rows, 1)
        layout.addLayout(after)
        layout.addLayout(results)
        layout.addWidget(self.note)
        layout.addWidget(self.path_heading)
        layout.addWidget(self.path_area)

    # --- states ------------------------------------------------------------------------------------------------

    def begin(self, plan: RoutinePlan, name: str) -> None:
        self._plan = plan
        self.model.reset(plan)
        self.needs_you.clear()
        self.teach.end()
        self.changes.clear()
        self.changes.hide()
        self.title.setText(tr("{name} · {rows} rows", name=name, rows=len(plan.table.rows)))
        self.bar.setRange(0, len(plan.table.rows))
        self.bar.setValue(0)
        self.line.setText(tr("Starting the browser…"))
        self._first_row_said = False
        self.set_running(True)
        self.show_paths(None)

    def row_started(self, event: RowStarted) -> None:
        """Until the first row ends, the line says what happens first: the model learns, the rest will follow."""
        if not self._first_row_said:
            self._first_row_said = True
            if self._plan is not None and self._plan.options.teach:
                self.line.setText(tr("Row {n} is yours to show; the other rows then do what you did.", n=event.number))
            elif event.replay:
                self.line.setText(tr("Following the path learned earlier, row by row…"))
            else:
                self.line.setText(
                    tr("Row {n}: the model does it step by step; the other rows then follow its path.", n=event.number)
                )

    def set_running(self, running: bool) -> None:
        self.pause_button.setVisible(running)
        self.pause_button.setText(tr("Pause"))
        self.stop_button.setVisible(running)
        self.stop_button.setEnabled(running)
        for button in (self.retry_button, self.copy_button, self.save_button, self.edit_button):
            button.setVisible(not running)
        self.say("")
        self.retry_button.setEnabled(False)
        self.recheck_button.setVisible(False)

    def stopping(self) -> None:
        self.stop_button.setEnabled(False)
        self.line.setText(tr("Stopping every row…"))

    def show_progress(self, progress: RoutineProgress) -> None:
        self.bar.setRange(0, max(1, progress.total))
        self.bar.setValue(rows_through(progress))
        self.line.setText(progress_words(progress))
        self.pause_button.setText(tr("Resume") if progress.paused else tr("Pause"))

    def finish(self, summary: RoutineSummary) -> None:
        self.set_running(False)
        self.needs_you.clear()
        self.teach.end()
        self.bar.setRange(0, max(1, summary.rows))
        self.bar.setValue(summary.rows)
        counts = counts_words(summary.counts) or tr("nothing to do: every row was done before")
        said = {"time": format_duration(summary.seconds), "counts": counts, "calls": summary.model_calls}
        if summary.stopped:
            self.line.setText(tr("Stopped after {time}: {counts}. {calls} model calls.", **said))
        else:
            self.line.setText(tr("Finished in {time}: {counts}. {calls} model calls.", **said))
        failed = summary.counts.get(RowStatus.FAILED, 0)
        self.retry_button.setEnabled(failed > 0)
        self.retry_button.setText(tr("Retry failed rows ({n})", n=failed) if failed else tr("Retry failed rows"))
        unsure = len(self.model.maybe_sent())
        self.recheck_button.setVisible(unsure > 0)
        self.recheck_button.setText(tr("Check and run again… ({n})", n=unsure))

    def fail(self, words: str) -> None:
        self.set_running(False)
        self.teach.end()
        self.line.setText(words)

    def say(self, text: str) -> None:
        """A line about the results (copied, saved, or why not)."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def teach_started(self, started: TeachStarted) -> None:
        """Show me once: row ``started.number`` is the person's to do now."""
        self.model.showing(started.number)
        self.teach.start(started)

    def path_changed(self, change: PathChange) -> None:
        """A path learned or mended, said under the progress line as it happens."""
        said = [line for line in self.changes.text().splitlines() if line]
        self.changes.setText("\n".join([*said, change_words(change)]))
        self.changes.show()

    def show_paths(self, book: PathBook | None) -> None:
        """What it learned: one path as its steps; several, each under the kind of row it serves and its rows."""
        live = book.live() if book is not None else []
        self.path_heading.setVisible(bool(live))
        self.path_area.setVisible(bool(live))
        if book is None or not live:
            self.path.clear()
        elif len(live) == 1 and not book.deciding:
            path = live[0].path
            self.path_heading.setText(tr("What it learned from row {row}", row=path.learned_from))
            self.path.setText("\n".join(f"{i}. {line}" for i, line in enumerate(path_words(path), 1)))
        else:
            plan = self._plan
            rows = [(n, plan.public_values(n)) for n in range(1, len(plan.table.rows) + 1)] if plan else []
            self.path_heading.setText(tr("What it learned"))
            self.path.setText(learned_words(book, rows))
        self.path_area.updateGeometry()

    # --- rows that may have reached the site --------------------------------------------------------------------

    def check_and_run_again(self) -> RecheckDialog:
        """Check and run again…: those rows with what happened to each; the ones the person ticks run again."""
        dialog = RecheckDialog(self.model.maybe_sent(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(self._rerun)
        dialog.open()  # never exec(): a nested loop would stall the panel's loop
        return dialog

    def _rerun(self, numbers: list[int]) -> None:
        self.rerunRequested.emit(frozenset(self.model.line(number).key for number in numbers))

    # --- a row's timeline --------------------------------------------------------------------------------------

    def _selected_run(self) -> str:
        number = self.rows.selected_number()
        outcome = self.model.line(number).outcome if number is not None else None
        return outcome.run if outcome is not None else ""

    def _selection_changed(self) -> None:
        self.timeline_button.setEnabled(bool(self._selected_run()))

    def _open_timeline(self) -> None:
        run = self._selected_run()
        if run:
            self.timelineRequested.emit(run)


class PathArea(QScrollArea):
    """The learned path's lines: as tall as they are when there is room, else at least three of them, scrolled (the
    rows' table keeps its rows in sight first). A Tab stop, so the keyboard scrolls it too."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RoutinePathArea")
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def sizeHint(self) -> QSize:
        label = self.widget()
        margins = self.contentsMargins()
        height = label.heightForWidth(max(1, self.viewport().width())) if label is not None else 0
        return QSize(super().sizeHint().width(), height + margins.top() + margins.bottom())

    def minimumSizeHint(self) -> QSize:
        lines = 3 * self.fontMetrics().lineSpacing()
        return QSize(super().minimumSizeHint().width(), min(lines, self.sizeHint().height()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # its lines wrap anew: another height
