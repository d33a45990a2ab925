"""How a run on the command line speaks, the same for one task (app/cli/task.py) and a routine (app/cli/routine.py):
its exit codes, the line on stderr that says why it failed or stopped (``tell``), ``--events`` (every event and log
record as a JSON line on stderr) and where its log records go.

Exit codes (``EXIT_CODES``): 0 completed with success, 1 completed with success=false, 2 error, 3 stopped, 4 a person
is needed and nobody could be asked (a routine's is its worst row's, app/cli/routine.py).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, TextIO

from app.cli.line_writer import LineWriter
from app.core.clean_text import printable, terminal_json, valid_text
from app.core.safety.secrets import mask_everywhere
from app.core.types import AgentStatus, ExecutionResult, HistoricalEvent, RunOutcome
from app.logging_setup import configure_logging
from app.settings.paths import app_paths

# How a run ended, as the process's exit code: a task's, and a routine's worst row's (app/cli/routine.py), worst
# first. The README's exit codes are this table's (tests/test_endings.py).
EXIT_CODES: dict[RunOutcome, int] = {
    RunOutcome.ERROR: 2,
    RunOutcome.STOPPED: 3,
    RunOutcome.NEEDS_PERSON: 4,
    RunOutcome.FAILED: 1,
    RunOutcome.SUCCESS: 0,
}
EXIT_SUCCESS = EXIT_CODES[RunOutcome.SUCCESS]
EXIT_ERROR = EXIT_CODES[RunOutcome.ERROR]  # bad input too, before anything runs
EXIT_STOPPED = EXIT_CODES[RunOutcome.STOPPED]


def exit_code(result: ExecutionResult) -> int:
    return EXIT_CODES[result.outcome]


class EventPrinter:
    """--events: status changes, activities, new history events and log records as JSON lines with a monotonic ``t``.

    With --events stderr carries nothing else, so that a script can parse every line of it. Every line reaches it,
    however slowly it is read (``LineWriter``); ``close()`` once the run is over.
    """

    def __init__(self, stream: TextIO) -> None:
        stream.flush()
        self._encoding = stream.encoding or "utf-8"
        self._lines = LineWriter(stream.fileno())
        self._started = time.monotonic()

    def _write(self, kind: str, payload: dict[str, Any]) -> None:
        line = {"t": round(time.monotonic() - self._started, 4), "event": kind, **payload}
        text = terminal_json(valid_text(mask_everywhere(json.dumps(line, ensure_ascii=False)))) + "\n"
        self._lines.put(text.encode(self._encoding, "backslashreplace"))

    def close(self) -> None:
        """The lines still on their way are written (as the reader takes them)."""
        self._lines.close()

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


def configure_run_logging(printer: EventPrinter | None) -> None:
    """Warnings on the terminal (or as events), the rest in the log file the panel also writes."""
    if printer is None:
        handler: logging.Handler = logging.StreamHandler()
        handler.setFormatter(_TerminalFormatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler = _EventLogHandler(printer)
    configure_logging(app_paths().log_dir, handler)


def tell(printer: EventPrinter | None, message: str) -> None:
    """Why the run failed or stopped, on stderr: a plain line, or an "error" event with --events."""
    if printer is None:
        print(f"page-agent-desktop: {printable(valid_text(mask_everywhere(message)))}", file=sys.stderr)
    else:
        printer.error(message)
