"""Tools that act on the page; each one hands its input to the PageController, which does real trusted input."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from app.core.safety.risky import confirm_irreversible_click
from app.core.tools.base import Tool, ToolContext


class IndexInput(BaseModel):
    index: int = Field(ge=0, description="The element's [index] from the current browser state.")


class InputTextInput(BaseModel):
    index: int = Field(ge=0)
    text: str = Field(description="The text to type; the field is cleared first. <secret>name</secret> types the "
                                  "user's secret of that name (you never see its value).")


class SelectOptionInput(BaseModel):
    index: int = Field(ge=0, description="The dropdown's [index].")
    text: str = Field(description="The visible text of the option to choose.")


class SendKeysInput(BaseModel):
    keys: str = Field(description='Keys to press, e.g. "Enter", "Escape", "Tab", "Control+A".')


class ScrollInput(BaseModel):
    down: bool = Field(default=True, description="true scrolls down, false up.")
    num_pages: float = Field(default=1, gt=0, le=10, description="How many viewport heights to scroll.")
    index: int | None = Field(default=None, ge=0, description="A scrollable element's index; omit for the page.")


class UrlInput(BaseModel):
    url: str


class NoInput(BaseModel):
    pass


class TabInput(BaseModel):
    tab_id: int = Field(ge=0)


class UploadFileInput(BaseModel):
    index: int = Field(ge=0, description="The file input (or the button that opens the file chooser).")
    path: str = Field(description="Full path of a local file (/... or ~/...), in a folder the user allowed for "
                                  "uploads or named in the task.")


class ScriptInput(BaseModel):
    script: str = Field(description="JavaScript run in the page; the value of the last expression is returned.")


async def _click(ctx: ToolContext, p: IndexInput) -> str:
    info = ctx.page.element_info(p.index)
    if info is not None and ctx.guardrails.ask_before_irreversible:
        await confirm_irreversible_click(ctx.guardrails.confirm, p.index, info.name, ctx.task, ctx.signal)
    return await ctx.page.click(p.index, ctx.signal)


def _remember_password(ctx: ToolContext, p: InputTextInput) -> None:
    """A password typed as itself (no placeholder) is a secret from now on: masked, and typable again by name."""
    info = ctx.page.element_info(p.index)
    vault = ctx.guardrails.secrets
    if info is not None and info.input_type == "password" and p.text and not vault.has_placeholder(p.text):
        vault.remember_typed(p.text, info.frame_url)


async def _input_text(ctx: ToolContext, p: InputTextInput) -> str:
    vault = ctx.guardrails.secrets
    info = ctx.page.element_info(p.index)
    # The document that owns the field decides where a secret may go: a cross-origin iframe has its own address.
    text = vault.fill(p.text, info.frame_url if info is not None else None)
    return vault.mask(await ctx.page.input_text(p.index, text, ctx.signal))


async def _select(ctx: ToolContext, p: SelectOptionInput) -> str:
    return await ctx.page.select_option(p.index, p.text, ctx.signal)


async def _send_keys(ctx: ToolContext, p: SendKeysInput) -> str:
    return await ctx.page.send_keys(p.keys, ctx.signal)


async def _hover(ctx: ToolContext, p: IndexInput) -> str:
    return await ctx.page.hover(p.index, ctx.signal)


async def _scroll(ctx: ToolContext, p: ScrollInput) -> str:
    return await ctx.page.scroll(p.down, p.num_pages, p.index, ctx.signal)


async def _go_to_url(ctx: ToolContext, p: UrlInput) -> str:
    return await ctx.page.go_to_url(p.url, ctx.signal)


async def _go_back(ctx: ToolContext, _p: NoInput) -> str:
    return await ctx.page.go_back(ctx.signal)


async def _open_tab(ctx: ToolContext, p: UrlInput) -> str:
    return await ctx.page.open_new_tab(p.url, ctx.signal)


async def _switch_tab(ctx: ToolContext, p: TabInput) -> str:
    return await ctx.page.switch_to_tab(p.tab_id, ctx.signal)


async def _close_tab(ctx: ToolContext, p: TabInput) -> str:
    return await ctx.page.close_tab(p.tab_id, ctx.signal)


async def _upload(ctx: ToolContext, p: UploadFileInput) -> str:
    # The page gets the file the policy judged (links and .. resolved), never the path as the model wrote it.
    file = await ctx.signal.race(asyncio.to_thread(ctx.guardrails.uploads.check, p.path, ctx.task))
    return await ctx.page.upload_file(p.index, str(file), ctx.signal)


async def _javascript(ctx: ToolContext, p: ScriptInput) -> str:
    return await ctx.page.execute_javascript(p.script, ctx.signal)


PAGE_TOOLS: tuple[Tool[Any], ...] = (
    Tool("click_element_by_index", "Click an element (it is hovered first).", IndexInput, _click),
    Tool("input_text", "Clear a text field and type text into it.", InputTextInput, _input_text,
         prepare=_remember_password),
    Tool(
        "select_dropdown_option",
        "Choose an option of a dropdown (native or custom) by its visible text.",
        SelectOptionInput,
        _select,
    ),
    Tool("send_keys", "Press keys or shortcuts on the focused element.", SendKeysInput, _send_keys),
    Tool("hover_element", "Move the mouse over an element (menus, tooltips).", IndexInput, _hover),
    Tool("scroll", "Scroll the page or a scrollable element.", ScrollInput, _scroll),
    Tool("go_to_url", "Open a URL in the current tab.", UrlInput, _go_to_url),
    Tool("go_back", "Go back to the previous page.", NoInput, _go_back),
    Tool("open_new_tab", "Open a URL in a new tab and switch to it.", UrlInput, _open_tab),
    Tool("switch_to_tab", "Switch to another tab by its id.", TabInput, _switch_tab),
    Tool("close_tab", "Close a tab by its id.", TabInput, _close_tab),
    Tool("upload_file", "Upload a local file through a file input.", UploadFileInput, _upload),
)

JAVASCRIPT_TOOL = Tool(
    "execute_javascript", "Run JavaScript in the current page (use only when no other action works).", ScriptInput,
    _javascript,
)
