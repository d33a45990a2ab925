"""Builds one agent's Guardrails from the saved settings and the command line (the composition root's part)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.core.safety.files import UploadPolicy
from app.core.safety.guardrails import Guardrails
from app.core.safety.navigation import NavigationPolicy
from app.core.safety.risky import ConfirmHandler
from app.settings.model import Settings
from app.settings.paths import AppPaths

if TYPE_CHECKING:
    from app.runtime import RuntimeOptions


def build_guardrails(settings: Settings, paths: AppPaths, options: RuntimeOptions,
                     confirm: ConfirmHandler | None) -> Guardrails:
    """Command-line options beat the saved settings."""
    domains = options.allowed_domains if options.allowed_domains is not None else settings.allowed_domains
    return Guardrails(
        navigation=NavigationPolicy(allowed_domains=tuple(domains)),
        uploads=upload_policy(settings, paths, options),
        confirm=confirm,
        ask_before_irreversible=settings.ask_before_irreversible,
    )


def upload_policy(settings: Settings, paths: AppPaths, options: RuntimeOptions) -> UploadPolicy:
    """Upload folders from Settings and --upload-dir together; the app's own files are never uploadable."""
    allowed = [Path(folder) for folder in settings.upload_dirs if folder.strip()] + list(options.upload_dirs)
    own = [*_app_folders(paths), *([options.secrets_file] if options.secrets_file is not None else [])]
    return UploadPolicy(allowed_dirs=tuple(allowed), forbidden_dirs=tuple(own))


def check_upload_dirs(folders: list[Path], paths: AppPaths) -> list[Path]:
    """The --upload-dir folders, resolved; ValueError in plain words for one that cannot be an upload folder.

    Reads the filesystem: run it off the event loop."""
    checked: list[Path] = []
    for given in folders:
        folder = given.expanduser().resolve()
        if not folder.exists():
            raise ValueError(f"--upload-dir {given}: that folder does not exist.")
        if not folder.is_dir():
            raise ValueError(f"--upload-dir {given} is not a folder; give the folder that holds the files to upload.")
        for own in (own.resolve() for own in _app_folders(paths)):
            if folder == own or own in folder.parents:
                where = "" if folder == own else "inside "
                raise ValueError(f"--upload-dir {given} is {where}Page Agent's own folder {own}: its settings, "
                                 "browser profile, history, downloads and logs are never uploaded.")
            if folder in own.parents:
                raise ValueError(f"--upload-dir {given} holds Page Agent's own folder {own}; choose a folder that "
                                 "holds only the files the agent may upload.")
        checked.append(folder)
    return checked


def _app_folders(paths: AppPaths) -> list[Path]:
    # Profile (cookies, saved logins), runs and downloads live in the data folder; listed too in case they move.
    return [paths.config_dir, paths.data_dir, paths.log_dir, paths.profile_dir, paths.runs_dir, paths.downloads_dir]
