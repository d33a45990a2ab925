"""What the timeline shows: one item type per kind of card, each holding exactly what its card says, and every item
as plain text (what Copy puts on the clipboard and what screen readers announce)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import assert_never

from app.core.types import (
    ErrorEvent,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    RunOutcome,
    StepEvent,
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


@dataclass(eq=False, kw_only=True)
class _Item:
    """What every item has besides its content: whether its card is shown whole, and the identity its card's layout
    is cached by."""

    expanded: bool = False
    uid: int = field(default_factory=lambda: next(_ids))


@dataclass(eq=False)
class TaskItem(_Item):
    text: str
    follow_up: bool


@dataclass(eq=False)
class StepItem(_Item):
    event: StepEvent


@dataclass(eq=False)
class ObservationItem(_Item):
    event: ObservationEvent

    @property
    def message(self) -> str:
        """In the panel's language when it is one of the agent's own notes; a page's words as they are."""
        return plain_observation(self.event)


@dataclass(eq=False)
class RetryItem(_Item):
    event: RetryEvent

    @property
    def message(self) -> str:
        return tr(
            "Retrying ({attempt}/{max}): {message}",
            attempt=self.event.attempt,
            max=self.event.max_attempts,
            message=plain_retry(self.event.message),
        )


@dataclass(eq=False)
class ErrorItem(_Item):
    event: ErrorEvent

    @property
    def message(self) -> str:
        """An agent's or a model endpoint's error, in the panel's language at the moment it is shown."""
        return plain_error(self.event)


@dataclass(eq=False)
class TakeoverItem(_Item):
    event: UserTakeoverEvent


@dataclass(eq=False)
class QuestionItem(_Item):
    text: str


@dataclass(eq=False)
class AnswerItem(_Item):
    text: str


@dataclass(eq=False)
class ResultItem(_Item):
    outcome: RunOutcome
    text: str  # the result's own words: the agent's report, or what went wrong
    error: ErrorEvent | None = None  # the error these words are the message of, when the run ended on one

    @property
    def message(self) -> str:
        """The result's words as the panel shows them, in its language at the moment they are shown."""
        if self.error is None:
            return self.text
        if self.outcome is RunOutcome.STOPPED and self.error.stopped:
            return tr("You stopped the task.")  # in kinder words than the agent's "Task aborted"
        return plain_error(self.error)


@dataclass(eq=False)
class NoticeItem(_Item):
    text: str


TimelineItem = (
    TaskItem
    | StepItem
    | ObservationItem
    | RetryItem
    | ErrorItem
    | TakeoverItem
    | QuestionItem
    | AnswerItem
    | ResultItem
    | NoticeItem
)


def item_for(event: HistoricalEvent) -> TimelineItem:
    """The card of one event of the agent's history."""
    match event:
        case StepEvent():
            return StepItem(event)
        case ObservationEvent():
            return ObservationItem(event)
        case RetryEvent():
            return RetryItem(event)
        case UserTakeoverEvent():
            return TakeoverItem(event)
        case ErrorEvent():
            return ErrorItem(event)
        case _:
            assert_never(event)


def plain_text(item: TimelineItem) -> str:
    """The item as plain text: what Copy puts on the clipboard and what screen readers announce."""
    match item:
        case TaskItem():
            return tr("Follow-up: {task}", task=item.text) if item.follow_up else tr("Task: {task}", task=item.text)
        case StepItem():
            return _step_text(item.event, item.expanded)
        case ObservationItem() | RetryItem():
            return item.message
        case ErrorItem():
            return tr("Error: {message}", message=item.message)
        case TakeoverItem():
            return _takeover_text(item.event)
        case QuestionItem():
            return tr("The agent asks: {question}", question=item.text)
        case AnswerItem():
            return tr("Your answer: {answer}", answer=item.text)
        case ResultItem():
            return f"{describe_outcome(item.outcome)}\n{item.message}"
        case NoticeItem():
            return item.text
        case _:
            assert_never(item)


def _reading_mark(reading: Reading) -> str:
    return {Reading.SUCCESS: "✅", Reading.FAILURE: "❌", Reading.UNKNOWN: "❔"}[reading]


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
