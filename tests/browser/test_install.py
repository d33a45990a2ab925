"""“Download a browser”: the bundled driver's install run into the app's data folder, with progress, a failure in
plain words and a cancel that leaves nothing behind. A fake driver stands in for the download (tests/fakes)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.browser.chromium import locate
from app.browser.discovery import BrowserKind, FoundBrowser, Host, discover
from app.browser.install import (
    InstallOutcome,
    driver_install_command,
    install_browser,
    install_env,
)
from tests.browser.test_discovery import RealFilesUnder
from tests.waiting import until

FAKE_DRIVER = Path(__file__).resolve().parents[1] / "fakes" / "browser_driver.py"


def fake(mode: str) -> list[str]:
    return [sys.executable, str(FAKE_DRIVER), mode]


def only_downloaded(data_dir: Path) -> FoundBrowser | None:
    """What discovery finds in the data folder alone (this machine's own browsers left out)."""
    return discover(Host("linux", {}, str(data_dir / "home"), str(data_dir), RealFilesUnder(data_dir)))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by its parent) counts as gone.
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] if Path(f"/proc/{pid}").exists() else "X"
    return state not in ("Z", "X")


async def test_a_download_reports_its_progress_and_the_browser_is_found_afterwards(tmp_path: Path) -> None:
    seen: list[int] = []
    result = await install_browser(tmp_path, seen.append, command=fake("ok"), env=install_env(tmp_path))
    assert result.outcome is InstallOutcome.INSTALLED
    assert seen == list(range(0, 101, 10))
    chrome = tmp_path / "browsers" / "chromium-1255" / "chrome-linux64" / "chrome"
    assert only_downloaded(tmp_path) == FoundBrowser(str(chrome), BrowserKind.DOWNLOADED)


async def test_a_failed_download_says_why_and_keeps_nothing(tmp_path: Path) -> None:
    seen: list[int] = []
    result = await install_browser(tmp_path, seen.append, command=fake("fail"), env=install_env(tmp_path))
    assert result.outcome is InstallOutcome.FAILED
    assert result.detail == "Error: getaddrinfo ENOTFOUND cdn.invalid"
    assert seen == [0, 10, 20, 30]
    assert list((tmp_path / "browsers").iterdir()) == []
    assert only_downloaded(tmp_path) is None


async def test_cancel_ends_the_driver_and_its_download_process_and_removes_the_half_download(tmp_path: Path) -> None:
    seen: list[int] = []
    task = asyncio.ensure_future(
        install_browser(tmp_path, seen.append, command=fake("hang"), env=install_env(tmp_path))
    )
    pids_file = tmp_path / "driver-pids"
    await until(pids_file.exists, timeout=20, message="the fake driver's download process")
    driver, download = (int(pid) for pid in pids_file.read_text().split())
    # The progress it printed before is read from its output on the loop: it may come just after the file.
    await until(lambda: seen == [0, 10, 20], timeout=20, message=f"the progress so far (got {seen})")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not alive(download), timeout=10, message="the download process to end")
    assert not alive(driver)
    assert list((tmp_path / "browsers").iterdir()) == []


def test_the_real_driver_command_runs_the_bundled_driver_into_the_data_folder(tmp_path: Path) -> None:
    """--dry-run: the driver says where it would install, without the network."""
    command = [*driver_install_command(), "--dry-run"]
    done = subprocess.run(command, env=install_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"Install location:    {tmp_path / 'browsers' / 'chromium-'}" in done.stdout
    assert "headless" not in done.stdout.lower()  # the full browser only: the panel shows its window


def test_a_browser_set_in_settings_still_wins_over_a_downloaded_one(tmp_path: Path) -> None:
    asyncio.run(install_browser(tmp_path, lambda _p: None, command=fake("ok"), env=install_env(tmp_path)))
    mine = tmp_path / "mine"
    mine.write_text("#!/bin/sh\n")
    mine.chmod(0o755)
    assert locate(str(mine), tmp_path).kind is BrowserKind.CONFIGURED
