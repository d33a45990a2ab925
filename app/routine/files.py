"""Opening the files a routine touches: its rows (read), its state (read and written). Only regular files: a named
pipe would block the read until someone writes to it, and a device (/dev/zero) never ends, so both are refused
before a byte is read. The state, which the app names itself beside the results, is never reached through a link
(a link planted there would have the app write into whatever it points to) and is the user's only (0600, whatever
the umask). Each function reads the disk: call it off the event loop."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from app.browser.private_files import FILE_MODE

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # POSIX; Windows checks the link first (there is no race-free way there)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a pipe without a writer returns at once, to be refused
_BINARY = getattr(os, "O_BINARY", 0)  # Windows


class NotAFile(ValueError):
    """``path`` is a link where none may be, or not a regular file; the message names it and says what it is."""


def kind_words(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a link"
    return "a regular file" if stat.S_ISREG(mode) else "not a file"


def read_regular(path: Path, limit: int, *, follow_links: bool = True) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (more than ``limit``: the file is too large). NotAFile for a pipe, a
    device, a folder or a socket, and for a link unless ``follow_links``; OSError when it cannot be opened."""
    if not follow_links:
        refuse_link(path)
    fd = _open(path, os.O_RDONLY | (0 if follow_links else _NOFOLLOW))
    try:
        _regular(path, fd)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(limit + 1)
    finally:
        os.close(fd)


def refuse_link(path: Path) -> None:
    """NotAFile when ``path`` is a link, or exists and is not a regular file."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise NotAFile(f"{path} is {kind_words(mode)}, not a regular file.")


def open_private(path: Path, *, create: bool = True) -> int:
    """``path`` opened read-write, never through a link, only a regular file, and made the user's only (0600):
    created so when ``create``. Its descriptor; NotAFile, FileNotFoundError (``create`` False), or OSError."""
    refuse_link(path)
    fd = _open(path, os.O_RDWR | _NOFOLLOW | (os.O_CREAT if create else 0))
    try:
        info = _regular(path, fd)
        if os.name == "posix" and stat.S_IMODE(info.st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)  # left readable by an older version
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags | _NONBLOCK | _BINARY, FILE_MODE)
    except OSError as exc:
        if flags & _NOFOLLOW and exc.errno in (errno.ELOOP, errno.EMLINK):  # a link put there since it was checked
            raise NotAFile(f"{path} is a link, not a regular file.") from None
        raise


def _regular(path: Path, fd: int) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise NotAFile(f"{path} is {kind_words(info.st_mode)}, not a regular file.")
    return info
