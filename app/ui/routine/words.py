"""What the Routine mode says: a row's status in a word and a colour, the progress line, the paths learned, with the
rows each serves. Everything comes from typed values (RowStatus, Progress, PathBook), never from English read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtGui import QColor

from app.routine.paths import PathBook
from app.routine.types import Progress, RowStatus
from app.text.i18n import tr
from app.text.path_words import key_words, path_words, rows_words
from app.text.wording import format_duration
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
    """Rows that have an outcome (this run's or an earlier run's)."""
    return sum(progress.counts.get(status, 0) for status in _COUNTED)


def progress_words(progress: Progress) -> str:
    """The line under the progress bar: how many rows are through, the counts, and the time left."""
    through = rows_through(progress)
    line = tr("{done} of {total} rows", done=through, total=progress.total)
    counts = counts_words(progress.counts)
    if counts:
        line += " · " + counts
    if progress.paused:
        line += " · " + tr("paused")
    elif progress.left and progress.seconds_left is not None:
        line += " · " + tr("about {time} left", time=format_duration(progress.seconds_left))
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
