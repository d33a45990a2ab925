"""Starts the panel: one QApplication and one qasync loop, so Qt and asyncio share the main thread."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from app.crash_report import install_crash_reports
from app.instance import UntrustedPanel, bring_to_front, socket_path
from app.logging_setup import configure_logging
from app.settings.paths import app_paths
from app.stop_signals import on_stop_signals
from app.ui.app_icon import app_icon
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.qt_libraries import missing_message, missing_packages

log = logging.getLogger(__name__)

# Python runs signal handlers only between bytecodes; a heartbeat lets Ctrl+C through while Qt idles in C++.
_SIGNAL_HEARTBEAT_MS = 250


def _application() -> QApplication:
    QGuiApplication.setApplicationName("page-agent-desktop")
    QGuiApplication.setApplicationDisplayName("Page Agent")
    QGuiApplication.setDesktopFileName("page-agent-desktop")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setWindowIcon(app_icon())
    # The desktop owns the shutdown: closing the panel must first stop the agent and close Chromium.
    app.setQuitOnLastWindowClosed(False)
    return app


def run_gui(args: argparse.Namespace) -> int:
    missing = missing_packages()
    if missing:  # Qt would abort with its own message: say which package to install instead
        print(missing_message(missing), file=sys.stderr)
        return 2
    paths = app_paths()
    try:
        if bring_to_front(socket_path(paths)):  # one panel and one Chromium per user: the running one comes forward
            print("page-agent-desktop: already open; brought it to the front.", file=sys.stderr)
            return 0
    except UntrustedPanel as exc:  # nothing was sent there; this launch opens its panel, without a single instance
        print(f"page-agent-desktop: the panel's socket is not yours alone, so it was not used: {exc}", file=sys.stderr)
    configure_logging(paths.log_dir)
    app = _application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    desktop = Desktop(paths, LaunchChoices(demo=args.demo, replay=args.replay, record=args.record))
    reports = install_crash_reports(paths.log_dir, desktop.crash_notices.tell, loop)

    heartbeat = QTimer()
    heartbeat.start(_SIGNAL_HEARTBEAT_MS)
    heartbeat.timeout.connect(lambda: None)
    # Ctrl+C closes as the close button does (asking first during a run; a second Ctrl+C quits); SIGTERM and SIGHUP
    # quit.
    on_stop_signals(loop, lambda signum: desktop.close(force=signum != signal.SIGINT))
    try:
        with loop:
            code: int = loop.run_until_complete(desktop.run())
            return code
    finally:
        heartbeat.stop()
        reports.uninstall()
