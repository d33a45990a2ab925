"""``page-agent-desktop mcp``: read the setup as ``run`` does, serve the tools on stdio or HTTP, and on the way out
stop every task and close the browser the server opened."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
import sys

from app.logging_setup import SECRETS_FILTER

EXIT_ERROR = 2


def run_mcp(args: argparse.Namespace) -> int:
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    _configure_logging()
    token = ""
    if args.http is not None:
        token = os.environ.get(args.token_env, "") if args.token_env else secrets.token_urlsafe(24)
        if not token:
            return _refuse(f"--token-env {args.token_env}: that environment variable is empty or not set.")
    from app.mcp.setup import load_setup

    try:
        setup = await load_setup(args)
    except ValueError as exc:
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
    _stop_on_signals(stop)
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


def _stop_on_signals(stop: asyncio.Event) -> None:
    """SIGTERM, SIGINT (Ctrl+C) and SIGHUP set ``stop``, on stdio and HTTP alike: the tasks stop and are saved, the
    browser closes, and the command exits 0. Windows has neither SIGTERM from a terminal nor loop signal handlers:
    Ctrl+C there goes through the C runtime's handler."""
    loop = asyncio.get_running_loop()
    if os.name == "posix":
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
    else:
        signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(stop.set))


def _refuse(message: str) -> int:
    print(f"page-agent-desktop: {message}", file=sys.stderr, flush=True)
    return EXIT_ERROR


def _configure_logging() -> None:
    """Warnings on stderr, secrets masked: on stdio, stdout carries the protocol and nothing else."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SECRETS_FILTER)
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
