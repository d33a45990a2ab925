"""Routines against separate runs: 50 customers entered into a local CRM-like site (server-side records) with a
scripted model (tests/fakes/crm_model.py), side by side in one session:

- the routine at --parallel 1 and --parallel 4: model calls per row (after the first, which learns the path), rows
  per minute (from the first row's start to the last row's end, as the routine's events say), and the whole command;
- the same rows as 50 separate ``run`` commands;
- memory per extra window: the profile's Chromium processes (proportional set size, PSS) with 1 and with 4 windows
  on the CRM form.

    .venv/bin/python -m tests.bench.bench_routine [--rows 50] [--model-delay 0]

``--model-delay`` holds each model answer that long, as a real model's latency would (the fake answers at once).

``--grid N`` measures a routine at scale instead (tests/bench/bench_routine_grid.py): N rows at ``--grid-parallel``
(8) over a Selenium Grid 4 standalone on loopback, by its address.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.browser.processes import profile_pids
from app.browser.session import LaunchOptions
from app.routine.browsers import local_browsers
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse

ROOT = Path(__file__).resolve().parents[2]
PLANS = ("Free", "Starter", "Pro")


def rows_csv(folder: Path, count: int, tag: str) -> Path:
    lines = ["name,email,plan,start,newsletter"]
    for i in range(1, count + 1):
        lines.append(
            f"Customer {i} Núñez,c{i}-{tag}@x.test,{PLANS[i % 3]},2026-01-{1 + i % 28:02d},{'yes' if i % 2 else 'no'}"
        )
    path = folder / f"rows-{tag}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def env(home: Path, server: FakeLLMServer) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAGE_AGENT_"))}
    out.update(PAGE_AGENT_HOME=str(home), OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=server.base_url)
    out.update(PAGE_AGENT_MODEL="fake")
    return out


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "app", "run", *args]


def routine(folder: Path, site: CrmSite, server: FakeLLMServer, count: int, parallel: int) -> dict[str, float]:
    rows = rows_csv(folder, count, f"p{parallel}")
    requests = len(server.requests)
    started = time.monotonic()
    done = subprocess.run(
        cli(TEMPLATE, "--rows", str(rows), "--url", site.new_url, "--parallel", str(parallel), "--events", "--json"),
        env=env(folder / f"home-p{parallel}", server),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
        stdin=subprocess.DEVNULL,
    )
    whole = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the routine at --parallel {parallel} exited {done.returncode}:\n{done.stderr[-3000:]}")
    events = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    starts = [e["t"] for e in events if e["event"] == "row_started"]
    ends = [e for e in events if e["event"] == "row_finished"]
    first = next(e for e in ends if e["row"] == 1)
    later = [e["model_calls"] for e in ends if e["row"] != 1]
    span = max(e["t"] for e in ends) - min(starts)
    assert json.loads(done.stdout)["model_calls"] == len(server.requests) - requests
    return {
        "first_row_calls": first["model_calls"],
        "calls_per_row_after_first": statistics.mean(later),
        "rows_per_minute": count / span * 60,
        "rows_per_minute_whole_command": count / whole * 60,
        "seconds": whole,
    }


def separate_runs(folder: Path, site: CrmSite, server: FakeLLMServer, count: int) -> dict[str, float]:
    home = folder / "home-runs"
    requests = len(server.requests)
    started = time.monotonic()
    for i in range(1, count + 1):
        task = TEMPLATE.format(
            name=json.dumps(f"Customer {i} Núñez"),
            email=json.dumps(f"c{i}-runs@x.test"),
            plan=json.dumps(PLANS[i % 3]),
            start=json.dumps(f"2026-01-{1 + i % 28:02d}"),
            newsletter=json.dumps("yes" if i % 2 else "no"),
        )
        # The scripted model reads the values after the task's own words, as a routine row's note ends them.
        done = subprocess.run(
            cli(task + "\n\nThis task is row 1.", "--url", site.new_url),
            env=env(home, server),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise SystemExit(f"run {i} exited {done.returncode}:\n{done.stderr[-3000:]}")
    whole = time.monotonic() - started
    return {"calls_per_row": (len(server.requests) - requests) / count, "rows_per_minute": count / whole * 60}


async def window_memory(folder: Path, site: CrmSite) -> tuple[float, float]:
    """PSS (MB) of the profile's processes with 1 and with 4 windows on the CRM form."""
    measured = []
    for windows in (1, 4):
        profile = folder / f"profile-{windows}"
        browsers = await local_browsers(LaunchOptions(profile_dir=profile, headless=True), windows)
        try:
            for slot in browsers.slots:
                await slot.session.active_page.goto(site.new_url)
            await asyncio.sleep(2)  # let the renderers finish their first work before memory is read
            measured.append(sum(_pss(pid) for pid in await profile_pids(profile)) / 1024)
        finally:
            await browsers.close()
    return measured[0], measured[1]


def _pss(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:")), 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--model-delay", type=float, default=0.0)
    parser.add_argument("--grid", type=int, default=0, metavar="ROWS", help="rows over a Selenium Grid instead")
    parser.add_argument("--grid-parallel", type=int, default=8)
    args = parser.parse_args()
    if args.grid:
        from tests.bench.bench_routine_grid import grid_bench

        grid_bench(args.grid, args.grid_parallel, args.model_delay)
        return
    server = FakeLLMServer().start()
    model = crm_model()

    def respond(body: dict[str, object]) -> FakeResponse:
        answer = model(body)  # type: ignore[arg-type]
        answer.delay = args.model_delay
        return answer

    server.fallback = respond
    with tempfile.TemporaryDirectory(prefix="bench-routine-") as tmp, crm_site() as site:
        folder = Path(tmp)
        one = routine(folder, site, server, args.rows, 1)
        four = routine(folder, site, server, args.rows, 4)
        runs = separate_runs(folder, site, server, args.rows)
        mem1, mem4 = asyncio.run(window_memory(folder, site))
        assert len(site.records) == 3 * args.rows and len({r["email"] for r in site.records}) == 3 * args.rows
    server.stop()
    print(f"{args.rows} customers into the local CRM, scripted model (answer delay {args.model_delay:g} s):")
    print(
        f"  routine --parallel 1: first row {one['first_row_calls']:.0f} model calls (learns the path), then "
        f"{one['calls_per_row_after_first']:.2f} per row; {one['rows_per_minute']:.1f} rows/min "
        f"({one['rows_per_minute_whole_command']:.1f} counting the command's start and end, {one['seconds']:.0f} s)"
    )
    print(
        f"  routine --parallel 4: first row {four['first_row_calls']:.0f}, then {four['calls_per_row_after_first']:.2f}"
        f" per row; {four['rows_per_minute']:.1f} rows/min ({four['rows_per_minute_whole_command']:.1f} whole, "
        f"{four['seconds']:.0f} s)"
    )
    print(
        f"  {args.rows} separate run commands: {runs['calls_per_row']:.2f} model calls per row; "
        f"{runs['rows_per_minute']:.1f} rows/min"
    )
    print(
        f"  memory (PSS of the profile's Chromium): 1 window {mem1:.0f} MB, 4 windows {mem4:.0f} MB: "
        f"{(mem4 - mem1) / 3:.0f} MB per extra window"
    )


if __name__ == "__main__":
    main()
