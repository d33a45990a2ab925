"""A routine over a rows file of half a million rows: its first row starts within seconds, the app holds a bounded
amount of memory (the rows are kept packed, never a Python object per row), and Stop ends it within seconds with
every row not begun marked ``skipped`` in one write and said in one event (before, each skipped row rewrote the whole
results file)."""

from __future__ import annotations

import csv
import json
import signal
import time
from collections import Counter
from pathlib import Path

from tests.cli.routine_helpers import event_lines, many_rows, routine, started
from tests.cli.test_cli import ROOT, cli_env, home  # noqa: F401 - the fixture
from tests.fakes.crm_model import crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer

ROWS = 500_000
# Bounds that hold on a heavily loaded 2-core machine (load average 30-45: first row after 40 s, stopped in 36 s;
# at load 7-12: 5-11 s and 9-18 s, see the README's figures). Before: no row after 2 minutes, 776 MB, and Stop did
# not end it within 60 s.
FIRST_ROW_WITHIN = 60.0  # seconds from the command to the first row_started
MEMORY_BOUND_MB = 400  # the app's peak resident memory up to then
STOP_WITHIN = 60.0  # seconds from Ctrl+C to the process's end


def big_rows(folder: Path, count: int) -> Path:
    return many_rows(
        folder,
        count,
        lambda i: f"Customer {i},c{i}@x.test,{('Free', 'Pro', 'Starter')[i % 3]},2026-01-{i % 28 + 1:02d},no",
    )


def _peak_mb(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


def test_half_a_million_rows_start_within_seconds_in_bounded_memory_and_stop_within_seconds(
    tmp_path: Path, home: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.fallback = crm_model()
    rows = big_rows(tmp_path, ROWS)
    with crm_site() as site:
        began = time.monotonic()
        process = started(routine(rows, site.new_url, "--events"), cli_env(home, llm_server))
        try:
            events, seen = event_lines(process), []
            assert next(e for e in events if e["event"] in ("row_started", "row_finished"))["event"] == "row_started"
            first_row = time.monotonic() - began
            peak = _peak_mb(process.pid)
            assert next(e for e in events if e["event"] == "row_finished")["status"] == "done"
            # What the file means at that pace, said at once.
            pace = next(e for e in events if seen.append(e) is None and "500,000 rows: about" in json.dumps(e))
            stopping = time.monotonic()
            process.send_signal(signal.SIGINT)
            rest = [e for e in [*seen, *events] if e["event"] == "rows_finished"]
            code = process.wait(STOP_WITHIN * 4)
            stop = time.monotonic() - stopping
        finally:
            if process.poll() is None:
                process.kill()
    print(f"first row after {first_row:.1f} s, peak {peak} MB, stopped in {stop:.1f} s")
    assert code == 3
    assert "at the first row's pace" in json.dumps(pace) and "use --parallel or split the file" in json.dumps(pace)
    assert first_row < FIRST_ROW_WITHIN and peak < MEMORY_BOUND_MB and stop < STOP_WITHIN
    with (tmp_path / "customers-results.csv").open(encoding="utf-8-sig", newline="") as results:
        statuses = Counter(row["status"] for row in csv.DictReader(results))
    assert sum(statuses.values()) == ROWS and statuses["done"] >= 1
    assert statuses["done"] + statuses["stopped"] + statuses["interrupted"] + statuses["skipped"] == ROWS
    # Said in one event, not one per row.
    assert [(e["rows"], e["status"]) for e in rest] == [(statuses["skipped"], "skipped")] and statuses[
        "skipped"
    ] >= ROWS - 2
