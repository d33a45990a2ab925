"""Chromium's processes for a profile: waited for by their exit, killed after the grace period, never left behind."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from app.browser.processes import kill_profile_processes, profile_pids
from tests.waiting import finishes, until


def _stand_in(profile: Path, code: str) -> subprocess.Popen[bytes]:
    # A process whose command line names the profile the way Chromium's does.
    return subprocess.Popen([sys.executable, "-c", code, f"--user-data-dir={profile}"])


def _rewritten(command_line: str) -> subprocess.Popen[bytes]:
    # A process whose command line is one string, as a running Chromium rewrites its own.
    return subprocess.Popen([command_line, "-c", "import time; time.sleep(60)"], executable=sys.executable)


async def _until_listed(profile: Path) -> list[int]:
    return await until(lambda: profile_pids(profile), message="the stand-in listed")


async def test_a_process_that_rewrote_its_command_line_as_chromium_does_is_found(tmp_path: Path) -> None:
    # Running Chromium rewrites its command line into one string (arguments joined by spaces): the flag is still found,
    # and a profile whose path only begins like this one's is not.
    rewritten = _rewritten(f"chromium --type=zygote --user-data-dir={tmp_path} --no-first-run")
    lookalike = _rewritten(f"chromium --user-data-dir={tmp_path.parent / (tmp_path.name + '-other')}")
    try:
        assert await _until_listed(tmp_path) == [rewritten.pid]
    finally:
        for process in (rewritten, lookalike):
            process.kill()
            process.wait()


async def test_a_process_that_exits_ends_the_wait_early(tmp_path: Path) -> None:
    quitting = _stand_in(tmp_path, "import time; time.sleep(0.5)")
    try:
        assert await _until_listed(tmp_path) == [quitting.pid]
        # Woken by the exit, not by the end of the minute's grace period.
        assert await finishes(kill_profile_processes(tmp_path, grace=60), 20, "the wait's end at the exit") == []
    finally:
        quitting.kill()
        quitting.wait()


async def test_a_process_that_stays_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    staying = _stand_in(tmp_path, "import time; time.sleep(60)")
    try:
        assert await _until_listed(tmp_path) == [staying.pid]
        assert await kill_profile_processes(tmp_path, grace=0.3) == [staying.pid]
        assert await asyncio.to_thread(staying.wait, 10) == -9
    finally:
        staying.kill()
        staying.wait()


async def test_nothing_to_wait_for(tmp_path: Path) -> None:
    assert await kill_profile_processes(tmp_path, grace=20) == []
