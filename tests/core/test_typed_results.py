"""Outcomes as data: an action's success is a field, a stop is a kind of error, and older saved runs still read."""

from __future__ import annotations

import asyncio

from app.core.messages import TASK_ABORTED
from app.core.types import ActionRecord, AgentStatus, ErrorEvent, ExecutedActivity, StepEvent
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply


async def test_a_failed_action_is_marked_failed_in_the_step_and_the_activity(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, page = make_agent()
    page.fail_indices = {7}
    executed: list[ExecutedActivity] = []
    agent.on("activity", lambda a: executed.append(a) if isinstance(a, ExecutedActivity) else None)
    llm_server.add(
        tool_reply({"click_element_by_index": {"index": 7}}), tool_reply({"wait": {"seconds": 0}}), done_reply("Done.")
    )
    result = await agent.execute("Click seven")
    steps = [event for event in result.history if isinstance(event, StepEvent)]
    assert [step.action.ok for step in steps] == [False, True, True]
    assert [activity.ok for activity in executed] == [False, True, True]
    assert steps[0].action.output.startswith("❌")  # what the model reads keeps its mark


def test_a_run_saved_before_ok_existed_reads_its_failures() -> None:
    assert ActionRecord.model_validate({"name": "click_element_by_index", "output": "❌ no such element"}).ok is False
    assert ActionRecord.model_validate({"name": "click_element_by_index", "output": "Clicked [1]"}).ok is True
    # A saved ok wins over the text.
    assert ActionRecord.model_validate({"name": "wait", "output": "❌ odd", "ok": True}).ok is True


async def test_a_stop_is_an_error_of_the_stopped_kind(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(done_reply(delay=30))
    running = asyncio.ensure_future(agent.execute("Slow"))
    await llm_server.received()
    await agent.stop()
    result = await running
    assert result.status is AgentStatus.STOPPED
    last = result.history[-1]
    assert isinstance(last, ErrorEvent) and last.stopped
    assert ErrorEvent.model_validate({"message": TASK_ABORTED}).stopped  # saved before the kind existed
    assert not ErrorEvent(message="Step 3 timed out after 30 s").stopped
