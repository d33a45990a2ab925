"""UI test plumbing: async tests run on qasync's loop (Qt and asyncio together, as in the app), and a small
runtime host builds real agents on the fake model server and a fake page."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import qasync
from pydantic import SecretStr
from PySide6.QtWidgets import QApplication, QWidget

from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.safety.guardrails import Guardrails
from app.core.safety.risky import ConfirmHandler
from app.core.safety.secrets import SecretVault
from app.core.tools.base import AskUserHandler
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from app.settings.model import Settings
from app.ui.main_window import MainWindow
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.page import FakePage

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "ui"


def _qasync_loop() -> qasync.QEventLoop:
    app = QApplication.instance() or QApplication([])
    return qasync.QEventLoop(app)


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": _qasync_loop}


class TestRuntime:
    """The Runtime's interface over a real Agent, the fake model endpoint and a FakePage (no Chromium)."""

    __test__ = False  # not a test class, whatever its name says

    def __init__(self, server: FakeLLMServer, *, demo: bool = False, max_steps: int = 40) -> None:
        self.settings = Settings(base_url=server.base_url, model="fake-model", max_steps=max_steps)
        self.demo = demo
        self.page = FakePage()
        self.secrets = SecretVault()  # the agent's, as the real runtime builds it from the settings
        self._server = server
        self._ask_user: AskUserHandler | None = None
        self._confirm: ConfirmHandler | None = None
        self._closed: list[Callable[[], None]] = []
        self._stop_pressed: list[Callable[[], None]] = []
        self._panel_asked: list[Callable[[], None]] = []
        self._agent: Agent | None = None
        self._client: OpenAICompatibleClient | None = None
        self.agent_calls = 0

    async def agent(self, *, new_task: bool = False) -> Agent:
        self.agent_calls += 1
        if self._agent is None:
            self._client = OpenAICompatibleClient(
                LLMSettings(
                    base_url=self._server.base_url,
                    api_key=SecretStr("sk-test"),
                    model="fake-model",
                    retry_base_delay=0.01,
                )
            )
            self._agent = Agent(
                self._client,
                self.page,
                AgentConfig(max_steps=self.settings.max_steps),
                ask_user=self._ask_user,
                guardrails=Guardrails(secrets=self.secrets, confirm=self._confirm),
            )
        return self._agent

    def set_ask_user(self, handler: AskUserHandler | None) -> None:
        self._ask_user = handler

    def set_confirm(self, handler: ConfirmHandler | None) -> None:
        self._confirm = handler

    def on_browser_closed(self, callback: Callable[[], None]) -> None:
        self._closed.append(callback)

    def close_browser(self) -> None:
        for callback in self._closed:
            callback()

    def on_stop_requested(self, callback: Callable[[], None]) -> None:
        self._stop_pressed.append(callback)

    def on_panel_requested(self, callback: Callable[[], None]) -> None:
        self._panel_asked.append(callback)

    def press_show_panel_in_browser(self) -> None:
        """What the in-Chromium bar does when, while the run waits for the person, they press "Show the panel"."""
        for callback in self._panel_asked:
            callback()

    def press_stop_in_browser(self) -> None:
        """What the in-Chromium bar does when the user presses its Stop or Esc (app/browser/stop_bar.py)."""
        for callback in self._stop_pressed:
            callback()

    async def apply_settings(self, settings: Settings, api_key: str | None) -> None:
        self.settings = settings
        await self._drop()

    async def shutdown(self) -> None:
        await self._drop()

    async def _drop(self) -> None:
        if self._agent is not None:
            await self._agent.dispose()
            self._agent = None
        if self._client is not None:
            await self._client.close()
            self._client = None


@pytest.fixture
async def runtime(llm_server: FakeLLMServer) -> AsyncIterator[TestRuntime]:
    host = TestRuntime(llm_server)
    yield host
    await host.shutdown()


@pytest.fixture
async def window(qapp: QApplication, runtime: TestRuntime) -> AsyncIterator[MainWindow]:
    win = MainWindow(runtime)
    win.resize(420, 820)
    win.show()
    yield win
    if win.busy:
        win.stop()
        await settle(win)
    await runtime.shutdown()
    win.close()
    win.deleteLater()


async def settle(win: MainWindow, timeout: float = 10.0) -> None:
    """Wait until the current run has ended and the panel shows its outcome."""
    task = win.current_run
    if task is not None:
        await asyncio.wait_for(asyncio.shield(task), timeout)


def lay_out(root: QWidget) -> None:
    """Apply the pending layout changes of ``root`` and everything in it, now.

    An async test must not call ``processEvents()``: on qasync's loop that runs the loop's callbacks inside the
    test's own task, and a task woken there is never woken again (the run it drives then hangs)."""
    for widget in [root, *root.findChildren(QWidget)]:
        layout = widget.layout()
        if layout is not None:
            layout.activate()


def screenshot(win: MainWindow, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    win.grab().save(str(path))
    return path
