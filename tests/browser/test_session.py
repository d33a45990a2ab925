"""Launching, attaching, noticing a closed browser, and never leaving a Chromium process behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal as signals
from pathlib import Path

import pytest

from app.browser.chromium import ChromiumNotFoundError, find_chromium
from app.browser.controller import PlaywrightPageController
from app.browser.processes import profile_pids
from app.browser.session import BrowserSession, LaunchOptions
from app.core.abort import AbortSignal
from app.core.errors import BrowserClosedError


async def test_close_leaves_no_chromium_process(launch_options: LaunchOptions) -> None:
    session = await BrowserSession.launch(launch_options)
    assert await profile_pids(launch_options.profile_dir)
    await session.close()
    assert await profile_pids(launch_options.profile_dir) == []
    assert not session.is_connected
    await session.close()  # idempotent


async def test_the_user_closing_the_browser_is_noticed(launch_options: LaunchOptions) -> None:
    session = await BrowserSession.launch(launch_options)
    controller = PlaywrightPageController(session)
    closed = asyncio.Event()
    session.on_closed(closed.set)
    try:
        cdp = await session.context.browser.new_browser_cdp_session()  # type: ignore[union-attr]
        await cdp.send("Browser.close")
        await asyncio.wait_for(closed.wait(), 10)
        assert not session.is_connected
        with pytest.raises(BrowserClosedError):
            await controller.get_browser_state(AbortSignal())
    finally:
        await session.close()
    assert await profile_pids(launch_options.profile_dir) == []


async def test_window_size_and_headed_options_reach_chromium(launch_options: LaunchOptions) -> None:
    options = launch_options.model_copy(update={"viewport": (900, 600)})
    session = await BrowserSession.launch(options)
    try:
        size = await session.active_page.evaluate("[innerWidth, innerHeight]")
        assert size == [900, 600]
    finally:
        await session.close()


async def test_attach_over_cdp_works_in_the_active_tab_and_leaves_the_browser_running(
    tmp_path: Path, site: str
) -> None:
    executable = await find_chromium()
    process = await asyncio.create_subprocess_exec(
        executable,
        "--headless=new",
        "--no-sandbox",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--remote-debugging-port=0",
        f"--user-data-dir={tmp_path / 'external'}",
        f"{site}/form.html",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        endpoint = await asyncio.wait_for(_devtools_endpoint(process), 20)
        session = await BrowserSession.attach(endpoint, downloads_dir=tmp_path / "downloads")
        controller = PlaywrightPageController(session)
        state = await controller.get_browser_state(AbortSignal())
        assert state.title == "New customer"
        await session.close()
        # Still running, and still answering: attached again, it shows the same page.
        again = await BrowserSession.attach(endpoint, downloads_dir=tmp_path / "downloads")
        assert await PlaywrightPageController(again).get_browser_state(AbortSignal())
        await again.close()
        assert process.returncode is None
        assert await profile_pids(tmp_path / "external")
    finally:
        if process.returncode is None:
            os.kill(process.pid, signals.SIGTERM)
            await process.wait()


async def _devtools_endpoint(process: asyncio.subprocess.Process) -> str:
    assert process.stderr is not None
    while line := await process.stderr.readline():
        match = re.search(rb"DevTools listening on (ws://\S+)", line)
        if match:
            return match.group(1).decode()
    raise AssertionError("Chromium printed no DevTools endpoint")


async def test_a_configured_browser_that_does_not_exist_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ChromiumNotFoundError, match="does not exist or cannot be run"):
        await find_chromium(str(tmp_path / "no-chrome"))


async def test_chromium_is_found_without_configuration() -> None:
    assert os.access(await find_chromium(), os.X_OK)
