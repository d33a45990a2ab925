"""``page-agent-desktop mcp``: read the setup as ``run`` does, serve the tools on stdio or HTTP, and on the way out
stop every task and close the browser the server opened."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import sys

from app.crash_report import CrashReport, crash_message, install_crash_reports
from app.logging_setup import configure_logging
from app.settings.paths import app_paths
from app.stop_signals import on_stop_signals

EXIT_ERROR = 2


def run_mcp(args: argparse.Namespace) -> int:
    return asyncio.run(_logged(args))


async def _logged(args: argparse.Namespace) -> int:
    """The server with its log (warnings on stderr: on stdio, stdout carries the protocol and nothing else) and its
    crash reports: a long-running process nobody watches must not break unseen."""
    log_dir = app_paths().log_dir
    configure_logging(log_dir, logging.StreamHandler(sys.stderr))
    reports = install_crash_reports(log_dir, _tell_crash, asyncio.get_running_loop())
    try:
        return await _serve(args)
    finally:
        reports.uninstall()


async def _serve(args: argparse.Namespace) -> int:
    token = ""
    if args.http is not None:
        token = os.environ.get(args.token_env, "") if args.token_env else secrets.token_urlsafe(24)
        if not token:
            return _refuse(f"--token-env {args.token_env}: that environment variable is empty or not set.")
    from app.core.errors import CannotStart
    from app.mcp.setup import load_setup

    try:
        setup = await load_setup(args)
    except CannotStart as exc:
        return _refuse(str(exc))
    from app.history.store import RunStore
    from app.instance import open_panel, socket_path
    from app.mcp.headless import HeadlessTasks
    from app.mcp.panel_link import run_in_panel
    from app.mcp.routines import RoutineRegistry
    from app.mcp.server import build_server
    from app.mcp.tasks import TaskRegistry

    headless = HeadlessTasks(setup)
    panel = socket_path(setup.paths)
    tasks = TaskRegistry(headless.run, run_in_panel, lambda: open_panel(panel))
    routines = RoutineRegistry(setup, headless, lambda: open_panel(panel))
    server = build_server(tasks, routines, RunStore(setup.paths.runs_dir))
    listening = None
    closing = asyncio.Event()  # set once the tasks are stopped: then the HTTP server goes
    if args.http is not None:
        from app.mcp.http import bind, serve_http

        try:
            listening = bind(args.http)
        except OSError as exc:  # the port is taken
            return _refuse(f"--http {args.http}: {exc.strerror or exc}")
        serving = asyncio.ensure_future(serve_http(server.streamable_http_app(), listening, token, closing))
    else:
        serving = asyncio.ensure_future(server.run_stdio_async())
    stop = asyncio.Event()
    # SIGTERM, SIGINT (Ctrl+C) and SIGHUP, on stdio and HTTP alike: the tasks stop and are saved, the browser
    # closes, and the command exits 0.
    on_stop_signals(asyncio.get_running_loop(), lambda _signum: stop.set())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        # Every task stopped and saved in History, every browser closed, before the server goes: a client waiting
        # on a task hears it stopped.
        await routines.close()
        await tasks.close()
        await headless.close()
        closing.set()
    if listening is None and not serving.done():
        # A signal on stdio: everything is closed, but the SDK reads stdin on a worker thread that nothing can
        # interrupt, and waiting for it would keep the process until the client closes the pipe.
        sys.stderr.flush()
        os._exit(0)
    await serving
    return 0


def _refuse(message: str) -> int:
    print(f"page-agent-desktop: {message}", file=sys.stderr, flush=True)
    return EXIT_ERROR


def _tell_crash(report: CrashReport) -> None:
    print(f"page-agent-desktop: {crash_message(report)}", file=sys.stderr, flush=True)
