"""A routine's row status in a word, and its rows counted by status: the same words in the panel's row table and
summary, the command line's lines and the MCP server's progress."""

from __future__ import annotations

from collections.abc import Mapping

from app.routine.types import RowStatus
from app.text.i18n import tr


def row_words(status: RowStatus) -> str:
    """A row's status as a person reads it ("Done", "Needs you")."""
    match status:
        case RowStatus.DONE:
            return tr("Done")
        case RowStatus.FAILED:
            return tr("Failed")
        case RowStatus.NEEDS_PERSON:
            return tr("Needs you")
        case RowStatus.STOPPED:
            return tr("Stopped")
        case RowStatus.ERROR:
            return tr("Error")
        case RowStatus.INTERRUPTED:
            return tr("Interrupted")
        case RowStatus.SKIPPED:
            return tr("Skipped")
        case RowStatus.RUNNING:
            return tr("Running")


# The order the counts are said in: what went well first, then what needs a look (a row running is not counted).
COUNTED = (
    RowStatus.DONE,
    RowStatus.FAILED,
    RowStatus.NEEDS_PERSON,
    RowStatus.ERROR,
    RowStatus.INTERRUPTED,
    RowStatus.STOPPED,
    RowStatus.SKIPPED,
)


def counts_words(counts: Mapping[str, int]) -> str:
    """ "3 done · 1 failed" (only the statuses that occur)."""
    return " · ".join(f"{counts[status]} {row_words(status).lower()}" for status in COUNTED if counts.get(status))
