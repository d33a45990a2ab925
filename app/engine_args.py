"""The engine's options on a command line, the same for ``run`` and ``mcp``: the model, the budgets, Chromium's window
and the safety options, each refused in plain words while it is parsed (before Chromium starts), and the settings they
resolve to (``resolve_settings``: flags beat environment variables, which beat the saved settings; the catalog,
app/settings/catalog.py, names them). Light, like the rest of the parsing: nothing heavy is imported before the
command line is read."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from app.core.clean_text import valid_text
from app.core.limits import (
    MAX_DURATION_LIMIT,
    MAX_ROUTINE_CALLS,
    MAX_ROUTINE_COST,
    MAX_STEPS_LIMIT,
    MAX_TOKEN_PRICE,
)
from app.core.safety.navigation import parse_domains
from app.settings.catalog import FLAGS, resolve_overrides

if TYPE_CHECKING:
    from app.settings.model import Settings

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


def resolve_settings(args: argparse.Namespace, saved: Settings) -> tuple[Settings, str | None]:
    """Flags beat environment variables, which beat the saved settings (app/settings/catalog.py names them)."""
    from app.settings.secrets import env_api_key, get_api_key  # pydantic and the keyring: not while parsing

    flags = {setting.name: getattr(args, setting.name, None) for setting in FLAGS}
    settings = saved.model_copy(update=resolve_overrides(flags, os.environ))
    api_key = env_api_key(args.api_key_env) if args.api_key_env else get_api_key(settings.provider)
    return settings, api_key
