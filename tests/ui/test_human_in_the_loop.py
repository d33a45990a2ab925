"""The user in the loop: answering ask_user and taking over the browser (the agent's hand-off: test_hand_off)."""

from __future__ import annotations

from app.core.types import UserTakeoverEvent
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import AnswerItem, QuestionItem, TakeoverItem
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import TestRuntime, screenshot, settle
from tests.ui.test_panel_runs import kinds, type_and_run
from tests.waiting import until


async def test_ask_user_round_trip(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(
        tool_reply(
            {"ask_user": {"question": "Which plan should the new customer get: Basic or Pro?"}},
            next_goal="Ask which plan to choose",
        ),
        done_reply("Chose the Pro plan."),
    )
    type_and_run(window, "Create the customer from the email")
    await until(lambda: window.composer.mode is ComposerMode.ASKING, message="the question")
    question = window.model.item(window.model.rowCount() - 1)
    assert isinstance(question, QuestionItem) and "Basic or Pro" in question.text
    assert window.pill.state is PillState.ASKING
    assert window.composer.input.isEnabled()
    assert window.composer.input.placeholderText() == "Your answer…"
    assert window.composer.run.text() == "Answer"
    screenshot(window, "asking")

    window.composer.input.setPlainText("Pro, please")
    window.composer.run.click()
    await settle(window)
    assert AnswerItem in kinds(window)
    assert "The user answered: Pro, please" in llm_server.user_message(1)
    assert window.pill.state is PillState.SUCCESS


async def test_stop_cancels_a_question(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(tool_reply({"ask_user": {"question": "What is your customer number?"}}))
    type_and_run(window, "Look up my orders")
    await until(lambda: window.composer.mode is ComposerMode.ASKING, message="the question")
    assert window.composer.stop.isVisible()
    window.composer.stop.click()
    await settle(window, timeout=3)
    assert window.pill.state is PillState.STOPPED
    assert AnswerItem not in kinds(window)
    assert window.composer.mode is ComposerMode.FOLLOW_UP


async def test_take_over_and_resume(window: MainWindow, llm_server: FakeLLMServer, runtime: TestRuntime) -> None:
    llm_server.add(tool_reply({"click_element_by_index": {"index": 2}}, delay=30), done_reply("Saved."))
    type_and_run(window, "Save the form")
    await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
    assert window.composer.take_over.isVisible() and window.composer.take_over.text() == "Take over"
    window.composer.take_over.click()
    await until(lambda: window.composer.mode is ComposerMode.PAUSED, message="paused")
    assert window.pill.state is PillState.PAUSED
    assert window.pill.text() == "Paused — your turn"
    assert window.composer.take_over.text() == "Resume"
    screenshot(window, "paused")

    runtime.page.url = "https://crm.example/customers/42"
    runtime.page.title = "Customer 42"
    window.composer.input.setPlainText("I logged in myself")
    window.composer.take_over.click()
    await settle(window)
    takeovers = [item for item in window.model.items if isinstance(item, TakeoverItem)]
    assert len(takeovers) == 1
    event = takeovers[0].event
    assert isinstance(event, UserTakeoverEvent)
    assert event.note == "I logged in myself" and event.after_title == "Customer 42"
    assert window.pill.state is PillState.SUCCESS
    assert runtime.page.actions == []  # the paused click never happened


async def test_no_pause_while_not_running(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(done_reply("Done."))
    type_and_run(window, "Quick task")
    await settle(window)
    window.take_over()  # both are plain calls, answered at once: no run, nothing to pause or resume
    window.resume("nothing")
    assert window.composer.mode is ComposerMode.FOLLOW_UP and window.pill.state is PillState.SUCCESS
