"""``run TEMPLATE --rows FILE``: the routine on the command line, a thin client of app/routine.

Each row's outcome is a line on stderr as it ends (``row_started`` / ``row_finished`` events with --events), the
summary goes to stdout with --json, and the exit code is the worst row's: 2 an error (an interrupted row included),
3 stopped (a routine the person stopped, unless a row ended in an error), 4 a person is needed, 1 some failed, 0 every
row done. Bad input exits 2 before any browser starts.

With a terminal, rows that need the person are served one at a time as they come (cli_routine_person); without one
they end needs_person and the other rows go on. ``--teach`` (Show me once) needs a terminal: the person does the first
row in Chromium's window (routine_teach). Each path the routine learns is told in a line (``path_changed``).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.confirm import cli_confirm
from app.cli.output import EXIT_CODES, EXIT_ERROR, EXIT_STOPPED, EXIT_SUCCESS, EventPrinter, tell
from app.cli.routine_person import TerminalPerson
from app.cli.routine_teach import TerminalTeacher
from app.cli.signals import StopSignals
from app.cli.terminal import Say, is_terminal
from app.core.clean_text import valid_text
from app.core.errors import CannotStart
from app.core.safety.secrets import mask_everywhere
from app.routine.paths import PathChange
from app.routine.plan import RoutinePlan, pace_words, plan_routine
from app.routine.rows import ReadingStopped, RowsError
from app.routine.state import RoutineBusy
from app.routine.types import (
    BrowserNote,
    LimitReached,
    RoutineOptions,
    RoutineProgress,
    RoutineSummary,
    RowFinished,
    RowsFinished,
    RowStarted,
    RowStatus,
)
from app.run_setup import RunSetup, load_run_setup
from app.text.cost_words import estimate_words, limit_words
from app.text.path_words import change_words
from app.text.row_words import counts_words, row_words

if TYPE_CHECKING:
    from app.browser.driver import DriverStart
    from app.routine.launch import RoutineSetup
    from app.routine.runner import RoutineRunner

_NOT_WITH_ROWS = ("record", "replay", "cdp_url")
FIRST_ROW_TELLS = "a guess from the template's columns until the first row has run: it then tells the time and the cost"


def exit_code(counts: Mapping[str, int], stopped: bool = False) -> int:
    """The worst row's code (``EXIT_CODES`` is worst first; an interrupted row counts as an error, a skipped one as
    stopped). A routine the person stopped before its end exits 3 unless a row ended in an error: the rows its Stop
    caught after they may have sent their data are ``interrupted``, and that is the Stop's doing."""
    ended = {RowStatus(status).ends_as for status, count in counts.items() if count}
    cut_short = any(counts.get(status) for status in (RowStatus.STOPPED, RowStatus.SKIPPED, RowStatus.INTERRUPTED))
    if stopped and cut_short and not counts.get(RowStatus.ERROR):
        return EXIT_STOPPED
    return next((code for outcome, code in EXIT_CODES.items() if outcome in ended), EXIT_SUCCESS)


def summary_json(summary: RoutineSummary) -> str:
    payload = {
        "rows": summary.rows,
        "counts": summary.counts,
        "results": str(summary.results),
        "model_calls": summary.model_calls,
        "ran": summary.ran,
        "seconds": round(summary.seconds, 1),
        "stopped": summary.stopped,
    }
    return valid_text(mask_everywhere(json.dumps(payload, ensure_ascii=False)))


def routine_options(args: argparse.Namespace) -> RoutineOptions:
    return RoutineOptions(
        rows_file=args.rows,
        template=args.task,
        results_file=args.results,
        secret_columns=tuple(args.secret_columns),
        totp_columns=tuple(args.totp_columns),
        output_columns=tuple(args.output_columns),
        retry_failed=args.retry_failed,
        retry_interrupted=args.retry_interrupted,
        replay=args.routine_replay,
        parallel=args.parallel,
        endpoints=tuple(args.browser_endpoint),
        start_url=args.url or "",
        teach=args.teach,
    )


