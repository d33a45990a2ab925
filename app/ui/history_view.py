"""The History dialog: past runs, newest first, to open read-only in their own window, export or delete.

Listing reads the store's small index; opening and exporting read a whole run off the loop's thread.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.background import Background
from app.core.types import AgentStatus, RunOutcome
from app.history.records import RunRecord, RunSummary
from app.history.store import RunStore, RunStoreError
from app.text.i18n import tr
from app.text.wording import describe_outcome, format_tokens
from app.ui import style
from app.ui.dialog_style import apply_dialog_style
from app.ui.dialog_widgets import MessageArea, Tone, small_label
from app.ui.run_export import ExportFormat, choose_export_file, write_export

_ID = Qt.ItemDataRole.UserRole
_OUTCOME = Qt.ItemDataRole.UserRole + 1


def spend_text(demo: bool, replay: bool, tokens: int) -> str:
    """What a run cost, honestly: a demo or a replay called no model, so it has no token count to show."""
    if demo:
        return tr("Demo — no model was called")
    if replay:
        return tr("Replay — no model was called")
    return tr("{tokens} tokens", tokens=format_tokens(tokens))


class _Column:
    WHEN, TASK, RESULT, STEPS = range(4)


class _BadgeDelegate(QStyledItemDelegate):
    """The outcome as a small tinted pill, like the panel's status colours."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        text_index = index.sibling(index.row(), _Column.RESULT)
        outcome = text_index.data(_OUTCOME)
        text = str(text_index.data(Qt.ItemDataRole.DisplayRole) or "")
        option.text = ""
        super().paint(painter, option, index)  # selection and hover backgrounds
        t = style.theme()
        color = {RunOutcome.SUCCESS: t.success, RunOutcome.FAILED: t.danger, RunOutcome.ERROR: t.danger}.get(
            outcome, t.neutral
        )
        font = QFont(option.font)
        font.setPointSizeF(max(font.pointSizeF() - 1, 7))
        font.setWeight(QFont.Weight.DemiBold)
        metrics = QFontMetrics(font)
        width = metrics.horizontalAdvance(text) + 18
        height = metrics.height() + 6
        rect = QRectF(option.rect.left() + 6, option.rect.center().y() - height / 2 + 1, width, height)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(t.soft(color, 0.5), 1))
        painter.setBrush(t.soft(color, 0.16))
        painter.drawRoundedRect(rect, height / 2, height / 2)
        painter.setPen(color.darker(115) if not t.dark else color)
        painter.setFont(font)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(hint.width() + 24, max(hint.height(), QFontMetrics(option.font).height() + 14))


