"""What a use of a tool means for a routine is on its declaration (``Tool.may_send``, ``value_field``, …), and every
tool declares it consistently with its input: a new tool cannot be silently taken for one that never sends, nor have
a row's value replayed as the first row's."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from app.core.tools.base import Tool, ToolWords
from app.core.tools.control import DONE, HAND_OFF, done_with_data
from app.core.tools.page_tools import JAVASCRIPT_TOOL, PAGE_TOOLS, perform
from app.core.tools.registry import ALL_TOOLS

PAGE_TOOL_NAMES = {tool.name for tool in (*PAGE_TOOLS, JAVASCRIPT_TOOL)}
# Text a path replays as the learning row wrote it, whatever the row: a key to press, a script to run. Any other text
# field of a replayed tool is its value or its address, or this list grows by review.
LITERAL_FIELDS = {("send_keys", "keys"), ("execute_javascript", "script")}
# The tools that cannot send a row's data anywhere, reviewed one by one: a tool said to be one of them lets a row that
# broke after it be run again, so the list grows only by review.
NEVER_SEND = {"input_text", "hover_element", "scroll", "switch_to_tab", "wait", DONE, "ask_user", HAND_OFF}


def text_fields(model: type[BaseModel]) -> set[str]:
    return {name for name, info in model.model_fields.items() if info.annotation is str}


def test_a_tool_that_says_nothing_about_routines_may_send_and_is_replayed_as_written() -> None:
    class Input(BaseModel):
        index: int

    tool = Tool("press_it", "", Input, perform, ToolWords("Press {target}", "Pressing…"))
    assert tool.may_send and tool.replayed  # fails closed: a row that broke after it is never run again blindly
    assert tool.value_field is None and tool.url_field is None and not tool.picks_element and not tool.picks_option


@pytest.mark.parametrize("name", sorted(ALL_TOOLS))
def test_every_tool_declares_its_value_and_address_fields(name: str) -> None:
    tool = ALL_TOOLS[name]
    texts = text_fields(tool.input_model)
    declared = {tool.value_field, tool.url_field} - {None}
    assert declared <= texts, f"{name}: a value or address field that is not a text field of its input"
    assert tool.value_field != tool.url_field or tool.value_field is None
    assert ("url" in texts) == (tool.url_field == "url"), f"{name}: an address field not declared as one"
    if tool.replayed:
        undeclared = {field for field in texts - declared if (name, field) not in LITERAL_FIELDS}
        assert not undeclared, f"{name}: {undeclared} would be replayed as the first row wrote it"
    if tool.picks_option:
        assert tool.value_field is not None, f"{name}: picks an option by a value it does not declare"
    if tool.picks_element:
        assert "index" in tool.input_model.model_fields, f"{name}: picks an element it is not given"


@pytest.mark.parametrize("name", sorted(ALL_TOOLS))
def test_a_path_replays_the_page_tools_and_never_the_runs_ending_or_the_persons_moments(name: str) -> None:
    assert ALL_TOOLS[name].replayed == (name in PAGE_TOOL_NAMES)


def test_only_the_reviewed_tools_cannot_send() -> None:
    assert {name for name, tool in ALL_TOOLS.items() if not tool.may_send} == NEVER_SEND


def test_done_with_the_rows_results_is_declared_as_done() -> None:
    done: Any = done_with_data(("total",))
    assert not done.may_send and not done.replayed and done.input_model is not ALL_TOOLS[DONE].input_model
