"""Downloading a browser for the app when the computer has none: Playwright's own ``install chromium``, run with the
driver bundled with the app, into the app's data folder (app/browser/discovery.py looks there first among
Playwright's folders).

The driver prints its progress as lines ending in "NN% of SIZE"; that percentage is read as the progress. A cancel
ends the driver and its download process, and removes what was half written, so nothing half-installed remains.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.browser.discovery import INSTALL_MARKER, browsers_dir

log = logging.getLogger(__name__)

_PERCENT = re.compile(rb"(\d{1,3})% of ")
_STOP_DEADLINE = 5.0
_KEPT_LINES = 20


class InstallOutcome(StrEnum):
    INSTALLED = "installed"
    FAILED = "failed"
    CANCELLED = "cancelled"  # what the panel makes of a cancelled install task


@dataclass(frozen=True)
class InstallResult:
    outcome: InstallOutcome
    detail: str = ""  # for FAILED: the driver's last words, to show and to log


def driver_install_command() -> list[str]:
    """The bundled driver's ``install chromium`` (the full browser; the panel shows its window)."""
    from playwright._impl._driver import compute_driver_executable

    node, cli = compute_driver_executable()
    return [node, cli, "install", "chromium", "--no-shell"]


def install_env(data_dir: Path) -> dict[str, str]:
    from playwright._impl._driver import get_driver_env

    env: dict[str, str] = get_driver_env()
    env["PLAYWRIGHT_BROWSERS_PATH"] = str(browsers_dir(data_dir))
    env.pop("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", None)
    return env


async def install_browser(
    data_dir: Path,
    progress: Callable[[int], None],
    *,
    command: Sequence[str] | None = None,
    env: dict[str, str] | None = None,
) -> InstallResult:
    """Run the install; ``progress(percent)`` as the download goes. Cancelling the task ends the install: the
    cancellation goes on once the process is gone and what it half wrote is removed.

    ``command``/``env``: the driver's by default (tests give a fake driver)."""
    target = browsers_dir(data_dir)
    await asyncio.to_thread(target.mkdir, parents=True, exist_ok=True)
    argv = list(command) if command is not None else await asyncio.to_thread(driver_install_command)
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env if env is not None else install_env(data_dir),
        # Its own process group: a cancel ends the download process the driver forks, too.
        start_new_session=sys.platform != "win32",
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        last = -1
        async for raw in process.stdout:
            text = raw.decode("utf-8", "replace").strip()
            if text:
                lines = [*lines[-_KEPT_LINES + 1 :], text]
            found = _PERCENT.search(raw)
            if found and int(found.group(1)) != last:
                last = min(int(found.group(1)), 100)
                progress(last)
        code = await process.wait()
    except asyncio.CancelledError:
        await _end(process)
        await asyncio.to_thread(remove_unfinished, target)
        log.info("browser download cancelled")
        raise
    if code != 0:
        await asyncio.to_thread(remove_unfinished, target)
        log.warning("browser download failed (exit %s): %s", code, " | ".join(lines))
        return InstallResult(InstallOutcome.FAILED, _reason(lines, code))
    log.info("browser downloaded into %s", target)
    return InstallResult(InstallOutcome.INSTALLED)


def remove_unfinished(target: Path) -> None:
    """Browser folders without Playwright's completion marker: a download that did not finish."""
    for folder in target.glob("*-*") if target.is_dir() else ():
        if folder.is_dir() and not (folder / INSTALL_MARKER).exists():
            shutil.rmtree(folder, ignore_errors=True)


async def _end(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        if sys.platform == "win32":
            process.kill()
        else:
            os.killpg(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), _STOP_DEADLINE)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            if sys.platform == "win32":
                process.kill()
            else:
                os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


def _reason(lines: list[str], code: int) -> str:
    """The driver's own last error line, without its decorations; else the exit code."""
    for line in reversed(lines):
        cleaned = line.strip("╔╗╚╝║═ ").strip()
        if cleaned and not _PERCENT.search(cleaned.encode()):
            return cleaned
    return f"the download ended with code {code}"
