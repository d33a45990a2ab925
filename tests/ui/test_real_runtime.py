"""The panel on the real Runtime: headless Chromium and the fake model endpoint, end to end."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.browser.processes import profile_pids
from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import NoticeItem, ResultItem, plain_text
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import screenshot, settle
from tests.waiting import until

# go_to_url opens web pages only: the shop is served by the test server (tests/pages/shop.html).
PAGE = "/shop.html"


async def test_a_run_in_headless_chromium(
    qapp: QApplication, llm_server: FakeLLMServer, tmp_path: Path, site: str
) -> None:
    settings = Settings(base_url=llm_server.base_url, model="fake-model", max_steps=5)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    runtime = Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")
    window = MainWindow(runtime)
    window.show()
    llm_server.add(
        tool_reply({"go_to_url": {"url": site + PAGE}}, next_goal="Open the shop page"),
        done_reply("The page shows a blue mug.", success=True),
    )
    try:
        window.composer.input.setPlainText("What product does the page show?")
        window.composer.run.click()
        await settle(window, timeout=60)
        assert window.pill.state is PillState.SUCCESS, window.model.last_result()
        assert isinstance(window.model.items[-1], ResultItem)
        assert "Blue mug" in llm_server.user_message(1)  # the second step saw the real page
    finally:
        await runtime.shutdown()
        window.close()


async def test_chromium_closed_mid_run_ends_clearly_and_the_next_task_relaunches_it(
    qapp: QApplication, llm_server: FakeLLMServer, tmp_path: Path, site: str
) -> None:
    settings = Settings(base_url=llm_server.base_url, model="fake-model", max_steps=5)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    runtime = Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")
    window = MainWindow(runtime)
    window.show()
    llm_server.add(tool_reply({"go_to_url": {"url": site + PAGE}}, delay=3.0), done_reply("The mug is blue."))
    try:
        window.composer.input.setPlainText("What product does the page show?")
        window.composer.run.click()
        await until(lambda: bool(llm_server.requests), timeout=30, message="the first model call")
        # The user closes the browser window while the agent is thinking.
        for pid in await profile_pids(paths.profile_dir):
            with contextlib.suppress(ProcessLookupError):  # gone already, with the process it belonged to
                os.kill(pid, signal.SIGTERM)
        await settle(window, timeout=30)
        assert window.pill.state is PillState.ERROR
        result = window.model.last_result()
        assert result is not None and "browser was closed" in result.text.lower()
        # Said once: no error card above the result, and the notice only says what comes next.
        texts = [plain_text(item) for item in window.model.items]
        assert sum("browser was closed" in text.lower() for text in texts) == 1
        last = window.model.items[-1]
        assert isinstance(last, NoticeItem) and last.text == "Your next task opens the browser again."
        assert window.pill.text() == "The browser was closed"
        # Nothing to continue in: the next task is a new one (it opens the browser again).
        assert window.composer.mode is ComposerMode.NEW and window.composer.input.isEnabled()
        screenshot(window, "browser_closed")

        window.composer.input.setPlainText("What product does the page show?")
        window.composer.run.click()
        await settle(window, timeout=60)
        assert window.pill.state is PillState.SUCCESS, window.model.last_result()
        assert await profile_pids(paths.profile_dir)  # a new Chromium
    finally:
        await runtime.shutdown()
        assert await profile_pids(paths.profile_dir) == []
        window.close()
