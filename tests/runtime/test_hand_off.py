"""The hand-off and Take over on the real Runtime: headless Chromium, the real page controller and the fake model
endpoint. A hand-off pauses the same run (its budget standing still) until the person continues or stops it; a Take
over after a click landed keeps that click's step."""

from __future__ import annotations

import asyncio
from typing import Any

from app.core.agent import Agent
from app.core.step_loop import TAKEN_OVER_MID_STEP
from app.core.types import AgentActivity, AgentStatus, HandOffActivity, HistoricalEvent, StepEvent, UserTakeoverEvent
from app.runtime import Runtime
from tests.browser.helpers import index_of
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, agent_output, completion
from tests.runtime.conftest import MAX_STEPS, Site

REASON = "Please solve the captcha in the browser window, then press continue."
HANDED_BACK = "and they have handed it back"
WAIT = 30.0


def browser_state(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("<browser_state>", 1)[1]


def model(llm_server: FakeLLMServer, first: str) -> None:
    """``first``: "hand_off" or "click" (Verify); once the browser comes back the task is done."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if HANDED_BACK in user or "The user took over" in user:
            action: dict[str, Any] = {"done": {"text": "The export is ready.", "success": True}}
        elif first == "hand_off":
            action = {"hand_off_to_user": {"reason": REASON}}
        else:
            action = {"click_element_by_index": {"index": index_of(browser_state(body), "Verify")}}
        return FakeResponse(body=completion(arguments=agent_output(action)))

    llm_server.fallback = respond


class Watch:
    """The agent's activities and history as they come, with events to wait on."""

    def __init__(self, agent: Agent) -> None:
        self.activities: list[AgentActivity] = []
        self.handed_off = asyncio.Event()
        self.stepped = asyncio.Event()
        agent.on("activity", self._activity)
        agent.on("event_added", self._event)

    def _activity(self, activity: AgentActivity) -> None:
        self.activities.append(activity)
        if isinstance(activity, HandOffActivity):
            self.handed_off.set()

    def _event(self, event: HistoricalEvent) -> None:
        if isinstance(event, StepEvent):
            self.stepped.set()


async def test_a_hand_off_pauses_the_run_and_continue_finishes_the_same_task(
    runtime: Runtime, llm_server: FakeLLMServer, site: Site
) -> None:
    model(llm_server, "hand_off")
    agent = await runtime.agent()
    watch = Watch(agent)
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    await asyncio.wait_for(watch.handed_off.wait(), WAIT)

    assert watch.activities[-1] == HandOffActivity(reason=REASON)
    assert agent.status is AgentStatus.RUNNING and agent.paused and agent.hand_off_reason == REASON
    assert not run.done() and len(llm_server.requests) == 1

    # The person solves it in Chromium: the check lets them through to the export.
    page = runtime.active_page
    assert page is not None
    await page.get_by_label("Characters").fill("AAAAAA")
    site.release.set()
    await page.get_by_role("link", name="Verify").click()
    await page.get_by_role("heading", name="Export ready").wait_for()
    # While the person worked the run waited, spending no steps.
    assert agent.paused and not run.done() and len(llm_server.requests) == 1
    agent.resume()
    result = await asyncio.wait_for(run, WAIT)

    assert result.status is AgentStatus.COMPLETED and result.success, result.data
    assert [e.action.name for e in result.history if isinstance(e, StepEvent)] == ["hand_off_to_user", "done"]
    assert result.steps == 2 < MAX_STEPS
    back = next(e for e in result.history if isinstance(e, UserTakeoverEvent))
    assert back.after_hand_off and (back.before_title, back.after_title) == ("Security check", "Export ready")
    assert "Export ready" in browser_state(llm_server.requests[-1])
    assert agent.hand_off_reason is None and not agent.paused


async def test_a_hand_off_then_stop_ends_the_run_as_stopped(runtime: Runtime, llm_server: FakeLLMServer) -> None:
    model(llm_server, "hand_off")
    agent = await runtime.agent()
    watch = Watch(agent)
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    await asyncio.wait_for(watch.handed_off.wait(), WAIT)
    await asyncio.wait_for(agent.stop(), WAIT)
    result = await run
    assert result.status is AgentStatus.STOPPED and not result.success
    assert agent.status is AgentStatus.STOPPED and not agent.paused
    assert len(llm_server.requests) == 1


async def test_a_take_over_after_the_click_landed_keeps_its_step(
    runtime: Runtime, llm_server: FakeLLMServer, site: Site
) -> None:
    model(llm_server, "click")
    agent = await runtime.agent()
    watch = Watch(agent)
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    # The click reached the page (its link asked the server for the next page), which is still loading.
    assert await asyncio.to_thread(site.requested.wait, WAIT)
    assert not watch.stepped.is_set()

    agent.pause()
    await asyncio.wait_for(watch.stepped.wait(), WAIT)
    step = next(e for e in agent.history if isinstance(e, StepEvent))
    assert (step.action.name, step.action.output) == ("click_element_by_index", TAKEN_OVER_MID_STEP)
    assert agent.paused

    site.release.set()
    page = runtime.active_page
    assert page is not None
    await page.get_by_role("heading", name="Export ready").wait_for()
    agent.resume()
    result = await asyncio.wait_for(run, WAIT)
    assert result.status is AgentStatus.COMPLETED and result.success, result.data
    assert [e.action.name for e in result.history if isinstance(e, StepEvent)] == ["click_element_by_index", "done"]
    assert f"Result: {TAKEN_OVER_MID_STEP}" in llm_server.user_message(-1)
    assert site.hits.count("/slow") == 1
