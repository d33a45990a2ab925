"""The recorder on a real Agent (fake model server, fake page): a run per new task, follow-ups appended, saved at
every ending, secrets masked."""

from __future__ import annotations

import asyncio

from app.core.types import AgentStatus, StepEvent
from app.history.recorder import RunRecorder
from app.history.store import RunStore
from app.settings.model import Settings
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, error_reply, tool_reply


async def test_records_a_run_and_its_follow_up(
    llm_server: FakeLLMServer, make_agent: AgentFactory, store: RunStore
) -> None:
    agent, _page = make_agent()
    recorder = RunRecorder(agent, store, Settings(model="fake-model"), demo=True)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": "ada@example.com"}}, memory="Typed the email", next_goal="Save"),
        done_reply("Saved Ada."),
    )
    await agent.execute("Add Ada")
    await recorder.flush()
    [summary] = store.summaries()
    assert summary.title == "Add Ada" and summary.status == AgentStatus.COMPLETED and summary.steps == 2
    assert summary.demo and not summary.replay

    llm_server.add(done_reply("Nothing else to do.", success=False))
    await agent.execute("Now add Bob", follow_up=True)
    await recorder.flush()
    [summary] = store.summaries()  # the same run, now with two tasks
    record = store.load(summary.id)
    assert [t.task for t in record.tasks] == ["Add Ada", "Now add Bob"]
    assert [t.follow_up for t in record.tasks] == [False, True]
    first = record.tasks[0]
    assert [e.action.name for e in first.events if isinstance(e, StepEvent)] == ["input_text", "done"]
    assert first.events[0].reflection.memory == "Typed the email"  # type: ignore[union-attr]
    assert first.result == "Saved Ada." and first.success and first.usage.total_tokens == 240
    assert record.tasks[1].success is False and record.success is False
    assert record.settings["model"] == "fake-model" and record.demo

    llm_server.add(done_reply("Done again."))
    await agent.execute("A new task")
    await recorder.close()
    assert [s.title for s in store.summaries()] == ["A new task", "Add Ada"]


async def test_stopped_and_error_runs_are_saved(
    llm_server: FakeLLMServer, make_agent: AgentFactory, store: RunStore
) -> None:
    agent, _page = make_agent()
    recorder = RunRecorder(agent, store, Settings())
    llm_server.add(tool_reply({"wait": {"seconds": 1}}, delay=5))
    running = asyncio.create_task(agent.execute("Wait for me"))
    await llm_server.received()
    await agent.stop()
    await running
    llm_server.add(error_reply(401, "bad key"))
    await agent.execute("Fail please")
    await recorder.close()
    statuses = {s.title: s.status for s in store.summaries()}
    assert statuses == {"Wait for me": AgentStatus.STOPPED, "Fail please": AgentStatus.ERROR}


async def test_secrets_are_masked(llm_server: FakeLLMServer, make_agent: AgentFactory, store: RunStore) -> None:
    agent, _page = make_agent()
    recorder = RunRecorder(agent, store, Settings(), secrets=["sk-test-secret"])
    llm_server.add(error_reply(401, "Incorrect API key provided: sk-test-secret"))
    await agent.execute("Leak nothing")
    await recorder.close()
    [path] = [p for p in store.runs_dir.iterdir() if p.name != "index.json"]
    text = path.read_text()
    assert "sk-test-secret" not in text and "•••" in text


async def test_a_replayed_run_is_marked_as_such(
    llm_server: FakeLLMServer, make_agent: AgentFactory, store: RunStore
) -> None:
    agent, _page = make_agent()
    recorder = RunRecorder(agent, store, Settings(model="gpt-4.1-mini"), replay=True)
    llm_server.add(done_reply("Replayed."))
    await agent.execute("Replay me")
    await recorder.close()
    [summary] = store.summaries()
    assert summary.replay and not summary.demo
    record = store.load(summary.id)
    assert record.replay and not record.model_called
