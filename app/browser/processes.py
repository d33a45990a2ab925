"""Chromium processes started for one profile, found through /proc so a crashed close never leaves one behind."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

_PROC = Path("/proc")


def _names(cmdline: bytes, needle: bytes) -> bool:
    """Whether a command line has ``needle`` as one of its arguments: as they were passed (NUL-separated), or as
    Chromium rewrites them once running (one string, arguments separated by spaces)."""
    return any(
        arg == needle or arg.startswith(needle + b" ") or (b" " + needle + b" ") in arg + b" "
        for arg in cmdline.split(b"\0")
    )


def _profile_pids(profile_dir: Path) -> list[int]:
    # The flag is how Chromium (browser and every helper process) records its profile on the command line.
    needle = f"--user-data-dir={profile_dir}".encode()
    pids: list[int] = []
    if not _PROC.is_dir():
        return pids
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if _names(cmdline, needle):
            pids.append(int(entry.name))
    return pids


def runs_profile(pid: int, profile_dir: Path) -> bool:
    """Whether process ``pid`` is one of Chromium's processes for ``profile_dir`` (resolved) (Linux; False elsewhere):
    one small read of /proc, quick enough for the event loop."""
    try:
        cmdline = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False
    return _names(cmdline, f"--user-data-dir={profile_dir}".encode())


async def profile_pids(profile_dir: Path) -> list[int]:
    """Pids of live processes running with this profile (Linux; empty elsewhere)."""
    return await asyncio.to_thread(lambda: _profile_pids(profile_dir.resolve()))


async def kill_profile_processes(profile_dir: Path, grace: float = 3.0) -> list[int]:
    """Wait up to ``grace`` seconds for the profile's processes to exit, then SIGKILL the rest; returns those."""
    await _exited(await profile_pids(profile_dir), grace)
    pids = await profile_pids(profile_dir)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return pids


async def _exited(pids: list[int], timeout: float) -> None:
    """Return when every one of ``pids`` has exited, or after ``timeout`` seconds.

    A pidfd becomes readable when its process exits, so the loop is woken by the exit itself rather than by polling
    /proc. Where pidfds are not available (an old kernel, a seccomp filter) the whole grace period is waited.
    """
    if not pids:
        return
    loop = asyncio.get_running_loop()
    exits: list[asyncio.Future[None]] = []
    fds: list[int] = []
    try:
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue  # already gone
            except OSError:
                await asyncio.sleep(timeout)
                return
            fds.append(fd)
            exited = loop.create_future()
            loop.add_reader(fd, _settle, exited)
            exits.append(exited)
        if exits:
            await asyncio.wait(exits, timeout=timeout)
    finally:
        for fd in fds:
            loop.remove_reader(fd)
            os.close(fd)


def _settle(exited: asyncio.Future[None]) -> None:
    if not exited.done():
        exited.set_result(None)
