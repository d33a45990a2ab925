"""An MCP client's task in the open panel: it shows in the timeline as if typed, marked as the client's, and the
person's Stop, Take over and hand-off work as usual while the MCP side reads its status. Also: a second launch
brings the running panel forward. The MCP side here is the server's own code (TaskRegistry + run_in_panel) on the
test's loop; the real panel, headless Chromium and the fake model server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app.history.store import RunStore
from app.instance import bring_to_front, open_panel, socket_path
from app.mcp.headless import HeadlessTasks
from app.mcp.panel_link import run_in_panel
from app.mcp.routines import RoutineRegistry
from app.mcp.setup import McpSetup
from app.mcp.tasks import McpTask, TaskRegistry
from app.settings.model import Settings, save_settings
from app.settings.paths import AppPaths
from app.ui.desktop import Desktop, LaunchChoices
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.timeline.items import NoticeItem, TaskItem
from tests.cli.test_cli import ROOT, cli_env
from tests.cli.test_hand_off import SAYS, hand_off_then_done
from tests.fakes.llm_server import FakeLLMServer, done_reply
from tests.fakes.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401  (fixture)
from tests.ui.conftest import settle
from tests.waiting import until

pytestmark = pytest.mark.slow


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")


@pytest.fixture
async def panel(
    qapp: QApplication, paths: AppPaths, llm_server: FakeLLMServer, memory_keyring: MemoryKeyring
) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    memory_keyring.set_password("page-agent-desktop", "api-key:custom", "sk-secret-key-123")
    save_settings(
        paths.settings_file,
        Settings(provider="custom", base_url=llm_server.base_url, model="fake-model", max_steps=5, first_run_done=True),
    )
    desktop = Desktop(paths, LaunchChoices(headless=True))
    window = await desktop.start()
    try:
        yield window
    finally:
        window.close()
        await desktop.shutdown()


def registry(paths: AppPaths) -> TaskRegistry:
    async def no_headless(task: McpTask) -> None:
        raise AssertionError("the panel is open: the task must run there")

    return TaskRegistry(no_headless, run_in_panel, lambda: open_panel(socket_path(paths)))


def notices(panel: MainWindow) -> list[str]:
    return [item.text for item in panel.model.items if isinstance(item, NoticeItem)]


async def test_an_mcp_task_shows_in_the_timeline_and_stop_in_the_panel_ends_it(
    panel: MainWindow, paths: AppPaths, llm_server: FakeLLMServer
) -> None:
    llm_server.add(done_reply("Too late.", delay=60.0))
    tasks = registry(paths)

    task = await tasks.start("Read the page for me", "", "Claude Desktop")
    await llm_server.received(1, timeout=30)

    assert task.view.where == "panel"
    task_card = panel.model.items[0]
    assert isinstance(task_card, TaskItem) and "Read the page for me" in task_card.text
    assert "Sent by Claude Desktop over MCP." in notices(panel)
    await until(lambda: task.view.status == "running", message="the client sees it running")

    panel.composer.stop.click()  # the person's Stop
    await settle(panel, timeout=30)
    await until(lambda: task.view.ended, timeout=30, message="the client sees it end")

    assert panel.pill.state is PillState.STOPPED
    assert task.view.status == "stopped" and task.view.outcome is not None
    assert task.view.outcome.final_words == "Stopped by the person in the panel."  # not the agent's "Task aborted"
    await tasks.close()


async def test_a_hand_off_is_needs_person_for_the_client_until_the_person_continues(
    panel: MainWindow, paths: AppPaths, llm_server: FakeLLMServer
) -> None:
    hand_off_then_done(llm_server)
    tasks = registry(paths)

    task = await tasks.start("Export the customers", "", "")
    await until(lambda: task.view.status == "needs_person", timeout=30, message="the hand-off reaches the client")

    assert task.view.reason == f"Your turn in Page Agent Desktop. {SAYS}"
    assert task.view.now == "Your turn — “Please solve the captcha in the browser window, then let…”"
    assert panel.handed_off
    assert "Sent by an app over MCP." in notices(panel)

    panel.handoff_bar.continue_button.click()  # the person solved it, in the panel
    await settle(panel, timeout=30)
    await until(lambda: task.view.ended, timeout=30, message="the outcome reaches the client")

    assert task.view.status == "completed" and task.view.outcome is not None
    assert task.view.outcome.final_words == "Exported."
    # The client can read the run in History, as for a task run without the panel.
    saved = await until(lambda: RunStore(paths.runs_dir).summaries(), timeout=30, message="the run saved")
    assert task.view.outcome.run_id == saved[0].id
    assert RunStore(paths.runs_dir).load(saved[0].id).tasks[0].task == "Export the customers"
    await tasks.close()


async def test_a_second_launch_brings_the_running_panel_forward(panel: MainWindow, paths: AppPaths) -> None:
    panel.showMinimized()
    await until(lambda: panel.isMinimized(), message="the panel minimized")

    answered = await asyncio.to_thread(bring_to_front, socket_path(paths))

    assert answered
    await until(lambda: not panel.isMinimized(), message="the panel restored")


async def test_launching_the_app_again_ends_at_once_and_brings_the_panel_forward(
    panel: MainWindow, tmp_path: Path
) -> None:
    panel.showMinimized()
    await until(lambda: panel.isMinimized(), message="the panel minimized")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGE_AGENT_")}
    env.update(PAGE_AGENT_HOME=str(tmp_path), QT_QPA_PLATFORM="offscreen")

    again = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "app"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )

    assert again.returncode == 0, again.stderr
    assert "already open; brought it to the front" in again.stderr
    await until(lambda: not panel.isMinimized(), message="the panel restored")


async def test_a_task_is_refused_while_the_panel_runs_another(
    panel: MainWindow, paths: AppPaths, llm_server: FakeLLMServer
) -> None:
    llm_server.add(done_reply("Later.", delay=60.0))
    panel.composer.input.setPlainText("The person's own task")
    panel.composer.run.click()
    await llm_server.received(1, timeout=30)
    tasks = registry(paths)

    task = await tasks.start("Another task", "", "Cursor")
    await until(lambda: task.view.ended, timeout=30, message="the refusal")

    assert task.view.status == "error" and task.view.outcome is not None
    assert "busy with another task" in task.view.outcome.final_words
    panel.stop()
    await settle(panel, timeout=30)
    await tasks.close()


async def test_a_panel_in_demo_mode_refuses_a_clients_task(qapp: QApplication, paths: AppPaths) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    desktop = Desktop(paths, LaunchChoices(demo=True, headless=True))
    window = await desktop.start()
    try:
        tasks = registry(paths)
        task = await tasks.start("Book a flight", "", "Cursor")
        await until(lambda: task.view.ended, timeout=30, message="the refusal")

        assert task.view.status == "error" and task.view.outcome is not None
        assert "demo mode" in task.view.outcome.final_words
        assert not window.busy
        await tasks.close()
    finally:
        window.close()
        await desktop.shutdown()


async def test_a_task_the_client_cancels_says_so_in_its_final_words(
    panel: MainWindow, paths: AppPaths, llm_server: FakeLLMServer
) -> None:
    llm_server.add(done_reply("Too late.", delay=60.0))
    tasks = registry(paths)
    task = await tasks.start("Read the page for me", "", "Cursor")
    await llm_server.received(1, timeout=30)

    await tasks.cancel(task.task_id)
    await until(lambda: task.view.ended, timeout=30, message="the client sees it end")

    assert task.view.status == "stopped" and task.view.outcome is not None
    assert task.view.outcome.final_words == "Stopped: the client cancelled the task (cancel_task)."
    await tasks.close()


async def test_a_task_refused_in_routine_mode_says_why_to_the_client_and_to_the_person(
    panel: MainWindow, paths: AppPaths, llm_server: FakeLLMServer
) -> None:
    panel.modes.routine_button.click()
    routine = panel.modes.routine
    assert routine is not None
    tasks = registry(paths)

    task = await tasks.start("Read the page for me", "", "Cursor")
    await until(lambda: task.view.ended, timeout=30, message="the refusal")

    assert task.view.status == "error" and task.view.outcome is not None
    assert task.view.reason == task.view.outcome.final_words
    assert task.view.reason.startswith("The Page Agent Desktop panel is in Routine mode")
    assert routine.setup.note.text() == (
        "Cursor sent a task over MCP; it did not run: Routine mode uses the browser. Switch to One task, then send it "
        "again."
    )
    assert not panel.busy and not llm_server.requests
    await tasks.close()


async def test_a_routine_is_refused_while_the_panel_holds_the_browser_profile(
    panel: MainWindow, paths: AppPaths, tmp_path: Path
) -> None:
    setup = McpSetup(settings=Settings(), paths=paths, api_key=None)
    rows = tmp_path / "rows.csv"
    rows.write_text("name\nAda\n", encoding="utf-8")
    routines = RoutineRegistry(setup, HeadlessTasks(setup), lambda: open_panel(socket_path(paths)))

    with pytest.raises(ValueError, match="close the panel"):
        await routines.start("Add {name}", str(rows), "", 1, "")
    assert not panel.busy


async def test_a_task_from_the_real_mcp_server_runs_in_the_panel_and_the_persons_stop_ends_it(
    panel: MainWindow, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    llm_server.add(done_reply("Too late.", delay=60.0))
    # The client in a process of its own (tests/mcp/client_script.py); the server it starts finds this panel by its
    # data folder: PAGE_AGENT_HOME is the folder the panel's paths are in.
    command = [sys.executable, "-m", "tests.mcp.client_script", "Read the page for me"]
    env = cli_env(tmp_path, llm_server)
    client = asyncio.ensure_future(
        asyncio.to_thread(subprocess.run, command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    )
    await llm_server.received(1, timeout=60)

    assert [i.text for i in panel.model.items if isinstance(i, TaskItem)] == ["Read the page for me"]
    assert any(text.endswith("over MCP.") for text in notices(panel))
    panel.composer.stop.click()
    done = await asyncio.wait_for(client, 120)
    assert done.returncode == 0, done.stderr
    first, last = (json.loads(line) for line in done.stdout.splitlines())

    assert first["where"] == "panel"
    assert last["status"] == "stopped" and last["outcome"]["success"] is False
    assert panel.pill.state is PillState.STOPPED
