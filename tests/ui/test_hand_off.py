"""The agent hands the browser to the person: "Your turn" in the pill, the reason in the hand-off bar, the person
called back to the panel, then "I've done it — continue" resumes the same run, or Stop ends it as stopped."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.core.agent import Agent
from app.core.tools.registry import build_tools
from app.core.types import AgentStatus, HandOffActivity, PausedActivity, UserTakeoverEvent
from app.settings.model import Settings
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import TakeoverItem, TaskItem
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.text.test_hand_off_words import PRETENDER, QUOTED
from tests.ui.conftest import TestRuntime, screenshot, settle
from tests.ui.test_panel_runs import kinds, type_and_run
from tests.waiting import until

REASON = "The sign-in page shows a captcha (“I'm not a robot”). Please solve it."
HAS_TOOL = "hand_off_to_user" in build_tools(ask_user=True, javascript=False)
HAS_SOUND_SETTING = "hand_off_sound" in Settings.model_fields


@pytest.fixture
def alerts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records window-attention requests and beeps instead of flashing or sounding."""
    calls: list[str] = []
    monkeypatch.setattr(QApplication, "alert", staticmethod(lambda *_args: calls.append("alert")))
    monkeypatch.setattr(QApplication, "beep", staticmethod(lambda: calls.append("beep")))
    return calls


def _run(window: MainWindow, task: str | None) -> None:
    if task is None:
        window.composer.run.click()
    else:
        type_and_run(window, task)


async def hand_off(
    window: MainWindow,
    runtime: TestRuntime,
    llm_server: FakeLLMServer,
    task: str | None = "Sign in and export the customer list",
) -> Agent:
    """Bring a real run to a hand-off. With the hand_off_to_user tool the model asks for it; before that tool
    exists the agent is paused as the tool pauses it and the activity it announces is sent to the panel.
    ``task``: typed into the task box; None runs what the box holds (the demo's task)."""
    if HAS_TOOL:
        llm_server.add(
            tool_reply({"hand_off_to_user": {"reason": REASON}}, next_goal="Let the user solve it"),
            done_reply("Signed in and exported the list."),
        )
        _run(window, task)
        await until(lambda: window.handed_off, message="the hand-off")
    else:
        llm_server.add(
            tool_reply({"click_element_by_index": {"index": 2}}, delay=30),
            done_reply("Signed in and exported the list."),
        )
        _run(window, task)
        await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
        agent = await runtime.agent()
        agent.pause()
        window.bridge.activity.emit(HandOffActivity(reason=REASON))
    agent = await runtime.agent()
    assert agent.paused
    return agent


async def test_hand_off_shows_your_turn_and_continue_resumes_the_same_run(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str]
) -> None:
    await hand_off(window, runtime, llm_server)
    run = window.current_run
    assert window.pill.state is PillState.HANDED_OFF and window.pill.text() == "Your turn"
    assert window.handoff_bar.isVisible()
    assert window.handoff_bar.text.text() == (
        "The agent says: “The sign-in page shows a captcha (‘I'm not a robot’). Please solve it.”\n"
        "Page Agent never asks for your passwords or PINs."
    )
    assert window.handoff_bar.continue_button.text() == "I've done it — continue"
    assert window.handoff_bar.stop_button.isVisible()
    assert window.composer.mode is ComposerMode.HANDED_OFF and window.composer.input.isEnabled()
    assert "alert" in alerts  # the panel asked for the person's attention
    assert "beep" not in alerts  # the sound is off unless the user turned it on
    screenshot(window, "hand_off_your_turn")

    runtime.page.url = "https://crm.example/home"
    runtime.page.title = "Acme CRM — Home"
    window.composer.input.setPlainText("Solved it, I am signed in")
    window.handoff_bar.continue_button.click()
    assert not window.handoff_bar.isVisible() and window.pill.state is PillState.RUNNING
    await settle(window)
    assert window.current_run is run  # the same run went on: no follow-up task was started
    assert kinds(window).count(TaskItem) == 1
    takeovers = [item.event for item in window.model.items if isinstance(item, TakeoverItem)]
    assert len(takeovers) == 1 and isinstance(takeovers[0], UserTakeoverEvent)
    assert takeovers[0].note == "Solved it, I am signed in" and takeovers[0].after_title == "Acme CRM — Home"
    assert "Solved it, I am signed in" in llm_server.user_message(-1)
    assert window.pill.state is PillState.SUCCESS
    assert window.composer.input.toPlainText() == ""  # the note went to the agent, not into the next task


