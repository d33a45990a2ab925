"""The panel on the real Runtime: headless Chromium and the fake model endpoint, end to end."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from app.runtime import Runtime, RuntimeOptions
from app.settings.model import Settings
from app.settings.paths import AppPaths
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.timeline.model import Kind
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import settle

PAGE = "data:text/html,<title>Shop</title><h1>Blue mug</h1><button>Add to cart</button>"


async def test_a_run_in_headless_chromium(qapp: QApplication, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    settings = Settings(base_url=llm_server.base_url, model="fake-model", max_steps=5)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    runtime = Runtime(settings, paths, RuntimeOptions(headless=True), api_key="sk-test")
    window = MainWindow(runtime)
    window.show()
    llm_server.add(
        tool_reply({"go_to_url": {"url": PAGE}}, next_goal="Open the shop page"),
        done_reply("The page shows a blue mug.", success=True),
    )
    try:
        window.composer.input.setPlainText("What product does the page show?")
        window.composer.run.click()
        await settle(window, timeout=60)
        assert window.pill.state is PillState.SUCCESS, window.model.last_result()
        assert [item.kind for item in window.model.items][-1] is Kind.RESULT
        assert "Blue mug" in llm_server.user_message(1)  # the second step saw the real page
    finally:
        await runtime.shutdown()
        window.close()
