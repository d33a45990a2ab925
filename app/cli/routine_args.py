"""The ``run`` command's routine flags: ``run TEMPLATE --rows FILE`` runs the task once per row (see the README's
"Routines"). Light, like cli_args: parsed before anything heavy is imported."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.browser.endpoint import shown_endpoint

MAX_PARALLEL = 8  # app/routine/plan.py checks it again
MAX_HAND_OFF_MINUTES = 1440  # as app/settings/model.py's


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one column, comma-separated")
    return names


def _minutes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of minutes, not {text}") from None
    if not 0 <= value <= MAX_HAND_OFF_MINUTES:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_HAND_OFF_MINUTES} minutes, not {text}")
    return value


def _parallel(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text}") from None
    if not 1 <= value <= MAX_PARALLEL:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_PARALLEL}, not {text}")
    return value


def _endpoint(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{shown_endpoint(text)!r} is not a browser endpoint: give a CDP address (http://host:9222, or a ws:// URL "
            "from browserless, Selenium Grid, Steel or Browserbase) or a Playwright server's ws:// address"
        )
    return text


def add_routine_arguments(run: Any) -> None:
    group = run.add_argument_group(
        "routines (one task over every row of a spreadsheet; see the README's Routines section)"
    )
    group.add_argument(
        "--rows",
        type=Path,
        metavar="FILE",
        help="Run the task once per row of this CSV or .xlsx file; the task names columns as {column}.",
    )
    group.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="Where each row's outcome goes (default: <rows name>-results.csv beside the rows file).",
    )
    group.add_argument(
        "--secret-columns",
        type=_names,
        default=[],
        metavar="COLS",
        help="Columns whose cells are secrets: the model sees <secret>column</secret>, nothing stores the value.",
    )
    group.add_argument(
        "--totp-columns",
        type=_names,
        default=[],
        metavar="COLS",
        help="Secret columns whose cells are one-time code setup keys: the agent types each row's current code.",
    )
    group.add_argument(
        "--output-columns",
        type=_names,
        default=[],
        metavar="COLS",
        help="Columns the agent fills when it finishes each row (what it read from the site).",
    )
    group.add_argument("--retry-failed", action="store_true", help="Run the rows that failed last time again.")
    group.add_argument(
        "--retry-interrupted",
        action="store_true",
        help="Run again the rows whose form may have been sent: in flight when the last run died, or left to you "
        "when the site's answer was unclear.",
    )
    group.add_argument(
        "--no-replay",
        dest="routine_replay",
        action="store_false",
        help="Let the model do every row, instead of replaying the steps learned on the first good row.",
    )
    group.add_argument(
        "--parallel",
        type=_parallel,
        default=1,
        metavar="N",
        help=f"Rows at the same time, each in its own window (per endpoint), 1 to {MAX_PARALLEL} (default 1).",
    )
    group.add_argument(
        "--hand-off-timeout",
        type=_minutes,
        metavar="MIN",
        help="Minutes a row waits for you when the agent hands it over, then it is left for you and the routine "
        "goes on (default: the settings file's hand_off_timeout, 0: until you answer).",
    )
    group.add_argument(
        "--browser-endpoint",
        type=_endpoint,
        action="append",
        default=[],
        metavar="URL",
        help="Run the rows in a browser elsewhere: CDP (http://host:9222 or ws://) or a Playwright server "
        "(ws://); repeatable.",
    )


def without_rows(args: argparse.Namespace) -> str | None:
    """The routine flag given without --rows (it would do nothing), or None."""
    given = {
        "--results": args.results is not None,
        "--secret-columns": bool(args.secret_columns),
        "--totp-columns": bool(args.totp_columns),
        "--output-columns": bool(args.output_columns),
        "--retry-failed": args.retry_failed,
        "--retry-interrupted": args.retry_interrupted,
        "--no-replay": not args.routine_replay,
        "--parallel": args.parallel != 1,
        "--browser-endpoint": bool(args.browser_endpoint),
        "--hand-off-timeout": args.hand_off_timeout is not None,
        "--max-calls": args.routine_max_calls is not None,
        "--max-cost": args.routine_max_cost is not None,
    }
    return next((flag for flag, used in given.items() if used), None)
