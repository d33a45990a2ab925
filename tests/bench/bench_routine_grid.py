"""A routine at scale on a Selenium Grid: ROWS customers into the local CRM at --parallel N over a Selenium Grid 4
standalone on loopback (N slots, Debian's Chromium), by the grid's address, with the scripted model. It prints rows per
minute, model calls per row, the memory (PSS and RSS) of the app, Playwright's driver and every browser process at row
10, at the middle and near the end, and the median of every 10th row's over each 100 rows (must not grow with rows: it
may rise over the first rows, as the allocators reach their high-water mark), and the time per row over the first 100
rows against the last 100 (must not grow either). The machine's load average is printed beside each figure.

    .venv/bin/python -m tests.bench.bench_routine --grid 1000 [--grid-parallel 8] [--model-delay 1]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.bench_routine import ROOT, cli, env, rows_csv
from tests.bench.process_memory import Usage, children, kind, usage
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import crm_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse
from tests.fakes.selenium_grid import selenium_grid, settled_sessions


def grid_bench(count: int, parallel: int, model_delay: float) -> None:
    server = FakeLLMServer().start()
    model = crm_model()

    def respond(body: dict[str, object]) -> FakeResponse:
        answer = model(body)  # type: ignore[arg-type]
        answer.delay = model_delay
        return answer

    server.fallback = respond
    with (
        tempfile.TemporaryDirectory(prefix="bench-grid-") as tmp,
        selenium_grid(Path(tmp), slots=parallel) as grid,
        crm_site() as site,
    ):
        folder = Path(tmp)
        java = [pid for pid in children(os.getpid()) if kind(pid) == "java"]
        marks = sorted({10, count // 2, max(10, count - parallel)})
        figures = _run(folder, grid, site.new_url, server, count, parallel, marks, java)
        left = settled_sessions(grid)
        assert len({r["email"] for r in site.records}) == count, len(site.records)
    server.stop()
    _print(figures, count, parallel, model_delay, left)


def _run(
    folder: Path,
    grid: str,
    url: str,
    server: FakeLLMServer,
    count: int,
    parallel: int,
    marks: list[int],
    java: list[int],
) -> dict[str, Any]:
    rows = rows_csv(folder, count, "grid")
    args = cli(TEMPLATE, "--rows", str(rows), "--url", url, "--browser-endpoint", grid, "--parallel", str(parallel))
    process = subprocess.Popen(
        [*args, "--events", "--json"],
        env=env(folder / "home", server),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started: dict[int, float] = {}
    ended: dict[int, tuple[float, int]] = {}
    memory: dict[int, tuple[float, dict[str, Usage], dict[str, Usage]]] = {}
    samples: dict[int, tuple[float, float]] = {}  # every 10 rows: the app's PSS, every Chromium process's PSS
    assert process.stderr is not None
    for line in process.stderr:
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event["event"] == "row_started":
            started[event["row"]] = event["t"]
        elif event["event"] == "row_finished":
            ended[event["row"]] = (event["t"], event["model_calls"])
            if len(ended) in marks or len(ended) % 10 == 0:
                app = usage(children(process.pid))
                browsers = usage([pid for each in java for pid in children(each)])
                samples[len(ended)] = (app["python"].pss_mb, _chromium_pss(browsers))
                if len(ended) in marks:
                    memory[len(ended)] = (os.getloadavg()[0], app, browsers)
    summary = json.loads(process.communicate()[0])
    if process.returncode != 0:
        raise SystemExit(f"the routine exited {process.returncode}: {summary}")
    return {"started": started, "ended": ended, "memory": memory, "samples": samples, "summary": summary}


def _chromium_pss(browsers: dict[str, Usage]) -> float:
    return sum(each.pss_mb for name, each in browsers.items() if name.startswith("chromium"))


def _print(figures: dict[str, Any], count: int, parallel: int, model_delay: float, left: list[str]) -> None:
    started: dict[int, float] = figures["started"]
    ended: dict[int, tuple[float, int]] = figures["ended"]
    span = max(t for t, _ in ended.values()) - min(started.values())
    calls = [ended[n][1] for n in sorted(ended) if n != 1]
    print(
        f"{count} customers into the local CRM over a Selenium Grid at --parallel {parallel}, scripted model "
        f"(answer delay {model_delay:g} s):"
    )
    print(
        f"  {count / span * 60:.1f} rows/min ({span:.0f} s from the first row's start to the last row's end); "
        f"model calls: {ended[1][1]} on row 1 (learns the path), then {statistics.mean(calls):.2f} per row"
    )
    head = [ended[n][0] - started[n] for n in range(1, min(100, count) + 1)]
    tail = [ended[n][0] - started[n] for n in range(max(1, count - 99), count + 1)]
    print(
        f"  seconds per row (median, in flight): rows 1-{len(head)} {statistics.median(head):.2f}, "
        f"rows {count - len(tail) + 1}-{count} {statistics.median(tail):.2f}"
    )
    for mark, (load, app, browsers) in sorted(figures["memory"].items()):
        print(f"  at row {mark} (load average {load:.1f}):")
        for name, each in [*app.items(), *browsers.items()]:
            print(f"    {name:<28} PSS {each.pss_mb:7.1f} MB  RSS {each.rss_mb:7.1f} MB  ({each.processes} processes)")
        print(f"    {'every Chromium process':<28} PSS {_chromium_pss(browsers):7.1f} MB")
    # One sample catches each window somewhere in its RENEW_EVERY rows, so one mark against another can differ by a
    # window's growth within them: the median of every 10th row over each 100 rows says the trend.
    samples: dict[int, tuple[float, float]] = figures["samples"]
    hundreds = [[samples[n] for n in samples if start < n <= start + 100] for start in range(0, count, 100)]
    for what, index in (("the app", 0), ("every Chromium process", 1)):
        medians = [f"{statistics.median(s[index] for s in each):.0f}" for each in hundreds if each]
        print(f"  {what}, PSS median of every 10th row, each 100 rows (MB): {' '.join(medians)}")
    print(f"  sessions left on the grid afterwards: {len(left)}")