class HistoryDialog(QDialog):
    """``openRun(RunRecord)`` asks for a saved run to be shown read-only in its own window (the panel's live run,
    whatever its state, is left alone)."""

    openRun = Signal(object)

    def __init__(self, store: RunStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryDialog")
        self.setWindowTitle(tr("Run history"))
        self._store = store
        self._background = Background("history")
        self._build()
        self._connect()
        apply_dialog_style(self)
        self.refresh()
        self.resize(760, 480)

    # --- construction ------------------------------------------------------------------------------------------

    def _build(self) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(20, 18, 20, 16)
        root.setSpacing(12)
        title = QLabel(tr("Run history"), self)
        title.setObjectName("DialogTitle")
        root.addWidget(title)
        root.addWidget(small_label(self, tr("Every run is kept on this computer, without your API key.")))

        self.list = QTreeWidget(self)
        self.list.setObjectName("RunList")
        self.list.setAccessibleName(tr("Past runs"))
        self.list.setHeaderLabels([tr("When"), tr("Task"), tr("Result"), tr("Steps")])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAlternatingRowColors(False)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setItemDelegateForColumn(_Column.RESULT, _BadgeDelegate(self.list))
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(_Column.WHEN, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_Column.TASK, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(_Column.RESULT, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_Column.STEPS, QHeaderView.ResizeMode.ResizeToContents)
        self.empty = small_label(self, tr("No runs yet. Every task you run is saved here."))
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self.list)
        self._stack.addWidget(self.empty)
        root.addWidget(self._stack, 1)
        self.skipped_notice = small_label(self, "")
        self.skipped_notice.hide()
        root.addWidget(self.skipped_notice)

        self.message = MessageArea(self)
        root.addWidget(self.message)

        self.open_button = QPushButton(tr("Open"), self)
        self.open_button.setProperty("role", "primary")
        self.json_button = QPushButton(tr("Export JSON…"), self)
        self.html_button = QPushButton(tr("Export HTML…"), self)
        self.delete_button = QPushButton(tr("Delete"), self)
        self.close_button = QPushButton(tr("Close"), self)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.open_button, self.json_button, self.html_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        root.addLayout(buttons)

    def _connect(self) -> None:
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.itemActivated.connect(lambda *_: self.open_selected())
        self.open_button.clicked.connect(self.open_selected)
        self.json_button.clicked.connect(lambda: self._choose_export_file(ExportFormat.JSON))
        self.html_button.clicked.connect(lambda: self._choose_export_file(ExportFormat.HTML))
        self.delete_button.clicked.connect(lambda: self.delete_selected())
        self.close_button.clicked.connect(self.reject)

    # --- the list ----------------------------------------------------------------------------------------------

    def refresh(self) -> None:
        selected = self.selected_id()
        self.list.clear()
        for summary in self._store.summaries():
            item = self._item(summary)
            self.list.addTopLevelItem(item)
            if summary.id == selected:
                item.setSelected(True)
        self._stack.setCurrentWidget(self.list if self.list.topLevelItemCount() else self.empty)
        skipped = self._store.skipped
        self.skipped_notice.setText(
            tr("1 saved run could not be read and was skipped.")
            if skipped == 1
            else tr("{n} saved runs could not be read and were skipped.", n=skipped)
        )
        self.skipped_notice.setVisible(skipped > 0)
        first = self.list.topLevelItem(0)
        if first is not None and not self.list.selectedItems():
            self.list.setCurrentItem(first)
        self._update_buttons()

    @staticmethod
    def _item(summary: RunSummary) -> QTreeWidgetItem:
        label = describe_outcome(summary.outcome)
        task = (
            summary.title
            if summary.task_count == 1
            else tr("{task} (+{n} follow-ups)", task=summary.title, n=summary.task_count - 1)
        )
        if summary.demo:
            task = tr("[Demo] {task}", task=task)
        item = QTreeWidgetItem(
            [f"{summary.started_at.astimezone():%Y-%m-%d %H:%M}", " ".join(task.split()), label, str(summary.steps)]
        )
        item.setData(_Column.WHEN, _ID, summary.id)
        item.setData(_Column.RESULT, _OUTCOME, summary.outcome)
        item.setToolTip(_Column.TASK, summary.title)
        item.setToolTip(_Column.STEPS, spend_text(summary.demo, summary.replay, summary.total_tokens))
        item.setTextAlignment(_Column.STEPS, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if summary.status == AgentStatus.ERROR:
            item.setForeground(_Column.RESULT, QColor(style.theme().danger))
        return item

    def selected_id(self) -> str | None:
        items = self.list.selectedItems()
        return str(items[0].data(_Column.WHEN, _ID)) if items else None

    def select(self, run_id: str) -> None:
        for row in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(row)
            if item is not None and item.data(_Column.WHEN, _ID) == run_id:
                self.list.setCurrentItem(item)
                return

    def _update_buttons(self) -> None:
        chosen = self.selected_id() is not None
        for button in (self.open_button, self.json_button, self.html_button, self.delete_button):
            button.setEnabled(chosen)

    # --- actions -----------------------------------------------------------------------------------------------

    async def _load(self, run_id: str) -> RunRecord | None:
        try:
            return await asyncio.to_thread(self._store.load, run_id)
        except RunStoreError as exc:
            self.message.show_message(Tone.ERROR, tr("Could not open this run"), str(exc))
            self.refresh()
            return None

    def open_selected(self) -> asyncio.Task[None] | None:
        run_id = self.selected_id()
        return self._background.spawn(self._open(run_id)) if run_id else None

    async def _open(self, run_id: str) -> None:
        record = await self._load(run_id)
        if record is not None:
            self.openRun.emit(record)
            self.accept()

    def _choose_export_file(self, fmt: ExportFormat) -> None:
        run_id = self.selected_id()
        if run_id is not None:
            choose_export_file(
                self, run_id, fmt, lambda path: self._background.spawn(self.export_to(run_id, path, fmt))
            )

    async def export_to(self, run_id: str, path: Path, fmt: ExportFormat) -> None:
        record = await self._load(run_id)
        if record is None:
            return
        problem = await write_export(record, path, fmt)
        if problem:
            self.message.show_message(Tone.ERROR, tr("Could not export the run"), problem)
        else:
            self.message.show_message(Tone.OK, tr("Exported"), str(path))

    def delete_selected(self, *, confirm: bool = True) -> None:
        run_id = self.selected_id()
        if run_id is None:
            return
        if not confirm:
            self._delete(run_id)
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            tr("Delete this run?"),
            tr("The run and its steps will be removed from this computer. This cannot be undone."),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        delete = box.addButton(tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(lambda button: self._delete(run_id) if button is delete else None)
        box.open()  # not exec(): no nested event loop

    def _delete(self, run_id: str) -> None:
        try:
            self._store.delete(run_id)
        except OSError as exc:
            self.message.show_message(Tone.ERROR, tr("Could not delete the run"), str(exc))
        self.refresh()

    def done(self, result: int) -> None:
        self._background.cancel_all()
        super().done(result)
