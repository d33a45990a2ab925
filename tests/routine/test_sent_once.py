"""Never twice, in the row's model (no browser: the listings are data, as the agent hands them over): once the path's
step that sends the row has been taken, replayed or by the model that took the row over, an answer of the model that
could send anything is replaced by a hand-off to the person, in plain words naming the row and what was refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.core.abort import AbortSignal
from app.core.llm import Message
from app.core.output import build_tool_spec
from app.core.page import ListedElement
from app.core.tools.registry import build_tools
from app.core.types import ActionRecord, StepEvent
from app.routine.path import PathStep, RoutinePath
from app.routine.replay import SENT, TAKE_OVER, RowModel
from app.routine.state import RoutineStore
from app.routine.types import RowOutcome, RowStatus
from tests.routine.test_path import BOX, EMAIL, FORM, NAME, SAVE, Model, learned

TOOL = build_tool_spec(build_tools(ask_user=False, javascript=True))
NEW = ListedElement(index=7, tag="a", name="New customer", text="New customer", attrs={"href": "/new"})
SAVED = [NEW]
ROW2 = {"name": "Bo", "email": "bo@x.test", "plan": "Free", "news": "no", "born": "31/12/1985", "city": ""}


class Row:
    """A row's model driven as the agent drives it: each answer is run (recorded) before the next call."""

    def __init__(self, model: Model, path: RoutinePath | None = None) -> None:
        self.model = RowModel(model, 4, ROW2, path or learned())
        self.steps = 0

    async def step(self, listing: list[ListedElement]) -> dict[str, Any]:
        reply = await self.model.invoke([Message(role="user", content="page", elements=listing)], TOOL, AbortSignal())
        answer: dict[str, Any] = json.loads(reply.tool_calls[0].arguments)["action"]
        name, params = next(iter(answer.items()))
        self.steps += 1
        self.model._added(StepEvent(step_index=self.steps, action=ActionRecord(name=name, input=params)))
        return answer


async def replayed_to_the_end(row: Row) -> None:
    for _ in range(4):  # name, email, the plan's radio, the model's date
        await row.step(FORM)
    assert not row.model.submitted
    assert await row.step(FORM) == {"click_element_by_index": {"index": 6}}  # Save, replayed
    assert row.model.submitted


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"click_element_by_index": {"index": 7}}, "Click the “New customer” link"),
        ({"send_keys": {"keys": "Enter"}}, "Press Enter"),
        ({"go_to_url": {"url": "http://127.0.0.1:9/new"}}, "Go to http://127.0.0.1:9/new"),
        ({"select_dropdown_option": {"index": 3, "text": "Pro"}}, "Choose “Pro” in a list"),
        ({"execute_javascript": {"script": "document.forms[0].submit()"}}, "Run a script on the page"),
    ],
)
async def test_after_the_replayed_save_an_act_that_could_send_goes_to_the_person_instead(
    action: dict[str, Any], words: str
) -> None:
    row = Row(Model({"input_text": {"index": 1, "text": "1985-12-31"}}, action))
    await replayed_to_the_end(row)

    answer = await row.step(SAVED)

    assert list(answer) == ["hand_off_to_user"]
    reason = answer["hand_off_to_user"]["reason"]
    assert reason == row.model.refused
    assert reason.startswith("The site's answer was unclear; check row 4 before running it again.")
    assert words in reason
    assert row.model.calls == 2  # the model was asked; what it asked for was not done


async def test_after_the_replayed_save_the_model_may_still_end_the_row_or_look() -> None:
    ends = {"done": {"text": "Saved Bo.", "success": True}}
    row = Row(Model({"input_text": {"index": 1, "text": "1985-12-31"}}, {"scroll": {"down": True}}, ends))
    await replayed_to_the_end(row)
    assert await row.step(SAVED) == {"scroll": {"down": True}}
    assert await row.step(SAVED) == ends
    assert not row.model.refused


async def test_a_row_the_model_took_over_is_sent_once_it_saves_and_never_again() -> None:
    renamed = EMAIL.model_copy(update={"name": "Contact email", "attrs": {"name": "contact_email", "type": "email"}})
    changed = [NAME, renamed, BOX, SAVE]
    model = Model(
        {"input_text": {"index": 2, "text": "bo@x.test"}},
        {"click_element_by_index": {"index": 3}},  # the newsletter box: it fills the form, it sends nothing
        {"click_element_by_index": {"index": 6}},  # Save, as the path does it
        {"click_element_by_index": {"index": 7}},
    )
    row = Row(model)
    await row.step(FORM)  # the name, replayed
    assert await row.step(changed) == {"input_text": {"index": 2, "text": "bo@x.test"}}
    assert row.model.took_over and not row.model.submitted
    assert await row.step(changed) == {"click_element_by_index": {"index": 3}}
    assert not row.model.submitted
    assert await row.step(changed) == {"click_element_by_index": {"index": 6}}
    assert row.model.submitted
    answer = await row.step(SAVED)
    assert list(answer) == ["hand_off_to_user"] and "check row 4" in answer["hand_off_to_user"]["reason"]


async def test_a_row_taken_over_after_it_was_sent_is_told_so() -> None:
    path = learned()
    note = PathStep(action="input_text", input={"text": "{name}"}, templated=["text"], target=NAME.identity())
    path.steps.append(note.model_copy(update={"seen": [e.identity() for e in FORM]}))  # typed after Save
    model = Model({"input_text": {"index": 1, "text": "1985-12-31"}}, {"done": {"text": "ok", "success": True}})
    row = Row(model, path)
    await replayed_to_the_end(row)
    popup = ListedElement(index=9, tag="button", name="Rate us", text="Rate us")
    assert await row.step([*FORM, popup]) == {"done": {"text": "ok", "success": True}}
    assert row.model.took_over == "something new appeared on the page (Rate us)"
    assert model.seen[-1].endswith(f"<sys>{TAKE_OVER.format(reason=row.model.took_over)} {SENT}</sys>")


async def test_an_answer_that_is_no_action_reaches_the_agent_as_it_was() -> None:
    row = Row(Model({"input_text": {"index": 1, "text": "1985-12-31"}}, {}))  # {}: no action (the agent says so)
    await replayed_to_the_end(row)
    reply = await row.model.invoke([Message(role="user", content="page", elements=SAVED)], TOOL, AbortSignal())
    assert json.loads(reply.tool_calls[0].arguments) == {"action": {}} and not row.model.refused


def test_an_unclear_row_is_kept_and_a_state_from_before_reads_as_clear(tmp_path: Path) -> None:
    results = tmp_path / "r.csv"
    store = RoutineStore.open(results)
    store.finish("a:1", 1, RowOutcome(RowStatus.NEEDS_PERSON, "unclear", unclear=True))
    store.finish("b:1", 2, RowOutcome(RowStatus.NEEDS_PERSON, "a captcha"))
    assert {k: r.outcome.unclear for k, r in store.records().items()} == {"a:1": True, "b:1": False}
    store.start("a:1", 1, "window 1")  # run again (--retry-interrupted): it is no longer what it was
    assert not store.records()["a:1"].outcome.unclear
    path = store.path
    store.close()

    with sqlite3.connect(path) as db:  # a state written before rows could be unclear
        db.execute("ALTER TABLE rows DROP COLUMN unclear")
    older = RoutineStore.open(results)
    try:
        assert {k: r.outcome.unclear for k, r in older.records().items()} == {"a:1": False, "b:1": False}
    finally:
        older.close()
