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
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.args import base_url_problem
from app.cli.confirm import cli_confirm
from app.cli.handoff import TerminalHandOff
from app.cli.routine_args import without_rows
from app.cli.signals import StopSignals
from app.cli.terminal import Say, is_terminal
from app.core.clean_text import printable, terminal_json, valid_text
from app.core.safety.secrets import mask_everywhere
from app.core.types import AgentStatus, ExecutionResult, HistoricalEvent, RunOutcome
from app.crash_report import crash_message, install_crash_reports
from app.logging_setup import configure_logging
from app.safety_from_settings import check_navigation, check_upload_dirs, load_secrets
from app.settings.catalog import FLAGS, resolve_overrides
from app.settings.model import Settings, SettingsUnreadable, endpoint_ready, read_settings
from app.settings.paths import app_paths
from app.settings.secrets import env_api_key, get_api_key, missing_key_problem
from app.text.hand_off import hand_off_line

if TYPE_CHECKING:
    from app.browser.driver import DriverStart

EXIT_SUCCESS, EXIT_UNSUCCESSFUL, EXIT_ERROR, EXIT_STOPPED, EXIT_NEEDS_PERSON = 0, 1, 2, 3, 4
STOPPED_BEFORE_START = "Stopped before the task started."
STOPPED_AT_ONCE = "Stopped at once; the task did not finish."


def resolve_settings(args: argparse.Namespace, saved: Settings) -> tuple[Settings, str | None]:
    """Flags beat environment variables, which beat the saved settings (app/settings/catalog.py names them)."""
    flags = {setting.name: getattr(args, setting.name, None) for setting in FLAGS}
    settings = saved.model_copy(update=resolve_overrides(flags, os.environ))
    api_key = env_api_key(args.api_key_env) if args.api_key_env else get_api_key(settings.provider)
    return settings, api_key