async def run_routine(
    args: argparse.Namespace, printer: EventPrinter | None, driver: DriverStart | None, signals: StopSignals
) -> int:
    from app.routine.launch import open_routine

    refused = _clash(args) or _teach_refused(args)
    if refused:
        tell(printer, refused)
        return EXIT_ERROR
    try:
        plan = await _plan(args, signals)
        run = await load_run_setup(args)
    except ReadingStopped:
        tell(printer, "Stopped before the routine started.")
        return EXIT_STOPPED
    except (RowsError, CannotStart) as exc:
        tell(printer, str(exc))
        return EXIT_ERROR
    person_present = is_terminal(sys.stdin)
    try:
        opening = asyncio.ensure_future(open_routine(plan, _setup(args, run, person_present, printer, driver, signals)))
        routine = await signals.until_stopped(opening)
    except (RoutineBusy, CannotStart, RuntimeError, ValueError) as exc:
        tell(printer, str(exc))
        return EXIT_ERROR
    if routine is None:
        tell(printer, "Stopped before the routine started.")
        return EXIT_STOPPED
    say = Say(printer is not None)
    runner = routine.runner
    total = len(plan.table.rows)
    _follow(runner, printer, say, total, args.parallel)
    _tell_costs(runner, say, printer, person_present)
    person = TerminalPerson(runner, sys.stdin.fileno(), say, windowless=args.headless) if person_present else None
    teacher = TerminalTeacher(runner, sys.stdin.fileno(), say, printer) if args.teach else None
    try:
        say.line(_opening(plan.table.path, total, args.parallel, args.browser_endpoint))
        summary = await signals.until_stopped(asyncio.ensure_future(runner.run()), runner.stop)
    finally:
        if person is not None:
            await person.close()
        if teacher is not None:
            await teacher.close()
        await routine.close()
    if summary is None:
        tell(printer, "Stopped at once; the rows in flight may not have finished.")
        return EXIT_STOPPED
    if args.json:
        print(summary_json(summary))
    say.line(_closing(summary))
    return exit_code(summary.counts, summary.stopped)


def _clash(args: argparse.Namespace) -> str:
    """Why an option given does not work with --rows ("": none)."""
    clash = next((f"--{name.replace('_', '-')}" for name in _NOT_WITH_ROWS if getattr(args, name, None)), None)
    if clash is None:
        return ""
    hint = " (use --browser-endpoint for a browser that runs elsewhere)" if clash == "--cdp-url" else ""
    return f"{clash} does not work with --rows{hint}."


async def _plan(args: argparse.Namespace, signals: StopSignals) -> RoutinePlan:
    """The routine's plan, its rows read off the event loop; Ctrl+C meanwhile ends the reading (ReadingStopped)."""
    reading_stopped = threading.Event()

    async def stop_reading() -> None:
        reading_stopped.set()

    planning = asyncio.ensure_future(asyncio.to_thread(plan_routine, routine_options(args), reading_stopped.is_set))
    plan = await signals.until_stopped(planning, stop_reading)
    if plan is None:
        raise ReadingStopped("")
    return plan


def _setup(
    args: argparse.Namespace,
    run: RunSetup,
    person_present: bool,
    printer: EventPrinter | None,
    driver: DriverStart | None,
    signals: StopSignals,
) -> RoutineSetup:
    from app.routine.launch import RoutineSetup  # with Playwright: loaded once a routine is to run

    confirm = None
    if not (person_present and args.risky == "ask"):
        confirm = cli_confirm(args.risky, stopped=signals.stop, events=printer is not None)
    return RoutineSetup(
        settings=run.settings,
        paths=run.paths,
        api_key=run.api_key,
        headless=args.headless and not args.teach,  # Show me once: the person works in the window
        person_present=person_present,
        confirm=confirm,
        risky=args.risky,
        allowed_domains=args.allowed_domains,
        secrets_file=args.secrets_file,
        upload_dirs=run.safety.upload_dirs,
        max_duration=args.max_duration,
        hand_off_wait=None if args.hand_off_timeout is None else args.hand_off_timeout * 60,
        driver=driver,
        on_stop_pressed=signals.stop.set,
    )


def _follow(runner: RoutineRunner, printer: EventPrinter | None, say: Say, total: int, parallel: int) -> None:
    """The routine's events, said at the terminal (or as --events lines)."""
    runner.on("row_started", lambda started: _started(printer, started, total))
    runner.on("row_finished", lambda finished: _finished(printer, say, finished, total))
    runner.on("path_changed", lambda change: _path_changed(printer, say, change))
    runner.on("browser_note", lambda note: _browser_note(printer, say, note))
    runner.on("row_finished", _pace(say, total, parallel))
    runner.on("rows_finished", lambda rest: _rest(printer, say, rest))


def _teach_refused(args: argparse.Namespace) -> str:
    """Why --teach cannot be used as given ("": it can)."""
    if not args.teach:
        return ""
    if not is_terminal(sys.stdin):
        return "--teach needs you at this terminal: you do the first row in Chromium's window, then press Enter here."
    if not args.routine_replay:
        return "--teach and --no-replay go against each other: what you show is replayed on the other rows."
    if args.browser_endpoint:
        return "--teach needs this computer's Chromium, whose window you work in (not --browser-endpoint)."
    return ""


