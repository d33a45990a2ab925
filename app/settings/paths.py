"""Where the app keeps its files. PAGE_AGENT_HOME puts everything under one folder (tests, portable use)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "page-agent-desktop"


@dataclass(frozen=True)
class AppPaths:
    config_dir: Path
    data_dir: Path
    log_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def profile_dir(self) -> Path:
        return self.data_dir / "browser-profile"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def downloads_dir(self) -> Path:
        return self.data_dir / "downloads"


def app_paths() -> AppPaths:
    home = os.environ.get("PAGE_AGENT_HOME")
    if home:
        root = Path(home)
        return AppPaths(root / "config", root / "data", root / "logs")
    return AppPaths(
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_data_dir(APP_NAME)),
        Path(platformdirs.user_log_dir(APP_NAME)),
    )


def runtime_dir() -> Path:
    """Where the running app's local socket lives: the user's runtime folder ($XDG_RUNTIME_DIR, which only the user
    can enter), else a folder of the user's own in the temporary folder (made private by whoever creates it)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / APP_NAME
    if os.name == "posix":
        return Path(tempfile.gettempdir()) / f"{APP_NAME}-{os.getuid()}"
    return Path(platformdirs.user_runtime_dir(APP_NAME))
