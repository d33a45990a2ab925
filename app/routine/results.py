"""The results file: every input column, then what became of each row, rewritten whole and atomically after every row
(a crash leaves the previous complete file, never half a new one).

A secret column's cells are written as •••• (nothing stores a secret). What came from the model or a page (the
result, the output columns) cannot start a formula when the file is opened in a spreadsheet: a leading = + - @ gets
an apostrophe, as spreadsheets themselves do.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.core.clean_text import valid_text
from app.core.safety.secrets import HIDDEN, mask_everywhere
from app.routine.files import kind_words
from app.routine.rows import RowTable
from app.routine.state import RowRecord, check_state_files
from app.settings.atomic import write_atomic

RESULT_COLUMNS = ("status", "result", "steps", "model_calls", "seconds", "browser", "run")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def result_header(table: RowTable, output_columns: Sequence[str]) -> list[str]:
    return [*table.columns, *RESULT_COLUMNS, *output_columns]


def results_text(
    table: RowTable,
    keys: Sequence[str],
    records: Mapping[str, RowRecord],
    secret_columns: Sequence[str],
    output_columns: Sequence[str],
) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=table.delimiter if table.delimiter != "\t" else ",", lineterminator="\r\n")
    writer.writerow(result_header(table, output_columns))
    for row, key in zip(table.rows, keys, strict=True):
        cells = [HIDDEN if column in secret_columns else row.values[column] for column in table.columns]
        record = records.get(key)
        if record is None:
            cells += [""] * (len(RESULT_COLUMNS) + len(output_columns))
        else:
            outcome = record.outcome
            cells += [
                str(outcome.status),
                _inert_cell(outcome.result),
                str(outcome.steps),
                str(outcome.model_calls),
                f"{outcome.seconds:.1f}",
                outcome.browser,
                outcome.run,
            ]
            cells += [_inert_cell(outcome.outputs.get(column, "")) for column in output_columns]
        writer.writerow(cells)
    # Whatever a vault still knows (a row's secret echoed by the site into the result) is masked on its way out.
    return valid_text(mask_everywhere(buffer.getvalue()))


def write_results(
    path: Path,
    table: RowTable,
    keys: Sequence[str],
    records: Mapping[str, RowRecord],
    secret_columns: Sequence[str],
    output_columns: Sequence[str],
) -> None:
    """Atomically; with a byte-order mark, which spreadsheets need to read UTF-8. Reads and writes the disk: call it
    off the event loop."""
    write_atomic(path, "\ufeff" + results_text(table, keys, records, secret_columns, output_columns))


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
    return "'" + text if text.startswith(_FORMULA_START) else text
