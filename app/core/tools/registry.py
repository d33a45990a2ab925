"""Which tools a run offers: the fixed set (hand_off_to_user included: with nobody there it ends the run), ask_user
only with a handler, JavaScript only when enabled."""

from __future__ import annotations

from typing import Any

from app.core.tools.base import Tool
from app.core.tools.control import DONE, ask_user_tool, done_tool, done_with_data, hand_off_tool, wait_tool
from app.core.tools.page_tools import JAVASCRIPT_TOOL, PAGE_TOOLS

ToolSet = dict[str, Tool[Any]]


def build_tools(*, ask_user: bool, javascript: bool, result_fields: tuple[str, ...] = ()) -> ToolSet:
    tools: list[Tool[Any]] = [done_with_data(result_fields) if result_fields else done_tool, wait_tool]
    if ask_user:
        tools.append(ask_user_tool)
    tools.append(hand_off_tool)
    tools.extend(PAGE_TOOLS)
    if javascript:
        tools.append(JAVASCRIPT_TOOL)
    return {tool.name: tool for tool in tools}


# Every tool there is, by name: what the panel and exports read a recorded step's words from.
ALL_TOOLS: ToolSet = build_tools(ask_user=True, javascript=True)


def done_only() -> ToolSet:
    return {DONE: done_tool}
