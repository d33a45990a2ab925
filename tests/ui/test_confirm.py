"""The panel answers risky moments: "The agent wants to click "Delete account". Allow / Cancel" for an irreversible
click, "The page asks: … Allow / Cancel" for a page's dialog; Cancel after the time-out; Stop cancels it."""

from __future__ import annotations

import asyncio

import pytest

from app.core.abort import AbortController, AbortError, AbortSignal
from app.core.page import ElementInfo
from app.core.safety import risky
from app.core.safety.risky import ConfirmRequest
from app.text.i18n import set_language
from app.ui.main_window import MainWindow
from app.ui.status_pill import PillState
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.ui.conftest import TestRuntime, screenshot, settle
from tests.ui.test_panel_runs import type_and_run
from tests.waiting import until

TASK = "Update my address to 2 New Street"


def delete_account(runtime: TestRuntime, llm_server: FakeLLMServer) -> None:
    """The page has a "Delete account permanently" button [2]; the model clicks it, then reports."""
    runtime.page.elements[2] = ElementInfo(tag="button", name="Delete account permanently")
    llm_server.add(tool_reply({"click_element_by_index": {"index": 2}}), done_reply("Finished."))


async def the_question(window: MainWindow) -> None:
    await until(lambda: window.confirm_bar.isVisible(), message="the confirm bar")


async def test_allow_lets_the_click_happen(window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer) -> None:
    delete_account(runtime, llm_server)
    type_and_run(window, TASK)
    await the_question(window)
    assert window.confirm_bar.question.text() == "The agent wants to click “Delete account permanently”."
    assert window.confirm_bar.countdown.text() == f"Cancels by itself in {risky.CONFIRM_TIMEOUT:g} s"
    assert window.confirm_bar.cancel_button.hasFocus()  # Enter or Space picks the safe answer
    assert runtime.page.actions == []
    screenshot(window, "confirm_irreversible")

    window.confirm_bar.allow_button.click()
    await settle(window)
    assert runtime.page.actions == [("click", (2,))]
    assert not window.confirm_bar.isVisible()
    assert window.pill.state is PillState.SUCCESS


async def test_cancel_refuses_and_the_model_is_told(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    delete_account(runtime, llm_server)
    type_and_run(window, TASK)
    await the_question(window)
    window.confirm_bar.cancel_button.click()
    await settle(window)
    assert runtime.page.actions == []
    assert not window.confirm_bar.isVisible()
    assert 'The user did not allow clicking [2] "Delete account permanently"' in llm_server.user_message(1)


async def test_no_answer_is_cancel_after_the_time_out(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(risky, "CONFIRM_TIMEOUT", 1.5)
    delete_account(runtime, llm_server)
    type_and_run(window, TASK)
    await the_question(window)
    assert window.confirm_bar.countdown.text() == "Cancels by itself in 2 s"
    await until(lambda: window.confirm_bar.countdown.text() == "Cancels by itself in 1 s", message="the countdown")
    await settle(window)
    assert runtime.page.actions == []
    assert not window.confirm_bar.isVisible()
    assert "The user did not allow clicking" in llm_server.user_message(1)


async def test_stop_during_the_question_cancels_it_and_stops(
    window: MainWindow, runtime: TestRuntime, llm_server: FakeLLMServer
) -> None:
    delete_account(runtime, llm_server)
    type_and_run(window, TASK)
    await the_question(window)
    window.composer.stop.click()
    await settle(window, timeout=3)
    assert window.pill.state is PillState.STOPPED
    assert not window.confirm_bar.isVisible()
    assert runtime.page.actions == []


async def test_a_page_dialog_is_asked_as_plain_text_with_its_site(window: MainWindow) -> None:
    request = ConfirmRequest(
        kind="dialog",
        dialog_type="confirm",
        message='The page asks: "…"',
        quote="<b>Delete</b> all 120 customers?",
        url="http://crm.example:8080/customers",
    )
    answer = asyncio.ensure_future(window.confirm_bar.ask(request, AbortSignal()))
    await the_question(window)
    assert window.confirm_bar.question.text() == "The page asks: “<b>Delete</b> all 120 customers?”"
    assert window.confirm_bar.detail.text() == (
        "Asked by crm.example:8080. Answer here or in the browser; the agent will not answer it for you."
    )
    screenshot(window, "confirm_dialog")
    window.confirm_bar.allow_button.click()
    assert await asyncio.wait_for(answer, 2) is True

    # A question whose page goes away (its signal aborts) is withdrawn.
    gone = AbortController()
    answer = asyncio.ensure_future(window.confirm_bar.ask(request, gone.signal))
    await the_question(window)
    gone.abort("The tab was closed")
    with pytest.raises(AbortError):
        await asyncio.wait_for(answer, 2)
    assert not window.confirm_bar.isVisible()


async def test_the_questions_in_chinese(window: MainWindow) -> None:
    set_language("zh")
    try:
        leave = ConfirmRequest(kind="dialog", dialog_type="beforeunload", message="", url="http://crm.example/")
        answer = asyncio.ensure_future(window.confirm_bar.ask(leave, AbortSignal()))
        await the_question(window)
        texts = (
            window.confirm_bar.question.text(),
            window.confirm_bar.detail.text(),
            window.confirm_bar.countdown.text(),
        )
        window.confirm_bar.cancel_button.click()
        assert await asyncio.wait_for(answer, 2) is False
    finally:
        set_language("en")
    assert texts == (
        "网页请求确认离开；在该页面上所做的更改可能会丢失。",
        "由 crm.example 提出。可以在这里或在浏览器中回答；智能体不会替你回答。",
        f"{risky.CONFIRM_TIMEOUT:g} 秒后自动取消",
    )
