"""The agent's own messages about a run's trouble, written once: each has an id, an English template and fields.

The agent records a message as ``Said`` (the id and the fields' plain text) on the event beside its English text:
the model reads the English, and a view shows the same message in its own language from the id and the fields
(app/text/wording.py), never by reading the English back. Fields hold plain text (numbers formatted before)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class MessageId(StrEnum):
    TASK_ABORTED = "task_aborted"
    STEP_LIMIT = "step_limit"
    STEP_TIMED_OUT = "step_timed_out"
    TOO_MANY_FAILURES = "too_many_failures"
    TIME_BUDGET_EXCEEDED = "time_budget_exceeded"
    UNUSABLE_ANSWER = "unusable_answer"
    PAGE_UNREADABLE = "page_unreadable"
    PAGE_NOT_RESPONDING = "page_not_responding"
    BROWSER_CLOSED = "browser_closed"
    UNEXPECTED_ERROR = "unexpected_error"
    PROMPT_SHORTENED = "prompt_shortened"


TEMPLATES: dict[MessageId, str] = {
    MessageId.TASK_ABORTED: "Task aborted",
    MessageId.STEP_LIMIT: "Step count exceeded maximum limit",
    MessageId.STEP_TIMED_OUT: "Step {step} timed out after {seconds} s",
    MessageId.TOO_MANY_FAILURES: "Too many consecutive failures ({count} in a row)",
    MessageId.TIME_BUDGET_EXCEEDED: "Time budget of {seconds} s exceeded",
    MessageId.UNUSABLE_ANSWER: "Step {step}: the model's answer was unusable: {reason}",
    MessageId.PAGE_UNREADABLE: "The page could not be read: {reason}",
    MessageId.PAGE_NOT_RESPONDING: (
        "The page did not respond within {seconds} s: it may still be loading, or a script on it is "
        "stuck. Wait and look again, go back or open another page, or stop."
    ),
    MessageId.BROWSER_CLOSED: "The browser was closed during the run.",
    MessageId.UNEXPECTED_ERROR: "Unexpected error: {error}",
    MessageId.PROMPT_SHORTENED: (
        "The model said the request was too long for it: older steps are now summarised more briefly, "
        "and it was asked again."
    ),
}


class Said(BaseModel):
    """One of the agent's messages: which one, and what fills its template."""

    model_config = ConfigDict(frozen=True)

    id: MessageId
    fields: dict[str, str] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """In English, as the model reads it."""
        return TEMPLATES[self.id].format(**self.fields)


def say(message: MessageId, **fields: object) -> Said:
    return Said(id=message, fields={name: str(value) for name, value in fields.items()})


# The English of a stop, as the run's result and the model's history say it.
TASK_ABORTED = TEMPLATES[MessageId.TASK_ABORTED]
