"""The ``run`` command's arguments, checked while they are parsed: a bad value is refused in plain words before
Chromium starts (the engine's options, shared with ``mcp``, are app/engine_args.py's). Light on purpose (no pydantic,
no Playwright): the command line is parsed before anything heavy is imported, so that Playwright's driver can start
while the rest loads (``app.cli.start``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from app.cli.routine_args import add_routine_arguments
from app.core.clean_text import is_valid_text, valid_text
from app.engine_args import add_engine_arguments


def _task_text(text: str) -> str:
    # Refused here, before Chromium starts, rather than by the agent once the browser is up.
    if not text.strip():
        raise argparse.ArgumentTypeError("the task is empty; say what the agent should do")
    if not is_valid_text(text):  # bytes that are not UTF-8 arrive as lone surrogates; no model could read them
        raise argparse.ArgumentTypeError(
            f"the task is not valid UTF-8 text: {valid_text(text)!r} (\ufffd marks what cannot be read); check the "
            "terminal's encoding, or write the task again"
        )
    return text


def add_run_parser(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="Run one task headlessly and exit.")
    run.add_argument("task", type=_task_text, help="What the agent should do, in plain language.")
    run.add_argument("--url", help="Open this page first.")
    safety = add_engine_arguments(run)
    run.add_argument("--cdp-url", help="Attach to a running Chromium/Chrome (its active tab); leave it running.")
    run.add_argument("--events", action="store_true", help="Print every event as one JSON object per line on stderr.")
    run.add_argument("--json", action="store_true", help="Print the final result as one JSON object on stdout.")
    safety.add_argument(
        "--risky",
        choices=("ask", "allow", "deny"),
        default="ask",
        help="A page's confirm()/prompt() and irreversible acts: ask on the terminal (default; "
        "deny without one), allow, or deny.",
    )
    add_routine_arguments(run)
    # SUPPRESS: the same options before "run" (page-agent-desktop --replay F run ...) must not be reset to None.
    run.add_argument(
        "--record", type=Path, metavar="FILE", default=argparse.SUPPRESS, help="Save the model's answers as a cassette."
    )
    run.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        default=argparse.SUPPRESS,
        help="Replay a cassette instead of calling a model.",
    )