# How many of the rows that will follow a path a path_changed event lists (a file may have half a million).
_LISTED_ROWS = 100


def _path_changed(printer: EventPrinter | None, say: Say, change: PathChange) -> None:
    words = change_words(change)
    if printer is not None:
        rows = {"rows": list(change.rows[:_LISTED_ROWS]), "rows_count": len(change.rows)}  # a line stays short
        printer.event("path_changed", {"row": change.number, "how": change.origin, **rows, "words": words})
    else:
        say.line(words)


def _tell_costs(runner: RoutineRunner, say: Say, printer: EventPrinter | None, person_present: bool) -> None:
    """About what the routine will cost, as it starts (from its rows: the first row tells the time and the money)
    and once its first row has ended: on stderr, or as an ``estimate`` event with --events; the limit passed
    (``limit_reached``), and with nobody at the terminal to ask, that it stops there (TerminalPerson asks else)."""
    told: list[int] = []  # the rows ended when the estimate was told

    def progress(progress: RoutineProgress) -> None:
        ended = sum(progress.counts.values())
        if not progress.total or (told and (told[-1] or not ended)):
            return
        told.append(ended)
        costs = progress.costs
        if printer is not None:
            payload = {"rows": progress.total, "seconds": progress.seconds_left, **dataclasses.asdict(costs)}
            printer.event("estimate", {**payload, "from_rows_run": ended})
            return
        words = estimate_words(progress.total, costs, progress.seconds_left)
        say.line(f"After the first row: {words}." if ended else f"About what it takes: {words} ({FIRST_ROW_TELLS}).")

    def passed(limit: LimitReached) -> None:
        if printer is not None:
            printer.event("limit_reached", {"limit": limit.what, "at": limit.limit, **dataclasses.asdict(limit.costs)})
        if not person_present:
            say.line(f"{limit_words(limit)} The routine stops here; the rows left run next time.")

    runner.on("progress", progress)
    runner.on("limit_reached", passed)


def _opening(rows: Path, total: int, parallel: int, endpoints: list[str]) -> str:
    where = f"{len(endpoints)} remote browser(s)" if endpoints else "this computer's Chromium"
    return f"Routine over {total} rows of {rows.name}, {parallel} at a time per browser, in {where}."


def _closing(summary: RoutineSummary) -> str:
    counts = counts_words(summary.counts) or "no rows run"
    return f"{counts}; {summary.model_calls} model calls. Results: {summary.results}"


def _started(printer: EventPrinter | None, started: RowStarted, total: int) -> None:
    if printer is not None:
        printer.event("row_started", {"row": started.number, "browser": started.browser, "replay": started.replay})


def _finished(printer: EventPrinter | None, say: Say, finished: RowFinished, total: int) -> None:
    outcome = finished.outcome
    if printer is not None:
        printer.event(
            "row_finished",
            {"row": finished.number, "status": str(outcome.status), "model_calls": outcome.model_calls},
        )
        return
    words = valid_text(mask_everywhere(outcome.result.splitlines()[0] if outcome.result else ""))
    say.line(f"Row {finished.number} of {total}: {row_words(outcome.status)} — {words[:200]}")


def _rest(printer: EventPrinter | None, say: Say, rest: RowsFinished) -> None:
    """The rest of a huge file ended alike (a Stop): one line, not one per row."""
    if printer is not None:
        printer.event("rows_finished", {"rows": rest.rows, "status": str(rest.outcome.status)})
    else:
        say.line(f"{rest.rows:,} rows {row_words(rest.outcome.status).lower()}: {rest.outcome.result}")


def _pace(say: Say, total: int, parallel: int) -> Callable[[RowFinished], None]:
    """After the first row that ran, for a huge file: what the whole file means at that pace."""
    told = False

    def heard(finished: RowFinished) -> None:
        nonlocal told
        if not told and finished.outcome.seconds > 0:
            told = True
            words = pace_words(total, finished.outcome.seconds, parallel)
            if words is not None:
                say.line(words)

    return heard


def _browser_note(printer: EventPrinter | None, say: Say, note: BrowserNote) -> None:
    """What a remote browser does to the routine (a grid's queue, a full endpoint, a pause), as it happens."""
    if printer is not None:
        words = valid_text(mask_everywhere(note.words))
        payload = {"browser": note.browser, "kind": note.kind, "words": words, "seconds": round(note.seconds, 1)}
        printer.event("browser_note", payload)
        return
    say.line(valid_text(mask_everywhere(note.words)))
