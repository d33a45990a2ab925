"""How a run ended has one vocabulary, ``RunOutcome``: every kind has words, an exit code, an MCP task status and a
row status (a new kind without one of them fails here), and the README's exit codes are the one table's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cli.output import EXIT_CODES
from app.cli.routine import exit_code as routine_exit_code
from app.core.types import RunOutcome
from app.instance import Finished, read_update
from app.mcp.views import ENDED, TaskOutcome, TaskView, task_status
from app.routine.types import RowStatus
from app.text.row_words import row_words
from app.text.wording import describe_outcome

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("outcome", list(RunOutcome))
def test_every_outcome_has_words_an_exit_code_an_mcp_status_and_a_row_status(outcome: RunOutcome) -> None:
    assert describe_outcome(outcome)
    assert outcome in EXIT_CODES
    view = TaskView(
        task_id="t",
        status=task_status(outcome),
        where="headless",
        steps=1,
        now="Ended.",
        outcome=TaskOutcome(success=outcome is RunOutcome.SUCCESS, final_words="", steps=1),
    )
    assert view.ended
    row = RowStatus.of(outcome)
    assert row.ends_as is outcome
    assert row_words(row)
    # A routine of one row exits as a task that ended the same way: one table for runs and rows.
    assert routine_exit_code({row: 1}) == EXIT_CODES[outcome]
    # The panel's socket says the ending as the outcome itself, which the MCP server reads back as such.
    finished = Finished(outcome=outcome, data="", steps=1)
    assert read_update(finished.model_dump_json().encode()) == finished


def test_outcomes_are_told_apart_where_they_differ() -> None:
    assert len(set(EXIT_CODES.values())) == len(RunOutcome)
    assert len({RowStatus.of(outcome) for outcome in RunOutcome}) == len(RunOutcome)
    # Only needs_person is not an end for MCP by itself: in the panel it is a pause the task carries on after.
    assert {task_status(outcome) for outcome in RunOutcome} - ENDED == {"needs_person"}


def test_a_rows_own_statuses_have_words_and_count_for_the_exit_code() -> None:
    for status in RowStatus:
        assert row_words(status)
    assert RowStatus.INTERRUPTED.ends_as is RunOutcome.ERROR
    assert RowStatus.SKIPPED.ends_as is RunOutcome.STOPPED
    assert RowStatus.RUNNING.ends_as is None


def test_the_readme_says_the_exit_codes_of_the_one_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("Exit codes:\n\n", 1)[1].split("\n\n", 1)[0]
    codes = [int(code) for code in re.findall(r"^\| (\d) \|", table, re.MULTILINE)]
    assert sorted(codes) == sorted(EXIT_CODES.values())
    # A routine's worst row wins, in the table's order (worst first).
    order = re.search(r"the worst row wins, in this order: (.+?) every row done", text, re.DOTALL)
    assert order is not None
    said = [int(code) for code in re.findall(r"(?:^|, )(\d) ", order.group(1) + " every row done")]
    assert said == list(EXIT_CODES.values())
