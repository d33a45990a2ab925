"""The routine's state and results file: never twice (a row in flight when the process died comes back interrupted;
a second process is refused while the first holds the routine), nothing secret stored, nothing half-written."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.routine.plan import plan_routine
from app.routine.results import write_results
from app.routine.state import (
    INTERRUPTED_WORDS,
    RoutineBusy,
    RoutineStore,
    StateUnusable,
    check_state_files,
    row_keys,
    state_path,
)
from app.routine.types import RoutineOptions, RowOutcome, RowStatus


def test_a_row_in_flight_when_the_process_died_is_interrupted_on_the_next_open(tmp_path: Path) -> None:
    results = tmp_path / "r.csv"
    store = RoutineStore.open(results)
    store.start("a:1", 1, "window 1")
    store.finish("b:1", 2, RowOutcome(RowStatus.DONE, "ok", steps=3, model_calls=1))
    store.close()
    again = RoutineStore.open(results)
    records = again.records()
    assert again.interrupted_on_open == 1
    assert records["a:1"].outcome.status == RowStatus.INTERRUPTED
    assert records["a:1"].outcome.result == INTERRUPTED_WORDS
    assert records["b:1"].outcome.status == RowStatus.DONE and records["b:1"].outcome.model_calls == 1
    again.close()


def test_a_second_process_on_the_same_routine_is_refused_while_the_first_holds_it(tmp_path: Path) -> None:
    results = tmp_path / "r.csv"
    store = RoutineStore.open(results)
    try:
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import pathlib, app.routine.state as s; s.RoutineStore.open(pathlib.Path({str(results)!r}))",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert other.returncode != 0
        assert "This routine is already running in another process (process " in other.stderr
        with pytest.raises(RoutineBusy):
            RoutineStore.open(results)
    finally:
        store.close()
    RoutineStore.open(results).close()  # free again once the first let go


def test_rows_are_known_by_their_values_not_their_line_and_secrets_stay_out_of_the_key() -> None:
    from app.routine.packed import Row

    rows = [Row(1, {"a": "x", "pin": "1234"}), Row(2, {"a": "x", "pin": "9999"}), Row(3, {"a": "y", "pin": "1234"})]
    keys = row_keys(rows, ["pin"])
    assert keys[0] != keys[1]  # two identical rows are two records
    assert keys[0].split(":")[0] == keys[1].split(":")[0]
    assert keys == row_keys(rows, ["pin"])
    assert row_keys([rows[2], rows[0], rows[1]], ["pin"]) == [keys[2], keys[0], keys[1]]


def test_the_results_file_holds_no_secret_and_no_formula_from_a_page(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name;pin\nAna;4321\nBo;8765\n", encoding="utf-8")
    plan = plan_routine(
        RoutineOptions(rows_file=rows, template="Add {name} {pin}", secret_columns=("pin",), output_columns=("id",))
    )
    store = RoutineStore.open(plan.options.results_path())
    store.finish(plan.keys[0], 1, RowOutcome(RowStatus.DONE, '=HYPERLINK("http://evil")', outputs={"id": "+1"}))
    write_results(plan.options.results_path(), plan.table, plan.keys, store.records(), ["pin"], ["id"])
    store.close()
    text = (tmp_path / "rows-results.csv").read_bytes().decode("utf-8")
    assert text.startswith("\ufeffname;pin;status;result;steps;model_calls;seconds;browser;run;id\r\n")
    assert "4321" not in text and "8765" not in text
    lines = text.split("\r\n")
    assert lines[1].startswith("Ana;••••;done;\"'=HYPERLINK") and lines[1].endswith(";'+1")
    assert lines[2] == "Bo;••••;;;;;;;;"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    state = state_path(plan.options.results_path())
    assert b"4321" not in state.read_bytes()


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)  # what most systems give a user: files readable by everyone unless made private
    try:
        yield
    finally:
        os.umask(previous)


def state_files(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir() if ".routine.sqlite" in p.name}


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows has the folder's ACLs")
def test_the_state_and_its_lock_are_private_whatever_the_umask(tmp_path: Path, umask_022: None) -> None:
    results = tmp_path / "r.csv"
    store = RoutineStore.open(results)
    store.start("a:1", 1, "window 1")  # the write-ahead log and its index are there now
    store.save_path("Add {name}", "{}", 1)
    files = state_files(tmp_path)
    store.close()
    assert set(files) >= {"r.routine.sqlite", "r.routine.sqlite.lock", "r.routine.sqlite-wal", "r.routine.sqlite-shm"}
    assert set(files.values()) == {0o600}, files


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows has the folder's ACLs")
def test_a_state_left_readable_by_an_older_version_is_made_private(tmp_path: Path, umask_022: None) -> None:
    results = tmp_path / "r.csv"
    RoutineStore.open(results).close()
    for name in state_files(tmp_path):
        (tmp_path / name).chmod(0o644)
    (tmp_path / "r.routine.sqlite-wal").write_bytes(b"")  # as a crash leaves it
    (tmp_path / "r.routine.sqlite-wal").chmod(0o644)
    store = RoutineStore.open(results)
    files = state_files(tmp_path)
    store.close()
    assert set(files.values()) == {0o600}, files


@pytest.mark.parametrize("suffix", ["", ".lock", "-wal", "-shm", "-journal"])
def test_a_state_file_that_is_a_link_is_refused_and_what_it_points_to_is_untouched(tmp_path: Path, suffix: str) -> None:
    results = tmp_path / "r.csv"
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=$HOME/bin:$PATH\n")
    Path(f"{state_path(results)}{suffix}").symlink_to(victim)

    with pytest.raises(StateUnusable, match="is a link, not a regular file"):
        check_state_files(results)  # what the CLI, the panel and MCP check before any browser starts
    with pytest.raises(StateUnusable, match="is a link, not a regular file"):
        RoutineStore.open(results).close()

    assert victim.read_text() == "export PATH=$HOME/bin:$PATH\n"
    assert not state_path(results).exists() or suffix == ""


def test_a_state_that_is_a_pipe_is_refused_at_once(tmp_path: Path) -> None:
    results = tmp_path / "r.csv"
    os.mkfifo(f"{state_path(results)}.lock")
    opening = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import pathlib, app.routine.state as s; s.RoutineStore.open(pathlib.Path({str(results)!r}))",
        ],
        capture_output=True,
        text=True,
        timeout=30,  # it must not wait for a writer on the pipe
    )
    assert opening.returncode != 0 and "is a named pipe, not a regular file" in opening.stderr, opening.stderr
