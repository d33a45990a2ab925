"""Playwright's driver started ahead of the browser: handed over once, and never left running when nobody took it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from app.browser.driver import DriverStart
from app.browser.session import BrowserSession, LaunchOptions
from tests.waiting import until


def _driver_pids() -> set[int]:
    """Our own Node.js driver processes (the children of this test process running Playwright's driver)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"run-driver" in cmdline:
            pids.add(int(entry.name))
    return pids


async def _until_gone(pids: set[int]) -> set[int]:
    await until(lambda: not pids & _driver_pids(), message=f"driver processes {pids} gone")
    return pids & _driver_pids()


async def _until_started(before: set[int]) -> set[int]:
    return await until(lambda: _driver_pids() - before, message="a driver process started")


async def test_a_driver_nobody_took_is_stopped() -> None:
    before = _driver_pids()
    driver = DriverStart()
    try:
        started = await _until_started(before)
        assert started, "the driver process starts without anyone asking for it"
    finally:
        await driver.close()
    assert await _until_gone(started) == set()


async def test_a_driver_closed_while_it_starts_is_stopped_once_up() -> None:
    before = _driver_pids()
    driver = DriverStart()
    taking = asyncio.ensure_future(driver.take())
    await asyncio.sleep(0)
    taking.cancel()  # a Ctrl+C while the driver boots
    await asyncio.gather(taking, return_exceptions=True)
    try:
        started = await _until_started(before)
        assert started
    finally:
        await driver.close()
    assert await _until_gone(started) == set()


async def test_the_session_takes_the_started_driver_once(tmp_path: Path) -> None:
    before = _driver_pids()
    driver = DriverStart()
    try:
        playwright = await driver.take()
        assert playwright is not None
        assert await driver.take() is None  # a relaunch starts a driver of its own
        session = await BrowserSession.launch(
            LaunchOptions(profile_dir=tmp_path / "profile", headless=True), playwright=playwright
        )
        assert len(_driver_pids() - before) == 1  # no second driver was started
        await session.close()
    finally:
        await driver.close()  # taken: a no-op
    assert await _until_gone(_driver_pids() - before) == set()
