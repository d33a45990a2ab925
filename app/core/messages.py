"""The agent's own messages about a run's trouble, as templates written once: the agent fills them in, the model
reads them in English, and the panel shows them in its language by reading a message back against its template
(app/text/wording.py). Fields are filled with plain text (numbers formatted before), never format specs."""

from __future__ import annotations

TASK_ABORTED = "Task aborted"
STEP_LIMIT = "Step count exceeded maximum limit"
STEP_TIMED_OUT = "Step {step} timed out after {seconds} s"
TOO_MANY_FAILURES = "Too many consecutive failures ({count} in a row)"
TIME_BUDGET_EXCEEDED = "Time budget of {seconds} s exceeded"
UNUSABLE_ANSWER = "Step {step}: the model's answer was unusable: {reason}"
PAGE_UNREADABLE = "The page could not be read: {reason}"
PAGE_NOT_RESPONDING = (
    "The page did not respond within {seconds} s: it may still be loading, or a script on it is "
    "stuck. Wait and look again, go back or open another page, or stop."
)
BROWSER_CLOSED = "The browser was closed during the run."
UNEXPECTED_ERROR = "Unexpected error: {error}"
PROMPT_SHORTENED = (
    "The model said the request was too long for it: older steps are now summarised more briefly, "
    "and it was asked again."
)

# Every template above, for readers that match a message back to the template it was made from.
TEMPLATES = (
    TASK_ABORTED,
    STEP_LIMIT,
    STEP_TIMED_OUT,
    TOO_MANY_FAILURES,
    TIME_BUDGET_EXCEEDED,
    UNUSABLE_ANSWER,
    PAGE_UNREADABLE,
    PAGE_NOT_RESPONDING,
    BROWSER_CLOSED,
    UNEXPECTED_ERROR,
    PROMPT_SHORTENED,
)
