"""Learning a path from the first good row, and playing it back for another row (no browser: the listings are data,
as the agent hands them to its model client)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from app.core.abort import AbortSignal
from app.core.llm import LLMReply, Message, ToolCall, ToolSpec
from app.core.page import ListedElement
from app.core.tools.base import Tool, ToolWords
from app.core.tools.page_tools import perform
from app.core.tools.registry import ALL_TOOLS
from app.core.types import ActionRecord, StepEvent
from app.routine.path import Taken, learn_path
from app.routine.replay import CONFIRM, SENT, TAKE_OVER, RowModel

TOOL = ToolSpec(name="AgentOutput", description="", parameters={})
NAME = ListedElement(index=1, tag="input", name="Name", input_type="text", attrs={"name": "name", "type": "text"})
EMAIL = ListedElement(index=2, tag="input", name="Email", input_type="email", attrs={"name": "email", "type": "email"})
BOX = ListedElement(index=3, tag="input", name="Newsletter", input_type="checkbox", attrs={"type": "checkbox"})
PRO = ListedElement(index=4, tag="button", name="Pro", text="Pro", attrs={"role": "radio"})
FREE = ListedElement(index=5, tag="button", name="Free", text="Free", attrs={"role": "radio"})
SAVE = ListedElement(index=6, tag="button", name="Save", text="Save")
FORM = [NAME, EMAIL, BOX, PRO, FREE, SAVE]
ROW1 = {"name": "Ana", "email": "ana@x.test", "plan": "Pro", "news": "yes", "born": "05/01/1990"}


def checked(element: ListedElement) -> ListedElement:
    return element.model_copy(update={"attrs": {**element.attrs, "checked": ""}})


def learned() -> Any:
    after_box = [NAME, EMAIL, checked(BOX), PRO, FREE, SAVE]
    taken = [
        Taken("input_text", {"index": 1, "text": "Ana"}, True, FORM, 0, FORM),
        Taken("input_text", {"index": 2, "text": "ana@x.test"}, True, FORM, 0, FORM),
        Taken("click_element_by_index", {"index": 3}, True, FORM, 0, after_box),
        Taken("click_element_by_index", {"index": 4}, True, after_box, 0, after_box),
        Taken("input_text", {"index": 1, "text": "1990-01-05"}, True, after_box, 0, after_box),
        Taken("wait", {"seconds": 1}, True, after_box, 0, after_box),
        Taken("click_element_by_index", {"index": 99}, False, after_box, 0, after_box),
        Taken("click_element_by_index", {"index": 6}, True, after_box, 0, after_box),
        Taken("done", {"text": "Saved", "success": True}, True, after_box, 0, after_box),
    ]
    return learn_path(taken, 1, ROW1, ["name", "email", "plan", "news", "born", "city"], "Add customers")


def test_a_path_turns_the_rows_values_back_into_columns_and_never_guesses_the_rest() -> None:
    path = learned()
    assert path is not None
    steps = path.steps
    assert [s.action for s in steps] == ["input_text"] * 2 + ["click_element_by_index"] * 2 + [
        "input_text",
        "click_element_by_index",
    ]
    assert steps[0].input == {"text": "{name}"} and steps[1].input == {"text": "{email}"}
    assert steps[2].toggle_column == "news" and steps[2].checked_when is True
    assert steps[3].target_column == "plan"  # the radio named by the row's plan
    assert steps[4].ask_model  # a reformatted date: the model decides it for each row
    assert not steps[5].ask_model and steps[5].target_column is None  # Save: the same for every row
    assert path.fixed == {"city": ""}  # a column the path never used: only rows with the same value replay
    assert not path.replays({**ROW1, "city": "Lima"}) and path.replays({**ROW1, "city": ""})


class Model:
    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.seen: list[str] = []

    async def invoke(
        self, messages: list[Message], tool: ToolSpec, signal: AbortSignal, on_retry: Any = None
    ) -> LLMReply:
        self.seen.append(messages[-1].content)
        return LLMReply(tool_calls=[ToolCall(name=tool.name, arguments=json.dumps({"action": self.answers.pop(0)}))])


def action(reply: LLMReply) -> dict[str, Any]:
    return json.loads(reply.tool_calls[0].arguments)["action"]


async def test_a_row_replays_with_its_own_values_and_the_model_confirms_once() -> None:
    model = Model({"input_text": {"index": 1, "text": "1985-12-31"}}, {"done": {"text": "ok", "success": True}})
    row2 = {"name": "Bo", "email": "bo@x.test", "plan": "Free", "news": "no", "born": "31/12/1985", "city": ""}
    replay = RowModel(model, 2, row2, learned())
    step = 0

    async def ask(listing: list[ListedElement]) -> dict[str, Any]:
        nonlocal step
        reply = await replay.invoke([Message(role="user", content="page", elements=listing)], TOOL, AbortSignal())
        answer = action(reply)
        name, params = next(iter(answer.items()))
        step += 1
        replay._added(StepEvent(step_index=step, action=ActionRecord(name=name, input=params)))
        return answer

    assert await ask(FORM) == {"input_text": {"text": "Bo", "index": 1}}
    assert await ask(FORM) == {"input_text": {"text": "bo@x.test", "index": 2}}
    # The box is off and row 2 wants no newsletter: no click; the radio is the row's own plan.
    assert await ask(FORM) == {"click_element_by_index": {"index": 5}}
    assert await ask(FORM) == {"input_text": {"index": 1, "text": "1985-12-31"}}  # the model's step
    assert await ask(FORM) == {"click_element_by_index": {"index": 6}}
    assert await ask(FORM) == {"done": {"text": "ok", "success": True}}
    assert model.seen[-1].endswith(f"<sys>{CONFIRM} {SENT}</sys>")  # Save was replayed: the row has been sent
    assert replay.calls == 2 and replay.replayed_steps == 4 and not replay.took_over


async def test_the_model_takes_over_where_the_page_differs() -> None:
    model = Model({"done": {"text": "other form", "success": False}})
    replay = RowModel(model, 1, {**ROW1, "city": ""}, learned())
    renamed = EMAIL.model_copy(update={"name": "Contact email", "attrs": {"name": "contact_email", "type": "email"}})
    first = await replay.invoke([Message(role="user", content="p", elements=FORM)], TOOL, AbortSignal())
    replay._added(StepEvent(step_index=1, action=ActionRecord(name="input_text", input=action(first)["input_text"])))
    await replay.invoke([Message(role="user", content="p", elements=[NAME, renamed, BOX, SAVE])], TOOL, AbortSignal())
    assert replay.took_over == "something new appeared on the page (Contact email)"
    assert model.seen[-1].endswith("<sys>" + TAKE_OVER.format(reason=replay.took_over) + "</sys>")
    assert replay.calls == 1


class _Autofill(BaseModel):
    index: int
    value: str


async def test_a_new_tool_that_takes_a_value_replays_each_rows_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the tool means for a routine is on its declaration, not in a list of tool names the path keeps.
    autofill = Tool("autofill", "", _Autofill, perform, ToolWords("Fill {target}", "Filling…"), value_field="value")
    monkeypatch.setitem(ALL_TOOLS, "autofill", autofill)
    taken = [
        Taken("autofill", {"index": 2, "value": "ana@x.test"}, True, FORM, 0, FORM),
        Taken("click_element_by_index", {"index": 6}, True, FORM, 0, FORM),
    ]
    path = learn_path(taken, 1, ROW1, ["email"], "Add customers")
    assert path is not None and path.steps[0].input == {"value": "{email}"}
    model = Model({"done": {"text": "ok", "success": True}})
    replay = RowModel(model, 2, {**ROW1, "email": "bo@x.test"}, path)
    reply = await replay.invoke([Message(role="user", content="page", elements=FORM)], TOOL, AbortSignal())
    assert action(reply) == {"autofill": {"value": "bo@x.test", "index": 2}}
