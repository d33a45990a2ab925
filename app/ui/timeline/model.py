"""Timeline items and the list model that holds them.

The agent reports its whole history on every change; the model appends only what is new, so a long run costs
one small insert per event instead of a rebuild. Items of earlier tasks stay above a follow-up's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from app.core.types import ErrorEvent, ExecutionResult, HistoricalEvent, RunOutcome, StepEvent, Usage
from app.ui.timeline.items import (
    AnswerItem,
    ErrorItem,
    NoticeItem,
    QuestionItem,
    ResultItem,
    TaskItem,
    TimelineItem,
    item_for,
    plain_text,
)


class TimelineModel(QAbstractListModel):
    ItemRole = Qt.ItemDataRole.UserRole + 1
    ExpandedRole = Qt.ItemDataRole.UserRole + 2

    usageChanged = Signal(object)  # Usage of the current run

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[TimelineItem] = []
        self._usage = Usage()

    # --- Qt model ----------------------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return plain_text(item)
        if role == self.ItemRole:
            return item
        if role == self.ExpandedRole:
            return item.expanded
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable if index.isValid() else Qt.ItemFlag.NoItemFlags

    # --- building the timeline ---------------------------------------------------------------------------------

    @property
    def items(self) -> Sequence[TimelineItem]:
        return tuple(self._items)

    @property
    def usage(self) -> Usage:
        return self._usage

    def item(self, row: int) -> TimelineItem:
        return self._items[row]

    def clear(self) -> None:
        self.beginResetModel()
        self._items = []
        self.endResetModel()
        self._set_usage(Usage())

    def start_run(self, task: str, *, follow_up: bool) -> None:
        self._set_usage(Usage())
        self._append([TaskItem(task, follow_up)])

    def add_event(self, event: HistoricalEvent) -> None:
        """One more event of the running task (the agent's event_added)."""
        self.add_events([event])

    def add_events(self, events: Sequence[HistoricalEvent]) -> None:
        # A stop records "Task aborted" as an error; the result card already says it, in kinder words.
        items = [item_for(event) for event in events if not (isinstance(event, ErrorEvent) and event.stopped)]
        if items:
            self._append(items)
        steps = [event.usage for event in events if isinstance(event, StepEvent)]
        if steps:
            self._set_usage(sum(steps, self._usage))

    def add_question(self, question: str) -> None:
        self._append([QuestionItem(question)])

    def add_answer(self, answer: str) -> None:
        self._append([AnswerItem(answer)])

    def add_notice(self, text: str) -> None:
        self._append([NoticeItem(text)])

    def finish_run(self, result: ExecutionResult) -> ResultItem:
        """The result card, once the task's events have been added."""
        outcome = result.outcome
        # An error's result is the error's own message: its event says what kind of failure it was.
        error = next((event for event in reversed(result.history) if isinstance(event, ErrorEvent)), None)
        ends_so = outcome is RunOutcome.ERROR or (outcome is RunOutcome.STOPPED and error is not None and error.stopped)
        event = error if ends_so and error is not None and error.message == result.data else None
        item = ResultItem(outcome, result.data, error=event)
        previous = self._items[-1] if self._items else None
        if event is not None and isinstance(previous, ErrorItem) and previous.event == event:
            # The result card says it: the error's own card would only repeat it just above.
            last = len(self._items) - 1
            self.beginRemoveRows(QModelIndex(), last, last)
            self._items.pop()
            self.endRemoveRows()
        self._append([item])
        # The result's usage also counts calls that made no step (the final report).
        self._set_usage(result.usage)
        return item

    def load_run(self, task: str, result: ExecutionResult) -> None:
        """Show a finished run (for example one reopened from history) on its own."""
        self.clear()
        self.add_finished_run(task, result, follow_up=False)

    def add_finished_run(self, task: str, result: ExecutionResult, *, follow_up: bool) -> None:
        """A task that ended before it was shown: its card, its events and its result."""
        self.start_run(task, follow_up=follow_up)
        self.add_events(result.history)
        self.finish_run(result)

    def toggle_expanded(self, row: int) -> None:
        item = self._items[row]
        item.expanded = not item.expanded
        index = self.index(row)
        self.dataChanged.emit(index, index, [self.ExpandedRole, Qt.ItemDataRole.DisplayRole])

    def last_result(self) -> ResultItem | None:
        return next((item for item in reversed(self._items) if isinstance(item, ResultItem)), None)

    # --- internals ---------------------------------------------------------------------------------------------

    def _append(self, items: list[TimelineItem]) -> None:
        first = len(self._items)
        self.beginInsertRows(QModelIndex(), first, first + len(items) - 1)
        self._items.extend(items)
        self.endInsertRows()

    def _set_usage(self, usage: Usage) -> None:
        self._usage = usage
        self.usageChanged.emit(usage)
