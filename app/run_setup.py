"""What a run stands on, read and checked once for every face (``run``, ``run --rows``, ``mcp``): the saved settings,
the environment and the face's flags resolved (app/engine_args.py), the model's endpoint and key, the upload folders,
the allowed sites and the start page, and the secrets. Everything a person can get wrong is refused here, before
Chromium starts, as ``CannotStart`` in plain words; anything else is a fault of the program and is not caught."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from app.core.errors import CannotStart
from app.engine_args import base_url_problem, resolve_settings
from app.safety_from_settings import check_navigation, check_upload_dirs, load_secrets
from app.settings.model import Settings, SettingsUnreadable, endpoint_ready, read_settings
from app.settings.paths import AppPaths, app_paths
from app.settings.secrets import missing_key_problem


@dataclass(frozen=True)
class FaceSafety:
    """The face's safety flags over the saved settings (a ``SafetyOverrides``); None or empty: the saved ones."""

    allowed_domains: list[str] | None = None
    secrets_file: Path | None = None
    upload_dirs: list[Path] = field(default_factory=list)  # --upload-dir, checked and resolved
    start_url: str = ""  # --url
    demo: bool = False


@dataclass(frozen=True)
class RunSetup:
    settings: Settings
    paths: AppPaths
    api_key: str | None
    safety: FaceSafety


async def load_run_setup(args: argparse.Namespace, *, model: bool = True, key: bool = True) -> RunSetup:
    """The settings ``args`` (a face's engine arguments, app/engine_args.py) resolve to, checked. ``model``: the
    model's endpoint is called (not a replayed cassette); ``key``: a missing key is refused now rather than at the
    first call. Reads files and the keyring off the event loop."""
    paths = app_paths()
    try:
        loaded = await asyncio.to_thread(read_settings, paths.settings_file)
    except SettingsUnreadable as exc:
        raise CannotStart(str(exc)) from exc
    settings, api_key = resolve_settings(args, loaded.settings)
    problem = base_url_problem(settings.base_url) if model else None
    if problem is not None:  # from OPENAI_BASE_URL or the saved settings
        raise CannotStart(f"{problem} (It came from OPENAI_BASE_URL or the saved Settings.)")
    if model and key and not endpoint_ready(settings, api_key):  # before every call fails the same way
        raise CannotStart(missing_key_problem(settings.base_url, args.api_key_env))
    url: str | None = getattr(args, "url", None)
    try:
        upload_dirs = await asyncio.to_thread(check_upload_dirs, args.upload_dir, paths)
        safety = FaceSafety(args.allowed_domains, args.secrets_file, upload_dirs, start_url=url or "")
        # Refused here; the agent (or the routine) reads them again when it is built.
        check_navigation(settings, safety, url)
        await asyncio.to_thread(load_secrets, settings, safety)
    except ValueError as exc:  # the checks' own refusals, in plain words (SecretsSourceError included)
        raise CannotStart(str(exc)) from exc
    return RunSetup(settings, paths, api_key, safety)
