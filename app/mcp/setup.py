"""What the MCP server runs with, read exactly as ``run`` reads it: the saved settings, the environment, then the
command line. The client can set none of it: no tool takes a model, a key, a site, a secret or a folder."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from app.core.abort import AbortSignal
from app.core.safety.risky import ConfirmRequest
from app.run_setup import load_run_setup
from app.runtime import RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths


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
    """CannotStart, in plain words, for anything ``run`` would refuse before Chromium starts (a missing key aside:
    the server starts, and a task says so)."""
    run = await load_run_setup(args, key=False)
    return McpSetup(
        settings=run.settings,
        paths=run.paths,
        api_key=run.api_key,
        headless=args.headless,
        allowed_domains=run.safety.allowed_domains,
        secrets_file=run.safety.secrets_file,
        upload_dirs=run.safety.upload_dirs,
        max_duration=args.max_duration,
    )
