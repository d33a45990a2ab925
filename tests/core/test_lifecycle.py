"""Every way a run can end, and the lifecycle rules around execute / stop / dispose."""

from __future__ import annotations

import asyncio

import pytest

from app.core.config import AgentConfig
from app.core.errors import CannotStart
from app.core.messages import TASK_ABORTED, MessageId, say
from app.core.report import REPORT_SECTIONS
from app.core.types import AgentStatus, ErrorEvent, ErrorKind, ObservationEvent, StepEvent
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.waiting import finishes, until


async def test_completed_with_success(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    statuses: list[AgentStatus] = []
    agent.on("status_changed", statuses.append)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": "a@b.c"}}, next_goal="Type the email"),
        done_reply("Saved the form.", success=True),
    )
    result = await agent.execute("Fill in the email")
    assert result.success is True
    assert result.status == AgentStatus.COMPLETED
    assert result.data == "Saved the form."
    assert statuses == [AgentStatus.RUNNING, AgentStatus.COMPLETED]
    assert page.actions == [("input_text", (1, "a@b.c"))]
    steps = [e for e in result.history if isinstance(e, StepEvent)]
    assert [s.action.name for s in steps] == ["input_text", "done"]
    assert steps[0].reflection.next_goal == "Type the email"
    assert result.steps == 2
    assert result.usage.prompt_tokens == 200 and result.usage.completion_tokens == 40
    assert agent.last_result == result


