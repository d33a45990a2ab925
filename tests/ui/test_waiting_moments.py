"""Every moment that waits for the person says so and calls them back: an Allow/Cancel puts "Waiting for your answer"
in the pill (not the click it holds up), a refusal reads "You didn't allow it; nothing was clicked.", a question or a
hand-off brings a minimized panel back and flags it, "Show the panel" in Chromium brings it forward, and the close
question speaks of the wait and wears the app's theme."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.ui.main_window import MainWindow
from app.ui.panel_state import PanelState
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import StepItem, plain_text
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import TestRuntime, settle
from tests.ui.test_confirm import TASK, delete_account, the_question
from tests.ui.test_hand_off import hand_off
from tests.ui.test_panel_runs import type_and_run
from tests.waiting import until


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The panel's calls for attention (the taskbar flag), recorded instead of made."""
    made: list[str] = []
    monkeypatch.setattr(QApplication, "alert", staticmethod(lambda *_args: made.append("alert")))
    return made


async def test_an_allow_cancel_says_it_waits_for_you_and_a_no_reads_as_yours(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, calls: list[str]
) -> None:
    delete_account(runtime, llm_server)
    type_and_run(window, TASK)
    await the_question(window)
    assert window.state is PanelState.CONFIRMING
    assert window.pill.state is PillState.ASKING and window.pill.text() == "Waiting for your answer"
    assert "Clicking" not in window.pill.text() and window.pill.detail() == "Step 1 of 40"
    assert window.composer.mode is ComposerMode.RUNNING  # Stop stays at hand
    assert calls == ["alert"]
    window.confirm_bar.cancel_button.click()
    await settle(window)
    step = next(item for item in window.model.items if isinstance(item, StepItem))
    text = plain_text(step)
    assert "You didn't allow it; nothing was clicked." in text
    assert "didn't work" not in text


async def test_a_question_brings_a_minimized_panel_back_and_flags_it(
    window: MainWindow, llm_server: FakeLLMServer, calls: list[str]
) -> None:
    llm_server.add(tool_reply({"ask_user": {"question": "Which plan, Basic or Pro?"}}), done_reply("Chose Pro."))
    type_and_run(window, "Pick the plan the customer wants")
    window.showMinimized()
    await until(lambda: window.state is PanelState.ASKING, message="the question")
    assert not window.isMinimized()
    assert calls == ["alert"]
    window.composer.input.setPlainText("Pro")
    window.composer.run.click()
    await settle(window)
    assert window.pill.state is PillState.SUCCESS


async def test_a_hand_off_brings_a_minimized_panel_back_and_show_the_panel_brings_it_forward(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, calls: list[str]
) -> None:
    window.showMinimized()
    await hand_off(window, runtime, llm_server)
    assert not window.isMinimized() and calls == ["alert"]
    window.showMinimized()
    runtime.press_show_panel_in_browser()  # "Show the panel" in Chromium's bar
    assert not window.isMinimized() and window.isVisible()


async def test_the_close_question_speaks_of_the_wait_in_the_apps_theme(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    await hand_off(window, runtime, llm_server)
    window.close()
    box = window.quit_question
    assert box is not None
    assert box.informativeText() == "The agent is waiting for you. Quitting stops the task where it is."
    assert "QDialog" in box.styleSheet()  # the dialogs' style sheet, Light or Dark as the app is
    box.done(0)


async def test_the_panels_keys_work_wherever_the_keyboard_is_in_it(
    window: MainWindow, llm_server: FakeLLMServer
) -> None:
    asked: list[str] = []
    window.historyRequested.connect(lambda: asked.append("history"))
    window.settingsRequested.connect(lambda: asked.append("settings"))
    window.history_button.setFocus()  # not in the task box
    QTest.keyClick(window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert asked == ["history", "settings"]
    llm_server.add(done_reply("Done."))
    window.composer.input.setPlainText("Say done")
    window.history_button.setFocus()
    QTest.keyClick(window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # runs, as in the task box
    await settle(window)
    assert window.pill.state is PillState.SUCCESS
    QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()  # nothing running: it closes at once
