"""When something breaks inside the app, a report in the log folder and one plain sentence saying where it is.

Three ways a Python program can break without anyone noticing: an exception nobody caught (the main thread's, a Qt
slot's, another thread's), an exception in an asyncio task or callback that nobody awaited, and a hard crash of the
interpreter itself (a segfault in a native library). The first two write a report at once and call ``tell`` with its
path; the third cannot run Python any more, so ``faulthandler`` writes the tracebacks to a file that the next start
turns into a report and announces as the last session's.

A report holds the app's version, the platform and the traceback, masked like the log (no secret, no API key), in a
file only its owner may read.
"""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import os
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from app import __version__
from app.browser.private_files import FILE_MODE, private_folder
from app.core.safety.secrets import mask_everywhere
from app.text.i18n import tr

log = logging.getLogger(__name__)

# faulthandler's file: empty while all is well; it holds tracebacks only after the interpreter died.
FAULTS_FILE = "crash-faults.log"
REPORT_PREFIX = "crash-"
# A storm of the same failure (a slot called every frame) writes one report, and a session writes at most a few.
MAX_REPORTS = 5


@dataclass(frozen=True)
class CrashReport:
    """One report saved: where, and whether it is about the last session (a hard crash found at this start)."""

    path: Path
    last_session: bool = False


Tell = Callable[[CrashReport], None]


def crash_message(report: CrashReport) -> str:
    """What the person is told, in the panel or on stderr."""
    if report.last_session:
        return tr(
            "Page Agent Desktop stopped abruptly the last time it ran. A report was saved to {report} — "
            "please attach it if you tell us about the problem.",
            report=report.path,
        )
    return tr(
        "Something went wrong inside Page Agent Desktop. A report was saved to {report} — "
        "please attach it if you tell us about the problem.",
        report=report.path,
    )


def _private_write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as file:
        file.write(text)


def _report_text(what: str, details: str) -> str:
    header = [
        f"Page Agent Desktop {__version__}",
        f"When: {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"Python {platform.python_version()} on {platform.platform()}",
        f"What: {what}",
        "",
    ]
    return "\n".join(header) + mask_everywhere(details).rstrip() + "\n"


@dataclass
class CrashReports:
    """The hooks installed for one process; ``uninstall`` puts back what was there (tests, a second app in one
    process)."""

    folder: Path
    tell: Tell
    written: list[Path] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)
    _faults: IO[str] | None = None
    _previous_excepthook: Any = None
    _previous_thread_hook: Any = None

    def write(self, what: str, details: str, *, last_session: bool = False) -> Path | None:
        """Save one report and tell the person; None when it is a repeat, over the limit, or cannot be written."""
        if details in self._seen or len(self.written) >= MAX_REPORTS:
            return None
        self._seen.add(details)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.folder / f"{REPORT_PREFIX}{stamp}-{os.getpid()}-{len(self.written) + 1}.txt"
        try:
            private_folder(self.folder)
            _private_write(path, _report_text(what, details))
        except OSError as exc:
            log.error("could not save a crash report in %s: %s", self.folder, exc)
            return None
        self.written.append(path)
        log.error("%s: report saved to %s", what, path)
        try:
            self.tell(CrashReport(path, last_session))
        except Exception:  # telling must never raise inside a hook
            log.exception("could not tell about the crash report")
        return path

    def exception(
        self, what: str, kind: type[BaseException], value: BaseException, trace: TracebackType | None
    ) -> Path | None:
        return self.write(what, "".join(traceback.format_exception(kind, value, trace)))

    # --- the hooks -----------------------------------------------------------------------------------------------

    def _excepthook(self, kind: type[BaseException], value: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            self._previous_excepthook(kind, value, trace)
            return
        self.exception("An error nobody caught", kind, value, trace)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.exception(f"An error nobody caught in {name}", args.exc_type, args.exc_value, args.exc_traceback)

    def loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """For ``loop.set_exception_handler``: an error in a task nobody awaited or in a callback."""
        error = context.get("exception")
        message = str(context.get("message", "An error in the event loop"))
        if isinstance(error, BaseException):
            self.exception(message, type(error), error, error.__traceback__)
        else:
            self.write(message, repr({key: value for key, value in context.items() if key != "loop"}))

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._previous_excepthook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        if loop is not None:
            loop.set_exception_handler(self.loop_handler)
        try:
            private_folder(self.folder)
            fd = os.open(self.folder / FAULTS_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
            self._faults = os.fdopen(fd, "a", encoding="utf-8")
            faulthandler.enable(self._faults, all_threads=True)
        except OSError as exc:
            log.warning("no report of hard crashes in %s: %s", self.folder, exc)

    def uninstall(self) -> None:
        if self._previous_excepthook is not None:
            sys.excepthook = self._previous_excepthook
            threading.excepthook = self._previous_thread_hook
        if self._faults is not None:
            faulthandler.disable()
            self._faults.close()
            self._faults = None


def collect_last_crash(folder: Path) -> str | None:
    """What faulthandler wrote when the last run died (a hard crash), emptied so it is told once; None if nothing."""
    faults = folder / FAULTS_FILE
    try:
        text = faults.read_text(encoding="utf-8", errors="backslashreplace")
    except OSError:
        return None
    if not text.strip():
        return None
    try:
        faults.write_text("", encoding="utf-8")
    except OSError:
        return None
    return text


def install_crash_reports(folder: Path, tell: Tell, loop: asyncio.AbstractEventLoop | None = None) -> CrashReports:
    """Install the hooks; a hard crash of the last run is reported now (before the hooks take the faults file)."""
    reports = CrashReports(folder, tell)
    last = collect_last_crash(folder)
    reports.install(loop)
    if last is not None:
        reports.write("The app stopped abruptly last time (a hard crash)", last, last_session=True)
    return reports
