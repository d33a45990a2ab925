"""The timeline model and view on their own: incremental sync, 200+ steps, follow-tail, expand, copy."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem

from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentReflection,
    AgentStatus,
    ErrorEvent,
    ExecutionResult,
    HistoricalEvent,
    ObservationEvent,
    RetryEvent,
    RunOutcome,
    StepEvent,
    Usage,
    UserTakeoverEvent,
)
from app.ui.timeline.items import ErrorItem, ObservationItem, ResultItem, StepItem, TaskItem
from app.ui.timeline.model import TimelineModel
from app.ui.timeline.view import TimelineView

LONG = (
    "The form has a billing section further down with street, postcode, city and country; the country is a "
    "custom dropdown that opens a searchable list. "
) * 4


def step(i: int, output: str = "", memory: str = "") -> StepEvent:
    return StepEvent(
        step_index=i,
        reflection=AgentReflection(
            evaluation_previous_goal="✅ Success - done" if i % 3 else "❌ Failed - missed",
            memory=memory or f"Filled {i} fields so far",
            next_goal=f"Fill field {i + 1}",
        ),
        action=ActionRecord(
            name="input_text", input={"index": i, "text": f"value {i}"}, output=output or f"Typed into [{i}]"
        ),
        usage=Usage(prompt_tokens=1000, completion_tokens=100),
        duration=1.5,
    )


def long_history(count: int) -> list[HistoricalEvent]:
    history: list[HistoricalEvent] = []
    for i in range(1, count + 1):
        history.append(step(i, memory=LONG if i % 10 == 0 else ""))
        if i % 25 == 0:
            history.append(ObservationEvent(content="Navigated to a new page"))
        if i % 40 == 0:
            history.append(RetryEvent(message="429 rate limited", attempt=1, max_attempts=3))
    return history


@pytest.fixture
def view(qapp: QApplication, qtbot) -> TimelineView:
    model = TimelineModel()
    widget = TimelineView(model)
    model.setParent(widget)
    qtbot.addWidget(widget)
    widget.resize(420, 700)
    widget.show()
    return widget


def test_each_added_event_is_appended() -> None:
    model = TimelineModel()
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    model.start_run("Do it", follow_up=False)
    history: list[HistoricalEvent] = [step(1), ObservationEvent(content="Page changed"), step(2)]
    for event in history:  # as the agent's event_added tells them
        model.add_event(event)
    model.add_event(ErrorEvent(message="Task aborted"))  # said by the result card instead
    assert inserted == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert [type(item) for item in model.items] == [TaskItem, StepItem, ObservationItem, StepItem]
    assert model.usage.prompt_tokens == 2000
    result = ExecutionResult(
        success=False,
        data="Task aborted",
        history=[*history, ErrorEvent(message="Task aborted")],
        status=AgentStatus.STOPPED,
        usage=Usage(prompt_tokens=2100, completion_tokens=210),
    )
    item = model.finish_run(result)
    assert item.outcome is RunOutcome.STOPPED and item.message == "You stopped the task."
    assert not any(isinstance(i, ErrorItem) for i in model.items)  # "Task aborted" is said once, by the result
    assert model.usage.prompt_tokens == 2100


def test_reflection_and_failure_reach_the_model_data() -> None:
    model = TimelineModel()
    model.start_run("Task", follow_up=False)
    failed = step(2, output="❌ Element [2] is not on the page")
    failed.action.target = ActionTarget(tag="input", name="Last name", input_type="text")
    model.add_events([failed])
    text = model.data(model.index(1))
    assert text.splitlines()[0] == "Step 2: Type “value 2” into the Last name field (1.5 s)"
    assert "✅ done" in text and "Memory: Filled 2 fields so far" in text and "Next goal: Fill field 3" in text
    assert "This action didn't work; the agent looks again." in text
    assert "[2]" not in text and "input_text" not in text  # the raw action waits behind "Details"
    model.toggle_expanded(1)
    text = model.data(model.index(1))
    assert 'Details: input_text {"index": 2, "text": "value 2"}\n→ ❌ Element [2] is not on the page' in text
    assert isinstance(model.data(model.index(1), TimelineModel.ItemRole), StepItem)


def test_every_kind_of_card_reads_as_plain_text() -> None:
    """What Copy puts on the clipboard and a screen reader announces, for every kind of card (every event of the
    agent's history has one; a step's own words are checked above)."""
    model = TimelineModel()
    model.start_run("Find the invoice", follow_up=True)
    model.add_events(
        [
            step(1),
            ObservationEvent(content="Navigated to a new page"),
            RetryEvent(message="429 rate limited", attempt=2, max_attempts=3),
            UserTakeoverEvent(after_url="https://a.test/home", after_title="Home", note="Signed in"),
            ErrorEvent(message="The page did not load"),
        ]
    )
    model.add_question("Which invoice?")
    model.add_answer("The latest")
    model.add_notice("Sent by an app over MCP.")
    model.finish_run(ExecutionResult(success=True, data="Found it.", status=AgentStatus.COMPLETED))
    task, step_text, *rest = [model.data(model.index(row)) for row in range(model.rowCount())]
    assert task == "Follow-up: Find the invoice" and step_text.startswith("Step 1: ")
    assert rest == [
        "Navigated to a new page",
        "Retrying (2/3): 429 rate limited",
        "You took over the browser\nNow on: Home (https://a.test/home)\nYour note: Signed in",
        "Error: The page did not load",
        "The agent asks: Which invoice?",
        "Your answer: The latest",
        "Sent by an app over MCP.",
        "Success\nFound it.",
    ]


def test_two_hundred_and_fifty_steps_are_followed_to_the_latest(view: TimelineView) -> None:
    """How long they take to tell, lay out and scroll through: tests/bench/bench_timeline.py."""
    model = view.timeline
    model.start_run("Fill in 250 fields", follow_up=False)
    history = long_history(250)
    for event in history:  # one event_added at a time, as a run tells them
        model.add_event(event)
    QApplication.processEvents()
    view.grab()
    bar = view.verticalScrollBar()
    assert model.rowCount() == 1 + len(history)
    assert view.following and bar.value() == bar.maximum() > 0
    for value in range(bar.maximum(), 0, -max(1, bar.maximum() // 40)):
        bar.setValue(value)
        view.viewport().repaint()
    assert bar.value() < bar.maximum() and not view.following  # scrolled up: the latest is no longer followed


def test_follow_tail_and_jump_to_latest(view: TimelineView) -> None:
    model = view.timeline
    model.start_run("Task", follow_up=False)
    model.add_events(long_history(30))
    QApplication.processEvents()
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum()
    bar.setValue(0)  # the user scrolls up to read
    assert not view.following
    assert view.jump_button.isVisible()
    model.add_events(long_history(35)[30:])
    QApplication.processEvents()
    assert bar.value() == 0  # new steps do not yank the view away
    view.jump_button.click()
    QApplication.processEvents()
    assert bar.value() == bar.maximum()
    assert view.following and not view.jump_button.isVisible()
    model.add_events(long_history(40)[35:])
    QApplication.processEvents()
    assert bar.value() == bar.maximum()


def test_click_expands_long_text(view: TimelineView, qtbot) -> None:
    model = view.timeline
    model.start_run("Task", follow_up=False)
    model.add_events([step(1, memory=LONG)])
    QApplication.processEvents()
    index = model.index(1)
    option = QStyleOptionViewItem()
    option.rect = view.visualRect(index)
    collapsed = view.itemDelegate().sizeHint(option, index).height()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    assert model.item(1).expanded
    expanded = view.itemDelegate().sizeHint(option, index).height()
    assert expanded > collapsed + 40
    QApplication.processEvents()
    assert view.visualRect(index).height() == expanded


def test_ctrl_c_copies_the_current_card(view: TimelineView) -> None:
    model = view.timeline
    model.start_run("Copy me, please", follow_up=False)
    view.setCurrentIndex(model.index(0))
    view.setFocus()
    QTest.keySequence(view, QKeySequence(QKeySequence.StandardKey.Copy))
    assert QGuiApplication.clipboard().text() == "Task: Copy me, please"


def test_markdown_result_and_load_run(view: TimelineView) -> None:
    model = view.timeline
    report = "## Task\nExport\n\n## Completed work\n- Opened the report\n\n## Not started\n- The export itself"
    result = ExecutionResult(success=False, data=report, history=[step(1)], status=AgentStatus.ERROR, steps=1)
    model.load_run("Export the report", result)
    assert [type(item) for item in model.items] == [TaskItem, StepItem, ResultItem]
    result = model.item(2)
    assert isinstance(result, ResultItem) and result.outcome is RunOutcome.ERROR
    QApplication.processEvents()
    assert not view.grab().isNull()
