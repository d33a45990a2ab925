"""The headless runner: the same engine as the panel, no Qt. A contract the tests and benchmarks rely on.

Exit codes: 0 completed with success, 1 completed with success=false, 2 error, 3 stopped (Ctrl+C, also while the
agent waits for the person), 4 a person is needed: the agent handed the browser over (a captcha, a sign-in, a code)
and stdin is not a terminal, so nobody could take it (the reason is on stderr and in --json).

On a terminal a hand-off is a pause: the reason is printed, Enter lets the same task carry on, Ctrl+C stops.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.confirm import cli_confirm
from app.cli.handoff import TerminalHandOff
from app.cli.output import EXIT_ERROR, EventPrinter, configure_run_logging, exit_code, tell
from app.cli.routine_args import without_rows
from app.cli.signals import StopSignals
from app.cli.terminal import Say, is_terminal
from app.core.clean_text import printable, terminal_json, valid_text
from app.core.errors import CannotStart
from app.core.safety.secrets import mask_everywhere
from app.core.types import AgentStatus, ExecutionResult
from app.crash_report import crash_message, install_crash_reports
from app.run_setup import load_run_setup
from app.settings.paths import app_paths
from app.text.hand_off import hand_off_line

if TYPE_CHECKING:
    from app.browser.driver import DriverStart

STOPPED_BEFORE_START = "Stopped before the task started."
STOPPED_AT_ONCE = "Stopped at once; the task did not finish."


def _cannot_run(args: argparse.Namespace, printer: EventPrinter | None, message: str) -> int:
    """The task never started (a setting, a file, the browser or the start page): why, on stderr, and with --json the
    result on stdout too, so that a script reading it is told rather than handed nothing."""
    tell(printer, message)
    if args.json:
        print(mask_everywhere(result_json(ExecutionResult(success=False, data=message, status=AgentStatus.ERROR))))
    return EXIT_ERROR


def result_json(result: ExecutionResult) -> str:
    payload = result.model_dump(mode="json")
    payload["tokens"] = {**result.usage.model_dump(), "total_tokens": result.usage.total_tokens}
    return terminal_json(valid_text(json.dumps(payload, ensure_ascii=False)))


def check_record_file(path: Path) -> None:
    """--record is written after every answer: a place it cannot be written is refused before Chromium starts and a
    paid model call is made."""
    folder = path.parent
    if path.is_dir():
        raise CannotStart(f"--record {path}: that is a folder; give a file name for the cassette.")
    if not folder.is_dir():
        raise CannotStart(f"--record {path}: the folder {folder} does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CannotStart(f"--record {path}: you cannot write there; choose a folder you may write to.")


async def run_task(
    args: argparse.Namespace, printer: EventPrinter | None, signals: StopSignals, driver: DriverStart | None
) -> int:
    from app.runtime import Runtime, RuntimeOptions

    # Only someone at a terminal can take the browser when the agent hands it over.
    person_present = is_terminal(sys.stdin)
    try:  # before Chromium starts and a paid call is made
        setup = await load_run_setup(args, model=not args.replay)
        if args.record is not None:
            await asyncio.to_thread(check_record_file, args.record)
    except CannotStart as exc:
        return _cannot_run(args, printer, str(exc))
    safety = setup.safety
    options = RuntimeOptions(
        headless=args.headless,
        cdp_url=args.cdp_url,
        replay=args.replay,
        record=args.record,
        max_duration=args.max_duration,
        allowed_domains=safety.allowed_domains,
        secrets_file=safety.secrets_file,
        upload_dirs=safety.upload_dirs,
        risky=args.risky,
        person_present=person_present,
        driver=driver,
        start_url=safety.start_url,
    )
    runtime = Runtime(setup.settings, setup.paths, options, api_key=setup.api_key)
    runtime.set_confirm(cli_confirm(args.risky, stopped=signals.stop, events=printer is not None))
    hand_off: TerminalHandOff | None = None
    try:
        try:
            # A stop while Chromium starts cancels the start: nothing is left to wait for.
            agent = await signals.until_stopped(asyncio.ensure_future(runtime.agent()))
        except Exception as exc:  # a browser that will not start, a bad URL: say so plainly
            return _cannot_run(args, printer, str(exc))
        if agent is None:
            result = ExecutionResult(success=False, data=STOPPED_BEFORE_START, status=AgentStatus.STOPPED)
        else:
            if printer is not None:
                agent.on("status_changed", printer.status)
                agent.on("activity", printer.activity)
                agent.on("event_added", printer.history)
            if person_present:
                hand_off = TerminalHandOff(
                    agent, sys.stdin.fileno(), Say(printer is not None), windowless=args.headless and not args.cdp_url
                )
                agent.on("activity", hand_off.on_activity)
            finished = await signals.until_stopped(asyncio.ensure_future(agent.execute(args.task)), agent.stop)
            result = finished or ExecutionResult(
                success=False, data=STOPPED_AT_ONCE, status=AgentStatus.STOPPED, history=agent.history
            )
    finally:
        if hand_off is not None:
            await hand_off.close()
        await runtime.shutdown()
    if args.json:
        print(mask_everywhere(result_json(result)))
    elif result.status == AgentStatus.COMPLETED:
        if result.data:
            print(printable(valid_text(mask_everywhere(result.data))))
    elif result.status != AgentStatus.NEEDS_PERSON:
        tell(printer, result.data)
    if result.status == AgentStatus.NEEDS_PERSON:
        # On stderr even with --json, so that a script's log says why the run could not go on.
        said = hand_off_line(result.data)
        tell(printer, f"A person is needed in the browser, and there is no terminal to hand it over on. {said}")
    if runtime.recording_failure is not None:
        # The task's own outcome is printed above; the recording the user asked for is not whole: an error (exit 2),
        # unless the run already ended in a state of its own (stopped, a person needed).
        tell(printer, runtime.recording_failure)
        return max(exit_code(result), EXIT_ERROR)
    return exit_code(result)


async def run(args: argparse.Namespace, driver: DriverStart | None, signals: StopSignals) -> int:
    """The run itself, once ``app.cli.start`` has put the stop signals in place, started Playwright's driver and
    imported this module."""
    printer = EventPrinter(sys.stderr) if args.events else None
    configure_run_logging(printer)
    reports = install_crash_reports(
        app_paths().log_dir, lambda report: tell(printer, crash_message(report)), asyncio.get_running_loop()
    )
    try:
        return await _run(args, printer, driver, signals)
    finally:
        reports.uninstall()
        if printer is not None:
            await asyncio.to_thread(printer.close)


async def _run(
    args: argparse.Namespace, printer: EventPrinter | None, driver: DriverStart | None, signals: StopSignals
) -> int:
    if getattr(args, "rows", None) is not None:
        from app.cli.routine import run_routine

        return await run_routine(args, printer, driver, signals)
    flag = without_rows(args)
    if flag is not None:
        tell(printer, f"{flag} belongs to routines: give the rows file with --rows FILE.")
        return EXIT_ERROR
    return await run_task(args, printer, signals, driver)
