"""Routine mode, before it runs: the rows (open a CSV/XLSX, drop one, or paste rows), a preview of the first rows,
the task for each row with the columns as chips, the options, saved routines, and what is wrong in plain words.

Widgets only: the panel (app/ui/routine/panel.py) reads the files and runs the routine."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.routine.plan import MAX_PARALLEL
from app.routine.rows import CSV_SUFFIXES, XLSX_SUFFIXES, RowTable
from app.text.counts import columns_count, rows_count
from app.text.i18n import tr
from app.ui.routine.chips import ColumnChips
from app.ui.routine.library import SavedRoutine
from app.ui.shortcuts import tab_chain

PREVIEW_ROWS = 5
ROWS_FILTER = "Spreadsheets (*.csv *.xlsx *.xlsm *.tsv *.txt)"


def heading(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName("RoutineHeading")
    return label


def names(text: str) -> list[str]:
    """ "password, pin" as ["password", "pin"]."""
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


class SetupView(QWidget):
    openRequested = Signal()  # "Open a file…"
    pasteRequested = Signal()  # "Paste rows"
    fileDropped = Signal(Path)
    savedChosen = Signal(object)  # SavedRoutine
    saveRequested = Signal()
    runRequested = Signal()
    teachRequested = Signal()  # Show me once
    demoRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.table: RowTable | None = None
        self._saved: list[SavedRoutine] = []

        self.saved = QComboBox(self)
        self.saved.setAccessibleName(tr("Saved routines"))
        self.saved.activated.connect(self._saved_activated)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText(tr("Name this routine to save it"))
        self.name.setAccessibleName(tr("Routine name"))

        self.open_button = QPushButton(tr("Open a file…"), self)
        self.paste_button = QPushButton(tr("Paste rows"), self)
        self.paste_button.setToolTip(tr("Copy the rows in your spreadsheet, header row included, then press this"))
        self.demo_button = QPushButton(tr("Try the demo routine"), self)
        self.demo_button.hide()
        self.file_label = QLabel(tr("Open a CSV or Excel file, or drop one here."), self)
        self.file_label.setObjectName("RoutineHint")
        self.file_label.setWordWrap(True)
        self.preview = QTableWidget(self)
        self.preview.setAccessibleName(tr("The first rows"))
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.preview.setTabKeyNavigation(False)  # one Tab stop (arrows move in it), never one per cell
        self.preview.verticalHeader().setDefaultSectionSize(24)
        self.preview.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.preview.hide()

        self.chips_hint = QLabel(tr("Click a column to put its value in the task:"), self)
        self.chips_hint.setObjectName("RoutineHint")
        self.chips_hint.hide()
        self.chips = ColumnChips(self)
        self.chips.chosen.connect(self.insert_column)
        self.chips.hide()
        self.template = QPlainTextEdit(self)
        self.template.setObjectName("TaskInput")
        self.template.setAccessibleName(tr("Task for each row"))
        self.template.setPlaceholderText(tr("Add the customer {name} with email {email} in the CRM, and save it."))
        self.template.setTabChangesFocus(True)
        self.template.setFixedHeight(118)

        self.start_url = QLineEdit(self)
        self.start_url.setPlaceholderText("https://crm.example.com/customers/new")
        self.start_url.setAccessibleName(tr("Start each row at"))
        self.parallel = QSpinBox(self)
        self.parallel.setRange(1, MAX_PARALLEL)
        self.parallel.setAccessibleName(tr("Rows at once"))
        self.retry_failed = QCheckBox(tr("Try failed rows again"), self)
        self.secret_columns = QLineEdit(self)
        self.secret_columns.setPlaceholderText(tr("e.g. password, pin"))
        self.secret_columns.setAccessibleName(tr("Secret columns"))
        self.output_columns = QLineEdit(self)
        self.output_columns.setPlaceholderText(tr("e.g. order_id, state"))
        self.output_columns.setAccessibleName(tr("Output columns"))
        self.allowed_sites = QLineEdit(self)
        self.allowed_sites.setPlaceholderText(tr("e.g. crm.example.com (empty: your settings)"))
        self.allowed_sites.setAccessibleName(tr("Allowed sites"))

        self.problem = QLabel(self)
        self.problem.setObjectName("RoutineProblem")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problem.hide()
        self.estimate = QLabel(self)  # about what it will cost (the panel fills it)
        self.estimate.setObjectName("RoutineHint")
        self.estimate.setWordWrap(True)
        self.estimate.hide()
        self.save_button = QPushButton(tr("Save routine"), self)
        self.note = QLabel(self)  # see tell()
        self.note.setObjectName("RoutineHint")
        self.note.setWordWrap(True)
        self.note.hide()
        # Made in the order they read (Save, Show me once, Run routine): Tab follows it.
        self.teach_button = QPushButton(tr("Show me once"), self)
        self.teach_button.setToolTip(tr("Do the first row yourself in the browser; the other rows then do the same"))
        self.run_button = QPushButton(tr("Run routine"), self)
        self.run_button.setProperty("role", "primary")
        self._lay_out()
        for child in self.findChildren(QWidget):  # a spreadsheet dropped on a field opens as the rows, too
            if child.acceptDrops():
                child.installEventFilter(self)
        self._task_in_sight = QTimer(self)
        self._task_in_sight.setSingleShot(True)
        self._task_in_sight.setInterval(0)
        self._task_in_sight.timeout.connect(self._show_the_task)
        application = QApplication.instance()
        if isinstance(application, QApplication):
            application.focusChanged.connect(self._focus_moved)
        self.open_button.clicked.connect(self.openRequested)
        self.paste_button.clicked.connect(self.pasteRequested)
        self.demo_button.clicked.connect(self.demoRequested)
        self.save_button.clicked.connect(self.saveRequested)
        self.run_button.clicked.connect(self.runRequested)
        self.teach_button.clicked.connect(self.teachRequested)

    def _lay_out(self) -> None:
        """The setup scrolls; what is wrong, Save and Run stay in sight below it."""
        top = QHBoxLayout()
        top.addWidget(self.saved, 1)
        files = QHBoxLayout()
        files.addWidget(self.open_button)
        files.addWidget(self.paste_button)
        files.addStretch(1)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(tr("Start each row at"), self.start_url)
        form.addRow(tr("Rows at once"), self.parallel)
        form.addRow("", self.retry_failed)
        form.addRow(tr("Secret columns"), self.secret_columns)
        form.addRow(tr("Output columns"), self.output_columns)
        form.addRow(tr("Allowed sites"), self.allowed_sites)
        content = QWidget(self)
        page = QVBoxLayout(content)
        page.setContentsMargins(14, 6, 14, 8)
        page.setSpacing(8)
        page.addLayout(top)
        page.addWidget(self.name)
        page.addWidget(heading(tr("Rows"), content))
        page.addLayout(files)
        page.addWidget(self.demo_button)
        page.addWidget(self.file_label)
        page.addWidget(self.preview)
        page.addWidget(heading(tr("Task for each row"), content))
        page.addWidget(self.chips_hint)
        page.addWidget(self.chips)
        page.addWidget(self.template)
        page.addWidget(heading(tr("Options"), content))
        page.addLayout(form)
        page.addStretch(1)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("RoutineScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setFocusPolicy(
            Qt.FocusPolicy.NoFocus
        )  # no stop of its own (Tab scrolls each field into sight)
        self.scroll_area.setWidget(content)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        buttons.addWidget(self.teach_button)
        buttons.addWidget(self.run_button)
        footer = QVBoxLayout()
        footer.setContentsMargins(14, 6, 14, 12)
        footer.setSpacing(8)
        footer.addWidget(self.problem)
        footer.addWidget(self.estimate)
        footer.addWidget(self.note)  # right above Save: three buttons leave no room beside it at the panel's width
        footer.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.scroll_area, 1)
        layout.addLayout(footer)

    # --- what the panel shows here -----------------------------------------------------------------------------

    def tell(self, text: str) -> None:
        """A line right above Save and Run: "Saved as …", the setup kept from last time, a task refused."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def show_table(self, table: RowTable) -> None:
        """The file's columns and first rows, and its columns as chips."""
        self.table = table
        self.file_label.setText(
            tr(
                "{file} — {rows}, {columns}",
                file=table.path.name,
                rows=rows_count(len(table.rows)),
                columns=columns_count(len(table.columns)),
            )
        )
        shown = table.rows[:PREVIEW_ROWS]
        self.preview.clear()
        self.preview.setColumnCount(len(table.columns))
        self.preview.setRowCount(len(shown))
        self.preview.setHorizontalHeaderLabels(list(table.columns))
        self.preview.setVerticalHeaderLabels([str(row.number) for row in shown])
        for r, row in enumerate(shown):
            for c, column in enumerate(table.columns):
                item = QTableWidgetItem(" ".join(row.values[column].split())[:60])
                item.setToolTip(row.values[column])
                self.preview.setItem(r, c, item)
        scrollbar = self.preview.horizontalScrollBar().sizeHint().height()
        self.preview.setFixedHeight(24 * (len(shown) + 1) + scrollbar + 6)
        self.preview.show()
        self.chips.set_columns(table.columns)
        tab_chain(self.preview, *self.chips.chips, self.template)  # the chips are new: in reading order for Tab
        self.chips_hint.show()
        self.show_problem("")

    def show_estimate(self, text: str) -> None:
        self.estimate.setText(text)
        self.estimate.setVisible(bool(text))

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))
        if text:
            self.tell("")

    def to_the_task(self) -> None:
        """Rows just opened: the task comes next, so an empty task box takes the keyboard, scrolled into sight."""
        if not self.template.toPlainText().strip():
            self.template.setFocus(Qt.FocusReason.OtherFocusReason)
            self._task_in_sight.start()  # once the preview's new rows have moved it (on the loop's next turn)

    def _focus_moved(self, _old: QWidget | None, new: QWidget | None) -> None:
        """What takes the keyboard in the form is scrolled into sight, however it came there (Tab from the mode switch
        above, the task box after the rows opened)."""
        content = self.scroll_area.widget()
        if new is not None and content is not None and content.isAncestorOf(new):
            self.scroll_area.ensureWidgetVisible(new)

    def _show_the_task(self) -> None:
        if self.template.hasFocus():  # unless the person has gone on elsewhere meanwhile
            self.scroll_area.ensureWidgetVisible(self.template)

    def insert_column(self, column: str) -> None:
        self.template.insertPlainText("{" + column + "}")
        self.template.setFocus()

    def show_saved(self, routines: list[SavedRoutine]) -> None:
        self._saved = routines
        self.saved.clear()
        self.saved.addItem(tr("Saved routines ({n})", n=len(routines)) if routines else tr("No saved routines yet"))
        for routine in routines:
            self.saved.addItem(routine.name)
        self.saved.setEnabled(bool(routines))

    def _saved_activated(self, index: int) -> None:
        if 1 <= index <= len(self._saved):
            self.savedChosen.emit(self._saved[index - 1])

    def use(self, routine: SavedRoutine) -> None:
        """Fill the editor with a saved routine (its rows file is opened by the panel)."""
        self.name.setText(routine.name)
        self.template.setPlainText(routine.template)
        self.start_url.setText(routine.start_url)
        self.start_url.setCursorPosition(0)  # the address from its start: its site, not its last characters
        self.parallel.setValue(routine.parallel)
        self.retry_failed.setChecked(routine.retry_failed)
        self.secret_columns.setText(", ".join(routine.secret_columns))
        self.output_columns.setText(", ".join(routine.output_columns))
        self.allowed_sites.setText(", ".join(routine.allowed_sites))

    def forget(self, routine: SavedRoutine) -> None:
        """Empty each field that still holds what ``routine`` put there (the demo's, once the person's own rows
        come)."""
        if self.name.text() == routine.name:
            self.name.clear()
        if self.template.toPlainText() == routine.template:
            self.template.clear()
        if self.start_url.text() == routine.start_url:
            self.start_url.clear()

    def routine(self, rows_file: Path | None) -> SavedRoutine:
        """What is set up now, as a routine to save or run."""
        return SavedRoutine(
            name=self.name.text().strip() or tr("Untitled routine"),
            template=self.template.toPlainText(),
            start_url=self.start_url.text().strip(),
            parallel=self.parallel.value(),
            retry_failed=self.retry_failed.isChecked(),
            secret_columns=names(self.secret_columns.text()),
            output_columns=names(self.output_columns.text()),
            allowed_sites=names(self.allowed_sites.text()),
            rows_file=str(rows_file) if rows_file is not None else "",
        )

    # --- drop a file -------------------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _dropped_file(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = _dropped_file(event)
        if path is not None:
            event.acceptProposedAction()
            self.fileDropped.emit(path)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A field that takes drops (the task, a line) would paste a spreadsheet's path: it opens as the rows."""
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            drop = cast(QDropEvent, event)
            path = _dropped_file(drop)
            if path is not None:
                drop.acceptProposedAction()
                if kind == QEvent.Type.Drop:
                    self.fileDropped.emit(path)
                return True
        return super().eventFilter(watched, event)


def _dropped_file(event: QDropEvent) -> Path | None:
    urls = event.mimeData().urls() if event.mimeData() is not None else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    path = Path(urls[0].toLocalFile())
    return path if path.suffix.lower() in CSV_SUFFIXES | XLSX_SUFFIXES else None
