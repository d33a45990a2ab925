"""Tools that act on the page. Each one's input is its own model, which the PageController performs as real trusted
input (app/browser/controller.py); the tools that guard a moment (a risky click, a secret, a file) do so first.

Adding a page tool: its input model here (and in ``PageAction``), its ``Tool`` in ``PAGE_TOOLS`` with its words and
what it means for a routine (``may_send``, ``value_field``, …), and its case in the controller's ``perform``. The
tool list, the schema the model is sent, validation, repair and the plain words in the panel follow from the
definition.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from app.core.safety.files import sensitive
from app.core.safety.risky import Act, ActGate, confirm_irreversible, confirm_upload
from app.core.tools.base import Tool, ToolContext, ToolWords

# Field descriptions only where the name and type do not say it all: every word here is sent with every step.


class _OnElement(BaseModel):
    index: int = Field(ge=0)


class ClickInput(_OnElement):
    pass


class HoverInput(_OnElement):
    pass


class InputTextInput(_OnElement):
    text: str


class SecretTextInput(InputTextInput):
    """input_text whose text holds a secret's value (app/core/safety/secrets.py). Never an input the model sends: the
    tool hands it to the page once the vault has filled the placeholders, and the page puts it only into the checked
    field, never as keystrokes (app/browser/secret_typing.py)."""


class SelectOptionInput(_OnElement):
    text: str = Field(description="the option's visible text")


class SendKeysInput(BaseModel):
    keys: str = Field(description='e.g. "Enter", "Control+A"')


class ScrollInput(BaseModel):
    down: bool = True
    num_pages: float = Field(default=1, gt=0, le=10)
    index: int | None = Field(default=None, ge=0, description="a scrollable element; omit for the page")


class GoToUrlInput(BaseModel):
    url: str


class OpenTabInput(BaseModel):
    url: str


class GoBackInput(BaseModel):
    pass


class SwitchTabInput(BaseModel):
    tab_id: int = Field(ge=0)


class CloseTabInput(BaseModel):
    tab_id: int = Field(ge=0)


class UploadFileInput(BaseModel):
    index: int = Field(ge=0, description="a file input, or the button that opens the file chooser")
    path: str = Field(description="absolute path, in a folder the user allowed or named in the task")


class ScriptInput(BaseModel):
    script: str = Field(description="its last expression's value is returned")


# What a PageController performs: one input model per page tool.
PageAction = (
    ClickInput
    | HoverInput
    | InputTextInput
    | SelectOptionInput
    | SendKeysInput
    | ScrollInput
    | GoToUrlInput
    | OpenTabInput
    | GoBackInput
    | SwitchTabInput
    | CloseTabInput
    | UploadFileInput
    | ScriptInput
)


async def perform(ctx: ToolContext, action: PageAction) -> str:
    """A tool that is the page action itself, with no policy of its own in between."""
    return await ctx.page.perform(action, ctx.signal)


def _gate(ctx: ToolContext) -> ActGate | None:
    """The irreversible check the page runs at the moment of acting ("Ask me before irreversible actions")."""
    if not ctx.guardrails.ask_before_irreversible:
        return None

    async def gate(act: Act) -> None:
        await confirm_irreversible(ctx.guardrails.confirm, act, ctx.own_words, ctx.signal)

    return gate


async def guarded(ctx: ToolContext, action: PageAction) -> str:
    """A page action that can set off an irreversible act (a click, a choice, a key): the page checks each act it is
    about to set off with the person, through one gate."""
    return await ctx.page.perform(action, ctx.signal, _gate(ctx))


def _remember_password(ctx: ToolContext, p: InputTextInput) -> None:
    """A password (or a code) typed as itself (no placeholder) into a field for one is a secret from now on: masked,
    and typable again by name."""
    info = ctx.page.element_info(p.index)
    vault = ctx.guardrails.secrets
    if info is not None and info.secret_field and p.text and not vault.has_placeholder(p.text):
        vault.remember_typed(p.text, info.frame_url)


async def _input_text(ctx: ToolContext, p: InputTextInput) -> str:
    vault = ctx.guardrails.secrets
    info = ctx.page.element_info(p.index)
    # The document that owns the field decides where a secret may go: a cross-origin iframe has its own address.
    text = await vault.fill(p.text, info.frame_url if info is not None else None, ctx.own_words, signal=ctx.signal)
    # A placeholder filled, or a value the vault knows (a password typed as itself, learnt just before): a secret.
    secret = text != p.text or vault.mask(text) != text
    action = SecretTextInput if secret else InputTextInput
    return vault.mask(await perform(ctx, action(index=p.index, text=text)))


async def _upload(ctx: ToolContext, p: UploadFileInput) -> str:
    # The page gets the file the policy judged (links and .. resolved), never the path as the model wrote it.
    file = await ctx.signal.race(asyncio.to_thread(ctx.guardrails.uploads.check, p.path, ctx.own_words))
    if sensitive(file):  # a key or a dot-file: the person says so, whoever named it
        await confirm_upload(ctx.guardrails.confirm, str(file), ctx.signal)
    return await perform(ctx, UploadFileInput(index=p.index, path=str(file)))


PAGE_TOOLS: tuple[Tool[Any], ...] = (
    Tool(
        "click_element_by_index",
        "",
        ClickInput,
        guarded,
        ToolWords("Click {target}", "Clicking {target}…", "Clicked {target}"),
        picks_element=True,
    ),
    Tool(
        "input_text",
        "Clears the field first.",
        InputTextInput,
        _input_text,
        ToolWords("Type {text:typed} into {target}", "Typing into {target}…", "Typed into {target}", "a text field"),
        prepare=_remember_password,
        may_send=False,
        value_field="text",
    ),
    Tool(
        "select_dropdown_option",
        "Native or custom.",
        SelectOptionInput,
        guarded,
        ToolWords("Choose {text:quote} in {target:list}", "Choosing {text:quote} in {target:list}…"),
        value_field="text",
        picks_option=True,
    ),
    Tool("send_keys", "To the focused element.", SendKeysInput, guarded, ToolWords("Press {keys}", "Pressing {keys}…")),
    Tool(
        "hover_element",
        "",
        HoverInput,
        perform,
        ToolWords("Point at {target}", "Pointing at {target}…"),
        may_send=False,
        picks_element=True,
    ),
    Tool(
        "scroll",
        "By viewport heights.",
        ScrollInput,
        perform,
        ToolWords("Scroll {down:down|up} {num_pages:pages}[ in {target}]", "Scrolling {down:down|up}…"),
        may_send=False,
    ),
    Tool("go_to_url", "", GoToUrlInput, perform, ToolWords("Go to {url}", "Opening {url:host}…"), url_field="url"),
    Tool("go_back", "", GoBackInput, perform, ToolWords("Go back", "Going back…")),
    Tool(
        "open_new_tab",
        "",
        OpenTabInput,
        perform,
        ToolWords("Open {url} in a new tab", "Opening {url:host}…"),
        url_field="url",
    ),
    Tool(
        "switch_to_tab",
        "",
        SwitchTabInput,
        perform,
        ToolWords("Switch to another tab", "Switching tabs…"),
        may_send=False,
    ),
    Tool("close_tab", "", CloseTabInput, perform, ToolWords("Close a tab", "Switching tabs…")),
    Tool(
        "upload_file",
        "",
        UploadFileInput,
        _upload,
        ToolWords("Upload {path:file} with {target}", "Uploading a file…", element="a file field"),
        value_field="path",
    ),
)

JAVASCRIPT_TOOL = Tool(
    "execute_javascript",
    "In the page; only when no other action works.",
    ScriptInput,
    perform,
    ToolWords("Run a script on the page", "Running a script…"),
)
