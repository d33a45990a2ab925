"""--events on a pipe its reader does not empty for a while: every event line arrives whole, in order, once the
reader reads, and the run is not held up meanwhile. Playwright's driver (Node) shares the process's stderr and makes
that pipe non-blocking, so a write to a full pipe raised BlockingIOError, which the routine's listener swallowed:
the lines were lost (11,268 of 12,004 here, before)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.cli.routine_helpers import many_rows, routine, started
from tests.cli.test_cli import ROOT, cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

# More rows than routine results are written after one by one (results.BIG_FILE), each ending at once (a cell the
# routine refuses, so no browser work): their lines fill the pipe (64 KiB) many times over within seconds.
ROWS = 12_000
DEADLINE = 240.0


def refused_rows(folder: Path, count: int) -> Path:
    """Rows whose first cell is written like a secret placeholder: each ends ``error`` before it starts."""
    return many_rows(folder, count, lambda i: f"<secret>x{i}</secret>,c{i}@x.test,Pro,2026-01-05,no")


def test_every_event_line_reaches_a_reader_that_reads_only_once_the_run_is_over(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    rows = refused_rows(tmp_path, ROWS)
    with crm_site() as site:
        process = started(routine(rows, site.new_url, "--events", "--json"), cli_env(home, llm_server))
        try:
            assert process.stdout is not None and process.stderr is not None
            # Nothing is read from stderr until the run has said its summary on stdout: the pipe stays full.
            summary = json.loads(process.stdout.readline())
            lines = process.stderr.read().splitlines()
            code = process.wait(DEADLINE)
        finally:
            if process.poll() is None:
                process.kill()
    events = [json.loads(line) for line in lines]  # every line whole
    finished = [e["row"] for e in events if e["event"] == "row_finished"]
    print(f"{len(lines)} event lines, {len(finished)} row_finished of {ROWS}: {Counter(e['event'] for e in events)}")
    assert summary["counts"] == {"error": ROWS} and code == 2
    assert finished == list(range(1, ROWS + 1))
    assert events[-1]["event"] == "log" and events[-1]["message"].startswith(f"{ROWS} error; 0 model calls.")
