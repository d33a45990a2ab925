"""A routine checked before anything starts: its rows read, its template bound to their columns, its secret and
output columns named. Everything wrong is a RowsError in plain words, raised before any browser starts."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from app.routine.results import BIG_FILE, RESULT_COLUMNS, check_results_file, result_columns
from app.routine.rows import RowsError, RowTable, columns_words, read_rows
from app.routine.state import row_keys
from app.routine.template import Template, bind_columns, check_row, parse_template, render, secret_names
from app.routine.types import RoutineOptions

# An output column is a key of the done tool's data object: a plain name the model can write back exactly.
_OUTPUT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
MAX_PARALLEL = 8
# A cell written like a secret placeholder (check_row) starts so.
_PLACEHOLDER_OPENS = re.compile("<secret>", re.IGNORECASE)


@dataclass(frozen=True)
class RoutinePlan:
    options: RoutineOptions
    table: RowTable
    template: Template
    secrets: dict[str, str]  # column -> the secret's name the model reads
    one_time_codes: frozenset[str]  # the secrets' names whose cells are setup keys (--totp-columns)
    keys: list[str]  # each row's key in the state, in the file's order
    problems: dict[int, str]  # row number -> why that row cannot run (it ends ``error``)

    @property
    def values_for_path(self) -> list[str]:
        """The template's columns whose values a path may hold (secret ones never)."""
        return [column for column in dict.fromkeys(self.template.columns) if column not in self.secrets]

    @property
    def own_words(self) -> str:
        """The person's own words in each row's task (Agent.execute): the template's, never a cell's (a cell can
        name no site for a secret, no file to upload, ask for no irreversible act); none of a template an MCP
        client wrote."""
        return "" if self.options.from_client else self.template.literal_text

    def task(self, number: int) -> str:
        row = self.table.rows[number - 1]
        return render(self.template, row, self.secrets, self.options.output_columns)

    def public_values(self, number: int) -> dict[str, str]:
        """The row's cells without its secrets: what the path may template and the state may key on."""
        row = self.table.rows[number - 1]
        return {column: value for column, value in row.values.items() if column not in self.secrets}


def plan_routine(options: RoutineOptions, stopped: Callable[[], bool] = lambda: False) -> RoutinePlan:
    """Reads the rows file (rows.ReadingStopped once ``stopped()`` says so): call it off the event loop."""
    if not options.template.strip():
        raise RowsError("The task is empty; say what the agent should do for each row, with {column} for its values.")
    if not 1 <= options.parallel <= MAX_PARALLEL:
        raise RowsError(f"--parallel must be 1 to {MAX_PARALLEL}, not {options.parallel}.")
    template = parse_template(options.template)
    table = read_rows(options.rows_file, stopped)
    template = bind_columns(template, table.columns)
    if not template.columns:
        raise RowsError(
            "The task names no column, so every row would do the same thing. Put {column} where each row's value "
            f"goes; columns found: {columns_words(table.columns)}."
        )
    secrets = secret_names(tuple(dict.fromkeys((*options.secret_columns, *options.totp_columns))), table.columns)
    codes = frozenset(secret_names(options.totp_columns, table.columns).values())
    _check_outputs(options.output_columns, table)
    try:
        check_results_file(options.results_path(), options.rows_file)
    except ValueError as exc:
        raise RowsError(str(exc)) from None
    problems = {}
    if secrets or table.rows.contain(_PLACEHOLDER_OPENS):  # else no row has a problem: not looked at one by one
        problems = {row.number: problem for row in table.rows if (problem := check_row(row, secrets, codes))}
    return RoutinePlan(
        options=options,
        table=table,
        template=template,
        secrets=secrets,
        one_time_codes=codes,
        keys=row_keys(table.rows, list(secrets)),
        problems=problems,
    )


def pace_words(rows: int, seconds_a_row: float, parallel: int) -> str | None:
    """What a huge file means, once its first row has set the pace: "500,000 rows: about 23 days at the first row's
    pace; use --parallel or split the file". None for a file that is not huge (up to results.BIG_FILE rows)."""
    if rows <= BIG_FILE:
        return None
    hours = rows * seconds_a_row / max(1, parallel) / 3600
    took = f"{hours / 24:,.0f} days" if hours >= 48 else f"{hours:,.0f} hours"
    advice = "split the file" if parallel >= MAX_PARALLEL else "use --parallel or split the file"
    return (
        f"{rows:,} rows: about {took} at the first row's pace ({seconds_a_row:.1f} s, {parallel} at a time); {advice}."
    )


def _check_outputs(outputs: tuple[str, ...], table: RowTable) -> None:
    taken = {*table.columns, *RESULT_COLUMNS, *result_columns(table)}
    for name in outputs:
        if not _OUTPUT_NAME.match(name) or name.startswith("model_"):
            raise RowsError(
                f'--output-columns: "{name}" must be a plain name (letters, digits and _, starting with a letter), '
                "which the agent fills when it finishes."
            )
        if name in taken:
            raise RowsError(f'--output-columns: "{name}" is already a column of the results; choose another name.')
    if len(set(outputs)) != len(outputs):
        raise RowsError("--output-columns names a column twice.")
