"""How the run copes with the model endpoint: retries, auth failures, unusable answers, failure limits, loops."""

from __future__ import annotations

import asyncio

from app.core.abort import AbortSignal
from app.core.config import AgentConfig
from app.core.safety.risky import ActGate
from app.core.tools.page_tools import PageAction
from app.core.types import AgentStatus, ErrorEvent, ObservationEvent, RetryEvent, StepEvent, UserTakeoverEvent
from app.llm.settings import ToolChoiceMode
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, FakeResponse, completion, done_reply, error_reply, tool_reply
from tests.waiting import until


async def test_retries_429_honouring_retry_after_then_500_then_success(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    activities: list[str] = []
    agent.on("activity", lambda a: activities.append(a.type))
    llm_server.add(
        error_reply(429, "slow down", headers={"Retry-After": "1"}),
        error_reply(500, "boom"),
        done_reply("ok"),
    )
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.COMPLETED and result.success
    assert len(llm_server.requests) == 3
    assert llm_server.request_times[1] - llm_server.request_times[0] >= 0.95
    retries = [e for e in result.history if isinstance(e, RetryEvent)]
    assert [(r.attempt, r.max_attempts) for r in retries] == [(2, 3), (3, 3)]
    assert "rate limiting" in retries[0].message
    assert activities.count("retrying") == 2


async def test_auth_error_fails_at_once_without_retry(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(error_reply(401, "Incorrect API key provided"))
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.ERROR
    assert len(llm_server.requests) == 1
    assert "API key" in result.data and "Settings" in result.data
    assert "sk-test-secret" not in result.model_dump_json()


async def test_server_errors_exhaust_retries_and_end_in_error(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    llm_server.add(*[error_reply(503, "overloaded")] * 3)
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.ERROR
    assert len(llm_server.requests) == 3
    assert "server error (503)" in result.data


async def test_unreachable_endpoint_says_so(make_agent: AgentFactory) -> None:
    agent, _ = make_agent(llm={"base_url": "http://127.0.0.1:9/v1", "max_attempts": 1})
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.ERROR
    assert "Could not reach the model endpoint http://127.0.0.1:9/v1" in result.data


async def test_unknown_tool_is_reported_to_the_model(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(tool_reply({"teleport": {"where": "home"}}), done_reply("ok"))
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.COMPLETED
    errors = [e.message for e in result.history if isinstance(e, ErrorEvent)]
    assert any("Unknown action 'teleport'" in m and "click_element_by_index" in m for m in errors)
    assert "Unknown action 'teleport'" in llm_server.user_message(-1)


async def test_invalid_input_lists_the_fields(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(tool_reply({"input_text": {"index": "first"}}), done_reply("ok"))
    await agent.execute("Do it")
    prompt = llm_server.user_message(-1)
    assert "Invalid input for 'input_text'" in prompt
    assert "text (str, required)" in prompt


async def test_consecutive_failures_end_with_done_only_call(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, page = make_agent(AgentConfig(max_failures=3))
    page.fail_indices = {7}
    llm_server.add(
        *[tool_reply({"click_element_by_index": {"index": 7}})] * 3, done_reply("Could not click [7]", False)
    )
    result = await agent.execute("Click seven")
    assert result.status == AgentStatus.ERROR
    assert len(llm_server.requests) == 4
    final = llm_server.requests[-1]["tools"][0]["function"]["parameters"]["properties"]["action"]["anyOf"]
    assert [list(branch["properties"]) for branch in final] == [["done"]]
    assert "Too many consecutive failures (3 in a row)" in llm_server.user_message(-1)
    steps = [e for e in result.history if isinstance(e, StepEvent)]
    assert all(s.action.output.startswith("❌") for s in steps)
    # The model's text lacked the sections, so it is kept inside a report built from the history.
    assert "Could not click [7]" in result.data and "## Suggested next steps" in result.data


async def test_success_resets_the_failure_count(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent(AgentConfig(max_failures=2))
    page.fail_indices = {7}
    llm_server.add(
        tool_reply({"click_element_by_index": {"index": 7}}),
        tool_reply({"click_element_by_index": {"index": 2}}),
        tool_reply({"click_element_by_index": {"index": 7}}),
        done_reply("ok"),
    )
    result = await agent.execute("Click around")
    assert result.status == AgentStatus.COMPLETED


async def test_repeated_action_gets_a_nudge(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    llm_server.add(*[tool_reply({"input_text": {"index": 1, "text": "Hello  World"}})] * 2)
    llm_server.add(tool_reply({"input_text": {"index": 1, "text": "hello world"}}), done_reply("ok"))
    result = await agent.execute("Type hello")
    nudges = [e.content for e in result.history if isinstance(e, ObservationEvent)]
    assert any("same action 3 times in a row on the same page" in n for n in nudges)
    assert "3 times in a row" in llm_server.user_message(-1)


async def test_the_same_index_on_three_pages_is_no_repeat(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    original = page.perform

    async def click_and_move_on(action: PageAction, signal: AbortSignal, gate: ActGate | None = None) -> str:
        page.url = f"{page.url}/next"  # each click opens another page, where [4] is another element
        return await original(action, signal, gate)

    page.perform = click_and_move_on  # type: ignore[method-assign]
    llm_server.add(*[tool_reply({"click_element_by_index": {"index": 4}})] * 3, done_reply("ok"))
    result = await agent.execute("Click through the wizard")
    assert not [e for e in result.history if isinstance(e, ObservationEvent) and "same action" in e.content]


async def test_unchanged_page_gets_a_nudge(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    page.change_on_action = False
    llm_server.add(*[tool_reply({"scroll": {"down": i % 2 == 0}}) for i in range(5)], done_reply("ok"))
    result = await agent.execute("Look around")
    nudges = [e.content for e in result.history if isinstance(e, ObservationEvent)]
    assert any("has not changed for 5 steps" in n for n in nudges)


async def test_step_timeout_counts_as_failure(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent(AgentConfig(step_timeout=0.5))
    llm_server.add(done_reply(delay=3), done_reply("second try"))
    result = await agent.execute("Do it")
    assert result.status == AgentStatus.COMPLETED
    assert result.data == "second try"
    assert any("timed out after 0.5 s" in e.message for e in result.history if isinstance(e, ErrorEvent))


async def test_page_events_become_observations(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    page.pending_events = ["A dialog said: Saved! (accepted)"]
    llm_server.add(done_reply("ok"))
    result = await agent.execute("Do it")
    assert ObservationEvent(content="A dialog said: Saved! (accepted)") in result.history
    assert "<sys>A dialog said: Saved! (accepted)</sys>" in llm_server.user_message(-1)


async def test_pause_and_resume_records_takeover(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent()
    activities: list[str] = []
    agent.on("activity", lambda a: activities.append(a.type))
    llm_server.add(done_reply(delay=30), done_reply("finished after takeover"))
    run = asyncio.ensure_future(agent.execute("Log in"))
    await llm_server.received()
    agent.pause()
    assert agent.paused
    await until(lambda: "paused" in activities, message="the paused activity")
    page.url, page.title = "http://fake.test/home", "Home"
    agent.resume("I logged in")
    result = await run
    assert result.data == "finished after takeover"
    takeover = next(e for e in result.history if isinstance(e, UserTakeoverEvent))
    assert (takeover.before_url, takeover.after_url, takeover.after_title) == (
        "http://fake.test/form",
        "http://fake.test/home",
        "Home",
    )
    assert takeover.note == "I logged in"
    assert "took over the browser" in llm_server.user_message(-1)


async def test_stop_while_paused(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent()
    activities: list[str] = []
    agent.on("activity", lambda a: activities.append(a.type))
    llm_server.add(done_reply(delay=30))
    run = asyncio.ensure_future(agent.execute("Log in"))
    await llm_server.received()
    agent.pause()
    await until(lambda: "paused" in activities, message="the paused activity")
    await agent.stop()
    assert (await run).status == AgentStatus.STOPPED


async def test_json_text_mode_sends_no_tools(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent(llm={"tool_choice": ToolChoiceMode.JSON_TEXT})
    text = 'Sure:\n```json\n{"memory": "m", "action": {"done": {"text": "from text", "success": true}}}\n```'
    llm_server.add(FakeResponse(body=completion(tool_name=None, content=text)))
    result = await agent.execute("Do it")
    assert result.data == "from text"
    request = llm_server.requests[0]
    assert "tools" not in request
    assert "JSON schema" in request["messages"][-1]["content"]


async def test_required_mode_and_named_mode(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, _ = make_agent(llm={"tool_choice": ToolChoiceMode.REQUIRED})
    llm_server.add(done_reply("ok"))
    await agent.execute("Do it")
    assert llm_server.requests[0]["tool_choice"] == "required"
    agent2, _ = make_agent()
    llm_server.add(done_reply("ok"))
    await agent2.execute("Do it")
    assert llm_server.requests[1]["tool_choice"] == {"type": "function", "function": {"name": "AgentOutput"}}
    assert llm_server.requests[1]["_headers"]["authorization"] == "Bearer sk-test-secret"