class EventPrinter:
    """--events: status changes, activities, new history events and log records as JSON lines with a monotonic ``t``.

    With --events stderr carries nothing else, so that a script can parse every line of it.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._started = time.monotonic()

    def _write(self, kind: str, payload: dict[str, Any]) -> None:
        line = {"t": round(time.monotonic() - self._started, 4), "event": kind, **payload}
        self._stream.write(terminal_json(valid_text(mask_everywhere(json.dumps(line, ensure_ascii=False)))) + "\n")
        self._stream.flush()

    def event(self, kind: str, payload: dict[str, Any]) -> None:
        """Any other event (a routine's row_started, row_finished...)."""
        self._write(kind, payload)

    def status(self, status: AgentStatus) -> None:
        self._write("status_changed", {"status": str(status)})

    def activity(self, activity: Any) -> None:
        self._write("activity", {"activity": activity.model_dump(mode="json")})

    def history(self, event: HistoricalEvent) -> None:
        self._write("history", {"item": event.model_dump(mode="json")})

    def log(self, level: str, logger: str, message: str) -> None:
        self._write("log", {"level": level, "logger": logger, "message": message})

    def error(self, message: str) -> None:
        self._write("error", {"message": message})


class _EventLogHandler(logging.Handler):
    """Log records (tracebacks included) as "log" events instead of free text between the JSON lines."""

    def __init__(self, printer: EventPrinter) -> None:
        super().__init__()
        self._printer = printer
        # Level and logger have their own fields; the message keeps only its text (and any traceback).
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self._printer.log(record.levelname.lower(), record.name, self.format(record))


class _TerminalFormatter(logging.Formatter):
    """Log lines on a terminal: a page's words in a message cannot drive it."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def _configure_logging(printer: EventPrinter | None) -> None:
    """Warnings on the terminal (or as events), the rest in the log file the panel also writes."""
    if printer is None:
        handler: logging.Handler = logging.StreamHandler()
        handler.setFormatter(_TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler = _EventLogHandler(printer)
    configure_logging(app_paths().log_dir, handler)


def _tell(printer: EventPrinter | None, message: str) -> None:
    """Why the run failed or stopped, on stderr: a plain line, or an "error" event with --events."""
    if printer is None:
        print(f"page-agent-desktop: {printable(valid_text(mask_everywhere(message)))}", file=sys.stderr)
    else:
        printer.error(message)


def _cannot_run(args: argparse.Namespace, printer: EventPrinter | None, message: str) -> int:
    """The task never started (a setting, a file, the browser or the start page): why, on stderr, and with --json the
    result on stdout too, so that a script reading it is told rather than handed nothing."""
    _tell(printer, message)
    if args.json:
        print(mask_everywhere(result_json(ExecutionResult(success=False, data=message, status=AgentStatus.ERROR))))
    return EXIT_ERROR


EXIT_CODES = {
    RunOutcome.SUCCESS: EXIT_SUCCESS,
    RunOutcome.FAILED: EXIT_UNSUCCESSFUL,
    RunOutcome.NEEDS_PERSON: EXIT_NEEDS_PERSON,
    RunOutcome.STOPPED: EXIT_STOPPED,
    RunOutcome.ERROR: EXIT_ERROR,
}


def exit_code(result: ExecutionResult) -> int:
    return EXIT_CODES[result.outcome]


def result_json(result: ExecutionResult) -> str:
    payload = result.model_dump(mode="json")
    payload["tokens"] = {**result.usage.model_dump(), "total_tokens": result.usage.total_tokens}
    return terminal_json(valid_text(json.dumps(payload, ensure_ascii=False)))


def check_record_file(path: Path) -> None:
    """--record is written after every answer: a place it cannot be written is refused before Chromium starts and a
    paid model call is made."""
    folder = path.parent
    if path.is_dir():
        raise ValueError(f"--record {path}: that is a folder; give a file name for the cassette.")
    if not folder.is_dir():
        raise ValueError(f"--record {path}: the folder {folder} does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"--record {path}: you cannot write there; choose a folder you may write to.")


async def run_task(
    args: argparse.Namespace, printer: EventPrinter | None, signals: StopSignals, driver: DriverStart | None
) -> int:
    from app.runtime import Runtime, RuntimeOptions

    paths = app_paths()
    # Only someone at a terminal can take the browser when the agent hands it over.
    person_present = is_terminal(sys.stdin)
    try:
        loaded = await asyncio.to_thread(read_settings, paths.settings_file)
    except SettingsUnreadable as exc:
        return _cannot_run(args, printer, str(exc))
    settings, api_key = resolve_settings(args, loaded.settings)
    endpoint_problem = None if args.replay else base_url_problem(settings.base_url)
    if endpoint_problem is not None:  # from OPENAI_BASE_URL or the saved settings; before Chromium starts
        return _cannot_run(args, printer, f"{endpoint_problem} (It came from OPENAI_BASE_URL or the saved Settings.)")
    if not args.replay and not endpoint_ready(settings, api_key):  # before Chromium starts and a call fails
        return _cannot_run(args, printer, missing_key_problem(settings.base_url, args.api_key_env))
    try:
        upload_dirs = await asyncio.to_thread(check_upload_dirs, args.upload_dir, paths)
        if args.record is not None:
            await asyncio.to_thread(check_record_file, args.record)
    except ValueError as exc:  # before Chromium starts
        return _cannot_run(args, printer, str(exc))
    options = RuntimeOptions(
        headless=args.headless,
        cdp_url=args.cdp_url,
        replay=args.replay,
        record=args.record,
        max_duration=args.max_duration,
        allowed_domains=args.allowed_domains,
        secrets_file=args.secrets_file,
        upload_dirs=upload_dirs,
        risky=args.risky,
        person_present=person_present,
        driver=driver,
        start_url=args.url or "",
    )
    try:
        # Refused here, before Chromium starts; the agent reads them again when it is built.
        check_navigation(settings, options, args.url)
        await asyncio.to_thread(load_secrets, settings, options)
    except ValueError as exc:  # SecretsSourceError included
        return _cannot_run(args, printer, str(exc))
    runtime = Runtime(settings, paths, options, api_key=api_key)
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
        _tell(printer, result.data)
    if result.status == AgentStatus.NEEDS_PERSON:
        # On stderr even with --json, so that a script's log says why the run could not go on.
        said = hand_off_line(result.data)
        _tell(printer, f"A person is needed in the browser, and there is no terminal to hand it over on. {said}")
    if runtime.recording_failure is not None:
        # The task's own outcome is printed above; the recording the user asked for is not whole: an error (exit 2),
        # unless the run already ended in a state of its own (stopped, a person needed).
        _tell(printer, runtime.recording_failure)
        return max(exit_code(result), EXIT_ERROR)
    return exit_code(result)


async def run(args: argparse.Namespace, driver: DriverStart | None, signals: StopSignals) -> int:
    """The run itself, once ``app.cli.start`` has put the stop signals in place, started Playwright's driver and
    imported this module."""
    printer = EventPrinter(sys.stderr) if args.events else None
    _configure_logging(printer)
    reports = install_crash_reports(
        app_paths().log_dir, lambda report: _tell(printer, crash_message(report)), asyncio.get_running_loop()
    )
    try:
        return await _run(args, printer, driver, signals)
    finally:
        reports.uninstall()


async def _run(
    args: argparse.Namespace, printer: EventPrinter | None, driver: DriverStart | None, signals: StopSignals
) -> int:
    if getattr(args, "rows", None) is not None:
        from app.cli.routine import run_routine

        return await run_routine(args, printer, driver, signals)
    flag = without_rows(args)
    if flag is not None:
        _tell(printer, f"{flag} belongs to routines: give the rows file with --rows FILE.")
        return EXIT_ERROR
    return await run_task(args, printer, signals, driver)
