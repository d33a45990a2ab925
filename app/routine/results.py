"""The results file: every input column, then what became of each row, rewritten whole and atomically after every row,
or every few seconds for a big file (a crash leaves the previous complete file, never half a new one).

A secret column's cells are written as •••• (nothing stores a secret). No cell can start a formula when the file is
opened in a spreadsheet, whoever wrote it (the header, the person's own cells from a CSV or an .xlsx, the model's and
the page's words): one that would gets a leading apostrophe, as OWASP advises, and the value is whole after it.

The app's own columns (status, result, ...) follow the person's; when the rows already have a column of one of those
names, every one of the app's is written with ``page_agent_`` in front, so that no name is there twice.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import re
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path

from app.core.clean_text import valid_text
from app.core.safety.secrets import HIDDEN, mask_everywhere
from app.routine.files import kind_words
from app.routine.rows import RowsError, RowTable, columns_words
from app.routine.state import RowRecord, check_state_files
from app.routine.types import RowOutcome
from app.settings.atomic import write_atomic_parts

RESULT_COLUMNS = ("status", "result", "steps", "model_calls", "seconds", "browser", "run")
CLASH_PREFIX = "page_agent_"
BIG_FILE = 10_000  # rows
WRITE_EVERY = 5.0  # seconds between two writes of a big file's results, at least
_CHUNK = 1 << 20  # characters made before they are written
# What spreadsheets read as the start of a formula (or a DDE call), full-width forms included, once they have
# skipped the blanks before it; a tab or a line break first is escaped as it is.
_FORMULA_START = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_CONTROL_START = ("\t", "\r", "\n")
# Blanks a spreadsheet may skip: every Unicode space (a no-break space included) and the invisible ones.
_BLANKS = re.compile(r"^[\s\u200b\u200c\u200d\u2060\ufeff]+")
_SUSPECT = frozenset((*_FORMULA_START, *_CONTROL_START, "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"))


def result_columns(table: RowTable) -> tuple[str, ...]:
    """The names of the app's own columns beside the table's: RESULT_COLUMNS, or each with CLASH_PREFIX when one of
    the table's columns has one of those names (in any case). RowsError, in plain words, when even the prefixed
    names are taken."""
    taken = {column.casefold(): column for column in table.columns}
    clash = [taken[name] for name in RESULT_COLUMNS if name in taken]
    if not clash:
        return RESULT_COLUMNS
    prefixed = tuple(CLASH_PREFIX + name for name in RESULT_COLUMNS)
    also = [taken[name] for name in prefixed if name in taken]
    if also:
        raise RowsError(
            f"{table.path} has columns named {columns_words([*clash, *also])}, which the results file needs for its "
            "own columns; rename one of them."
        )
    return prefixed


def result_header(table: RowTable, output_columns: Sequence[str]) -> list[str]:
    return [*table.columns, *result_columns(table), *output_columns]


def header_text(table: RowTable, output_columns: Sequence[str]) -> str:
    """The results file's first line, as it is written."""
    return "".join(_lines(table, [], {}, [], output_columns, None))


def _lines(
    table: RowTable,
    keys: Sequence[str],
    records: Mapping[str, RowRecord],
    secret_columns: Sequence[str],
    output_columns: Sequence[str],
    rest: RowOutcome | None,
) -> Iterator[str]:
    """The file's text, a few hundred rows at a time; ``rest``: what became of the rows ``records`` does not hold."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=table.delimiter if table.delimiter != "\t" else ",", lineterminator="\r\n")
    writer.writerow([_inert_cell(name) for name in result_header(table, output_columns)])
    unknown = (
        _outcome_cells(rest, output_columns) if rest is not None else [""] * (len(RESULT_COLUMNS) + len(output_columns))
    )
    for row, key in zip(table.rows if keys else (), keys, strict=True):
        cells = [HIDDEN if column in secret_columns else row.values[column] for column in table.columns]
        record = records.get(key)
        cells += unknown if record is None else _outcome_cells(record.outcome, output_columns)
        writer.writerow([_inert_cell(cell) for cell in cells])
        if buffer.tell() > _CHUNK:
            yield _clean(buffer)
    yield _clean(buffer)


def _outcome_cells(outcome: RowOutcome, output_columns: Sequence[str]) -> list[str]:
    cells = [
        str(outcome.status),
        outcome.result,
        str(outcome.steps),
        str(outcome.model_calls),
        f"{outcome.seconds:.1f}",
        outcome.browser,
        outcome.run,
    ]
    return cells + [outcome.outputs.get(column, "") for column in output_columns]


def _clean(buffer: io.StringIO) -> str:
    """What the buffer holds, emptied. Whatever a vault still knows (a row's secret echoed by the site into the
    result) is masked on its way out."""
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return valid_text(mask_everywhere(text))


def write_results(
    path: Path,
    table: RowTable,
    keys: Sequence[str],
    records: Mapping[str, RowRecord],
    secret_columns: Sequence[str],
    output_columns: Sequence[str],
    rest: RowOutcome | None = None,
) -> None:
    """Atomically, as it is made (never the whole text in memory); with a byte-order mark, which spreadsheets need to
    read UTF-8. ``rest``: what became of the rows the state does not know (the rest of a stopped routine). Reads and
    writes the disk: call it off the event loop."""
    lines = _lines(table, keys, records, secret_columns, output_columns, rest)
    write_atomic_parts(path, itertools.chain(["\ufeff"], lines))


class ResultsPace:
    """When the results file is written again: after every row for a file of up to ``BIG_FILE`` rows; for a bigger
    one (each write costs seconds) at most every ``WRITE_EVERY`` seconds, or ten times as long as the last write took
    (the first time, not before the rows start); always at the end. The state (app/routine/state.py) has every row's
    ending at once either way."""

    def __init__(self, rows: int) -> None:
        self._big = rows > BIG_FILE
        self._next = time.monotonic() + WRITE_EVERY  # a big file's first rows start before it is written

    def due(self) -> bool:
        return not self._big or time.monotonic() >= self._next

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """Around a write: how long it took sets when the next one is due."""
        started = time.monotonic()
        yield
        now = time.monotonic()
        self._next = now + max(WRITE_EVERY, 10 * (now - started))


def check_results_file(path: Path, rows_file: Path) -> None:
    """ValueError, in plain words, for a results file that cannot be written, before any browser starts."""
    if path.resolve() == rows_file.resolve():
        raise ValueError(f"--results {path} is the rows file itself; choose another file for the results.")
    if path.is_dir():
        raise ValueError(f"--results {path} is a folder; give a file name for the results.")
    if not path.parent.is_dir():
        raise ValueError(f"--results {path}: the folder {path.parent} does not exist.")
    if path.exists() and not path.is_file():
        raise ValueError(f"--results {path} is {kind_words(path.stat().st_mode)}; give a file name for the results.")
    check_state_files(path)  # the state beside it: never a link


def _inert_cell(text: str) -> str:
    """``text`` as a spreadsheet cell that cannot start a formula: as it is, or after one apostrophe."""
    if not text or (text[0] not in _SUSPECT and not text[0].isspace()):
        return text  # most cells: a first character that starts nothing and is no blank
    if text.startswith(_CONTROL_START):
        return "'" + text
    shown = _BLANKS.sub("", text, count=1)
    if shown.startswith(_FORMULA_START):
        return "'" + text
    return text
