"""hand_off_to_user: the run pauses for the person (its step budget and time limit standing still), resumes the same
task with a fresh look and the person's note, stops, or ends as needs_person when nobody is there; and a Take over
during an action keeps that step."""

from __future__ import annotations

import asyncio

import pytest

from app.core.abort import AbortSignal
from app.core.agent import Agent
from app.core.config import AgentConfig
from app.core.safety.risky import ActGate
from app.core.step_loop import TAKEN_OVER_MID_STEP
from app.core.tools.page_tools import ClickInput, PageAction
from app.core.types import (
    AgentActivity,
    AgentStatus,
    ErrorEvent,
    ExecutionResult,
    HandOffActivity,
    StepEvent,
    UserTakeoverEvent,
)
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.page import FakePage
from tests.waiting import until

REASON = "Please solve the captcha in the browser window, then continue."
WAIT = 10.0


def hand_off() -> object:
    return tool_reply({"hand_off_to_user": {"reason": REASON}}, next_goal="Let the user solve the captcha")


class Activities:
    """Every activity the agent emits, and an event per kind to wait on."""

    def __init__(self, agent: Agent) -> None:
        self.seen: list[AgentActivity] = []
        self._arrived: dict[str, asyncio.Event] = {}
        agent.on("activity", self._add)

    def _add(self, activity: AgentActivity) -> None:
        self.seen.append(activity)
        self._arrived.setdefault(activity.type, asyncio.Event()).set()

    async def wait_for(self, kind: str) -> None:
        await asyncio.wait_for(self._arrived.setdefault(kind, asyncio.Event()).wait(), WAIT)

    def kinds(self) -> list[str]:
        return [activity.type for activity in self.seen]


def steps(result: ExecutionResult) -> list[StepEvent]:
    return [event for event in result.history if isinstance(event, StepEvent)]


