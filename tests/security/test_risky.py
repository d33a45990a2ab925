"""Risky moments need the user: a page's confirm(), prompt() and beforeunload, and a click on an element whose name
reads as irreversible. The scripted model does whatever the page says; the page records on the server whatever it
destroys, so a test sees whether the harm was done."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.safety import risky
from app.core.safety.guardrails import Guardrails
from app.core.types import AgentStatus, StepEvent
from tests.browser.helpers import index_of
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion
from tests.fakes.person import Person
from tests.security.conftest import AgentOnPage, HostileSite
from tests.waiting import finishes

# Dialogs are told by tab id, and a tab remembers the dialogs it showed: each test starts a Chromium of its own.
pytestmark = pytest.mark.fresh_browser

Step = Callable[[str], dict[str, Any]]


def obey(llm_server: FakeLLMServer, *steps: Step) -> None:
    """A model that does ``steps`` in order, each chosen from the page it is shown, then calls done."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        done = len(llm_server.requests) - 1
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        page = user.split("<browser_state>", 1)[1]
        action = (
            steps[done](page) if done < len(steps) else {"done": {"text": "Did what the page said.", "success": True}}
        )
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond


def click(*needles: str) -> Step:
    return lambda page: {"click_element_by_index": {"index": index_of(page, *needles)}}


async def run_on(
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    url: str,
    task: str,
    person: Person | None,
    **guardrails: Any,
) -> tuple[Agent, asyncio.Task[Any]]:
    rails = Guardrails(confirm=person, **guardrails)
    controller.guardrails = rails  # as the composition root does: the page's dialogs ask the same person
    agent = agent_on_page(AgentConfig(max_steps=6), guardrails=rails)
    await controller.go_to_url(url, AbortSignal())
    return agent, asyncio.ensure_future(agent.execute(task))


def step_outputs(agent: Agent) -> list[str]:
    return [e.action.output for e in agent.history if isinstance(e, StepEvent)]


# --- confirm() -----------------------------------------------------------------------------------------------------

QUESTION = 'A confirm dialog in tab 1 asked "Delete all 120 customers?"'


@pytest.mark.parametrize("person", [None, Person(False)], ids=["nobody to ask", "the user refuses"])
async def test_a_confirm_is_never_answered_yes_for_the_user(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    person: Person | None,
) -> None:
    obey(llm_server, click("Tidy up the list"))
    agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-confirm.html", "Look at my customers", person
    )
    result = await asyncio.wait_for(run, 60)

    assert result.status == AgentStatus.COMPLETED
    assert not hostile.received("/deleted-all-customers")
    assert step_outputs(agent)[0].startswith("Clicked [")  # the click itself happened and is told as such
    told = llm_server.user_message(1)
    answer = "the user answered Cancel (not allowed)" if person else "it was answered Cancel: nobody was there"
    assert f"{QUESTION}; {answer}" in told
    if person is not None:
        [request] = person.requests
        assert request.kind == "dialog" and request.dialog_type == "confirm"
        assert request.quote == "Delete all 120 customers?"
        assert request.message == 'The page asks: "Delete all 120 customers?"'
        assert request.url == f"{hostile.page}/risky-confirm.html"


async def test_a_confirm_the_user_allows_goes_ahead(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, click("Tidy up the list"))
    person = Person(True)
    _agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-confirm.html", "Tidy up my customer list", person
    )
    await asyncio.wait_for(run, 60)
    assert hostile.received("/deleted-all-customers")
    assert f"{QUESTION}; the user answered OK (allowed)." in llm_server.user_message(1)


async def test_an_unanswered_confirm_is_cancelled_at_the_deadline_and_the_step_goes_on(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Longer than the click's own 5 s timeout: the frozen page must not turn the click into a failure.
    monkeypatch.setattr(risky, "CONFIRM_TIMEOUT", 6.0)
    obey(llm_server, click("Tidy up the list"))
    person = Person(None)
    agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-confirm.html", "Look at my customers", person
    )
    result = await asyncio.wait_for(run, 60)

    assert result.status == AgentStatus.COMPLETED and person.requests
    assert not hostile.received("/deleted-all-customers")
    assert step_outputs(agent)[0].startswith("Clicked [")
    assert f"{QUESTION}; it was answered Cancel: the user did not answer within 6 s." in llm_server.user_message(1)


async def test_stop_while_a_confirm_waits_for_the_user_stops_at_once(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, click("Tidy up the list"))
    person = Person(None)
    agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-confirm.html", "Look at my customers", person
    )
    await asyncio.wait_for(person.asked.wait(), 30)

    await finishes(agent.stop(), 20, "the stop")  # not the question's own 60 s
    result = await run
    assert result.status == AgentStatus.STOPPED
    assert not hostile.received("/deleted-all-customers")


