"""The composition root end to end: startup choices (demo or model, first-run settings), a run saved to history and
reopened, settings applied, and a shutdown that leaves no Chromium behind. Real headless Chromium throughout."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from app.browser.processes import profile_pids
from app.core.types import HandOffActivity
from app.history.store import RunStore
from app.settings.model import Settings, load_settings, save_settings
from app.settings.paths import AppPaths
from app.ui import desktop as desktop_module
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.history_view import HistoryDialog
from app.ui.main_window import MainWindow
from app.ui.saved_run_window import SavedRunWindow
from app.ui.settings_dialog import SettingsDialog
from app.ui.status_pill import PillState
from app.ui.timeline.items import ResultItem, TaskItem
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.ui.conftest import screenshot, settle
from tests.waiting import until

# go_to_url opens web pages only: the shop is served by the test server (tests/pages/shop.html).
PAGE = "/shop.html"


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


@pytest.fixture
async def desktops(qapp: QApplication) -> AsyncIterator[list[Desktop]]:
    qapp.setQuitOnLastWindowClosed(False)
    started: list[Desktop] = []
    yield started
    for desktop in started:
        if desktop.window is not None:
            desktop.window.close()
        await desktop.shutdown()


def _dialog(kind: type[QDialog]) -> QDialog | None:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)


async def test_without_a_key_the_panel_opens_in_demo_mode_and_explains(
    desktops: list[Desktop], paths: AppPaths, memory_keyring: MemoryKeyring
) -> None:
    desktop = Desktop(paths, LaunchChoices(headless=True))
    desktops.append(desktop)
    window = await desktop.start()
    assert desktop.runtime is not None and desktop.runtime.demo
    assert window.demo_banner.isVisible()
    assert "Acme CRM" in window.composer.input.toPlainText()  # the demo's task, ready to run
    await until(lambda: _dialog(SettingsDialog) is not None, message="first-run settings")
    dialog = _dialog(SettingsDialog)
    assert isinstance(dialog, SettingsDialog) and dialog.demo_button is not None  # the welcome offers the demo
    dialog.demo_button.click()
    await until(lambda: _dialog(SettingsDialog) is None)
    assert desktop.runtime.demo
    # Chromium opened with the panel, on the local demo site.
    await until(
        lambda: desktop.runtime is not None and desktop.runtime.page_url().startswith("http://127.0.0.1"),
        timeout=30,
        message="the demo site in Chromium",
    )


async def test_the_panel_shows_at_once_and_says_the_browser_is_starting(
    desktops: list[Desktop], paths: AppPaths, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The keyring is slow to answer the first time: the panel is on screen meanwhile, and a task waits for the key.
    release = threading.Event()

    def slow_key(_provider: str) -> str | None:
        release.wait(30)
        return None

    monkeypatch.setattr(desktop_module, "get_api_key", slow_key)
    desktop = Desktop(paths, LaunchChoices(demo=True, headless=True))
    desktops.append(desktop)
    starting = asyncio.ensure_future(desktop.start())
    await until(lambda: desktop.window is not None and desktop.window.isVisible(), message="the panel on screen")
    window = desktop.window
    assert window is not None and not starting.done()  # shown before the key was read
    assert window.pill.state is PillState.OPENING and window.pill.text() == "Starting the browser…"
    window.composer.run.click()  # the demo's task, run at once: it waits for the key, then for Chromium
    await asyncio.sleep(0)
    assert desktop.runtime is not None and desktop.runtime.active_page is None
    release.set()
    await asyncio.wait_for(starting, 30)
    await until(lambda: window.pill.state is PillState.RUNNING, timeout=60, message="the task running")
    window.stop()
    await settle(window, timeout=30)
    assert window.pill.state is PillState.STOPPED


async def test_asked_for_demo_skips_the_first_run_screen(
    desktops: list[Desktop], paths: AppPaths, memory_keyring: MemoryKeyring
) -> None:
    desktop = Desktop(paths, LaunchChoices(demo=True, headless=True))
    desktops.append(desktop)
    window = await desktop.start()
    # Started through to the demo site in Chromium, and no first-run screen on the way.
    await until(
        lambda: desktop.runtime is not None and desktop.runtime.page_url().startswith("http://127.0.0.1"),
        timeout=30,
        message="the demo site in Chromium",
    )
    assert _dialog(SettingsDialog) is None
    assert window.demo_banner.isVisible()


async def test_a_run_is_saved_and_reopens_from_history(
    desktops: list[Desktop], paths: AppPaths, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring, site: str
) -> None:
    memory_keyring.set_password("page-agent-desktop", "api-key:custom", "sk-secret-key-123")
    save_settings(
        paths.settings_file,
        Settings(provider="custom", base_url=llm_server.base_url, model="fake-model", max_steps=5, first_run_done=True),
    )
    desktop = Desktop(paths, LaunchChoices(headless=True))
    desktops.append(desktop)
    window = await desktop.start()
    assert desktop.runtime is not None and not desktop.runtime.demo
    assert not window.demo_banner.isVisible()
    llm_server.add(
        tool_reply({"go_to_url": {"url": site + PAGE}}, next_goal="Open the shop page"),
        done_reply("The page shows a blue mug.", success=True),
    )
    window.composer.input.setPlainText("What product does the page show?")
    window.composer.run.click()
    await settle(window, timeout=60)
    assert window.pill.state is PillState.SUCCESS
    assert llm_server.requests[0]["_headers"]["authorization"] == "Bearer sk-secret-key-123"

    store = RunStore(paths.runs_dir)
    await until(lambda: len(store.summaries()) == 1, message="the run on disk")
    saved = store.path_of(store.summaries()[0].id).read_text(encoding="utf-8")
    assert "blue mug" in saved and "sk-secret-key-123" not in saved

    # A second task is handed to the user (a captcha) when they open the first run from History.
    llm_server.add(tool_reply({"wait": {"seconds": 1}}, delay=30), done_reply("Exported.", success=True))
    window.composer.input.setPlainText("Export the list")
    window.composer.run.click()
    await until(lambda: len(llm_server.requests) == 3 and window.bridge.agent is not None, timeout=30)
    agent = window.bridge.agent
    assert agent is not None
    agent.pause()
    window.bridge.activity.emit(HandOffActivity(reason="Please solve the captcha."))
    assert window.handed_off
    live = window.model.items
    run = window.current_run

    window.history_button.click()
    history = _dialog(HistoryDialog)
    assert isinstance(history, HistoryDialog)
    await until(lambda: history.list.topLevelItemCount() > 0)
    # The person works in the browser now (the captcha): History opens over the panel's column, above the hand-off
    # bar, covering neither the page nor "I've done it — continue".
    assert _over_the_panel_above_its_bar(history, window)
    first = store.summaries()[-1]
    assert first.title == "What product does the page show?"
    history.select(first.id)
    await history.open_selected()  # type: ignore[misc]
    window.history_button.click()  # and once more: the same window comes forward, no second one
    again = _dialog(HistoryDialog)
    assert isinstance(again, HistoryDialog)
    again.select(first.id)
    await again.open_selected()  # type: ignore[misc]
    [saved] = desktop.saved_runs
    assert isinstance(saved, SavedRunWindow) and saved.isVisible()
    assert saved.windowTitle().startswith("Saved run · ")
    task, *_, result = saved.model.items
    assert isinstance(task, TaskItem) and isinstance(result, ResultItem)
    assert "What product does the page show?" in task.text
    assert _over_the_panel_above_its_bar(saved, window)  # the same: the captcha stays in sight
    # The live run is untouched: the same run, still waiting for the user, the same timeline.
    assert window.current_run is run and window.busy and agent.paused and window.handed_off
    assert window.handoff_bar.isVisible()
    assert window.model.items == live
    screenshot(saved, "desktop_saved_run")

    window.handoff_bar.continue_button.click()
    await settle(window, timeout=60)
    assert window.pill.state is PillState.SUCCESS and window.current_run is run
    saved.close_button.click()
    await until(lambda: not desktop.saved_runs, message="the saved run's window to close")


def _over_the_panel_above_its_bar(other: QWidget, window: MainWindow) -> bool:
    """Over the panel's column (no wider than the panel, or than the window can be), ending above the hand-off bar."""
    panel, seen = window.frameGeometry(), other.frameGeometry()
    bar = window.handoff_bar.mapToGlobal(QPoint(0, 0)).y()
    narrowest = max(panel.width(), other.minimumWidth() + seen.width() - other.width())
    return abs(seen.left() - panel.left()) <= 2 and seen.width() <= narrowest and seen.bottom() < bar


