"""A tool's words come from its definition: every tool has them, in English and Chinese with the same placeholders,
and a tool defined anywhere is described by them (no table keyed on tool names)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from app.assets import resources_root
from app.core.tools.base import Tool, ToolContext, ToolWords
from app.core.tools.page_tools import JAVASCRIPT_TOOL, PAGE_TOOLS, PageAction
from app.core.tools.registry import ALL_TOOLS
from app.core.types import ActionTarget, ExecutedActivity, ExecutingActivity
from app.text.i18n import set_language
from app.text.tool_words import fill
from app.text.wording import describe_action, describe_activity

RESULTS = ActionTarget(tag="div", name="Results")
PLACEHOLDER = re.compile(r"\{(\w+)(?::[^{}|]*)?")


def zh_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for path in sorted((resources_root() / "i18n" / "zh").glob("*.json")):
        table.update(json.loads(path.read_text(encoding="utf-8")))
    return table


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def templates(words: ToolWords) -> list[str]:
    return [text for text in (words.action, words.doing, words.done, words.element) if text]


@pytest.mark.parametrize("name", sorted(ALL_TOOLS))
def test_every_tool_has_words_in_chinese_with_the_same_placeholders(name: str) -> None:
    table = zh_table()
    words = ALL_TOOLS[name].words
    fields = set(ALL_TOOLS[name].input_model.model_fields) | {"target"}
    for template in templates(words):
        assert template in table, f"{name}: no Chinese for {template!r}"
        placeholders = PLACEHOLDER.findall(template)
        assert set(placeholders) <= fields, f"{name}: {template!r} names a field the tool does not have"
        assert sorted(PLACEHOLDER.findall(table[template])) == sorted(placeholders)


def test_every_page_tool_is_a_page_action_the_controller_performs() -> None:
    # The controller's perform() matches on PageAction exhaustively (mypy's assert_never): a page tool whose input
    # is not in the union would have no implementation.
    inputs = {tool.input_model for tool in (*PAGE_TOOLS, JAVASCRIPT_TOOL)}
    assert inputs == set(get_args(PageAction))


class _StampInput(BaseModel):
    index: int
    ink: str = "blue"


async def _stamp(_ctx: ToolContext, _params: _StampInput) -> str:
    return "stamped"


def test_a_new_tools_words_follow_from_its_definition() -> None:
    stamp = Tool(
        "stamp_element",
        "",
        _StampInput,
        _stamp,
        ToolWords("Stamp {target}[ in {ink}]", "Stamping {target}…", "Stamped {target}", element="a stamp area"),
    )
    ALL_TOOLS[stamp.name] = stamp
    try:
        assert describe_action("stamp_element", {"index": 3}, RESULTS) == "Stamp the “Results” item in blue"
        assert describe_action("stamp_element", {"index": 3}, None) == "Stamp a stamp area in blue"
        executing = ExecutingActivity(tool="stamp_element", input={"index": 3}, target=RESULTS)
        assert describe_activity(executing) == "Stamping the “Results” item…"
        done = ExecutedActivity(tool="stamp_element", input={"index": 3}, output="ok", duration=0.1, target=RESULTS)
        assert describe_activity(done) == "Stamped the “Results” item"
    finally:
        del ALL_TOOLS[stamp.name]


@pytest.mark.parametrize(
    ("template", "values", "target", "text"),
    [
        ("Scroll {down:down|up}[ in {target}]", {"down": False}, None, "Scroll up"),
        ("Scroll {down:down|up}[ in {target}]", {"down": True}, RESULTS, "Scroll down in the “Results” item"),
        ("Open {url:host}", {"url": "https://crm.example/a?b"}, None, "Open crm.example"),
        ("Upload {path:file}", {"path": "/home/ada/cv.pdf"}, None, "Upload “cv.pdf”"),
        ("Wait {seconds:g} s", {"seconds": 2.0}, None, "Wait 2 s"),
        ("Say {text:quote}", {"text": "x" * 60}, None, "Say “" + "x" * 39 + "…”"),
        ("Type {text:typed}", {"text": "<secret>pin</secret>"}, None, "Type your secret pin"),
        ("Note[: {note}]", {"note": None}, None, "Note"),
        # A value is text, never template: braces and brackets in it are shown as they are.
        ("Type {text:typed}", {"text": "[{down}]"}, None, "Type “[{down}]”"),
    ],
)
def test_placeholders(template: str, values: dict[str, Any], target: ActionTarget | None, text: str) -> None:
    assert fill(template, ToolWords(template, template), values, target) == text


def test_chinese_words_put_the_element_where_chinese_says_it(chinese: None) -> None:
    assert describe_action("scroll", {"down": True, "num_pages": 1, "index": 4}, RESULTS) == (
        "向下滚动 1 页（在“Results”元素内）"
    )
    assert describe_action("done", {"text": "x", "success": False}) == "结束：未能完成"