async def test_a_hand_off_pauses_the_run_and_resume_carries_on_with_the_note(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, page = make_agent(AgentConfig(max_steps=2))
    activities = Activities(agent)
    llm_server.add(hand_off(), done_reply("Exported."))
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    await activities.wait_for("hand_off")

    assert activities.seen[-1] == HandOffActivity(reason=REASON)
    assert agent.paused and agent.hand_off_reason == REASON
    assert agent.status is AgentStatus.RUNNING and not run.done()
    recorded = [e for e in agent.history if isinstance(e, StepEvent)]
    assert [(s.action.name, s.action.input) for s in recorded] == [("hand_off_to_user", {"reason": REASON})]
    agent.pause()  # Take over while handed off: nothing changes
    assert "paused" not in activities.kinds() and agent.hand_off_reason == REASON
    assert len(llm_server.requests) == 1

    page.url, page.title = "http://fake.test/export", "Export ready"
    agent.resume("  I solved it, the export page is open  ")
    result = await asyncio.wait_for(run, WAIT)

    # Two steps of a budget of two: the wait cost none.
    assert result.status is AgentStatus.COMPLETED and result.success and result.data == "Exported."
    assert result.steps == 2 and agent.hand_off_reason is None and not agent.paused
    back = next(e for e in result.history if isinstance(e, UserTakeoverEvent))
    assert back.after_hand_off and back.note == "I solved it, the export page is open"
    assert (back.before_url, back.after_url) == ("http://fake.test/form", "http://fake.test/export")
    prompt = llm_server.user_message(-1)
    assert "You handed the browser to the user, and they have handed it back: the same task goes on." in prompt
    assert "The user said: I solved it, the export page is open" in prompt
    assert 'Now: "Export ready" (http://fake.test/export)' in prompt


async def test_waiting_for_the_person_is_not_charged_to_the_time_limits(
    llm_server: FakeLLMServer, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent, _ = make_agent(AgentConfig(max_duration=20.0, step_timeout=15.0))
    activities = Activities(agent)
    llm_server.add(hand_off(), done_reply("Finished after the wait."))
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    await activities.wait_for("hand_off")
    # The person takes longer than the whole time budget and any step may: the loop's clock jumps 30 s ahead while
    # the run waits for them (no test sleeps that long).
    loop = asyncio.get_running_loop()
    real_time = loop.time
    monkeypatch.setattr(loop, "time", lambda: real_time() + 30.0)
    await asyncio.sleep(0)
    assert not run.done() and agent.paused
    agent.resume()
    result = await asyncio.wait_for(run, WAIT)
    assert result.status is AgentStatus.COMPLETED, result.data
    assert result.data == "Finished after the wait."
    assert "error" not in activities.kinds()


async def test_stop_while_handed_off_ends_the_run_as_stopped(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    activities = Activities(agent)
    llm_server.add(hand_off())
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    await activities.wait_for("hand_off")
    await asyncio.wait_for(agent.stop(), WAIT)
    result = await run
    assert result.status is AgentStatus.STOPPED and not result.success
    assert [s.action.name for s in steps(result)] == ["hand_off_to_user"]
    assert not agent.paused and agent.hand_off_reason is None
    assert len(llm_server.requests) == 1


async def test_with_nobody_there_a_hand_off_ends_the_run_as_needs_person(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent(person_present=False)
    activities = Activities(agent)
    llm_server.add(hand_off())
    result = await asyncio.wait_for(agent.execute("Export the customers"), WAIT)
    assert result.status is AgentStatus.NEEDS_PERSON
    assert result.success is False and result.data == REASON
    assert [s.action.name for s in steps(result)] == ["hand_off_to_user"]
    assert "hand_off" not in activities.kinds()
    assert agent.previous_tasks[-1].status is AgentStatus.NEEDS_PERSON


async def test_a_hand_off_without_a_reason_is_an_unusable_answer(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    activities = Activities(agent)
    llm_server.add(tool_reply({"hand_off_to_user": {"reason": ""}}), done_reply("ok"))
    result = await asyncio.wait_for(agent.execute("Export the customers"), WAIT)
    assert result.status is AgentStatus.COMPLETED
    errors = [e.message for e in result.history if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and "unusable" in errors[0] and "reason" in errors[0], errors
    assert "hand_off" not in activities.kinds()


class LoadingAfterClick(FakePage):
    """A click lands at once, then the page takes long to load (a real click's aftermath)."""

    async def perform(self, action: PageAction, signal: AbortSignal, gate: ActGate | None = None) -> str:
        assert isinstance(action, ClickInput)
        self.actions.append(("click", (action.index,)))
        await signal.sleep(30)
        return f"Clicked {action.index}"


@pytest.mark.parametrize("note", ["", "I closed the pop-up"])
async def test_a_take_over_during_an_action_keeps_that_step(
    llm_server: FakeLLMServer, make_agent: AgentFactory, note: str
) -> None:
    page = LoadingAfterClick()
    agent, _ = make_agent(page=page)
    activities = Activities(agent)
    llm_server.add(tool_reply({"click_element_by_index": {"index": 2}}, next_goal="Save"), done_reply("Saved."))
    run = asyncio.ensure_future(agent.execute("Save the form"))
    await activities.wait_for("executing")
    await until(lambda: page.actions)

    agent.pause()
    await activities.wait_for("executed")
    recorded = [e for e in agent.history if isinstance(e, StepEvent)]
    assert [(s.action.name, s.action.output) for s in recorded] == [("click_element_by_index", TAKEN_OVER_MID_STEP)]
    assert agent.paused and agent.hand_off_reason is None
    agent.resume(note)
    result = await asyncio.wait_for(run, WAIT)

    assert result.status is AgentStatus.COMPLETED and result.data == "Saved."
    assert [s.step_index for s in steps(result)] == [1, 2]
    assert not next(e for e in result.history if isinstance(e, UserTakeoverEvent)).after_hand_off
    prompt = llm_server.user_message(-1)
    assert f"Result: {TAKEN_OVER_MID_STEP}" in prompt and "The user took over the browser" in prompt
    assert page.actions == [("click", (2,))]
