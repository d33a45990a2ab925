"""Which local files the agent may upload: only from folders the user allowed, or files the user named in the task.

Every path is resolved first (``~``, ``..``, symlinks) and judged as the real file it names: a link inside an allowed
folder that points at ~/.ssh/id_rsa is judged as ~/.ssh/id_rsa. ``check`` reads the filesystem (resolving, stat), so
callers run it off the event loop.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from app.core.page import ToolError

# Kernel views of the running system (/proc/self/environ holds this process's API keys), never a user's document.
_SYSTEM_DIRS = (Path("/proc"), Path("/sys"), Path("/dev"))

# Quotes a person may put around a path that has spaces in it: opening -> closing.
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』", "《": "》"}
_QUOTED = [
    re.compile(re.escape(open_) + r"(~?/[^" + re.escape(close) + r"\n]+)" + re.escape(close))
    for open_, close in _QUOTES.items()
]
# An unquoted path starts after white space or an opening bracket (never inside a word or a URL) and runs up to white
# space, a quote or full-width punctuation, none of which a file name written in a task plausibly contains.
_UNQUOTED = re.compile(r"(?<![^\s(\[{<=,;，；：、（【])(~?/[^\s\"'`“”‘’「」『』《》，。；：！？、（）【】]+)")
# Sentence punctuation a person writes right after a path ("Attach ~/cv.pdf, then ...").
_TRAILING = ".,;:!?)]}>"

_SETTINGS_HINT = (
    "ask the user to add its folder in Settings → Files the agent may upload (or with --upload-dir on "
    "the command line), or to name the file in the task"
)


def named_paths(task: str) -> list[str]:
    """The absolute and ``~/`` paths the user wrote in ``task``, as written; an unquoted one also without the
    punctuation that may follow it, since "~/cv.pdf." could be either."""
    found: list[str] = [match.group(1) for pattern in _QUOTED for match in pattern.finditer(task)]
    for match in _UNQUOTED.finditer(task):
        token = match.group(1)
        while token and token not in found:
            found.append(token)
            if token[-1] not in _TRAILING:
                break
            token = token[:-1]
    return found


@dataclass(frozen=True)
class UploadPolicy:
    allowed_dirs: tuple[Path, ...] = ()
    # The app's own folders and files (profile and cookies, settings, run history, downloads, logs, a secrets file):
    # never uploadable, whatever folder holds them and whatever the task says.
    forbidden_dirs: tuple[Path, ...] = ()

    def check(self, path: str, task: str = "") -> Path:
        """The real file ``path`` names, or ToolError saying why it may not be uploaded.

        Where the file lies is judged before whether it exists, so a page cannot use refusals to learn which files
        exist outside the allowed folders.
        """
        raw = _unquote(path.strip())
        if not raw:
            raise ToolError("No file was given; pass the full path of the file to upload.")
        # A relative path is refused, not resolved: the app's working folder is wherever it happened to be started,
        # nothing the user chose, and a bare name could match a file in more than one allowed folder.
        expanded = _expand(raw)
        if expanded is None or not expanded.is_absolute():
            raise ToolError(
                f'"{raw}" is not a full path. Give the file\'s full path, starting with / or ~/. '
                + self._allowed_text()
            )
        real = _resolve(expanded)
        if real is None:
            raise ToolError(f'"{raw}" cannot be resolved to a file (a broken or looping link).')
        if _inside_any(real, _SYSTEM_DIRS):
            raise ToolError("That is a system file, not a document; it is never uploaded.")
        if _inside_any(real, self.forbidden_dirs):
            raise ToolError(
                "That file is part of Page Agent's own data (its settings, browser profile and cookies, "
                "run history, downloads or logs), which is never uploaded. Do not try again; tell the "
                "user which file the page asked for."
            )
        if real not in _resolved(_expand(p) for p in named_paths(task)):
            self._check_allowed_folder(real)
        if not real.is_file():
            raise ToolError(f'"{raw}" does not exist or is not a file; give the full path of an existing file.')
        return real

    def _check_allowed_folder(self, real: Path) -> None:
        folder = next(
            (d for d in _resolved(_expand(str(d)) for d in self.allowed_dirs) if d == real or d in real.parents), None
        )
        if folder is None:
            if not self.allowed_dirs:
                raise ToolError(
                    "No file may be uploaded: the user allowed no folder for uploads and the task names "
                    f"no file. To upload a file, {_SETTINGS_HINT}."
                )
            raise ToolError(f"That file is not in a folder you may upload from. {self._allowed_text()}")
        # Dot-files in a folder the user allowed are mostly keys, tokens and tool settings (.env, .git/config,
        # .ssh/...), rarely what the user meant to hand a web page.
        if any(part.startswith(".") for part in real.relative_to(folder).parts):
            raise ToolError(
                "That file is hidden (its name or a folder on its path starts with a dot); hidden files "
                "are uploaded only when the user names them in the task."
            )

    def _allowed_text(self) -> str:
        if not self.allowed_dirs:
            return f"No folder is allowed for uploads; {_SETTINGS_HINT}."
        folders = ", ".join(str(d) for d in self.allowed_dirs)
        return f"Allowed folders: {folders}. Use a file from one of them, or {_SETTINGS_HINT}."


def _unquote(text: str) -> str:
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def _expand(text: str) -> Path | None:
    try:
        return Path(text).expanduser()
    except RuntimeError:  # ~someone who has no home folder here
        return None


def _resolve(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL byte
        return None


def _resolved(paths: Iterable[Path | None]) -> set[Path]:
    return {real for path in paths if path is not None and path.is_absolute() and (real := _resolve(path))}


def _inside_any(real: Path, folders: Iterable[Path]) -> bool:
    """Whether ``real`` is one of ``folders`` or inside one, by the folder's path as given and as resolved."""
    for folder in folders:
        expanded = _expand(str(folder))
        if expanded is None:
            continue
        for form in {Path(os.path.abspath(expanded)), _resolve(expanded)}:
            if form is not None and (real == form or form in real.parents):
                return True
    return False


def folder_clash(folder: Path, own: Iterable[Path]) -> Path | None:
    """The app's own folder that ``folder`` is, lies inside or contains (all resolved), if any: such a folder can
    never be one the agent uploads from."""
    return next((mine for mine in own if folder.is_relative_to(mine) or mine.is_relative_to(folder)), None)
