"""The agent's events say what changed: a task's start, each event added to its history, its end."""

from __future__ import annotations

from typing import Any

from app.core.types import AgentStatus, StepEvent, TaskFinished, TaskStarted
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply


async def test_a_task_is_told_as_start_each_event_and_end(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    told: list[tuple[str, Any]] = []
    for name in ("status_changed", "task_started", "event_added", "task_finished"):
        agent.on(name, lambda payload, name=name: told.append((name, payload)))  # type: ignore[misc]
    llm_server.add(tool_reply({"scroll": {"down": True}}), done_reply("Read it."))
    result = await agent.execute("Read the page")

    names = [name for name, _ in told]
    assert names[:2] == ["status_changed", "task_started"]
    assert names[-2:] == ["status_changed", "task_finished"]  # the hook comes once the status is final
    added = [payload for name, payload in told if name == "event_added"]
    assert added == result.history and all(isinstance(event, StepEvent) for event in added)
    assert told[1][1] == TaskStarted(follow_up=False)
    finished = told[-1][1]
    assert isinstance(finished, TaskFinished)
    assert (finished.task, finished.follow_up, finished.result) == ("Read the page", False, result)
    assert told[-2][1] is AgentStatus.COMPLETED


async def test_a_follow_up_says_so(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    started: list[TaskStarted] = []
    agent.on("task_started", started.append)
    llm_server.add(done_reply("First."), done_reply("Second."))
    await agent.execute("First")
    await agent.execute("Then this", follow_up=True)
    assert started == [TaskStarted(follow_up=False), TaskStarted(follow_up=True)]
