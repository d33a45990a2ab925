"""Which rows an earlier run ended a run runs again: never, by itself, one whose data may have reached the site."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.routine.types import RoutineOptions, RowOutcome, RowStatus

OPTIONS = RoutineOptions(Path("rows.csv"), "Add {name}")


def test_rows_that_may_have_reached_the_site_run_again_only_when_chosen_one_by_one_or_all() -> None:
    interrupted = RowOutcome(RowStatus.INTERRUPTED, "…")
    unclear = RowOutcome(RowStatus.NEEDS_PERSON, "…", unclear=True)
    for outcome in (interrupted, unclear):
        assert not OPTIONS.runs_again(outcome, "a:1")
        assert dataclasses.replace(OPTIONS, rerun=frozenset({"a:1"})).runs_again(outcome, "a:1")
        assert not dataclasses.replace(OPTIONS, rerun=frozenset({"b:1"})).runs_again(outcome, "a:1")
        assert dataclasses.replace(OPTIONS, retry_interrupted=True).runs_again(outcome, "a:1")


def test_the_other_endings_run_again_as_before() -> None:
    for status in (RowStatus.NEEDS_PERSON, RowStatus.STOPPED, RowStatus.ERROR, RowStatus.SKIPPED):
        assert OPTIONS.runs_again(RowOutcome(status), "a:1")
    assert not OPTIONS.runs_again(RowOutcome(RowStatus.DONE), "a:1")
    assert not OPTIONS.runs_again(RowOutcome(RowStatus.FAILED), "a:1")
    assert dataclasses.replace(OPTIONS, retry_failed=True).runs_again(RowOutcome(RowStatus.FAILED), "a:1")
