"""Folders and files only their owner may read: what pages sent (downloads) and what holds the user's sessions."""

from __future__ import annotations

import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) or tighten an existing one (made by an older version) to the owner only."""
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(folder.stat().st_mode) != FOLDER_MODE:
        folder.chmod(FOLDER_MODE)
