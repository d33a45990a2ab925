"""The panel driving a real agent (fake model server, fake page): run, stop, follow-up, new task, errors."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr
from PySide6.QtWidgets import QApplication, QWidget

import app.core.agent
from app.core.agent import Agent
from app.core.page import ElementInfo
from app.core.safety.secrets import Secret, SecretVault
from app.core.types import AgentStatus, ExecutionResult, RunOutcome
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from app.ui.task_input import ComposerMode
from app.ui.timeline.items import NoticeItem, ResultItem, StepItem, TaskItem, TimelineItem
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import TestRuntime, screenshot, settle
from tests.ui_waiting import laid_out
from tests.waiting import until

REPORT = (
    "Created the customer **Ada Lovelace**.\n\n## Completed work\n- Filled in the name and email\n"
    "- Chose the *Pro* plan\n- Saved the form and checked the confirmation page"
)


def type_and_run(window: MainWindow, text: str) -> None:
    window.composer.input.setPlainText(text)
    window.composer.run.click()


def inked_columns(widget: QWidget) -> list[int]:
    """The x of every column where ``widget`` draws something on its background."""
    image = widget.grab().toImage()
    background = image.pixel(0, 0)
    return [x for x in range(image.width()) if any(image.pixel(x, y) != background for y in range(image.height()))]


def kinds(window: MainWindow) -> list[type[TimelineItem]]:
    return [type(item) for item in window.model.items]


async def test_type_a_task_and_run(window: MainWindow, llm_server: FakeLLMServer) -> None:
    states: list[PillState] = []
    window.pill.stateChanged.connect(states.append)
    finished: list[tuple[str, ExecutionResult]] = []
    window.runFinished.connect(lambda task, result: finished.append((task, result)))
    screenshot(window, "idle")
    llm_server.add(
        tool_reply(
            {"input_text": {"index": 1, "text": "ada@example.com"}},
            memory="The new-customer form is open",
            next_goal="Type the email address into the Email field",
        ),
        tool_reply(
            {"click_element_by_index": {"index": 2}},
            delay=0.6,
            evaluation="✅ Success - the email is in the field",
            memory="Email typed; the form needs saving",
            next_goal="Click Save to create the customer",
        ),
        done_reply(REPORT, success=True),
    )
    type_and_run(window, "Create a customer named Ada Lovelace with email ada@example.com")
    assert window.composer.mode in (ComposerMode.STARTING, ComposerMode.RUNNING)
    assert not window.composer.input.isEnabled()
    await until(lambda: len(llm_server.requests) == 2 and window.model.rowCount() >= 2, message="second step")
    laid_out(window)
    screenshot(window, "running")
    await settle(window)

    assert states[:2] == [PillState.STARTING, PillState.RUNNING]
    assert states[-1] is PillState.SUCCESS
    assert kinds(window) == [TaskItem, StepItem, StepItem, StepItem, ResultItem]
    second = window.model.item(2)
    assert isinstance(second, StepItem)
    assert second.event.reflection.evaluation_previous_goal.startswith("✅")
    assert second.event.reflection.next_goal == "Click Save to create the customer"
    step_text = window.model.data(window.model.index(2))
    assert "✅ the email is in the field" in step_text
    assert "Memory: Email typed; the form needs saving" in step_text
    assert "Click an element on the page" in step_text and "[2]" not in step_text  # the fake page names none
    result = window.model.item(4)
    assert isinstance(result, ResultItem)
    assert result.outcome is RunOutcome.SUCCESS and "Ada Lovelace" in result.text
    assert window.composer.mode is ComposerMode.FOLLOW_UP
    assert window.composer.input.isEnabled()
    assert window.composer.input.placeholderText() == "What next?"
    assert window.footer.text() == "300 tokens in · 60 out"
    assert inked_columns(window.footer)[-1] < window.footer.width() - 10  # the whole line, clear of the edge
    assert window.pill.detail() == "3 steps"
    assert finished and finished[0][0].startswith("Create a customer") and finished[0][1].success
    screenshot(window, "completed")


async def test_stop_during_a_slow_model_call(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(tool_reply({"scroll": {"down": True}}, delay=60))  # only the stop can end the call
    type_and_run(window, "Find the cheapest flight to Lisbon")
    await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
    window.stop()
    assert window.pill.state is PillState.STOPPING
    assert window.pill.text() == "Stopping…"
    await settle(window, timeout=20)  # a third of the held call; how fast: tests/bench/bench_engine.py
    assert window.pill.state is PillState.STOPPED
    assert window.composer.mode is ComposerMode.FOLLOW_UP
    assert window.composer.input.isEnabled()
    result = window.model.item(window.model.rowCount() - 1)
    assert isinstance(result, ResultItem) and result.outcome is RunOutcome.STOPPED
    screenshot(window, "stopped")


async def test_escape_stops(window: MainWindow, llm_server: FakeLLMServer, qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    llm_server.add(tool_reply({"scroll": {"down": True}}, delay=30))
    window.activateWindow()
    type_and_run(window, "Scroll forever")
    await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
    QTest.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Escape)
    assert window.pill.state is PillState.STOPPING
    await settle(window, timeout=5)
    assert window.pill.state is PillState.STOPPED


async def test_stop_pressed_inside_chromium_stops_the_panels_run(
    window: MainWindow, llm_server: FakeLLMServer, runtime: TestRuntime
) -> None:
    llm_server.add(tool_reply({"scroll": {"down": True}}, delay=30))
    type_and_run(window, "Scroll forever")
    await until(lambda: llm_server.requests and window.composer.mode is ComposerMode.RUNNING)
    runtime.press_stop_in_browser()
    assert window.pill.state is PillState.STOPPING
    await settle(window, timeout=5)
    assert window.pill.state is PillState.STOPPED


async def test_follow_up_keeps_context(window: MainWindow, llm_server: FakeLLMServer, runtime: TestRuntime) -> None:
    llm_server.add(done_reply("The invoice total is 420 EUR."), done_reply("Sent it to Bob."))
    type_and_run(window, "What is the invoice total?")
    await settle(window)
    assert window.composer.mode is ComposerMode.FOLLOW_UP
    type_and_run(window, "Email that total to Bob")
    await settle(window)
    assert "What is the invoice total?" in llm_server.user_message(1)
    assert kinds(window) == [TaskItem, StepItem, ResultItem, TaskItem, StepItem, ResultItem]
    follow_up = window.model.item(3)
    assert isinstance(follow_up, TaskItem) and follow_up.follow_up
    assert runtime.agent_calls == 2  # the same agent serves the follow-up: same browser


async def test_a_site_named_by_a_task_sent_over_mcp_gets_no_secret(
    window: MainWindow, llm_server: FakeLLMServer, runtime: TestRuntime
) -> None:
    # The password field belongs to another site than the start page's; only the person's own words may name it.
    runtime.secrets = SecretVault([Secret("pw", SecretStr("pw-Vq8sLr2mXk9TzQ4w"))], default_sites=("fake.test",))
    runtime.page.elements[1] = ElementInfo(tag="input", input_type="password", frame_url="http://login.test/")
    task = "Sign in on login.test with <secret>pw</secret>"
    typing = tool_reply({"input_text": {"index": 1, "text": "<secret>pw</secret>"}})
    llm_server.add(typing, done_reply("Tried."), typing, done_reply("Signed in."))

    window.run_task(task, source="Claude Desktop")
    await settle(window)
    assert runtime.page.actions == []
    assert 'The secret "pw" may only be typed on fake.test' in llm_server.user_message(1)

    window.run_task(task)  # typed by the person
    await settle(window)
    assert [name for name, _ in runtime.page.actions] == ["secret_text"]


async def test_new_task_starts_clean(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(done_reply("First done."), done_reply("Second done."))
    type_and_run(window, "The first task")
    await settle(window)
    assert window.composer.new_task.isVisible()
    window.composer.new_task.click()
    assert window.model.rowCount() == 0
    assert window.composer.mode is ComposerMode.NEW
    assert window.pill.state is PillState.IDLE
    type_and_run(window, "Another task")
    await settle(window)
    assert "The first task" not in llm_server.user_message(1)
    assert kinds(window) == [TaskItem, StepItem, ResultItem]
    task = window.model.item(0)
    assert isinstance(task, TaskItem) and not task.follow_up


async def test_failure_to_start_is_shown_and_the_panel_stays_usable(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    original = runtime.agent

    async def broken(*, new_task: bool = False) -> None:
        raise RuntimeError("No Chromium found. Install it with: apt-get install chromium")

    runtime.agent = broken  # type: ignore[method-assign]
    type_and_run(window, "Anything")
    await settle(window)
    assert window.pill.state is PillState.ERROR
    result = window.model.item(window.model.rowCount() - 1)
    assert isinstance(result, ResultItem)
    assert result.outcome is RunOutcome.ERROR and "No Chromium found" in result.text
    assert window.composer.input.isEnabled()

    runtime.agent = original  # type: ignore[method-assign]
    llm_server.add(done_reply("Worked this time."))
    type_and_run(window, "Try again")
    await settle(window)
    assert window.pill.state is PillState.SUCCESS


async def test_error_run_and_browser_closed_notice(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    llm_server.add(*[tool_reply({"click_element_by_index": {"index": 9}}) for _ in range(3)])
    llm_server.fallback = lambda _body: done_reply("Gave up: element 9 never appeared.", success=False)
    runtime.page.fail_indices = {9}
    type_and_run(window, "Click the missing button")
    await settle(window)
    assert window.pill.state is PillState.ERROR
    failed = [item for item in window.model.items if isinstance(item, StepItem)]
    assert failed and failed[0].event.action.output.startswith("❌")
    runtime.close_browser()
    assert isinstance(window.model.item(window.model.rowCount() - 1), NoticeItem)
    screenshot(window, "error")


async def test_result_status_reaches_the_pill_for_every_ending(window: MainWindow, llm_server: FakeLLMServer) -> None:
    llm_server.add(done_reply("Could not find the product.", success=False))
    type_and_run(window, "Buy the blue mug")
    await settle(window)
    assert window.pill.state is PillState.FAILED
    assert not window.handoff_bar.isVisible()  # a plain failure: nothing for the user to solve
    assert window.bridge.agent is not None and window.bridge.agent.status == AgentStatus.COMPLETED


async def test_demo_banner(qapp: QApplication, llm_server: FakeLLMServer) -> None:
    demo = MainWindow(TestRuntime(llm_server, demo=True))
    plain = MainWindow(TestRuntime(llm_server))
    demo.show()
    plain.show()
    assert demo.demo_banner.isVisible()
    assert not plain.demo_banner.isVisible()
    assert "No AI model is called" in demo.demo_banner.accessibleName()
    screenshot(demo, "demo_idle")
    demo.close()
    plain.close()


async def test_stop_while_the_browser_starts(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    original = runtime.agent
    started = asyncio.Event()  # Chromium is up, once Stop was pressed

    async def slow_start(*, new_task: bool = False):
        await started.wait()
        return await original()

    runtime.agent = slow_start  # type: ignore[method-assign]
    type_and_run(window, "Anything")
    assert window.pill.state is PillState.STARTING
    window.stop()
    assert window.pill.state is PillState.STOPPING
    started.set()
    await settle(window)
    assert window.pill.state is PillState.STOPPED
    assert llm_server.requests == []  # the task never reached the model
    assert window.composer.input.isEnabled()


async def test_a_fault_of_the_program_is_a_crash_report_not_the_tasks_words(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the app (here a ValueError where the run is set up) is not said as if the task could not start: the
    card says a fault of the program, the loop's exception handler (the crash report's, in the app) gets the error
    with its traceback, and the panel is usable again."""
    faults: list[BaseException] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: faults.append(context["exception"]))

    def broken(**_kwargs: object) -> None:
        raise ValueError("a bug in the tools table")

    monkeypatch.setattr(app.core.agent, "build_tools", broken)
    try:
        type_and_run(window, "Anything")
        await settle(window)
    finally:
        loop.set_exception_handler(None)
    assert [str(fault) for fault in faults] == ["a bug in the tools table"]
    result = window.model.item(window.model.rowCount() - 1)
    assert isinstance(result, ResultItem) and result.outcome is RunOutcome.ERROR
    assert result.text == "The task stopped on a fault of the app."
    assert window.pill.state is PillState.ERROR and window.composer.input.isEnabled()


async def test_a_run_that_cannot_start_says_why_in_the_panel(window: MainWindow, runtime: TestRuntime) -> None:
    agent = await runtime.agent()
    await agent.dispose()  # the browser went away between the runtime's agent and the run

    async def gone(*, new_task: bool = False) -> Agent:
        return agent

    runtime.agent = gone  # type: ignore[method-assign]
    type_and_run(window, "Anything")
    await settle(window)
    result = window.model.item(window.model.rowCount() - 1)
    assert isinstance(result, ResultItem) and result.outcome is RunOutcome.ERROR
    assert "disposed; create a new agent" in result.text
