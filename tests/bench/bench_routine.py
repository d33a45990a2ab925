"""Routines against separate runs: 50 customers entered into a local CRM-like site (server-side records) with a
scripted model (tests/fakes/crm_model.py), side by side in one session:

- the routine at --parallel 1 and --parallel 4: model calls per row (after the first, which learns the path), rows
  per minute (from the first row's start to the last row's end, as the routine's events say), and the whole command;
- the same rows as 50 separate ``run`` commands;
- memory per extra window: the profile's Chromium processes (proportional set size, PSS) with 1 and with 4 windows
  on the CRM form;
- rows of two kinds (``kinds``): the first row says newsletter "no", 32 of the 50 "yes" (in a fixed random order), so
  the first path has no checkbox step: model calls per row, and how many rows the model did from the start;
- a path taught by the person (``taught``, Show me once as the panel runs it, row 1 done with Playwright's real key
  presses in headless Chromium): model calls and seconds per replayed row, against the model's own path;
- a redesign mid-routine (``redesign``, 9 rows): after its third customer the CRM renames "Full name" to "Customer
  name" and moves it below Email; model calls for the 9 rows, per row, and seconds per row after the mended one.

    .venv/bin/python -m tests.bench.bench_routine [--rows 50] [--model-delay 0] [--part all]

``--model-delay`` holds each model answer that long, as a real model's latency would (the fake answers at once).

``--grid N`` measures a routine at scale instead (tests/bench/bench_routine_grid.py): N rows at ``--grid-parallel``
(8) over a Selenium Grid 4 standalone on loopback, by its address.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.browser.processes import profile_pids
from app.browser.session import LaunchOptions
from app.routine.browsers import local_browsers
from app.routine.launch import RoutineSetup, open_routine
from app.routine.plan import plan_routine
from app.routine.types import RoutineOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.fakes.crm_model import TEMPLATE, crm_model
from tests.fakes.crm_site import CrmSite, crm_site
from tests.fakes.llm_server import FakeLLMServer, FakeResponse

ROOT = Path(__file__).resolve().parents[2]
PLANS = ("Free", "Starter", "Pro")


def customer(i: int, tag: str) -> tuple[str, str, str, str, str]:
    return (
        f"Customer {i} Núñez",
        f"c{i}-{tag}@x.test",
        PLANS[i % 3],
        f"2026-01-{1 + i % 28:02d}",
        "yes" if i % 2 else "no",
    )


def rows_csv(folder: Path, count: int, tag: str) -> Path:
    lines = ["name,email,plan,start,newsletter", *(",".join(customer(i, tag)) for i in range(1, count + 1))]
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


def run_rows(
    folder: Path, url: str, server: FakeLLMServer, rows: Path, *extra: str, template: str = TEMPLATE
) -> tuple[list[dict[str, Any]], float]:
    """The routine's command over ``rows`` (``--events --json``): its events, and the whole command's seconds."""
    requests = len(server.requests)
    started = time.monotonic()
    done = subprocess.run(
        cli(template, "--rows", str(rows), "--url", url, *extra, "--events", "--json"),
        env=env(folder / f"home-{rows.stem}", server),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
        stdin=subprocess.DEVNULL,
    )
    whole = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the routine over {rows.name} exited {done.returncode}:\n{done.stderr[-3000:]}")
    assert json.loads(done.stdout)["model_calls"] == len(server.requests) - requests
    return [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")], whole


def per_row(events: list[dict[str, Any]]) -> dict[int, tuple[int, float]]:
    """Each row's model calls and seconds (from its start to its end, as the events say)."""
    starts = {e["row"]: e["t"] for e in events if e["event"] == "row_started"}
    return {
        e["row"]: (e["model_calls"], e["t"] - starts[e["row"]])
        for e in events
        if e["event"] == "row_finished" and e["status"] == "done"
    }


def routine(folder: Path, site: CrmSite, server: FakeLLMServer, count: int, parallel: int) -> dict[str, float]:
    rows = rows_csv(folder, count, f"p{parallel}")
    events, whole = run_rows(folder, site.new_url, server, rows, "--parallel", str(parallel))
    starts = [e["t"] for e in events if e["event"] == "row_started"]
    ends = [e for e in events if e["event"] == "row_finished"]
    first = next(e for e in ends if e["row"] == 1)
    later = [e["model_calls"] for e in ends if e["row"] != 1]
    span = max(e["t"] for e in ends) - min(starts)
    return {
        "first_row_calls": first["model_calls"],
        "calls_per_row_after_first": statistics.mean(later),
        "rows_per_minute": count / span * 60,
        "rows_per_minute_whole_command": count / whole * 60,
        "seconds": whole,
        "seconds_per_replayed_row": statistics.mean(s for n, (c, s) in per_row(events).items() if c == 1),
    }


