"""Tools that act on the page; each one hands its input to the PageController, which does real trusted input."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from app.core.safety.risky import confirm_irreversible_click
from app.core.tools.base import Tool, ToolContext

# Field descriptions only where the name and type do not say it all: every word here is sent with every step.


class IndexInput(BaseModel):
    index: int = Field(ge=0)


class InputTextInput(BaseModel):
    index: int = Field(ge=0)
    text: str


class SelectOptionInput(BaseModel):
    index: int = Field(ge=0)
    text: str = Field(description="the option's visible text")


class SendKeysInput(BaseModel):
    keys: str = Field(description='e.g. "Enter", "Control+A"')


class ScrollInput(BaseModel):
    down: bool = True
    num_pages: float = Field(default=1, gt=0, le=10)
    index: int | None = Field(default=None, ge=0, description="a scrollable element; omit for the page")


class UrlInput(BaseModel):
    url: str


class NoInput(BaseModel):
    pass


class TabInput(BaseModel):
    tab_id: int = Field(ge=0)


class UploadFileInput(BaseModel):
    index: int = Field(ge=0, description="a file input, or the button that opens the file chooser")
    path: str = Field(description="absolute path, in a folder the user allowed or named in the task")


class ScriptInput(BaseModel):
    script: str = Field(description="its last expression's value is returned")


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
    Tool("click_element_by_index", "", IndexInput, _click),
    Tool("input_text", "Clears the field first.", InputTextInput, _input_text, prepare=_remember_password),
    Tool("select_dropdown_option", "Native or custom.", SelectOptionInput, _select),
    Tool("send_keys", "To the focused element.", SendKeysInput, _send_keys),
    Tool("hover_element", "For menus and tooltips.", IndexInput, _hover),
    Tool("scroll", "By viewport heights.", ScrollInput, _scroll),
    Tool("go_to_url", "", UrlInput, _go_to_url),
    Tool("go_back", "", NoInput, _go_back),
    Tool("open_new_tab", "", UrlInput, _open_tab),
    Tool("switch_to_tab", "", TabInput, _switch_tab),
    Tool("close_tab", "", TabInput, _close_tab),
    Tool("upload_file", "", UploadFileInput, _upload),
)

JAVASCRIPT_TOOL = Tool(
    "execute_javascript",
    "Run JavaScript in the page, only when no other action works.",
    ScriptInput,
    _javascript,
)
