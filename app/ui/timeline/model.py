"""Timeline items and the list model that holds them.

The agent reports its whole history on every change; the model appends only what is new, so a long run costs
one small insert per event instead of a rebuild. Items of earlier tasks stay above a follow-up's.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from app.core.types import (
    ErrorEvent,
    ExecutionResult,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    RunOutcome,
    StepEvent,
    Usage,
    UserTakeoverEvent,
)
from app.text.i18n import tr
from app.text.wording import (
    Reading,
    action_details,
    action_failed,
    describe_action,
    describe_outcome,
    evaluation_reading,
    failure_words,
    format_duration,
    plain_error,
    plain_observation,
    plain_retry,
    takeover_title,
)

_ids = itertools.count(1)


class Kind(Enum):
    TASK = "task"
    STEP = "step"
    OBSERVATION = "observation"
    RETRY = "retry"
    ERROR = "error"
    TAKEOVER = "user_takeover"
    QUESTION = "question"
    ANSWER = "answer"
    RESULT = "result"
    NOTICE = "notice"


@dataclass(eq=False)
class TimelineItem:
    kind: Kind
    text: str = ""
    event: HistoricalEvent | None = None
    follow_up: bool = False
    outcome: RunOutcome | None = None
    expanded: bool = False
    uid: int = field(default_factory=lambda: next(_ids))

    @property
    def message(self) -> str:
        """The card's text as the panel shows it, in the panel's language at the moment it is shown: an agent's or
        a model endpoint's error, or a stop."""
        if self.outcome is RunOutcome.STOPPED and isinstance(self.event, ErrorEvent) and self.event.stopped:
            return tr("You stopped the task.")  # the result card says it in kinder words than the agent
        if isinstance(self.event, ErrorEvent) and self.kind in (Kind.ERROR, Kind.RESULT):
            return plain_error(self.event)
        if isinstance(self.event, ObservationEvent):
            return plain_observation(self.event)
        if self.kind is Kind.RETRY:
            return plain_retry(self.text)
        return self.text


def _item_for(event: HistoricalEvent) -> TimelineItem:
    match event:
        case StepEvent():
            return TimelineItem(Kind.STEP, event=event)
        case ObservationEvent():
            return TimelineItem(Kind.OBSERVATION, text=event.content, event=event)
        case RetryEvent():
            return TimelineItem(Kind.RETRY, text=event.message, event=event)
        case UserTakeoverEvent():
            return TimelineItem(Kind.TAKEOVER, text=event.note, event=event)
        case ErrorEvent():
            return TimelineItem(Kind.ERROR, text=event.message, event=event)
    raise TypeError(f"unknown history event {event!r}")


def _reading_mark(reading: Reading) -> str:
    return {Reading.SUCCESS: "✅", Reading.FAILURE: "❌", Reading.UNKNOWN: "❔"}[reading]


def plain_text(item: TimelineItem) -> str:
    """The item as plain text: what Copy puts on the clipboard and what screen readers announce."""
    match item.kind:
        case Kind.TASK:
            return tr("Follow-up: {task}", task=item.text) if item.follow_up else tr("Task: {task}", task=item.text)
        case Kind.STEP:
            assert isinstance(item.event, StepEvent)
            return _step_text(item.event, item.expanded)
        case Kind.RETRY:
            event = item.event
            assert isinstance(event, RetryEvent)
            return tr(
                "Retrying ({attempt}/{max}): {message}",
                attempt=event.attempt,
                max=event.max_attempts,
                message=item.message,
            )
        case Kind.ERROR:
            return tr("Error: {message}", message=item.message)
        case Kind.TAKEOVER:
            assert isinstance(item.event, UserTakeoverEvent)
            return _takeover_text(item.event)
        case Kind.QUESTION:
            return tr("The agent asks: {question}", question=item.text)
        case Kind.ANSWER:
            return tr("Your answer: {answer}", answer=item.text)
        case Kind.RESULT:
            return f"{describe_outcome(item.outcome or RunOutcome.ERROR)}\n{item.message}"
    return item.message  # an observation in the panel's language when it is the agent's own; a notice as it is


