"""The ``run`` command's arguments, checked while they are parsed: a bad value is refused in plain words before
Chromium starts. Light on purpose (no pydantic, no Playwright): the command line is parsed before anything heavy is
imported, so that Playwright's driver can start while the rest loads (``app.cli.start``)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from app.cli.routine_args import add_routine_arguments
from app.core.clean_text import is_valid_text, valid_text
from app.core.limits import (
    MAX_DURATION_LIMIT,
    MAX_ROUTINE_CALLS,
    MAX_ROUTINE_COST,
    MAX_STEPS_LIMIT,
    MAX_TOKEN_PRICE,
)
from app.core.safety.navigation import parse_domains
from app.settings.catalog import FLAGS

N = TypeVar("N", int, float)


def _bounded(convert: Callable[[str], N], most: N) -> Callable[[str], N]:
    """An argparse type: ``convert`` the text and refuse what is not a finite number above 0 and up to ``most``,
    here, before Chromium starts (settings copies are not validated again)."""

    def parse(text: str) -> N:
        value = convert(text)
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, not {text}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
        if value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:g}, not {text}")
        return value

    parse.__name__ = convert.__name__  # argparse names it in "invalid int value"
    return parse


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


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a model endpoint, in plain words; None when it can."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # an unbalanced "[" or a port that is not a number
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        return (
            f"The base URL {valid_text(url)!r} is not a web address: it must start with http:// or https:// "
            "and name a server, like https://api.openai.com/v1."
        )
    return None


def _base_url(text: str) -> str:
    # Refused here, before Chromium starts and before anything is sent, rather than as an unreadable answer.
    problem = base_url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _domain_list(text: str) -> list[str]:
    # A bad pattern stops the run here, before Chromium starts. So does a list with no site in it ("", ","): a
    # limit that names nothing is not "no limit".
    try:
        domains = parse_domains(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    if not domains:
        raise argparse.ArgumentTypeError(
            "it names no site; give the sites the agent may open (example.com,*.example.com), or leave "
            "--allowed-domains out to use the ones in Settings"
        )
    return domains


# How a setting's flag is read, when not as text (a bool setting's flag turns it on).
_FLAG_TYPES: dict[str, Callable[[str], object]] = {
    "base_url": _base_url,
    "max_steps": _bounded(int, MAX_STEPS_LIMIT),
    "price_per_million_tokens": _bounded(float, float(MAX_TOKEN_PRICE)),
    "routine_max_calls": _bounded(int, MAX_ROUTINE_CALLS),
    "routine_max_cost": _bounded(float, float(MAX_ROUTINE_COST)),
}


def _add_setting_flags(run: Any) -> None:
    """The flags of the settings that have one (app/settings/catalog.py); each is None when left out."""
    for setting in FLAGS:
        how: dict[str, Any] = (
            {"action": "store_true", "default": None}
            if setting.type is bool
            else {"type": _FLAG_TYPES.get(setting.name)}
        )
        run.add_argument(setting.flag, dest=setting.name, help=setting.flag_help(), **how)


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


def add_engine_arguments(run: argparse.ArgumentParser) -> Any:
    """The model, the budgets, Chromium's window and the safety options: the same for ``run`` and ``mcp``. Returns
    the safety group (``run`` adds ``--risky`` to it)."""
    _add_setting_flags(run)
    run.add_argument("--api-key-env", metavar="VAR", help="Read the API key from this environment variable.")
    run.add_argument(
        "--max-duration",
        type=_bounded(float, MAX_DURATION_LIMIT),
        metavar="SECONDS",
        help=f"Time budget for the whole task, its final report included (at most {MAX_DURATION_LIMIT:g}).",
    )
    run.add_argument(
        "--headless",
        dest="headless",
        action="store_true",
        default=True,
        help="Run Chromium without a window (default).",
    )
    run.add_argument("--headed", dest="headless", action="store_false", help="Show the Chromium window.")
    safety = run.add_argument_group("safety (see the README's Safety section)")
    safety.add_argument(
        "--allowed-domains",
        type=_domain_list,
        metavar="HOSTS",
        help="Only open these sites, comma-separated: example.com,*.example.com (default: settings).",
    )
    safety.add_argument(
        "--secrets-file",
        type=Path,
        metavar="FILE",
        help="JSON object of secret name -> value; the model sees only <secret>name</secret>.",
    )
    safety.add_argument(
        "--upload-dir",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="A folder the agent may upload files from (repeatable).",
    )
    return safety
