"""Closing the panel: at once when idle; during a run it asks "Stop the task and quit?" without a nested loop, and
a second Ctrl+C (or SIGTERM) quits without a question."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from app.browser.processes import profile_pids
from app.settings.paths import AppPaths
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.main_window import MainWindow
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.ui.conftest import screenshot
from tests.ui.test_panel_runs import type_and_run
from tests.waiting import until


def _button(box: QMessageBox, text: str) -> QPushButton:
    button = next(b for b in box.buttons() if b.text() == text)
    assert isinstance(button, QPushButton)
    return button


async def _running(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(tool_reply({"wait": {"seconds": 1}}, delay=30), done_reply())
    type_and_run(window, "A long task")
    await until(lambda: llm_server.requests, message="the model call")


async def test_idle_closes_at_once(window: MainWindow) -> None:
    closing: list[bool] = []
    window.closing.connect(lambda: closing.append(True))
    window.close()
    assert closing and not window.isVisible() and window.quit_question is None


async def test_during_a_run_it_asks_and_keep_working_keeps_working(
    window: MainWindow, llm_server: FakeLLMServer
) -> None:
    closing: list[bool] = []
    window.closing.connect(lambda: closing.append(True))
    await _running(window, llm_server)
    window.close()
    box = window.quit_question
    assert box is not None and box.isVisible()
    assert box.text() == "Stop the task and quit?"
    assert window.isVisible() and window.busy and not closing
    screenshot(window, "close_question")
    _button(box, "Keep working").click()
    await until(lambda: window.quit_question is None, message="the question to close")
    assert window.isVisible() and window.busy and not closing

    window.close()
    box = window.quit_question
    assert box is not None
    _button(box, "Stop and quit").click()
    assert closing and not window.isVisible()


async def test_asked_twice_it_quits(window: MainWindow, llm_server: FakeLLMServer) -> None:
    closing: list[bool] = []
    window.closing.connect(lambda: closing.append(True))
    await _running(window, llm_server)
    window.close()
    assert window.quit_question is not None
    window.close()  # a second Ctrl+C while the question is open
    assert closing and not window.isVisible() and window.quit_question is None


async def _desktop_running_the_demo(paths: AppPaths) -> tuple[Desktop, asyncio.Task[int]]:
    desktop = Desktop(paths, LaunchChoices(demo=True, headless=True))
    run = asyncio.ensure_future(desktop.run())
    await until(
        lambda: (
            desktop.window is not None and desktop.runtime is not None and desktop.runtime.page_url().startswith("http")
        ),
        timeout=30,
        message="the demo site",
    )
    window = desktop.window
    assert window is not None
    window.composer.run.click()
    await until(lambda: window.busy and window.bridge.agent is not None, timeout=30, message="the demo running")
    return desktop, run


async def test_ctrl_c_twice_quits_during_a_run(
    qapp: QApplication, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    desktop, run = await _desktop_running_the_demo(paths)
    assert desktop.window is not None
    desktop.close()  # Ctrl+C: the question
    assert desktop.window.quit_question is not None and not run.done()
    desktop.close()  # Ctrl+C again: quit
    assert await asyncio.wait_for(run, 30) == 0
    assert await profile_pids(paths.profile_dir) == []


async def test_sigterm_quits_without_a_question(
    qapp: QApplication, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    desktop, run = await _desktop_running_the_demo(paths)
    assert desktop.window is not None
    desktop.close(force=True)
    assert desktop.window.quit_question is None
    assert await asyncio.wait_for(run, 30) == 0
    assert await profile_pids(paths.profile_dir) == []
