"""The agent reports the element it acts on as data (masked like everything else), and its troubles in messages
the panel can say in Chinese: driven through the real agent, a fake page and the real HTTP fake model."""

from __future__ import annotations

import json

from app.core.config import AgentConfig
from app.core.messages import MessageId, say
from app.core.page import ElementInfo
from app.core.safety.guardrails import Guardrails
from app.core.types import (
    ActionTarget,
    AgentStatus,
    ErrorEvent,
    ErrorKind,
    ExecutedActivity,
    ExecutingActivity,
    StepEvent,
)
from app.text.i18n import set_language
from app.text.wording import describe_action, describe_activity, plain_error
from tests.core.conftest import AgentFactory
from tests.fakes.llm_server import FakeLLMServer, done_reply, error_reply, tool_reply
from tests.fakes.page import FakePage


async def test_the_element_acted_on_reaches_activities_and_history(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, page = make_agent()
    page.elements[1] = ElementInfo(tag="input", name="Email", input_type="email", frame_url=page.url)
    page.elements[2] = ElementInfo(tag="button", name="Save", frame_url=page.url)
    activities: list[object] = []
    agent.on("activity", activities.append)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": "ada@example.com"}}),
        tool_reply({"click_element_by_index": {"index": 2}}),
        tool_reply({"scroll": {"down": True, "num_pages": 1}}),
        done_reply("Saved."),
    )
    result = await agent.execute("Add Ada")
    assert result.status == AgentStatus.COMPLETED
    email = ActionTarget(tag="input", name="Email", input_type="email")
    save = ActionTarget(tag="button", name="Save")
    executing = [a for a in activities if isinstance(a, ExecutingActivity)]
    executed = [a for a in activities if isinstance(a, ExecutedActivity)]
    assert [a.target for a in executing] == [email, save, None, None]
    assert [a.target for a in executed] == [email, save, None, None]
    steps = [e for e in result.history if isinstance(e, StepEvent)]
    assert [s.action.target for s in steps] == [email, save, None, None]
    assert [describe_action(s.action.name, s.action.input, s.action.target) for s in steps[:2]] == [
        "Type “ada@example.com” into the Email field",
        "Click the Save button",
    ]
    assert describe_activity(executed[1]) == "Clicked the Save button"


async def test_a_secret_in_an_elements_name_is_masked(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    literal = "Named-Pass-5521"
    page = FakePage(url="http://site.test/login")
    page.elements[1] = ElementInfo(
        tag="input", name="Password", input_type="password", frame_url="http://site.test/login"
    )
    # A page that echoes the password into a button's words.
    page.elements[2] = ElementInfo(tag="button", name=f"Continue as {literal}", frame_url="http://site.test/login")
    agent, _ = make_agent(page=page, guardrails=Guardrails())
    activities: list[object] = []
    agent.on("activity", activities.append)
    llm_server.add(
        tool_reply({"input_text": {"index": 1, "text": literal}}),
        tool_reply({"click_element_by_index": {"index": 2}}),
        done_reply("Signed in."),
    )
    result = await agent.execute("Sign in")
    assert page.actions[0] == ("secret_text", (1, literal))  # the secret path
    targets = [a.target for a in activities if isinstance(a, ExecutedActivity)]
    assert targets[1] is not None and "<secret>typed_password</secret>" in targets[1].name
    assert literal not in "".join(repr(a) for a in activities)
    assert literal not in result.model_dump_json()


async def test_the_agents_own_troubles_are_said_in_chinese(llm_server: FakeLLMServer, make_agent: AgentFactory) -> None:
    agent, page = make_agent(AgentConfig(max_failures=2))
    page.fail_indices = {7}
    llm_server.add(*[tool_reply({"click_element_by_index": {"index": 7}})] * 2, done_reply("Could not click", False))
    result = await agent.execute("Click seven")
    errors = [e for e in result.history if isinstance(e, ErrorEvent)]
    assert [e.message for e in errors] == ["Too many consecutive failures (2 in a row)"]
    assert errors[0].said == say(MessageId.TOO_MANY_FAILURES, count=2)
    set_language("zh")
    try:
        assert plain_error(errors[0]) == "连续失败次数过多（连续 2 次）"
    finally:
        set_language("en")


async def test_a_model_endpoint_failure_keeps_its_kind_for_the_panel(
    llm_server: FakeLLMServer, make_agent: AgentFactory
) -> None:
    agent, _ = make_agent()
    llm_server.add(error_reply(401, "Incorrect API key provided"))
    result = await agent.execute("Do it")
    error = next(e for e in result.history if isinstance(e, ErrorEvent))
    assert error.kind is ErrorKind.AUTH and error.message == result.data and error.said is None
    set_language("zh")
    try:
        shown = plain_error(error)
    finally:
        set_language("en")
    assert shown.splitlines()[0] == "模型服务不接受该 API 密钥。" and shown.endswith(result.data)
    assert json.loads(result.model_dump_json())["history"][-1]["kind"] == "auth"
