"""One follower of a run's progress (``following``) and one stop when the one who asked cancels
(``stop_when_cancelled``), against a real agent, the fake model server and the fake page; and the MCP headless task's
start-up refusal (``CannotStart``) against a fault of the program."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import app.core.agent
from app.core.types import AgentStatus
from app.mcp.headless import HeadlessTasks
from app.mcp.setup import McpSetup
from app.mcp.tasks import McpTask
from app.run_progress import RunProgress, following, stop_when_cancelled
from app.settings.model import Settings
from app.settings.paths import AppPaths
from tests.core.conftest import AgentFactory, llm_settings, make_agent  # noqa: F401  (fixtures)
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.waiting import until

REASON = "Solve the captcha on the page"


async def test_the_follower_says_each_step_in_words_and_lets_go_on_leaving(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    seen: list[RunProgress] = []
    llm_server.add(tool_reply({"input_text": {"index": 1, "text": "a@b.c"}}), done_reply("Saved."))
    with following(agent, seen.append):
        result = await agent.execute("Fill in the email")
    assert result.status == AgentStatus.COMPLETED
    assert [p.steps for p in seen if p.words.startswith("Typing")] == [0]  # before its step is counted
    assert max(p.steps for p in seen) == 2 and seen[-1].steps == 2
    assert all(p.words for p in seen[1:]) and not any(p.needs_person for p in seen)
    seen.clear()
    llm_server.add(done_reply("Again."))
    await agent.execute("Once more")
    assert seen == []  # unsubscribed on leaving


async def test_the_follower_says_a_hand_off_with_the_agents_reason(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent(person_present=True)
    seen: list[RunProgress] = []
    llm_server.add(tool_reply({"hand_off_to_user": {"reason": REASON}}))
    with following(agent, seen.append):
        run = asyncio.ensure_future(agent.execute("Sign in"))
        await until(lambda: any(p.needs_person for p in seen))
        await agent.stop()
        await run
    handed = next(p for p in seen if p.needs_person)
    assert handed.reason == REASON and REASON in handed.words


async def test_a_cancel_stops_the_run_and_says_it_came(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    cancel = asyncio.Event()
    llm_server.add(done_reply("Too late.", delay=30.0))
    async with stop_when_cancelled(cancel.wait(), agent.stop) as cancelling:
        run = asyncio.ensure_future(agent.execute("Slow"))
        await llm_server.received()
        cancel.set()
        result = await run
    assert result.status == AgentStatus.STOPPED and cancelling.came


async def test_no_cancel_no_stop(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()

    async def went_away() -> bool:
        return False  # the one asking went away without cancelling

    llm_server.add(done_reply("Done.", delay=0.2))
    async with stop_when_cancelled(went_away(), agent.stop) as cancelling:
        result = await agent.execute("Quick")
    assert result.status == AgentStatus.COMPLETED and not cancelling.came


def _headless(tmp_path: Path) -> HeadlessTasks:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs")
    return HeadlessTasks(McpSetup(Settings(), paths, api_key=None))


async def test_a_headless_task_that_cannot_start_says_why(tmp_path: Path, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    await agent.dispose()  # the browser went away between the runtime's agent and the run
    task = McpTask("Do it", "", "a client", "headless")
    await _headless(tmp_path)._execute(task, agent)
    assert task.view.ended and task.view.outcome is not None
    assert task.view.reason == "disposed; create a new agent"


async def test_a_fault_of_the_program_is_not_a_headless_tasks_words(
    tmp_path: Path, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**_kwargs: object) -> None:
        raise ValueError("a bug in the tools table")

    monkeypatch.setattr(app.core.agent, "build_tools", broken)
    agent, _ = make_agent()
    task = McpTask("Do it", "", "a client", "headless")
    with pytest.raises(ValueError, match="a bug in the tools table"):  # to the registry's guard and the log
        await _headless(tmp_path)._execute(task, agent)
    assert not task.view.ended


async def test_a_headless_tasks_view_follows_its_run(
    tmp_path: Path, llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    task = McpTask("Fill in the email", "", "a client", "headless")
    views: list[tuple[str, int, str]] = []
    agent.on("task_finished", lambda _finished: views.append((task.view.status, task.view.steps, task.view.now)))
    llm_server.add(tool_reply({"input_text": {"index": 1, "text": "a@b.c"}}), done_reply("Saved."))
    await _headless(tmp_path)._execute(task, agent)
    assert views == [("running", 2, "Wrapping up…")]  # the last step, in words, before the outcome
    assert task.view.outcome is not None and task.view.outcome.success and task.view.steps == 2