def kinds(folder: Path, server: FakeLLMServer, count: int) -> dict[str, float]:
    """The first row says newsletter "no", ``count * 32 // 50`` of the others "yes", in a fixed random order."""
    yes = set(random.Random(33).sample(range(2, count + 1), count * 32 // 50))
    lines = ["name,email,plan,start,newsletter"]
    for i in range(1, count + 1):
        lines.append(f"Kind {i},k{i}@x.test,{PLANS[i % 3]},2026-03-{1 + i % 28:02d},{'yes' if i in yes else 'no'}")
    rows = folder / "rows-kinds.csv"
    rows.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with crm_site() as site:
        events, _ = run_rows(folder, site.new_url, server, rows)
        assert [r["newsletter"] == "yes" for r in site.records] == [i in yes for i in range(1, count + 1)]
    rows_done = per_row(events)
    calls = [c for c, _ in rows_done.values()]
    learned = [e for e in events if e["event"] == "path_changed"]
    return {
        "rows": len(rows_done),
        "yes": len(yes),
        "calls_per_row": sum(calls) / len(calls),
        "model_rows": sum(1 for c in calls if c > 1),
        "paths": len(learned),
        "other_calls": statistics.mean(c for c in calls if c <= 1),
    }


def redesign(folder: Path, server: FakeLLMServer) -> dict[str, float]:
    """9 rows; the CRM is redesigned as its third customer is saved."""
    rows = folder / "rows-redesign.csv"
    lines = [f"Mend {i},m{i}@x.test,{PLANS[i % 3]},2026-04-{i:02d},{'yes' if i % 2 else 'no'}" for i in range(1, 10)]
    rows.write_text("name,email,plan,start,newsletter\n" + "\n".join(lines) + "\n", encoding="utf-8")
    with crm_site() as site:

        def after_the_third(_data: dict[str, str]) -> None:
            if len(site.records) >= 2:  # this POST saves the third
                site.form_version = 3

        site.on_post = after_the_third
        events, _ = run_rows(folder, site.new_url, server, rows)
        assert [r["name"] for r in site.records] == [f"Mend {i}" for i in range(1, 10)] and site.posts == 9
    done = per_row(events)
    mended = next(e for e in events if e["event"] == "path_changed" and e["how"] == "mended")
    after = [done[n] for n in mended["rows"]]
    return {
        "calls": sum(c for c, _ in done.values()),
        "changed_row": mended["row"],
        "changed_row_calls": done[mended["row"]][0],
        "calls_after": statistics.mean(c for c, _ in after),
        "seconds_after": statistics.mean(s for _, s in after),
        "words": mended["words"],
    }


async def taught(folder: Path, server: FakeLLMServer, count: int, teach: bool) -> dict[str, float]:
    """Show me once as the panel runs it (``teach``): row 1 done by key presses, its path taken, the other rows
    replayed; else the model learns row 1, on the same engine and start page (the list of customers)."""
    from tests.runtime.test_routine_teach import SHORT, Watch, by_keyboard, page_of

    tag = "taught" if teach else "learned"
    rows = rows_csv(folder, count, tag)
    settings = Settings(base_url=server.base_url, model="fake")
    paths = AppPaths(folder / tag / "config", folder / tag / "data", folder / tag / "logs")
    setup = RoutineSetup(settings=settings, paths=paths, api_key="sk-bench", headless=True)
    with crm_site() as site:
        options = RoutineOptions(rows, SHORT if teach else TEMPLATE, start_url=site.url + "/customers", teach=teach)
        opened = await open_routine(await asyncio.to_thread(plan_routine, options), setup)
        watch = Watch(opened)
        runner = opened.runner
        try:
            running = asyncio.ensure_future(runner.run())
            if teach:
                first = await asyncio.wait_for(watch.started.get(), 60)
                await by_keyboard(page_of(opened), customer(1, tag))
                assert runner.teaching is not None and first.number == 1
                runner.teaching.done()
                await asyncio.wait_for(watch.shown.get(), 60)
                runner.teaching.use(True)
            summary = await asyncio.wait_for(running, 3600)
        finally:
            await opened.close()
        assert summary.counts == {"done": count} and site.posts == count
    replayed = [watch.finished[n].outcome for n in range(2, count + 1)]
    return {
        "first_row_calls": watch.finished[1].outcome.model_calls,
        "calls_per_row": statistics.mean(o.model_calls for o in replayed),
        "seconds_per_row": statistics.mean(o.seconds for o in replayed),
    }


def separate_runs(folder: Path, site: CrmSite, server: FakeLLMServer, count: int) -> dict[str, float]:
    home = folder / "home-runs"
    requests = len(server.requests)
    started = time.monotonic()
    for i in range(1, count + 1):
        names = ("name", "email", "plan", "start", "newsletter")
        task = TEMPLATE.format(
            **{name: json.dumps(value) for name, value in zip(names, customer(i, "runs"), strict=True)}
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
    parser.add_argument("--part", choices=("all", *PARTS), default="all")
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
    print(
        f"{args.rows} customers into the local CRM, scripted model (answer delay {args.model_delay:g} s):", flush=True
    )
    with tempfile.TemporaryDirectory(prefix="bench-routine-") as tmp:
        for part in PARTS if args.part == "all" else (args.part,):
            PARTS[part](Path(tmp), server, args.rows)
    server.stop()


def throughput(folder: Path, server: FakeLLMServer, count: int) -> None:
    with crm_site() as site:
        one = routine(folder, site, server, count, 1)
        four = routine(folder, site, server, count, 4)
        runs = separate_runs(folder, site, server, count)
        mem1, mem4 = asyncio.run(window_memory(folder, site))
        assert len(site.records) == 3 * count and len({r["email"] for r in site.records}) == 3 * count
    say(
        f"  routine --parallel 1: first row {one['first_row_calls']:.0f} model calls (learns the path), then "
        f"{one['calls_per_row_after_first']:.2f} per row; {one['rows_per_minute']:.1f} rows/min "
        f"({one['rows_per_minute_whole_command']:.1f} counting the command's start and end, {one['seconds']:.0f} s); "
        f"{one['seconds_per_replayed_row']:.2f} s per replayed row"
    )
    say(
        f"  routine --parallel 4: first row {four['first_row_calls']:.0f}, then {four['calls_per_row_after_first']:.2f}"
        f" per row; {four['rows_per_minute']:.1f} rows/min ({four['rows_per_minute_whole_command']:.1f} whole, "
        f"{four['seconds']:.0f} s)"
    )
    say(
        f"  {count} separate run commands: {runs['calls_per_row']:.2f} model calls per row; "
        f"{runs['rows_per_minute']:.1f} rows/min"
    )
    say(
        f"  memory (PSS of the profile's Chromium): 1 window {mem1:.0f} MB, 4 windows {mem4:.0f} MB: "
        f"{(mem4 - mem1) / 3:.0f} MB per extra window"
    )


def two_kinds(folder: Path, server: FakeLLMServer, count: int) -> None:
    got = kinds(folder, server, count)
    say(
        f"  rows of two kinds (row 1 newsletter no, {got['yes']:.0f} of {got['rows']:.0f} yes): "
        f"{got['calls_per_row']:.2f} model calls per row; {got['model_rows']:.0f} rows done by the model from the "
        f"start ({got['paths']:.0f} paths learned), the others {got['other_calls']:.2f} each"
    )


def shown_once(folder: Path, server: FakeLLMServer, count: int) -> None:
    shown = asyncio.run(taught(folder, server, count, True))
    learned = asyncio.run(taught(folder, server, count, False))
    say(
        f"  a path taught by the person (Show me once, from the list of customers): row 1 "
        f"{shown['first_row_calls']:.0f} model calls, then {shown['calls_per_row']:.2f} per row, "
        f"{shown['seconds_per_row']:.2f} s per row; the model's own path on the same rows: row 1 "
        f"{learned['first_row_calls']:.0f} model calls, then {learned['calls_per_row']:.2f} per row, "
        f"{learned['seconds_per_row']:.2f} s per row"
    )


def redesigned(folder: Path, server: FakeLLMServer, _count: int) -> None:
    got = redesign(folder, server)
    say(
        f"  a redesign mid-routine (9 rows, the form changes after the 3rd): {got['calls']:.0f} model calls in all; "
        f"row {got['changed_row']:.0f} (which met it) {got['changed_row_calls']:.0f}, the rows after it "
        f"{got['calls_after']:.2f} each, {got['seconds_after']:.2f} s per row. Told: {got['words']}"
    )


def say(line: str) -> None:
    print(line, flush=True)


PARTS: dict[str, Callable[[Path, FakeLLMServer, int], None]] = {
    "throughput": throughput,
    "kinds": two_kinds,
    "taught": shown_once,
    "redesign": redesigned,
}


if __name__ == "__main__":
    main()
