"""What the Routine mode says: a row's status in a word and a colour, how it ended, the progress line, the learned path
in plain words. Everything comes from typed values (RowStatus, RowOutcome, Progress, RoutinePath), never from English
read back."""

from __future__ import annotations

from PySide6.QtGui import QColor

from app.routine.path import PathStep, RoutinePath
from app.routine.types import MaybeSent, Progress, RowOutcome, RowStatus
from app.text.element_words import target_words
from app.text.i18n import tr
from app.text.wording import describe_action, format_duration
from app.ui.status_pill import your_turn_color
from app.ui.style import Theme

# A row nobody has started yet in this run (no RowStatus: it has none until it starts).
WAITING = "waiting"


def status_words(status: str) -> str:
    """A row's status as the table shows it."""
    return {
        WAITING: tr("Waiting"),
        RowStatus.RUNNING: tr("Running"),
        RowStatus.DONE: tr("Done"),
        RowStatus.FAILED: tr("Failed"),
        RowStatus.NEEDS_PERSON: tr("Needs you"),
        RowStatus.STOPPED: tr("Stopped"),
        RowStatus.ERROR: tr("Error"),
        RowStatus.INTERRUPTED: tr("Interrupted"),
        RowStatus.SKIPPED: tr("Skipped"),
    }.get(status, status)


def may_have_reached_the_site(outcome: RowOutcome) -> bool:
    """A row that ended before anyone knew whether its data reached the site: it runs again only once the person
    checked the site and chose it (Check and run again…)."""
    return outcome.status == RowStatus.INTERRUPTED or outcome.unclear


def outcome_words(outcome: RowOutcome) -> str:
    """How a row ended, as the panel says it: its result; for a row that may have reached the site, what happened and
    what the person can do here (the results file's words name the command line's flag)."""
    if not may_have_reached_the_site(outcome):
        return outcome.result
    what = {
        MaybeSent.BROWSER_GONE: tr("Its browser went away in the middle of the row: its data may have been sent."),
        MaybeSent.STOPPED: tr("You stopped the routine after this row may have sent its data."),
        MaybeSent.ERROR: tr("Something went wrong after this row may have sent its data."),
        MaybeSent.ANSWER_UNCLEAR: tr(
            "It was sent, and the site's answer was unclear: the next step could have sent it again, so it was held "
            "back."
        ),
        MaybeSent.FOREIGN_KEYS: tr(
            "It was sent after keys the agent did not type reached its page: the site may hold it garbled."
        ),
        None: tr("It may have reached the site before it ended."),
    }[outcome.maybe_sent]
    return (
        what
        + " "
        + tr("It runs again only if you choose it under “Check and run again…”, once you have checked the site.")
    )


def status_color(status: str, t: Theme) -> QColor:
    colors: dict[str, QColor] = {
        RowStatus.RUNNING: t.accent,
        RowStatus.DONE: t.success,
        RowStatus.FAILED: t.danger,
        RowStatus.ERROR: t.danger,
        RowStatus.NEEDS_PERSON: your_turn_color(t),
        RowStatus.INTERRUPTED: t.warning,
        RowStatus.STOPPED: t.warning,
    }
    return colors.get(status, t.muted)


# The order the counts are said in: what went well first, then what needs a look.
_COUNTED = (
    RowStatus.DONE,
    RowStatus.FAILED,
    RowStatus.NEEDS_PERSON,
    RowStatus.ERROR,
    RowStatus.INTERRUPTED,
    RowStatus.STOPPED,
    RowStatus.SKIPPED,
)


def counts_words(counts: dict[str, int]) -> str:
    """ "3 done · 1 failed" (only the statuses that occur)."""
    parts = [f"{counts[status]} {status_words(status).lower()}" for status in _COUNTED if counts.get(status)]
    return " · ".join(parts)


def rows_through(progress: Progress) -> int:
    """Rows of this run that have an outcome."""
    return sum(progress.counts.get(status, 0) for status in _COUNTED)


def progress_words(progress: Progress) -> str:
    """The line under the progress bar, of this run: how many of its rows are through, the counts, and the time
    left (the rows earlier runs ended, which it leaves, in a word at the end)."""
    through = rows_through(progress)
    line = tr("{done} of {total} rows", done=through, total=progress.total)
    counts = counts_words(progress.counts)
    if counts:
        line += " · " + counts
    if progress.paused:
        line += " · " + (tr("paused at your limit") if progress.at_limit else tr("paused by you"))
    elif progress.left and progress.seconds_left is not None:
        line += " · " + tr("about {time} left", time=format_duration(progress.seconds_left))
    if progress.earlier:
        line += " · " + tr("{n} kept from earlier runs", n=progress.earlier)
    return line


def path_words(path: RoutinePath | None) -> list[str]:
    """The learned path, one plain sentence per step, with the columns it fills in braces."""
    if path is None:
        return []
    lines = [_step_words(step) for step in path.steps]
    if path.fixed:
        lines.append(
            tr(
                "Rows with another value in {columns} than row {row} are done by the model.",
                columns=", ".join(path.fixed),
                row=path.learned_from,
            )
        )
    return lines


def _step_words(step: PathStep) -> str:
    if step.toggle_column is not None:
        target = target_words(step.target)
        return tr("Tick {target} when {column} says yes", target=target, column="{" + step.toggle_column + "}")
    words = describe_action(step.action, dict(step.input), step.target)
    if step.target_column is not None:
        words += " " + tr("(the one named {column})", column="{" + step.target_column + "}")
    if step.ask_model:
        words = tr("The model decides: {words}", words=words)
    return words