def _step_text(step: StepEvent, expanded: bool) -> str:
    lines = [
        tr(
            "Step {n}: {action} ({duration})",
            n=step.step_index,
            action=describe_action(step.action.name, step.action.input, step.action.target),
            duration=format_duration(step.duration),
        )
    ]
    reflection = step.reflection
    if reflection.evaluation_previous_goal:
        reading, rest = evaluation_reading(reflection.evaluation_previous_goal)
        lines.append(f"{_reading_mark(reading)} {rest}".rstrip())
    if reflection.memory:
        lines.append(tr("Memory: {value}", value=reflection.memory))
    if reflection.next_goal:
        lines.append(tr("Next goal: {value}", value=reflection.next_goal))
    if action_failed(step):
        lines.append(failure_words(step))
    if expanded:
        lines.append(tr("Details: {value}", value=action_details(step)))
    return "\n".join(lines)


def _takeover_text(event: UserTakeoverEvent) -> str:
    lines = [takeover_title(event)]
    if event.after_url and event.after_url != event.before_url:
        lines.append(tr("Now on: {title} ({url})", title=event.after_title or event.after_url, url=event.after_url))
    if event.note:
        lines.append(tr("Your note: {note}", note=event.note))
    return "\n".join(lines)


class TimelineModel(QAbstractListModel):
    ItemRole = Qt.ItemDataRole.UserRole + 1
    KindRole = Qt.ItemDataRole.UserRole + 2
    ExpandedRole = Qt.ItemDataRole.UserRole + 3

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
        if role == self.KindRole:
            return item.kind.value
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
        self._append([TimelineItem(Kind.TASK, text=task, follow_up=follow_up)])

    def add_event(self, event: HistoricalEvent) -> None:
        """One more event of the running task (the agent's event_added)."""
        self.add_events([event])

    def add_events(self, events: Sequence[HistoricalEvent]) -> None:
        # A stop records "Task aborted" as an error; the result card already says it, in kinder words.
        items = [_item_for(event) for event in events if not (isinstance(event, ErrorEvent) and event.stopped)]
        if items:
            self._append(items)
        steps = [event.usage for event in events if isinstance(event, StepEvent)]
        if steps:
            self._set_usage(sum(steps, self._usage))

    def add_question(self, question: str) -> None:
        self._append([TimelineItem(Kind.QUESTION, text=question)])

    def add_answer(self, answer: str) -> None:
        self._append([TimelineItem(Kind.ANSWER, text=answer)])

    def add_notice(self, text: str) -> None:
        self._append([TimelineItem(Kind.NOTICE, text=text)])

    def finish_run(self, result: ExecutionResult) -> TimelineItem:
        """The result card, once the task's events have been added."""
        outcome = result.outcome
        # An error's result is the error's own message: its event says what kind of failure it was.
        error = next((event for event in reversed(result.history) if isinstance(event, ErrorEvent)), None)
        ends_so = outcome is RunOutcome.ERROR or (outcome is RunOutcome.STOPPED and error is not None and error.stopped)
        event = error if ends_so and error is not None and error.message == result.data else None
        item = TimelineItem(Kind.RESULT, text=result.data, event=event, outcome=outcome)
        if event is not None and self._items and self._items[-1].kind is Kind.ERROR and self._items[-1].event == event:
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

    def last_result(self) -> TimelineItem | None:
        return next((item for item in reversed(self._items) if item.kind is Kind.RESULT), None)

    # --- internals ---------------------------------------------------------------------------------------------

    def _append(self, items: list[TimelineItem]) -> None:
        first = len(self._items)
        self.beginInsertRows(QModelIndex(), first, first + len(items) - 1)
        self._items.extend(items)
        self.endInsertRows()

    def _set_usage(self, usage: Usage) -> None:
        self._usage = usage
        self.usageChanged.emit(usage)
