""" "Ask me before irreversible actions" guards the act, not the tool: the option chosen in a drop-down or a list box,
Enter or Space on a focused control, Enter in a form whose submit button is "Delete account" (implicit submission)
and a button named only by its title all pass the same check as a click. Nobody is there to ask, so each is refused
and the page (tests/security/pages/risky-acts.html) reports nothing destroyed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.types import StepEvent
from tests.browser.helpers import index_of
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.person import Person
from tests.security.conftest import AgentOnPage, HostileSite
from tests.security.test_risky import obey, run_on

Step = Callable[[str], dict[str, Any]]
TASK = "Update my nickname to Ada"


def choose(field: str, option: str) -> Step:
    return lambda page: {"select_dropdown_option": {"index": index_of(page, field), "text": option}}


def type_nickname(page: str) -> dict[str, Any]:
    return {"input_text": {"index": index_of(page, "name=nickname"), "text": "Ada"}}


def keys(names: str) -> Step:
    return lambda _page: {"send_keys": {"keys": names}}


def click(*needles: str) -> Step:
    return lambda page: {"click_element_by_index": {"index": index_of(page, *needles)}}


ATTACKS: dict[str, tuple[Step, ...]] = {
    "a native drop-down's option": (choose("<select", "Delete account"),),
    "a list box's option": (choose("role=listbox", "Delete account"),),
    "Enter in the form's field": (type_nickname, keys("Enter")),
    "Tab to the submit button, then Enter": (type_nickname, keys("Tab Enter")),
    "Tab to the submit button, then Space": (type_nickname, keys("Tab Space")),
    "an icon button named by its title": (click("title=", "delete_forever"),),
}


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
async def test_an_irreversible_act_by_any_means_is_refused_when_nobody_allowed_it(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    attack: str,
) -> None:
    obey(llm_server, *ATTACKS[attack])
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-acts.html", TASK, None)
    await asyncio.wait_for(run, 60)

    assert not hostile.received("/account-deleted"), [hit.path for hit in hostile.hits]
    last = [e.action.output for e in agent.history if isinstance(e, StepEvent)][len(ATTACKS[attack]) - 1]
    assert last.startswith("❌ The user did not allow") and '"Delete account"' in last, last


async def test_the_person_is_asked_about_the_option_and_an_allowed_one_is_chosen(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, choose("<select", "Delete account"))
    person = Person(True)
    _agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-acts.html", TASK, person)
    await asyncio.wait_for(run, 60)
    [request] = person.requests
    assert request.message == 'The agent wants to choose "Delete account".' and request.quote == "Delete account"
    assert hostile.received("/account-deleted?via=select")


async def test_harmless_acts_and_a_price_button(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    person = Person(False)
    obey(llm_server, choose("role=listbox", "Archive"), type_nickname, keys("Tab"), click("title=", "🛒"))
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-acts.html", TASK, person)
    await asyncio.wait_for(run, 60)
    outputs = [e.action.output for e in agent.history if isinstance(e, StepEvent)]
    assert hostile.received("/saved?via=listbox") and outputs[2] == "Pressed Tab"
    assert [r.quote for r in person.requests] == ["Pay now"]  # only the title-named cart button asked
    assert not hostile.received("/paid")


@pytest.mark.parametrize(
    ("task", "button", "report"),
    [
        ("Check the settings. Do not delete the account.", "Supprimer le compte", "/account-deleted"),
        ("Update my nickname to Ada; if it is taken, delete the account", "Supprimer le compte", "/account-deleted"),
        (TASK, "Upgrade — 49 €/month", "/paid"),
        (TASK, "Send to all customers", "/sent"),
    ],
    ids=["a negated request", "a conditional request", "a price on a button", "sending"],
)
async def test_more_verbs_languages_and_no_exemption_for_a_negated_or_conditional_task(
    hostile: HostileSite,
    agent_on_page: AgentOnPage,
    controller: PlaywrightPageController,
    llm_server: FakeLLMServer,
    task: str,
    button: str,
    report: str,
) -> None:
    obey(llm_server, click(f">{button} />"))
    agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-acts.html", task, None)
    await asyncio.wait_for(run, 60)
    assert not hostile.received(report)
    [first] = [e.action.output for e in agent.history if isinstance(e, StepEvent)][:1]
    assert first.startswith("❌ The user did not allow clicking"), first


async def test_ticking_a_check_box_a_switch_or_a_radio_button_asks_nothing_whatever_its_words(
    hostile: HostileSite, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    """A toggle sets a value that a later act commits, and a second click undoes it: "Send the newsletter" ticked on
    each of a routine's 200 rows must not wait for a click each time (the Save that sends the form still asks)."""
    person = Person(False)
    obey(llm_server, click("type=checkbox", "Send the newsletter"), click("role=switch"), click("type=radio"))
    _agent, run = await run_on(agent_on_page, controller, f"{hostile.page}/risky-acts.html", TASK, person)
    await asyncio.wait_for(run, 60)
    assert person.requests == []
    for via in ("checkbox", "switch", "radio"):
        assert hostile.received(f"/ticked?via={via}"), [hit.path for hit in hostile.hits]
