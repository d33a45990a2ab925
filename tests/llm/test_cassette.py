"""Record a run's answers, replay them through the real engine, fail clearly (in plain words) when the page no longer
matches, and hand the browser over again when the person handed it back too early."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.core.agent import Agent
from app.core.types import AgentActivity, AgentStatus, HandOffActivity
from app.llm.cassette import Cassette, RecordingClient, ReplayClient, element_words
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
    assert diverged.data == (
        "The replay no longer matches the page at answer 1: the recording acts on the Save "
        "button, which is not on the page now. Record it again with --record."
    )
    assert changed.actions == []


async def test_replay_past_the_end_fails_clearly() -> None:
    result = await Agent(ReplayClient(Cassette()), FakePage()).execute("Anything")
    assert result.status == AgentStatus.ERROR
    assert "no more recorded answers" in result.data


async def test_replay_follows_the_element_when_its_index_shifted(tmp_path: Path) -> None:
    cassette = Cassette.model_validate(
        {
            "entries": [
                {"reply": tool_reply_as_llm({"click_element_by_index": {"index": 2}}), "expect": "[2]<button>Save />"},
                {"reply": tool_reply_as_llm({"done": {"text": "Saved.", "success": True}})},
            ]
        }
    )
    # A shorter window lists fewer elements above: the same button now has index 7.
    shifted = FakePage(content="Current page: [Form](http://fake.test/form)\n[5]<a>Home />\n[7]<button>Save />")
    result = await Agent(ReplayClient(cassette), shifted).execute("Save the form")
    assert result.success, result.data
    assert shifted.actions == [("click", (7,))]


async def test_an_ambiguous_line_is_a_mismatch_with_the_hint() -> None:
    cassette = Cassette.model_validate(
        {
            "entries": [
                {"reply": tool_reply_as_llm({"click_element_by_index": {"index": 2}}), "expect": "[2]<button>Save />"}
            ]
        }
    )
    twice = FakePage(content="Current page: [Form](http://fake.test/form)\n[1]<button>Save />\n[2]<button>Save />")
    client = ReplayClient(cassette, mismatch="Run the demo again: {element} {where}.")
    result = await Agent(client, twice).execute("Save the form")
    assert result.status == AgentStatus.ERROR
    assert result.data == "Run the demo again: the Save button is on the page 2 times now."
    assert twice.actions == []


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("[2]<input label=Email type=email name=email placeholder=you@company.com />", "the Email field"),
        ('[7]<input label="Last name *" type=text name=last_name required />', "the Last name field"),
        (
            '[10]<input label="Company optional" type=text name=company placeholder="Company name" />',
            "the Company field",
        ),
        ('[3]<input type=search placeholder="Search customers" value="Ada" />', "the Search customers field"),
        ("[4]<button>Sign in />", "the Sign in button"),
        ("[5]<input type=submit value=Go />", "the Go button"),
        ("[6]<a href=/customers.html>View customers />", "the View customers link"),
        (
            '[11]<button label="Plan *" type=button role=combobox aria-haspopup=listbox>Select a plan />',
            "the Plan list",
        ),
        (
            '[13]<input label="Send welcome email" type=checkbox name=welcome_email />',
            "the Send welcome email checkbox",
        ),
        ("[9]<textarea name=notes />", "the field"),
    ],
)
def test_a_recorded_element_is_named_in_plain_words(line: str, words: str) -> None:
    assert element_words(line) == words


async def test_a_browser_handed_back_too_early_is_handed_over_again() -> None:
    hand_off = {"hand_off_to_user": {"reason": "Solve the captcha, then continue."}}
    cassette = Cassette.model_validate(
        {
            "entries": [
                {"reply": tool_reply_as_llm(hand_off)},
                {
                    "reply": tool_reply_as_llm({"click_element_by_index": {"index": 4}}),
                    "expect": "[4]<a>Download CSV />",
                },
                {"reply": tool_reply_as_llm({"done": {"text": "Exported.", "success": True}})},
            ]
        }
    )
    page = FakePage(content="Current page: [Security check](http://fake.test/verify)\n[1]<button>Verify />")
    agent = Agent(ReplayClient(cassette), page)
    turns: asyncio.Queue[HandOffActivity] = asyncio.Queue()

    def on_activity(activity: AgentActivity) -> None:
        if isinstance(activity, HandOffActivity):
            turns.put_nowait(activity)

    agent.on("activity", on_activity)
    run = asyncio.ensure_future(agent.execute("Export the customers"))
    first = await asyncio.wait_for(turns.get(), 10)
    agent.resume()  # the captcha is still there
    again = await asyncio.wait_for(turns.get(), 10)
    assert again == first and agent.paused and page.actions == []

    page.content = "Current page: [Export ready](http://fake.test/export)\n[2]<a>Download CSV />"
    agent.resume()
    result = await asyncio.wait_for(run, 10)
    assert result.status is AgentStatus.COMPLETED and result.data == "Exported.", result.data
    assert page.actions == [("click", (2,))]


def tool_reply_as_llm(action: dict[str, object]) -> dict[str, object]:
    arguments = {"evaluation_previous_goal": "❔", "memory": "", "next_goal": "Act", "action": action}
    return {"tool_calls": [{"name": "AgentOutput", "arguments": json.dumps(arguments)}]}