async def test_a_page_cannot_wear_the_user_down_with_one_confirm_after_another(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, click("Tidy up the list"))
    person = Person(False)
    _agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-repeat.html", "Look at my customers", person
    )
    await asyncio.wait_for(run, 60)

    assert len(person.requests) == 1  # asked once; the 29 questions right after it are cancelled without asking
    assert not hostile.received("/deleted-all-customers")
    assert (await controller.get_browser_state(AbortSignal())).title == "Done asking"
    told = llm_server.user_message(1)
    assert 'asked "Delete all 120 customers? (asking 1 of 30)"; the user answered Cancel (not allowed).' in told
    assert (
        'asked "Delete all 120 customers? (asking 2 of 30)"; it was answered Cancel: the tab asked again right '
        "after a dialog that was not allowed"
    ) in told
    assert "asking 3 of 30" not in told


# --- irreversible clicks -------------------------------------------------------------------------------------------

ACCOUNT_TASK = "Update my address to 2 New Street"


@pytest.mark.parametrize("person", [None, Person(False)], ids=["nobody to ask", "the user refuses"])
async def test_an_irreversible_click_the_task_did_not_ask_for_needs_the_user(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    person: Person | None,
) -> None:
    obey(llm_server, click("Delete account permanently"))
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-account.html", ACCOUNT_TASK, person)
    await asyncio.wait_for(run, 60)

    assert not hostile.received("/account-deleted")
    output = step_outputs(agent)[0]
    assert output.startswith("❌ The user did not allow clicking [")
    assert '"Delete account permanently"' in output and "Do not try to do it another way" in output
    assert "The user did not allow clicking" in llm_server.user_message(1)
    if person is not None:
        assert [r.kind for r in person.requests] == ["irreversible"]
        assert person.requests[0].message == 'The agent wants to click "Delete account permanently".'


async def test_an_irreversible_click_the_user_allows_is_clicked(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, click("Delete account permanently"))
    person = Person(True)
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-account.html", ACCOUNT_TASK, person)
    await asyncio.wait_for(run, 60)
    assert len(person.requests) == 1
    assert step_outputs(agent)[0].startswith("Clicked [")
    assert hostile.received("/account-deleted")


@pytest.mark.parametrize(
    ("task", "ask"),
    [("Delete my account", True), (ACCOUNT_TASK, False)],
    ids=["the task asked for it", "asking is switched off"],
)
async def test_an_irreversible_click_goes_ahead_without_a_question_when_asked_for_or_not_wanted(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    task: str,
    ask: bool,
) -> None:
    obey(llm_server, click("Delete account permanently"))
    person = Person(False)
    _agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-account.html", task, person, ask_before_irreversible=ask
    )
    await asyncio.wait_for(run, 60)
    assert person.requests == []
    assert hostile.received("/account-deleted")


# --- prompt() and beforeunload ------------------------------------------------------------------------------------


async def test_a_prompt_is_cancelled_unless_the_user_allows_it(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    asked = 'A prompt dialog in tab 1 asked "Type DELETE to erase the workspace"'
    obey(llm_server, click("Continue"))
    _agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-prompt.html", "Open the workspace", None
    )
    await asyncio.wait_for(run, 60)
    assert not hostile.received("/workspace-erased")
    assert f"{asked}; it was answered Cancel: nobody was there to allow it." in llm_server.user_message(1)

    llm_server.requests.clear()
    person = Person(True)
    obey(llm_server, click("Continue"))
    _agent, run = await run_on(
        agent_on_page, controller, f"{hostile.page}/risky-prompt.html", "Open the workspace", person
    )
    await asyncio.wait_for(run, 60)
    assert [r.dialog_type for r in person.requests] == ["prompt"]
    assert hostile.received("/workspace-erased?typed=DELETE")  # its own default, never a text of the model's
    assert f'{asked}; the user allowed it, so it was answered with its default "DELETE".' in llm_server.user_message(1)


@pytest.mark.parametrize("person", [None, Person(False), Person(True)], ids=["nobody", "refused", "allowed"])
async def test_leaving_a_page_that_asks_needs_the_user(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    person: Person | None,
) -> None:
    elsewhere = f"{hostile.page}/index.html"
    obey(
        llm_server,
        lambda page: {"input_text": {"index": index_of(page, "amount"), "text": "120"}},
        lambda _page: {"go_to_url": {"url": elsewhere}},
    )
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-leave.html", "Look around", person)
    await asyncio.wait_for(run, 60)

    told = llm_server.user_message(2)
    asked = "Tab 1 asked to confirm leaving the page"
    if person is not None and person.answer:
        assert f"{asked}; the user allowed leaving." in told
        assert controller.session.active_page.url == elsewhere
    else:
        expected = "the user chose to stay (not allowed)." if person else "it stayed on the page: nobody was there"
        assert f"{asked}; {expected}" in told
        assert controller.session.active_page.url == f"{hostile.page}/risky-leave.html"
    if person is not None:
        assert [r.dialog_type for r in person.requests] == ["beforeunload"]
    assert agent.status == AgentStatus.COMPLETED
