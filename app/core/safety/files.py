"""Which local files the agent may upload: only from folders the user allowed, or files the task asks to upload.

A path written in the task counts only where the task asks to upload it ("attach ~/cv.pdf"), not where it merely
mentions it ("what does the help page say about ~/.ssh/id_rsa"), nor where it says not to. A hidden or key-like
file (a dot-file, an SSH or TLS key, a keystore, a credentials file) always needs the person's OK (``sensitive``).

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

from app.core.errors import ToolError

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


# Words that ask for a file to go into a form, in the languages of risky_words.py; and a negation just before them.
_UPLOAD_VERB = re.compile(
    r"\b(?:upload\w*|attach\w*|submit\w*|send|sending|add|use|using|choose|select|pick|provide|include|put|"
    r"joindre|joignez|téléverse\w*|hochladen|anhängen|subir|sube|adjunt\w*|anex\w*|envi\w*|carica\w*|allega\w*|"
    r"прикреп\w*|загруз\w*)\b|上传|附上|附件|添加|提交|アップロード|添付|업로드|첨부",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"(?:\b(?:not|never|no|don't|dont|without|ne|pas|nicht|kein\w*|nunca|não|non|не)\b|不要|别|勿|不)(?:\W+\w+){0,2}\W*$",
    re.IGNORECASE,
)
# Where a sentence ends: its punctuation followed by a space or the end (a path's own dots are not followed by one).
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|[。！？；\n]")
# Files that hold keys and credentials, whatever folder they are in.
_KEY_LIKE = re.compile(
    r"^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.*\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ppk|gpg|asc|ovpn)|"
    r"credentials(?:\.\w+)?|wallet\.dat|\.?(?:env|netrc|npmrc|pypirc|pgpass|git-credentials)(?:\.\w+)?)$",
    re.IGNORECASE,
)


def upload_paths(task: str) -> list[str]:
    """The paths the task asks to upload: written in a sentence that asks for an upload (not negated)."""
    asked: list[str] = []
    for path in named_paths(task):
        for at in _occurrences(task, path):
            start = max((m.end() for m in _SENTENCE_END.finditer(task, 0, at)), default=0)
            end = next((m.start() for m in _SENTENCE_END.finditer(task, at + len(path))), len(task))
            sentence = task[start:at] + " " + task[at + len(path) : end]
            if any(not _NEGATED.search(sentence[: verb.start()]) for verb in _UPLOAD_VERB.finditer(sentence)):
                asked.append(path)
                break
    return asked


def _occurrences(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def sensitive(real: Path) -> bool:
    """A hidden file (a dot on its path) or one whose name says it holds a key or credentials."""
    return any(part.startswith(".") for part in real.parts) or _KEY_LIKE.match(real.name) is not None


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
        if real not in _resolved(_expand(p) for p in upload_paths(task)):
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