async def test_done_with_failure_is_still_completed(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(done_reply("I cannot solve the captcha; please solve it.", success=False))
    result = await agent.execute("Export the customers")
    assert result.status == AgentStatus.COMPLETED
    assert result.success is False
    assert "captcha" in result.data


async def test_unexpected_exception_ends_in_error(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()

    async def broken(_signal: object) -> None:
        raise RuntimeError("renderer crashed")

    page.get_browser_state = broken  # type: ignore[method-assign]
    result = await agent.execute("Anything")
    assert result.status == AgentStatus.ERROR
    assert "renderer crashed" in result.data
    assert isinstance(result.history[-1], ErrorEvent)


async def test_step_budget_ends_in_error_with_progress_report(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent(AgentConfig(max_steps=6))
    llm_server.add(*[tool_reply({"scroll": {"down": True, "num_pages": 1}}, memory=f"looked {i}") for i in range(6)])
    report = "\n".join(f"## {section}\n- something" for section in REPORT_SECTIONS)
    llm_server.add(done_reply(report, success=False))
    result = await agent.execute("Find the price")
    assert result.status == AgentStatus.ERROR
    assert result.success is False
    assert result.data == report
    limit = say(MessageId.STEP_LIMIT)
    assert ErrorEvent(message=limit.text, said=limit) in result.history
    warnings = [e.content for e in result.history if isinstance(e, ObservationEvent)]
    assert any("5 steps left" in w for w in warnings) and any("2 steps left" in w for w in warnings)
    # The final call offers done and nothing else.
    final_actions = llm_server.requests[-1]["tools"][0]["function"]["parameters"]["properties"]["action"]
    assert [list(branch["properties"]) for branch in final_actions["anyOf"]] == [["done"]]
    assert "Completed work" in llm_server.user_message(-1)


async def test_progress_report_is_built_from_history_when_final_call_fails(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent(AgentConfig(max_steps=2))
    llm_server.add(
        tool_reply({"click_element_by_index": {"index": 2}}, memory="Clicked save once", next_goal="Save"),
        tool_reply({"click_element_by_index": {"index": 2}}, next_goal="Check the saved page"),
    )
    # Script exhausted: the final call gets a 500 and the report comes from the history.
    result = await agent.execute("Save the form")
    assert result.status == AgentStatus.ERROR
    for section in REPORT_SECTIONS:
        assert f"## {section}" in result.data
    assert "Clicked save once" in result.data
    assert "Check the saved page" in result.data


async def test_stop_during_slow_model_call_settles_fast(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(done_reply(delay=60))  # held past the test's own deadlines: only the stop can end the call
    run = asyncio.ensure_future(agent.execute("Slow task"))
    await llm_server.received()
    await finishes(agent.stop(), 10, "the stop")  # how fast: tests/bench/bench_engine.py
    result = await run
    assert result.status == AgentStatus.STOPPED
    assert agent.status == AgentStatus.STOPPED
    assert result.data == TASK_ABORTED
    stop = say(MessageId.TASK_ABORTED)
    assert result.history[-1] == ErrorEvent(message=TASK_ABORTED, kind=ErrorKind.STOPPED, said=stop)


async def test_stop_during_wait_tool(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    executing: list[str] = []
    agent.on("activity", lambda a: executing.append(a.type))
    llm_server.add(tool_reply({"wait": {"seconds": 60}}))
    run = asyncio.ensure_future(agent.execute("Wait for it"))
    await until(lambda: "executing" in executing)
    await finishes(agent.stop(), 10, "the stop")  # not the minute's wait
    assert (await run).status == AgentStatus.STOPPED


async def test_stop_when_idle_is_a_no_op(make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    await agent.stop()
    assert agent.status == AgentStatus.IDLE


async def test_cancelling_the_caller_stops_the_run(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(done_reply(delay=30))
    run = asyncio.ensure_future(agent.execute("Slow task"))
    await llm_server.received()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert agent.status == AgentStatus.STOPPED


async def test_concurrent_execute_and_empty_task_are_refused(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    with pytest.raises(CannotStart, match="the task is empty"):
        await agent.execute("   ")
    llm_server.add(done_reply(delay=30))
    run = asyncio.ensure_future(agent.execute("First"))
    await asyncio.sleep(0)
    with pytest.raises(CannotStart, match="a task is already running"):
        await agent.execute("Second")
    await agent.stop()
    assert (await run).status == AgentStatus.STOPPED


async def test_dispose_is_terminal(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    disposed: list[bool] = []
    agent.on("disposed", lambda: disposed.append(True))
    llm_server.add(done_reply(delay=30))
    run = asyncio.ensure_future(agent.execute("Slow"))
    await llm_server.received()
    await agent.dispose()
    assert (await run).status == AgentStatus.STOPPED
    assert disposed == [True]
    with pytest.raises(CannotStart, match="disposed; create a new agent"):
        await agent.execute("Again")


async def test_follow_up_carries_previous_task_result_and_memory(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    llm_server.add(
        tool_reply({"click_element_by_index": {"index": 2}}, memory="Customer id is C-1042"),
        done_reply("Created customer C-1042."),
        done_reply("Opened it."),
    )
    await agent.execute("Create the customer")
    result = await agent.execute("Now open that customer", follow_up=True)
    assert result.success
    prompt = llm_server.user_message(-1)
    assert "Task 1 (succeeded): Create the customer" in prompt
    assert "Created customer C-1042." in prompt
    assert "Customer id is C-1042" in prompt
    assert "Now open that customer" in prompt
    llm_server.add(done_reply("A captcha blocks the export.", success=False), done_reply("Exported."))
    await agent.execute("Export it", follow_up=True)
    await agent.execute("The user solved it; continue", follow_up=True)
    assert "Task 3 (did not succeed, completed): Export it" in llm_server.user_message(-1)
    # A fresh task forgets the earlier ones.
    llm_server.add(done_reply("ok"))
    await agent.execute("Unrelated")
    assert "Create the customer" not in llm_server.user_message(-1)


async def test_time_budget_ends_with_report(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent(AgentConfig(max_duration=0.5))
    llm_server.add(tool_reply({"wait": {"seconds": 60}}))
    result = await finishes(agent.execute("Wait forever"), 20, "the end of the time budget")  # not the minute's wait
    assert result.status == AgentStatus.ERROR
    assert "Time budget" in result.data
    assert "## Completed work" in result.data
