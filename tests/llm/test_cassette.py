"""Record a run's answers, replay them through the real engine, fail clearly (in plain words) when the page no longer
matches, and hand the browser over again when the person handed it back too early.

The elements are matched as data (``BrowserState.elements``), never by the text of the lines the model is shown: the
fake pages here give both, and the tests change one without the other."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.core.agent import Agent
from app.core.llm import LLMReply, ToolCall
from app.core.page import ElementIdentity, ListedElement
from app.core.types import AgentActivity, AgentStatus, HandOffActivity, StepEvent
from app.llm.cassette import Cassette, CassetteEntry, RecordingClient, ReplayClient
from app.llm.client import OpenAICompatibleClient
from app.llm.settings import LLMSettings
from tests.fakes.llm_server import FakeLLMServer, done_reply, tool_reply
from tests.fakes.page import FakePage, listed

SAVE = listed(2, "button", "Save")
FORM = "Current page: [Form](http://fake.test/form)"


def at(index: int, element: ListedElement) -> ListedElement:
    """``element`` listed under another index."""
    return element.model_copy(update={"index": index})


async def test_record_then_replay_then_diverge(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    client = OpenAICompatibleClient(LLMSettings(base_url=llm_server.base_url, api_key=SecretStr("sk-secret")))
    llm_server.add(tool_reply({"click_element_by_index": {"index": 2}}, next_goal="Save"), done_reply("Saved."))
    recorded = await Agent(RecordingClient(client, path), FakePage()).execute("Save the form")
    await client.close()
    assert recorded.success

    cassette = Cassette.load(path)
    assert [e.expect for e in cassette.entries] == [ElementIdentity(tag="button", name="Save", text="Save"), None]
    assert "sk-secret" not in path.read_text()
    # The listing as data stays on this side: the endpoint gets each message's role and text only.
    assert all(set(message) == {"role", "content"} for message in llm_server.requests[0]["messages"])
    assert "[2]<button>Save />" in llm_server.user_message(0)

    page = FakePage()
    replayed = await Agent(ReplayClient(cassette), page).execute("Save the form")
    assert replayed.success and replayed.data == "Saved."
    assert page.actions == [("click", (2,))]

    changed = FakePage(content=f"{FORM}\n[2]<button>Delete everything />", elements=(listed(2, "button", "Delete"),))
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


async def test_replay_follows_the_element_when_its_index_shifted() -> None:
    cassette = click_then_done(SAVE)
    # A shorter window lists fewer elements above: the same button now has index 7.
    shifted = FakePage(
        content=f"{FORM}\n[5]<a>Home />\n[7]<button>Save />", elements=(listed(5, "a", "Home"), at(7, SAVE))
    )
    result = await Agent(ReplayClient(cassette), shifted).execute("Save the form")
    assert result.success, result.data
    assert shifted.actions == [("click", (7,))]
    step = next(event for event in result.history if isinstance(event, StepEvent))
    assert step.reflection.next_goal == "Act" and step.action.input == {"index": 7}  # only the index re-pointed


async def test_the_replay_reads_the_elements_not_the_lines_the_model_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    model = ReplayClient(click_then_done(SAVE))
    recorded = await Agent(RecordingClient(model, path), FakePage()).execute("Save the form")
    assert recorded.success

    # The same page written in another format altogether: no "[index]<tag" anywhere, and the button moved.
    other_format = FakePage(
        content=f"{FORM}\nelement 3: link “Home”\nelement 4: button “Save”",
        elements=(listed(3, "a", "Home"), at(4, SAVE)),
    )
    replayed = await Agent(ReplayClient(Cassette.load(path)), other_format).execute("Save the form")
    assert replayed.success, replayed.data
    assert other_format.actions == [("click", (4,))]

    # And the other way round: the lines as recorded, but the page's data says the button is another one now.
    same_lines = FakePage(elements=(listed(1, "input", attrs={"name": "email"}), listed(2, "button", "Submit")))
    refused = await Agent(ReplayClient(Cassette.load(path)), same_lines).execute("Save the form")
    assert refused.status == AgentStatus.ERROR and "the Save button, which is not on the page now" in refused.data
    assert same_lines.actions == []


async def test_a_renamed_field_is_a_mismatch_named_as_recorded() -> None:
    email = listed(1, "input", input_type="email", attrs={"label": "Email", "name": "email"}, name="Email")
    cassette = click_then_done(email)
    renamed = email.model_copy(update={"name": "E-mail address", "attrs": {**email.attrs, "label": "E-mail address"}})
    page = FakePage(elements=(renamed,))
    result = await Agent(ReplayClient(cassette), page).execute("Sign in")
    assert result.status == AgentStatus.ERROR
    assert "the recording acts on the Email field, which is not on the page now" in result.data
    assert page.actions == []


async def test_what_typing_and_ticking_change_is_not_what_the_element_is() -> None:
    box = listed(4, "input", input_type="checkbox", attrs={"label": "Send welcome email", "name": "welcome_email"})
    cassette = click_then_done(box)
    # Ticked already, required now, and listed one place further down: still the recorded checkbox.
    ticked = box.model_copy(update={"index": 5, "attrs": {**box.attrs, "checked": "", "required": ""}})
    page = FakePage(elements=(ticked,))
    result = await Agent(ReplayClient(cassette), page).execute("Tick it")
    assert result.success, result.data
    assert page.actions == [("click", (5,))]


async def test_an_answer_the_engine_had_to_mend_is_re_pointed_as_it_reads_it() -> None:
    # JSON in text, in a code fence, the reflection nested and the action in a list: the engine mends all of it.
    text = json.dumps({"current_state": {"next_goal": "Save it"}, "action": [{"click_element_by_index": {"index": 2}}]})
    answer = {"content": f"```json\n{text}\n```"}
    cassette = Cassette(
        entries=[
            CassetteEntry(reply=LLMReply.model_validate(answer), expect=SAVE.identity()),
            CassetteEntry(reply=reply_with({"done": {"text": "Saved.", "success": True}})),
        ]
    )
    page = FakePage(elements=(at(9, SAVE),))
    result = await Agent(ReplayClient(cassette), page).execute("Save the form")
    assert result.success, result.data
    assert page.actions == [("click", (9,))]
    step = next(event for event in result.history if isinstance(event, StepEvent))
    assert step.reflection.next_goal == "Save it"


async def test_an_ambiguous_element_is_a_mismatch_with_the_hint() -> None:
    cassette = click_then_done(SAVE)
    twice = FakePage(content=f"{FORM}\n[1]<button>Save />\n[2]<button>Save />", elements=(at(1, SAVE), at(2, SAVE)))
    client = ReplayClient(cassette, mismatch="Run the demo again: {element} {where}.")
    result = await Agent(client, twice).execute("Save the form")
    assert result.status == AgentStatus.ERROR
    assert result.data == "Run the demo again: the Save button is on the page 2 times now."
    assert twice.actions == []


@pytest.mark.parametrize(
    ("element", "words"),
    [
        (listed(2, "input", name="Email", input_type="email", attrs={"label": "Email"}), "the Email field"),
        (listed(7, "input", name="Last name *", input_type="text", attrs={"name": "last_name"}), "the Last name field"),
        (listed(10, "input", name="Company optional", input_type="text"), "the Company field"),
        (listed(5, "input", name="Go", input_type="submit", attrs={"value": "Go"}), "the Go button"),
        (listed(6, "a", "View customers", attrs={"href": "/customers.html"}), "the “View customers” link"),
        (listed(13, "input", name="Send welcome email", input_type="checkbox"), "the Send welcome email checkbox"),
        (listed(9, "textarea", attrs={"name": "notes"}), "a text field"),
    ],
)
async def test_a_recorded_element_is_named_in_plain_words(element: ListedElement, words: str) -> None:
    result = await Agent(ReplayClient(click_then_done(element)), FakePage(elements=())).execute("Act")
    assert result.data == (
        f"The replay no longer matches the page at answer 1: the recording acts on {words}, which is not on the "
        "page now. Record it again with --record."
    )


def test_a_cassette_of_the_older_format_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    click = reply_with({"click_element_by_index": {"index": 2}}).model_dump()
    entry = {"reply": click, "expect": "[2]<button>Save />"}
    path.write_text(json.dumps({"version": 1, "entries": [entry]}), encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        Cassette.load(path)
    assert str(refused.value) == (
        f"Cannot read the cassette {path}: it was recorded in cassette format 1, and this version of the app "
        "replays format 2 only. Record it again with --record."
    )


async def test_a_browser_handed_back_too_early_is_handed_over_again() -> None:
    hand_off = {"hand_off_to_user": {"reason": "Solve the captcha, then continue."}}
    download = listed(4, "a", "Download CSV", attrs={"href": "blob:…"})
    cassette = Cassette(
        entries=[
            CassetteEntry(reply=reply_with(hand_off)),
            *click_then_done(download, "Exported.").entries,
        ]
    )
    page = FakePage(
        content="Current page: [Security check](http://fake.test/verify)\n[1]<button>Verify />",
        elements=(listed(1, "button", "Verify"),),
    )
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
    assert agent.paused and page.actions == []
    # Not the very same card: it says the page is not there yet.
    assert again.reason == f"Not done yet: the page still shows the same step. {first.reason}"

    page.content = "Current page: [Export ready](http://fake.test/export)\n[2]<a>Download CSV />"
    page.listed = [at(2, download)]
    agent.resume()
    result = await asyncio.wait_for(run, 10)
    assert result.status is AgentStatus.COMPLETED and result.data == "Exported.", result.data
    assert page.actions == [("click", (2,))]


async def test_the_demo_catches_up_with_a_step_the_person_did_themselves() -> None:
    name = listed(3, "input", "Name", attrs={"name": "name"})
    save = listed(7, "button", "Save")
    cassette = Cassette(
        entries=[
            CassetteEntry(reply=reply_with({"input_text": {"index": 3, "text": "Ada"}}), expect=name.identity()),
            CassetteEntry(reply=reply_with({"click_element_by_index": {"index": 7}}), expect=save.identity()),
            CassetteEntry(reply=reply_with({"done": {"text": "Saved.", "success": True}})),
        ]
    )
    # While they had the browser, the person filled in the name and went on: the page shows only Save now.
    ahead = "Current page: [Confirm](http://fake.test/confirm)\n[2]<button>Save />"
    page = FakePage(content=ahead, elements=(at(2, save),))
    result = await Agent(ReplayClient(cassette, catch_up=True), page).execute("Add Ada")
    assert result.status is AgentStatus.COMPLETED and result.data == "Saved.", result.data
    assert page.actions == [("click", (2,))]
    # A replay that is not the demo's stops there, as before.
    page = FakePage(content=ahead, elements=(at(2, save),))
    result = await Agent(ReplayClient(cassette), page).execute("Add Ada")
    assert result.status is AgentStatus.ERROR and "the Name field" in result.data, result.data


def click_then_done(element: ListedElement, text: str = "Saved.") -> Cassette:
    """A recording that clicked ``element`` (under its index then), then finished with ``text``."""
    return Cassette(
        entries=[
            CassetteEntry(
                reply=reply_with({"click_element_by_index": {"index": element.index}}), expect=element.identity()
            ),
            CassetteEntry(reply=reply_with({"done": {"text": text, "success": True}})),
        ]
    )


def reply_with(action: dict[str, object]) -> LLMReply:
    arguments = {"evaluation_previous_goal": "❔", "memory": "", "next_goal": "Act", "action": action}
    return LLMReply(tool_calls=[ToolCall(name="AgentOutput", arguments=json.dumps(arguments))])
