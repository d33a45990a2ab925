"""What the Routine mode says: a row's status in a word (app/text/row_words.py's, or "Waiting") and a colour, how it
ended, the progress line, the paths learned, with the rows each serves. Everything comes from typed values (RowStatus,
RowOutcome, RoutineProgress, PathBook), never from English read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtGui import QColor

from app.routine.paths import PathBook
from app.routine.types import MaybeSent, RoutineProgress, RowOutcome, RowStatus
from app.text.i18n import tr
from app.text.path_words import key_words, path_words, rows_words
from app.text.row_words import COUNTED, counts_words, row_words
from app.text.wording import format_duration
from app.ui.status_pill import your_turn_color
from app.ui.style import Theme

# A row nobody has started yet in this run (no RowStatus: it has none until it starts).
WAITING = "waiting"


def status_words(status: str) -> str:
    """A row's status as the table shows it: its words (app/text/row_words.py), or "Waiting" before it starts."""
    return tr("Waiting") if status == WAITING else row_words(RowStatus(status))


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


def rows_through(progress: RoutineProgress) -> int:
    """Rows of this run that have an outcome."""
    return sum(progress.counts.get(status, 0) for status in COUNTED)


def progress_words(progress: RoutineProgress) -> str:
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


def learned_words(book: PathBook, rows: Sequence[tuple[int, Mapping[str, str]]]) -> str:
    """Each path the routine follows, under the kind of row it serves and the rows of the file that follow it:
    "Rows where {newsletter} is yes: 2 and 4–5 (learned from row 2)", then its steps, one plain sentence each."""
    sections = []
    for known in book.live():
        # A column that picks the path is no longer one whose other values go to the model: they have their path.
        fixed = {column: value for column, value in known.path.fixed.items() if column not in book.deciding}
        path = known.path.model_copy(update={"fixed": fixed})
        steps = "\n".join(f"{i}. {line}" for i, line in enumerate(path_words(path), 1))
        serves = tr(
            "{kind}: {rows} (learned from row {row})",
            kind=key_words(book.key(known)),
            rows=rows_words(book.serves(known, rows)),
            row=known.number,
        )
        sections.append(serves + "\n" + steps)
    return "\n\n".join(sections)
