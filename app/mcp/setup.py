"""What the MCP server runs with, read exactly as ``run`` reads it: the saved settings, the environment, then the
command line. The client can set none of it: no tool takes a model, a key, a site, a secret or a folder."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmRequest
from app.engine_args import base_url_problem, resolve_settings
from app.runtime import RuntimeOptions
from app.safety_from_settings import check_navigation, check_upload_dirs, load_secrets
from app.settings.model import Settings, SettingsUnreadable, read_settings
from app.settings.paths import AppPaths, app_paths


@dataclass(frozen=True)
class McpSetup:
    settings: Settings
    paths: AppPaths
    api_key: str | None
    headless: bool = True
    allowed_domains: list[str] | None = None
    secrets_file: Path | None = None
    upload_dirs: list[Path] = field(default_factory=list)
    max_duration: float | None = None

    def runtime_options(self) -> RuntimeOptions:
        """Headless tasks: nobody can take the browser (a hand-off ends the task needs_person) or answer a risky
        moment (refused, see ``refuse``)."""
        return RuntimeOptions(
            headless=self.headless,
            max_duration=self.max_duration,
            allowed_domains=self.allowed_domains,
            secrets_file=self.secrets_file,
            upload_dirs=list(self.upload_dirs),
            risky="deny",
            person_present=False,
        )


async def refuse(_request: ConfirmRequest, _signal: AbortSignal) -> bool:
    """A risky moment with no panel open: nobody can be asked, so it is not allowed. Never asked of the client."""
    return False


async def load_setup(args: argparse.Namespace) -> McpSetup:
    """ValueError, in plain words, for anything ``run`` would refuse before Chromium starts."""
    paths = app_paths()
    try:
        loaded = await asyncio.to_thread(read_settings, paths.settings_file)
    except SettingsUnreadable as exc:
        raise ValueError(str(exc)) from exc
    settings, api_key = resolve_settings(args, loaded.settings)
    problem = base_url_problem(settings.base_url)
    if problem is not None:
        raise ValueError(f"{problem} (It came from OPENAI_BASE_URL or the saved Settings.)")
    upload_dirs = await asyncio.to_thread(check_upload_dirs, args.upload_dir, paths)
    setup = McpSetup(
        settings=settings,
        paths=paths,
        api_key=api_key,
        headless=args.headless,
        allowed_domains=args.allowed_domains,
        secrets_file=args.secrets_file,
        upload_dirs=upload_dirs,
        max_duration=args.max_duration,
    )
    options = setup.runtime_options()
    check_navigation(settings, options, None)
    await asyncio.to_thread(load_secrets, settings, options)
    return setup
