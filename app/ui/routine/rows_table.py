"""The live row table: one line per row with its status (a word and a colour), and what it does now or how it
ended. Fed by the runner's events (rows_planned, row_started, row_activity, row_finished, and rows_finished for the
rest of a huge file at once): a row this run will run reads Waiting until it starts, whatever an earlier run left on
it."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from app.routine.plan import RoutinePlan
from app.routine.types import (
    RoutineOptions,
    RowActivity,
    RowFinished,
    RowOutcome,
    RowsFinished,
    RowsPlanned,
    RowStarted,
    RowStatus,
)
from app.text.element_words import clip
from app.text.i18n import tr
from app.ui.routine.words import (
    WAITING,
    may_have_reached_the_site,
    outcome_words,
    status_color,
    status_words,
)
from app.ui.style import theme

_ROW, _STATUS, _WHAT = range(3)
_KNOWN = frozenset(RowStatus)
_WORDS_MAX = 140
_ROWS_IN_SIGHT = 6  # the rows the table keeps room for, whatever is below it


@dataclass
class RowLine:
    number: int
    label: str  # the row's first cells, so the person knows which row it is
    key: str  # its key in the routine's state
    status: str = WAITING
    words: str = ""  # the current step while it runs; its result once it ended
    outcome: RowOutcome | None = None


class RowsModel(QAbstractTableModel):
    """One line per row of the file, whatever their number: a line is kept only once something happened to its row;
    the others are made when the view shows them (half a million rows cost nothing until they run)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._plan: RoutinePlan | None = None
        self._count = 0
        self._lines: dict[int, RowLine] = {}
        self._rest: RowOutcome | None = None  # how the rows this run never began ended (rows_finished)

    def reset(self, plan: RoutinePlan) -> None:
        self.beginResetModel()
        self._plan, self._count, self._lines, self._rest = plan, len(plan.table.rows), {}, None
        self.endResetModel()

    @property
    def lines(self) -> list[RowLine]:
        """Every line, in the file's order."""
        return [self._shown(number) for number in range(1, self._count + 1)]

    def earlier(self, outcomes: list[tuple[str, str]], options: RoutineOptions, keys: list[str]) -> None:
        """What earlier runs of the same routine on the same file left (status, result, from its results file), in
        the file's order, before the run says which rows it runs (``planned``): a row that runs again reads Waiting,
        a done row is not run again and says so."""
        for number, ((status, result), key) in enumerate(zip(outcomes[: self._count], keys, strict=False), 1):
            if status in _KNOWN and not options.runs_again(RowOutcome(RowStatus(status), result), key):
                self._kept(self.line(number), RowOutcome(RowStatus(status), result))
        self._all_changed()

    def planned(self, event: RowsPlanned) -> None:
        """The run says which rows it runs (they wait for their turn) and which it leaves as earlier runs ended
        them."""
        self._rest = None
        for number in event.queued:
            self._lines.pop(number, None)  # a line nothing happened to reads Waiting
        for number, outcome in event.kept.items():
            self._kept(self.line(number), outcome)
        self._all_changed()

    @staticmethod
    def _kept(line: RowLine, outcome: RowOutcome) -> None:
        line.status, line.outcome = outcome.status, outcome
        words = outcome_words(outcome)
        line.words = tr("Earlier: {result}", result=words) if words else ""

    def _all_changed(self) -> None:
        if self._count:
            self.dataChanged.emit(self.index(0, 0), self.index(self._count - 1, 2))

    def line(self, number: int) -> RowLine:
        """The row's line, kept from now on."""
        found = self._lines.get(number)
        if found is None:
            found = self._lines[number] = self._shown(number)
        return found

    def _shown(self, number: int) -> RowLine:
        found = self._lines.get(number)
        if found is not None:
            return found
        if self._plan is None or not 1 <= number <= self._count:
            raise IndexError(number)
        first = self._plan.table.columns[0]
        hidden = first in self._plan.secrets
        label = "•••" if hidden else self._plan.table.rows[number - 1].values[first].strip() or "—"
        line = RowLine(number, label, self._plan.keys[number - 1])
        if self._rest is not None:  # a row this run never began
            self._ended(line, self._rest)
        return line

    def maybe_sent(self) -> list[RowLine]:
        """The rows that may have reached the site (interrupted, or sent with an unclear answer): they run again only
        once the person checked the site and chose them."""
        kept = sorted(self._lines.values(), key=lambda line: line.number)
        return [line for line in kept if line.outcome is not None and may_have_reached_the_site(line.outcome)]

    def started(self, event: RowStarted) -> None:
        line = self.line(event.number)
        line.status, line.outcome = RowStatus.RUNNING, None
        line.words = tr("Following the learned path…") if event.replay else tr("Starting…")
        self._changed(event.number)

    def showing(self, number: int) -> None:
        """Show me once: the person does the row in its window."""
        line = self.line(number)
        if line.status == RowStatus.RUNNING:
            line.words = tr("You do it in its window")
            self._changed(number)

    def activity(self, event: RowActivity) -> None:
        line = self.line(event.number)
        if line.status == RowStatus.RUNNING:
            line.words = event.words
            if event.paused:
                line.words = tr("Paused at your limit") if event.at_limit else tr("Paused by you")
            self._changed(event.number)

    def finished(self, event: RowFinished) -> None:
        self._ended(self.line(event.number), event.outcome)
        self._changed(event.number)

    def rest_finished(self, event: RowsFinished) -> None:
        """The rest of a huge file ended alike (skipped on a Stop): every row this run never began, that is every row
        without a line of its own yet, reads so from now on. One update for the whole table, no line made."""
        self._rest = event.outcome
        for line in self._lines.values():
            if line.status == WAITING:
                self._ended(line, event.outcome)
        self._all_changed()

    @staticmethod
    def _ended(line: RowLine, outcome: RowOutcome) -> None:
        line.status, line.outcome = outcome.status, outcome
        line.words = outcome_words(outcome)

    def waiting_for_person(self, number: int, waiting: bool) -> None:
        line = self.line(number)
        if line.status in (RowStatus.RUNNING, RowStatus.NEEDS_PERSON) and line.outcome is None:
            line.status = RowStatus.NEEDS_PERSON if waiting else RowStatus.RUNNING
            self._changed(number)

    def _changed(self, number: int) -> None:
        self.dataChanged.emit(self.index(number - 1, 0), self.index(number - 1, 2))

    # --- Qt --------------------------------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (tr("Row"), tr("Status"), tr("Now / result"))[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        line = self._shown(index.row() + 1)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == _ROW:
                return f"{line.number}  {clip(line.label, 20)}"
            if column == _STATUS:
                return status_words(line.status)
            return clip(line.words, _WORDS_MAX)
        if role == Qt.ItemDataRole.ToolTipRole and column == _WHAT:
            return line.words or None
        if role == Qt.ItemDataRole.ForegroundRole and column == _STATUS:
            return QBrush(status_color(line.status, theme()))
        if role == Qt.ItemDataRole.FontRole and column == _STATUS:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{tr('Row')} {line.number}: {status_words(line.status)}. {line.words}"
        return None


class RowsView(QTableView):
    def __init__(self, model: RowsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RowsView")
        self.setModel(model)
        self.setAccessibleName(tr("Rows"))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(26)
        header = self.horizontalHeader()
        header.setResizeContentsPrecision(0)  # sized to the rows in view, not to every row of a huge file
        header.setSectionResizeMode(_ROW, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_STATUS, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_WHAT, QHeaderView.ResizeMode.Stretch)
        model.modelReset.connect(self.updateGeometry)  # another number of rows: another room to keep

    def minimumSizeHint(self) -> QSize:
        """Room for its first rows (up to six): a long learned path below scrolls rather than squeeze them away."""
        shown = min(self.model().rowCount(), _ROWS_IN_SIGHT)
        frame = 2 * self.frameWidth()
        height = self.horizontalHeader().sizeHint().height() + shown * self.verticalHeader().defaultSectionSize()
        return QSize(super().minimumSizeHint().width(), height + frame)

    def selected_number(self) -> int | None:
        rows = self.selectionModel().selectedRows()
        return rows[0].row() + 1 if rows else None
