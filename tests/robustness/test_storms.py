"""Dialog and pop-up storms: hostile local pages (tests/robustness/pages) in real headless Chromium, an agent on the
real HTTP fake model. A storm costs the model one line and the person at most a few questions; the working tab stays
where the agent put it; the run ends as usual."""

from __future__ import annotations

import asyncio
import functools
import http.server
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.browser.controller import PlaywrightPageController
from app.core.abort import AbortSignal
from app.core.config import AgentConfig
from app.core.safety.guardrails import Guardrails
from app.core.types import AgentStatus, StepEvent
from tests.browser.helpers import index_of
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion
from tests.fakes.person import Person
from tests.security.conftest import AgentOnPage, agent_on_page  # noqa: F401  (fixture)
from tests.waiting import until

# Dialogs and pop-ups are told by tab id, and a tab remembers its storms: each test starts a Chromium of its own.
pytestmark = pytest.mark.fresh_browser

PAGES = Path(__file__).resolve().parent / "pages"
# A prompt on these small pages is a few KB; one told dialog line per alert of a 300-alert storm would be ~35 KB.
PROMPT_LIMIT = 16_000

Step = Callable[[str], dict[str, Any]]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def obey(llm_server: FakeLLMServer, *steps: Step) -> None:
    """A model that does ``steps`` in order, each chosen from the page it is shown, then calls done."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        done = len(llm_server.requests) - 1
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        page = user.split("<browser_state>", 1)[1]
        action = steps[done](page) if done < len(steps) else {"done": {"text": "Finished.", "success": True}}
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond


def wait(seconds: float) -> Step:
    return lambda _page: {"wait": {"seconds": seconds}}


def click(*needles: str) -> Step:
    return lambda page: {"click_element_by_index": {"index": index_of(page, *needles)}}


async def run(
    agent_on_page: AgentOnPage, controller: PlaywrightPageController, url: str, person: Person | None = None
) -> tuple[Any, list[str]]:
    rails = Guardrails(confirm=person)
    controller.guardrails = rails  # as the composition root does: the page's dialogs ask the same person
    agent = agent_on_page(AgentConfig(max_steps=6), guardrails=rails)
    await controller.go_to_url(url, AbortSignal())
    result = await asyncio.wait_for(agent.execute("Look at this page"), 90)
    return result, [e.action.output for e in agent.history if isinstance(e, StepEvent)]


def prompt_sizes(llm_server: FakeLLMServer) -> list[int]:
    return [len(json.dumps(r["messages"], ensure_ascii=False).encode()) for r in llm_server.requests]


def told(llm_server: FakeLLMServer) -> str:
    return "\n".join(llm_server.user_message(i) for i in range(len(llm_server.requests)))


# --- dialogs -------------------------------------------------------------------------------------------------------


async def test_an_alert_storm_reaches_the_model_as_three_alerts_and_one_line_then_the_tab_is_quiet(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, wait(0.5), wait(0.5), wait(0.5))
    started = time.monotonic()
    result, _outputs = await run(agent_on_page, controller, f"{site}/alert-storm.html")
    elapsed = time.monotonic() - started

    assert result.status == AgentStatus.COMPLETED
    assert len(llm_server.requests) == 4
    first = llm_server.user_message(0)
    assert first.count("An alert dialog in tab 1 said") == 3
    assert 'said "Congratulations! You have won (3 of 300)"; it was accepted automatically.' in first
    [dismissed] = re.findall(
        r"Tab 1 kept opening dialogs: ([\d,]+) more were dismissed without being shown; its "
        r"further dialogs are blocked until it goes to another page\.",
        first,
    )
    # The storm's 297 beyond the first three, and any "Still here?" that reached Chromium before the tab was quieted
    # (its 50 ms timer can beat the quieting on a busy machine).
    asked_later = await controller.session.active_page.evaluate("window.stillHereAsked")
    assert int(dismissed.replace(",", "")) == 297 + asked_later
    # The page's alert every 50 ms after the storm is quiet: the tab's dialogs are blocked and never told again.
    for later in range(1, 4):
        assert llm_server.user_message(later).count("An alert dialog") <= 3  # the first step's, in the history
    assert "Still here?" not in told(llm_server)
    assert max(prompt_sizes(llm_server)) < PROMPT_LIMIT
    print(f"\nalert storm: largest prompt {max(prompt_sizes(llm_server))} bytes, run {elapsed:.1f} s")


@pytest.mark.parametrize("answer", [True, False], ids=["the user allows", "the user refuses"])
async def test_a_confirm_storm_asks_the_user_a_few_times_then_dismisses_the_rest_at_once(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer, answer: bool
) -> None:
    obey(llm_server, click("Tidy up the projects"))
    person = Person(answer)
    result, outputs = await run(agent_on_page, controller, f"{site}/confirm-storm.html", person)

    assert result.status == AgentStatus.COMPLETED
    assert outputs[0].startswith("Clicked [")
    # Allowed: three questions in a row, then no more. Refused: one, and the tab keeps quiet right after it.
    assert len(person.requests) == (3 if answer else 1)
    assert all(r.dialog_type == "confirm" for r in person.requests)
    title = (await controller.get_browser_state(AbortSignal())).title
    assert title == f"Asked 200 times, {3 if answer else 0} yes"
    after_click = llm_server.user_message(1)
    assert "Tab 1 kept opening dialogs: 197 more were dismissed without being shown" in after_click
    assert after_click.count("A confirm dialog in tab 1 asked") <= 3
    assert "Archive project 4 of 200" not in after_click
    assert max(prompt_sizes(llm_server)) < PROMPT_LIMIT


async def test_a_single_confirm_after_a_storm_elsewhere_is_still_asked(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    """The block belongs to the storming page: once the agent takes the tab elsewhere, a dialog is asked again."""
    obey(
        llm_server,
        click("Tidy up the projects"),
        lambda _page: {"go_to_url": {"url": f"{site}/confirm-storm.html"}},
        click("Tidy up the projects"),
    )
    person = Person(True)
    result, _outputs = await run(agent_on_page, controller, f"{site}/confirm-storm.html", person)

    assert result.status == AgentStatus.COMPLETED
    assert len(person.requests) == 6  # three for each storm: the second page load starts afresh


# --- pop-ups -------------------------------------------------------------------------------------------------------


async def test_a_popup_storm_leaves_the_working_tab_alone_and_its_extra_windows_are_closed(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    opened = 0
    all_opened = asyncio.Event()

    def count(_page: Any) -> None:
        nonlocal opened
        opened += 1
        if opened == 80:
            all_opened.set()

    controller.session.on_page(count)
    obey(llm_server, wait(0.2), wait(0.2))
    rails = Guardrails()
    controller.guardrails = rails
    agent = agent_on_page(AgentConfig(max_steps=6), guardrails=rails)
    await controller.go_to_url(f"{site}/popup-storm.html", AbortSignal())
    await asyncio.wait_for(all_opened.wait(), 30)  # so that the storm is one step's news
    result = await asyncio.wait_for(agent.execute("Look at today's deals"), 90)

    assert result.status == AgentStatus.COMPLETED
    first = llm_server.user_message(0)
    assert first.count("The page opened 77 more pop-up windows; they were closed.") == 1
    assert first.count("A new tab opened") == 3 and "now working in it" not in told(llm_server)
    assert "more pop-up" not in llm_server.user_message(1).split("</agent_history>", 1)[-1]
    assert len(controller.session.pages) == 4
    state = await controller.get_browser_state(AbortSignal())
    assert state.title == "Deals"
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, True), (2, False), (3, False), (4, False)]
    assert max(prompt_sizes(llm_server)) < PROMPT_LIMIT


async def test_a_link_the_agent_clicks_opens_its_tab_and_the_agent_works_there(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, click("Open the yearly report"))
    result, outputs = await run(agent_on_page, controller, f"{site}/report-link.html")

    assert result.status == AgentStatus.COMPLETED
    assert outputs[0].endswith(f"it opened a new tab (tab 2) — now working in it: {site}/offer.html?report=2026")
    assert "Special offer" in llm_server.user_message(1).split("<browser_state>", 1)[1]
    state = await controller.get_browser_state(AbortSignal())
    assert [(t.tab_id, t.active) for t in state.tabs] == [(1, False), (2, True)]
    assert "pop-up" not in told(llm_server)


async def test_a_page_that_keeps_opening_popups_step_after_step_never_has_more_than_ten_tabs(
    site: str, agent_on_page: AgentOnPage, controller: PlaywrightPageController, llm_server: FakeLLMServer
) -> None:
    obey(llm_server, *[wait(1)] * 5)
    result, _outputs = await run(agent_on_page, controller, f"{site}/popup-drip.html")

    assert result.status == AgentStatus.COMPLETED
    # Three kept in each of the first steps, then none past ten, once the pop-ups refused last have finished closing
    # (a busy machine may still be closing two or three of them as the run ends).
    await until(lambda: len(controller.session.pages) <= 10, message="the refused pop-ups closed")
    assert len(controller.session.pages) >= 4
    state = await controller.get_browser_state(AbortSignal())
    assert state.title == "Drip" and state.tabs[0].active
    assert "pop-up windows; they were closed." in llm_server.user_message(-1)
    assert max(prompt_sizes(llm_server)) < PROMPT_LIMIT
