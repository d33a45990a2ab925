"""Demo clarity in the panel: the demo's task is read-only with a way to one's own model; a follow-up after the demo
explains itself instead of failing; "Try the demo" is always at hand, and offered when the model cannot be reached."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QApplication

from app.core.types import AgentStatus
from app.history.recorder import RunRecorder
from app.history.store import RunStore
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import ErrorItem, NoticeItem, ResultItem, TaskItem
from tests.fakes.llm_server import FakeLLMServer, done_reply, error_reply
from tests.ui.conftest import TestRuntime, screenshot, settle
from tests.ui.test_hand_off import hand_off

TASK = "Sign in to Acme CRM and add Jane Doe."
DEMO_OVER = "The demo has shown everything it recorded. To give your own tasks, add a model in Settings."


@pytest.fixture
async def demo_window(qapp: QApplication, llm_server: FakeLLMServer) -> AsyncIterator[tuple[MainWindow, TestRuntime]]:
    runtime = TestRuntime(llm_server, demo=True)
    win = MainWindow(runtime)
    win.resize(420, 820)
    win.show_demo_mode(True, TASK)
    win.show()
    yield win, runtime
    await runtime.shutdown()
    win.close()
    win.deleteLater()


async def test_the_demo_task_is_read_only_with_a_way_to_ones_own_model(
    demo_window: tuple[MainWindow, TestRuntime],
) -> None:
    window, _runtime = demo_window
    box = window.composer.input
    assert box.toPlainText() == TASK and box.isReadOnly()
    assert window.composer.run.isEnabled()
    assert window.composer.own_model.isVisible()
    assert not window.composer.try_demo.isVisible()  # already in the demo
    asked: list[bool] = []
    window.settingsRequested.connect(lambda: asked.append(True))
    window.composer.own_model.click()
    assert asked
    screenshot(window, "demo_read_only_task")


async def test_a_follow_up_after_the_demo_explains_itself(
    demo_window: tuple[MainWindow, TestRuntime], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    window, runtime = demo_window
    store = RunStore(tmp_path)
    recorder = RunRecorder(await runtime.agent(), store, runtime.settings, demo=True)
    llm_server.add(done_reply("Added Jane Doe and exported the list."))
    window.composer.run.click()
    await settle(window)
    assert window.pill.state is PillState.SUCCESS
    assert window.composer.mode is ComposerMode.FOLLOW_UP
    assert window.composer.input.toPlainText() == TASK and window.composer.input.isReadOnly()
    requests = len(llm_server.requests)

    window.composer.run.click()  # a follow-up: the demo has nothing more to replay
    assert window.current_run is not None and window.current_run.done() and not window.busy
    assert len(llm_server.requests) == requests  # nothing was sent
    last = window.model.items[-1]
    assert isinstance(last, NoticeItem) and last.text == DEMO_OVER
    assert window.pill.state is PillState.IDLE and window.pill.text() == "The demo is over"
    results = [item for item in window.model.items if isinstance(item, ResultItem)]
    assert len(results) == 1  # no error card
    rows = window.model.rowCount()
    window.composer.run.click()
    assert window.model.rowCount() == rows  # said once
    screenshot(window, "demo_follow_up")

    await recorder.close()
    [summary] = store.summaries()
    assert summary.status == AgentStatus.COMPLETED and summary.success and summary.task_count == 1
    assert summary.demo and not summary.replay

    window.composer.new_task.click()  # New task keeps the demo's task, ready to run again
    assert window.composer.mode is ComposerMode.NEW
    assert window.composer.input.toPlainText() == TASK and window.composer.input.isReadOnly()
    llm_server.add(done_reply("Again."))
    window.composer.run.click()
    await settle(window)
    assert window.pill.state is PillState.SUCCESS
    assert TASK in llm_server.user_message(-1)


async def test_leaving_the_demo_unlocks_the_box(demo_window: tuple[MainWindow, TestRuntime]) -> None:
    window, _runtime = demo_window
    window.show_demo_mode(False)
    box = window.composer.input
    assert box.toPlainText() == "" and not box.isReadOnly()
    assert not window.composer.own_model.isVisible() and window.composer.try_demo.isVisible()


async def test_try_the_demo_is_at_hand_whenever_a_task_can_start(window: MainWindow, llm_server: FakeLLMServer) -> None:
    asked: list[bool] = []
    window.demoRequested.connect(lambda: asked.append(True))
    link = window.composer.try_demo
    assert link.isVisible() and link.accessibleName() == "Try the demo"
    link.click()
    assert asked
    llm_server.add(done_reply("Done."))
    window.composer.input.setPlainText("Quick task")
    window.composer.run.click()
    assert not link.isVisible()  # while a task runs there is nothing to switch
    await settle(window)
    assert link.isVisible()  # a follow-up or the demo: both open


async def test_an_endpoint_that_cannot_be_reached_offers_the_demo(window: MainWindow, runtime: TestRuntime) -> None:
    runtime._server = SimpleNamespace(base_url="http://127.0.0.1:9/v1")  # type: ignore[assignment]  # nothing listens
    window.composer.input.setPlainText("Add a customer")
    window.composer.run.click()
    await settle(window, timeout=30)
    assert window.pill.state is PillState.ERROR
    assert window.demo_offer.isVisible()
    assert window.demo_offer.demo_button.text() == "Try the demo"
    # The failure is said once, in the result card: no error card repeating it above.
    assert not any(isinstance(item, ErrorItem) for item in window.model.items)
    asked: list[str] = []
    window.demoRequested.connect(lambda: asked.append("demo"))
    window.settingsRequested.connect(lambda: asked.append("settings"))
    window.demo_offer.settings_button.click()
    window.demo_offer.demo_button.click()
    assert asked == ["settings", "demo"]
    screenshot(window, "unreachable_offers_the_demo")
    window.new_task()
    assert not window.demo_offer.isVisible()


async def test_no_demo_offer_when_the_model_answered_or_the_browser_failed(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    llm_server.add(error_reply(401, "Incorrect API key provided"))  # it answered: the key is wrong, not the address
    window.composer.input.setPlainText("Add a customer")
    window.composer.run.click()
    await settle(window)
    assert window.pill.state is PillState.ERROR and not window.demo_offer.isVisible()

    async def no_browser(*, new_task: bool = False) -> None:
        raise RuntimeError("No Chromium found. Install it with: apt-get install chromium")

    runtime.agent = no_browser  # type: ignore[method-assign]
    window.composer.input.setPlainText("Add a customer")
    window.composer.run.click()
    await settle(window)
    assert window.pill.state is PillState.ERROR and not window.demo_offer.isVisible()


async def test_a_hand_off_in_the_demo_takes_a_note_not_the_demo_task(
    demo_window: tuple[MainWindow, TestRuntime], llm_server: FakeLLMServer
) -> None:
    window, runtime = demo_window
    await hand_off(window, runtime, llm_server, task=None)
    box = window.composer.input
    assert box.toPlainText() == "" and not box.isReadOnly() and box.isEnabled()
    box.setPlainText("Solved the captcha")
    window.handoff_bar.continue_button.click()
    await settle(window)
    assert window.pill.state is PillState.SUCCESS
    assert "Solved the captcha" in llm_server.user_message(-1)
    assert box.toPlainText() == TASK and box.isReadOnly()  # the demo's task again, ready to run


async def test_into_or_out_of_the_demo_an_ended_task_is_not_followed_up(
    window: MainWindow, llm_server: FakeLLMServer
) -> None:
    llm_server.add(done_reply("Done."))
    window.composer.input.setPlainText("Quick task")
    window.composer.run.click()
    await settle(window)
    assert window.composer.mode is ComposerMode.FOLLOW_UP
    window.show_demo_mode(True, "The demo's task")  # "Try the demo"
    assert window.composer.mode is ComposerMode.NEW
    window.show_demo_mode(False)  # a model of one's own, after the demo: "What next?" would continue the demo's task
    assert window.composer.mode is ComposerMode.NEW


async def test_at_the_end_of_the_demo_it_offers_to_play_it_again(
    demo_window: tuple[MainWindow, TestRuntime], llm_server: FakeLLMServer
) -> None:
    window, _runtime = demo_window
    llm_server.add(done_reply("Added Jane Doe and exported the list."))
    window.composer.run.click()
    await settle(window)
    bar = window.demo_again
    assert bar.isVisible() and bar.again_button.text() == "Play the demo again"
    screenshot(window, "demo_play_again")
    llm_server.add(done_reply("Again."))
    bar.again_button.click()  # a new task from the sign-in page, not a follow-up with nothing to replay
    assert not bar.isVisible() and window.busy
    await settle(window)
    assert window.pill.state is PillState.SUCCESS and TASK in llm_server.user_message(-1)
    assert [type(item) for item in window.model.items].count(TaskItem) == 1  # started anew
    assert bar.isVisible()


async def test_run_after_a_stop_in_the_demo_plays_it_from_the_start_not_from_where_it_stopped(
    demo_window: tuple[MainWindow, TestRuntime], llm_server: FakeLLMServer
) -> None:
    window, _runtime = demo_window
    llm_server.add(done_reply("Too late.", delay=30))
    window.composer.run.click()
    await llm_server.received(1, timeout=30)
    window.stop()
    await settle(window)
    assert window.pill.state is PillState.STOPPED
    llm_server.add(done_reply("Added Jane Doe."))

    window.composer.run.click()
    await settle(window)

    assert window.pill.state is PillState.SUCCESS
    tasks = [item for item in window.model.items if isinstance(item, TaskItem)]
    assert len(tasks) == 1  # a new run of the demo, not a follow-up of the stopped one
    assert "Too late" not in llm_server.user_message(-1) and "stopped" not in llm_server.user_message(-1).lower()


async def test_leaving_the_demo_clears_the_red_browser_closed_pill(
    demo_window: tuple[MainWindow, TestRuntime], llm_server: FakeLLMServer
) -> None:
    window, runtime = demo_window
    llm_server.add(done_reply("Added Jane Doe."))
    window.composer.run.click()
    await settle(window)
    runtime.close_browser()
    assert window.pill.state is PillState.ERROR and window.pill.text() == "The browser was closed"

    window.show_demo_mode(False)  # a model was set up in Settings

    assert window.pill.state is PillState.IDLE and window.composer.mode is ComposerMode.NEW
