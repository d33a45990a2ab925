"""Chromium processes started for one profile, found through /proc so a crashed close never leaves one behind."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

_PROC = Path("/proc")


def _profile_pids(profile_dir: Path) -> list[int]:
    # The flag is how Chromium (browser and every helper process) records its profile on the command line.
    needle = f"--user-data-dir={profile_dir}".encode()
    pids = []
    if not _PROC.is_dir():
        return pids
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline.split(b"\0"):
            pids.append(int(entry.name))
    return pids


async def profile_pids(profile_dir: Path) -> list[int]:
    """Pids of live processes running with this profile (Linux; empty elsewhere)."""
    return await asyncio.to_thread(_profile_pids, profile_dir.resolve())


async def kill_profile_processes(profile_dir: Path, grace: float = 3.0) -> list[int]:
    """Wait up to ``grace`` seconds for the profile's processes to exit, then SIGKILL the rest; returns those."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while (pids := await profile_pids(profile_dir)) and loop.time() < deadline:
        await asyncio.sleep(0.1)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return pids
