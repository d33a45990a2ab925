"""Record a run's answers, replay them through the real engine, and fail clearly when the page no longer matches."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr

from app.core.agent import Agent
from app.core.types import AgentStatus
from app.llm.cassette import Cassette, RecordingClient, ReplayClient
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.page import FakePage


async def test_record_then_replay_then_diverge(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    client = OpenAICompatibleClient(LLMSettings(base_url=llm_server.base_url, api_key=SecretStr("sk-secret")))
    llm_server.add(tool_reply({"click_element_by_index": {"index": 2}}, next_goal="Save"), done_reply("Saved."))
    recorded = await Agent(RecordingClient(client, path), FakePage()).execute("Save the form")
    await client.close()
    assert recorded.success

    cassette = Cassette.load(path)
    assert [e.expect for e in cassette.entries] == ["[2]<button>Save />", None]
    assert "sk-secret" not in path.read_text()

    page = FakePage()
    replayed = await Agent(ReplayClient(cassette), page).execute("Save the form")
    assert replayed.success and replayed.data == "Saved."
    assert page.actions == [("click", (2,))]

    changed = FakePage(content="Current page: [Form](http://fake.test/form)\n[2]<button>Delete everything />")
    diverged = await Agent(ReplayClient(cassette), changed).execute("Save the form")
    assert diverged.status == AgentStatus.ERROR
    assert "no longer matches the page at answer 1" in diverged.data
    assert changed.actions == []


async def test_replay_past_the_end_fails_clearly() -> None:
    result = await Agent(ReplayClient(Cassette()), FakePage()).execute("Anything")
    assert result.status == AgentStatus.ERROR
    assert "no more recorded answers" in result.data


async def test_replay_follows_the_element_when_its_index_shifted(tmp_path: Path) -> None:
    cassette = Cassette.model_validate({"entries": [
        {"reply": tool_reply_as_llm({"click_element_by_index": {"index": 2}}), "expect": "[2]<button>Save />"},
        {"reply": tool_reply_as_llm({"done": {"text": "Saved.", "success": True}})},
    ]})
    # A shorter window lists fewer elements above: the same button now has index 7.
    shifted = FakePage(content="Current page: [Form](http://fake.test/form)\n[5]<a>Home />\n[7]<button>Save />")
    result = await Agent(ReplayClient(cassette), shifted).execute("Save the form")
    assert result.success, result.data
    assert shifted.actions == [("click", (7,))]


async def test_an_ambiguous_line_is_a_mismatch_with_the_hint() -> None:
    cassette = Cassette.model_validate({"entries": [
        {"reply": tool_reply_as_llm({"click_element_by_index": {"index": 2}}), "expect": "[2]<button>Save />"}]})
    twice = FakePage(content="Current page: [Form](http://fake.test/form)\n[1]<button>Save />\n[2]<button>Save />")
    result = await Agent(ReplayClient(cassette, hint="Run the demo again."), twice).execute("Save the form")
    assert result.status == AgentStatus.ERROR
    assert '"<button>Save />", which is on the page 2 times now. Run the demo again.' in result.data
    assert twice.actions == []


def tool_reply_as_llm(action: dict[str, object]) -> dict[str, object]:
    arguments = {"evaluation_previous_goal": "❔", "memory": "", "next_goal": "Act", "action": action}
    return {"tool_calls": [{"name": "AgentOutput", "arguments": json.dumps(arguments)}]}