async def test_ctrl_enter_in_the_note_continues(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str], qtbot
) -> None:
    await hand_off(window, runtime, llm_server)
    window.composer.input.setPlainText("done")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await settle(window)
    assert window.pill.state is PillState.SUCCESS


async def test_stop_while_handed_off_ends_as_stopped(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str]
) -> None:
    agent = await hand_off(window, runtime, llm_server)
    window.handoff_bar.stop_button.click()
    assert window.pill.state is PillState.STOPPING and not window.handoff_bar.isVisible()
    await settle(window, timeout=5)
    assert agent.status == AgentStatus.STOPPED
    assert window.pill.state is PillState.STOPPED
    assert window.composer.mode is ComposerMode.FOLLOW_UP


async def test_a_take_over_does_not_hide_ahand_off(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str]
) -> None:
    agent = await hand_off(window, runtime, llm_server)
    window.take_over()  # the composer has no Take over now; a stray call changes nothing
    window.bridge.activity.emit(PausedActivity())  # as a pause during the hand-off would announce
    assert window.pill.state is PillState.HANDED_OFF and window.handoff_bar.isVisible()
    await agent.stop()
    await settle(window)


@pytest.mark.skipif(not HAS_SOUND_SETTING, reason="the hand-off sound setting arrives with the settings work")
async def test_the_optional_sound(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str]
) -> None:
    runtime.settings = runtime.settings.model_copy(update={"hand_off_sound": True})
    await hand_off(window, runtime, llm_server)
    assert "beep" in alerts


async def test_words_in_a_failed_run_no_longer_show_the_hand_off_bar(
    window: MainWindow, llm_server: FakeLLMServer
) -> None:
    llm_server.add(
        done_reply("The site shows a captcha (“I'm not a robot”) that I cannot solve. Please verify.", success=False)
    )
    type_and_run(window, "Sign in")
    await settle(window)
    assert window.pill.state is PillState.FAILED
    assert not window.handoff_bar.isVisible()  # only the agent's hand-off pauses a run; no guessing from words


@pytest.mark.skipif(not HAS_TOOL, reason="the model hands off with the hand_off_to_user tool")
async def test_a_page_written_reason_is_shown_as_the_agents_quoted_words_never_as_the_apps(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, alerts: list[str], monkeypatch
) -> None:
    called: list[tuple[str, str]] = []
    urgency: list[bool] = []

    def call(title: str, message: str, *, sound: bool, urgent: bool = False) -> None:
        called.append((title, message))
        urgency.append(urgent)

    monkeypatch.setattr(window.moments.attention, "call", call)
    llm_server.add(
        tool_reply({"hand_off_to_user": {"reason": PRETENDER}}, next_goal="Let the user do it"),
        done_reply("Done."),
    )
    type_and_run(window, "Export the customer list")
    await until(lambda: window.handed_off, message="the hand-off")

    words = f"The agent says: {QUOTED}\nPage Agent never asks for your passwords or PINs."
    assert window.handoff_bar.heading.text() == "The agent needs you"
    assert window.handoff_bar.text.text() == words
    assert called and called[-1][0] == "Page Agent: your turn" and urgency[-1]  # a hand-off's call is urgent
    message = called[-1][1]
    assert message.startswith("The agent says: “Page Agent Desktop security check: type your master password")
    assert message.endswith("”\nPage Agent never asks for your passwords or PINs.") and "<" not in message
    screenshot(window, "hand_off_page_written_reason")
    await (await runtime.agent()).stop()
    await settle(window)