async def test_saving_settings_with_a_key_leaves_the_demo(
    desktops: list[Desktop], paths: AppPaths, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> None:
    desktop = Desktop(paths, LaunchChoices(headless=True))
    desktops.append(desktop)
    window = await desktop.start()
    await until(lambda: _dialog(SettingsDialog) is not None)
    dialog = _dialog(SettingsDialog)
    assert isinstance(dialog, SettingsDialog)
    dialog.model_page.base_url_edit.setText(llm_server.base_url)
    dialog.model_page.model_edit.setText("fake-model")
    dialog.model_page.key_edit.setText("sk-from-the-form")
    dialog.model_page.key_edit.textEdited.emit("sk-from-the-form")
    await dialog.save()
    await until(lambda: desktop.runtime is not None and not desktop.runtime.demo, message="demo switched off")
    assert not window.demo_banner.isVisible()
    saved = load_settings(paths.settings_file)
    assert saved.base_url == llm_server.base_url and saved.first_run_done
    assert "sk-from-the-form" not in paths.settings_file.read_text(encoding="utf-8")
    assert memory_keyring.passwords  # the key went to the keyring

    llm_server.add(done_reply("Nothing to do.", success=True))
    window.composer.input.setPlainText("Say hello")
    window.composer.run.click()
    await settle(window, timeout=60)
    assert window.pill.state is PillState.SUCCESS
    assert llm_server.requests[0]["_headers"]["authorization"] == "Bearer sk-from-the-form"


async def test_closing_the_panel_shuts_everything_down(
    qapp: QApplication, paths: AppPaths, memory_keyring: MemoryKeyring
) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    desktop = Desktop(paths, LaunchChoices(demo=True, headless=True))
    run = asyncio.ensure_future(desktop.run())
    await until(lambda: desktop.runtime is not None and desktop.runtime.page_url().startswith("http"), timeout=30)
    assert await profile_pids(paths.profile_dir)
    desktop.close()  # as Ctrl+C does: the window closes, then the runtime shuts down
    assert await asyncio.wait_for(run, 30) == 0
    assert await profile_pids(paths.profile_dir) == []
    assert load_settings(paths.settings_file).panel_geometry  # the panel's place is remembered


async def test_try_the_demo_from_the_panel(
    desktops: list[Desktop], paths: AppPaths, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password("page-agent-desktop", "api-key:custom", "sk-secret-key-123")
    save_settings(
        paths.settings_file,
        Settings(provider="custom", base_url=llm_server.base_url, model="fake-model", first_run_done=True),
    )
    desktop = Desktop(paths, LaunchChoices(headless=True))
    desktops.append(desktop)
    window = await desktop.start()
    assert desktop.runtime is not None and not desktop.runtime.demo
    assert window.composer.try_demo.isVisible()
    window.composer.try_demo.click()
    await until(lambda: desktop.runtime is not None and desktop.runtime.demo, timeout=30, message="the demo")
    assert window.demo_banner.isVisible() and not window.composer.try_demo.isVisible()
    assert "Acme CRM" in window.composer.input.toPlainText() and window.composer.input.isReadOnly()
    await until(lambda: "index.html" in desktop.runtime.page_url(), timeout=30, message="the demo site in Chromium")
