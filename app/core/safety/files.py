"""Which local files the agent may upload: only from folders the user allowed (or files the task named)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class UploadPolicy:
    allowed_dirs: tuple[Path, ...] = ()
    # The app's own folders (profile, settings, history, logs, downloads): never uploadable.
    forbidden_dirs: tuple[Path, ...] = ()

    def check(self, path: str, task: str = "") -> Path:
        """The resolved file ``path`` names, or ToolError saying why it may not be uploaded."""
        # SKELETON: filled in by the files work (issue 8, item 4).
        return Path(path).expanduser()
