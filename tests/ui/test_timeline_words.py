"""The timeline in plain words: a step names the element, its raw action waits behind "Details", errors and
results are read whole and in the panel's language, and the keyboard lands on a card at once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget

from app.core.messages import MessageId, say
from app.core.types import (
    ActionRecord,
    ActionTarget,
    AgentReflection,
    AgentStatus,
    ErrorEvent,
    ErrorKind,
    ExecutionResult,
    RunOutcome,
    StepEvent,
)
from app.text.i18n import set_language
from app.ui.timeline.card import BadgeOp, DocOp, TextOp
from app.ui.timeline.delegate import TimelineDelegate
from app.ui.timeline.items import ErrorItem
from app.ui.timeline.model import TimelineModel
from app.ui.timeline.view import TimelineView
from tests.ui.conftest import ARTIFACTS

SAVE = ActionTarget(tag="button", name="Save")
REPLAY_ERROR = (
    "The demo replay no longer matches the page at answer 7: the recording acted on "
    '"<input label=Email type=email>" and the page now shows something else there. Press New task and '
    "run the demo again from the start; nothing was saved on the demo site. "
) * 3


def click_step(index: int, output: str = "Clicked [9] <button> Save") -> StepEvent:
    return StepEvent(
        step_index=index,
        reflection=AgentReflection(evaluation_previous_goal="✅ Success - typed", next_goal="Save the customer"),
        action=ActionRecord(name="click_element_by_index", input={"index": 9}, output=output, target=SAVE),
        duration=0.8,
    )


@pytest.fixture
def panel(qapp: QApplication, qtbot) -> tuple[QWidget, QPushButton, TimelineView]:
    host = QWidget()
    before = QPushButton("Run", host)
    model = TimelineModel()
    view = TimelineView(model, host)
    model.setParent(view)
    layout = QVBoxLayout(host)
    layout.addWidget(before)
    layout.addWidget(view)
    qtbot.addWidget(host)
    host.resize(420, 700)
    host.show()
    qtbot.waitExposed(host)
    return host, before, view


def card_texts(view: TimelineView, row: int) -> list[str]:
    delegate = view.itemDelegate()
    assert isinstance(delegate, TimelineDelegate)
    layout = delegate._layout(view.timeline.index(row), view.viewport().width() - 24.0)
    return [op.text for op in layout.ops if isinstance(op, TextOp | BadgeOp)] + [
        op.doc.toPlainText() for op in layout.ops if isinstance(op, DocOp)
    ]


def card_docs(view: TimelineView, row: int) -> list[DocOp]:
    delegate = view.itemDelegate()
    assert isinstance(delegate, TimelineDelegate)
    return [
        op
        for op in delegate._layout(view.timeline.index(row), view.viewport().width() - 24.0).ops
        if isinstance(op, DocOp)
    ]


def test_a_step_names_the_element_and_keeps_the_raw_action_behind_details(panel, qtbot) -> None:
    _host, _before, view = panel
    model = view.timeline
    model.start_run("Add Ada", follow_up=False)
    model.add_events([click_step(1), click_step(2, output="❌ Element [9] is not on the page")])
    QApplication.processEvents()
    collapsed = " ".join(card_texts(view, 1))
    assert "Click the Save button" in collapsed and "Details" in collapsed
    for jargon in ("[9]", "click_element_by_index", "<button>", '{"index"'):
        assert jargon not in collapsed and jargon not in " ".join(card_texts(view, 2))
    assert "This action didn't work; the agent looks again." in " ".join(card_texts(view, 2))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(2)).center())
    expanded = card_texts(view, 2)
    assert 'click_element_by_index {"index": 9}' in expanded
    assert any(line.startswith("→ ") and line.endswith(" Element [9] is not on the page") for line in expanded)
    assert "Hide details" in expanded
    QApplication.processEvents()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(ARTIFACTS / "timeline_details.png"))


def test_a_long_error_result_is_shown_whole_with_its_quoted_markup(panel) -> None:
    _host, _before, view = panel
    model = view.timeline
    model.start_run("Add a customer", follow_up=False)
    result = ExecutionResult(
        success=False, data=REPLAY_ERROR, status=AgentStatus.ERROR, history=[ErrorEvent(message=REPLAY_ERROR)]
    )
    model.add_events(result.history)
    model.finish_run(result)
    QApplication.processEvents()
    result_card = model.rowCount() - 1
    # Said once: the result card holds the error; no error card above it repeats the same words.
    assert not any(isinstance(item, ErrorItem) for item in model.items)
    [doc] = card_docs(view, result_card)
    assert doc.doc.toPlainText() == REPLAY_ERROR.strip()  # nothing lost from "<input …" on
    assert doc.height == doc.doc.size().height()  # painted to its last line, not clipped
    assert doc.doc.size().width() <= doc.doc.textWidth() + 1  # wrapped within the card
    assert view.visualRect(model.index(result_card)).height() > doc.height


def test_errors_and_outcomes_in_the_panels_language(panel) -> None:
    _host, _before, view = panel
    model = view.timeline
    message = "The endpoint http://x/v1 rejected the API key (401). Server said: bad key"
    timed_out = say(MessageId.STEP_TIMED_OUT, step=3, seconds="30")
    set_language("zh")
    try:
        model.add_finished_run(
            "任务",
            ExecutionResult(
                success=False,
                data=message,
                status=AgentStatus.ERROR,
                history=[
                    ErrorEvent(message=timed_out.text, said=timed_out),
                    ErrorEvent(message=message, kind=ErrorKind.AUTH),
                ],
            ),
            follow_up=False,
        )
        QApplication.processEvents()
        assert "第 3 步在 30 秒后超时" in " ".join(card_texts(view, 1))
        # The error that ended the run is said once, by the result card.
        assert card_docs(view, 2)[0].doc.toPlainText().startswith("模型服务不接受该 API 密钥。")
        needs = model.finish_run(ExecutionResult(success=False, data="请解决验证码", status=AgentStatus.NEEDS_PERSON))
        assert needs.outcome is RunOutcome.NEEDS_PERSON and "需要人工操作" in card_texts(view, 3)
    finally:
        set_language("en")


def test_tab_lands_on_a_card_and_the_arrows_and_enter_work_at_once(panel, qtbot) -> None:
    host, before, view = panel
    model = view.timeline
    model.start_run("Add Ada", follow_up=False)
    model.add_events([click_step(i) for i in range(1, 4)])
    QApplication.processEvents()
    host.activateWindow()
    before.setFocus()
    qtbot.waitUntil(before.hasFocus)
    assert not view.currentIndex().isValid()
    QTest.keyClick(before, Qt.Key.Key_Tab)
    qtbot.waitUntil(view.hasFocus)
    assert view.currentIndex().row() == 3  # the newest card, while following the run
    QTest.keyClick(view, Qt.Key.Key_Up)
    assert view.currentIndex().row() == 2
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert model.item(2).expanded and 'click_element_by_index {"index": 9}' in card_texts(view, 2)
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert not model.item(2).expanded
    QTest.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == 3
    view.grab().save(str(ARTIFACTS / "timeline_focus.png"))


def test_a_language_switch_says_the_cards_already_shown_in_the_new_language(panel) -> None:
    _host, _before, view = panel
    model = view.timeline
    model.start_run("Add Ada", follow_up=False)
    model.add_events([click_step(1)])
    model.finish_run(
        ExecutionResult(
            success=False,
            data="Task aborted",
            status=AgentStatus.STOPPED,
            history=[click_step(1), ErrorEvent(message="Task aborted")],
        )
    )
    QApplication.processEvents()
    assert "Click the Save button" in card_texts(view, 1) and "You stopped the task." in card_texts(view, 2)
    set_language("zh")
    try:
        QApplication.sendEvent(view, QEvent(QEvent.Type.LanguageChange))
        assert "点击“Save”按钮" in card_texts(view, 1) and "你停止了这个任务。" in card_texts(view, 2)
        assert view.jump_button.text() == "跳到最新" and view.accessibleName() == "时间线"
    finally:
        set_language("en")
        QApplication.sendEvent(view, QEvent(QEvent.Type.LanguageChange))
