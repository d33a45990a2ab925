"""Tools that do not touch the page: finishing, waiting, asking the user, handing the browser to the user."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.core.page import ToolError
from app.core.tools.base import Tool, ToolContext

DONE = "done"
HAND_OFF = "hand_off_to_user"


class DoneInput(BaseModel):
    text: str = Field(description="The final answer or summary for the user.")
    success: bool = Field(
        default=True,
        description="True only if the WHOLE request was completed and verified; false otherwise.",
    )


class WaitInput(BaseModel):
    seconds: float = Field(default=3, ge=0, le=60, description="How long to wait, in seconds (max 60).")


class AskUserInput(BaseModel):
    question: str = Field(description="A short, specific question for the user.")


class HandOffInput(BaseModel):
    reason: str = Field(
        min_length=1,
        description="What the user must do, in plain words.",
    )


async def _done(_ctx: ToolContext, params: DoneInput) -> str:
    return params.text


async def _wait(ctx: ToolContext, params: WaitInput) -> str:
    await ctx.signal.sleep(params.seconds)
    return f"Waited {params.seconds:g} s"


async def _ask_user(ctx: ToolContext, params: AskUserInput) -> str:
    if ctx.ask_user is None:
        raise ToolError("Nobody can be asked right now; continue on your own or finish with done.")
    answer = await ctx.signal.race(ctx.ask_user(params.question, ctx.signal))
    return f"The user answered: {answer}"


async def _hand_off(_ctx: ToolContext, _params: HandOffInput) -> str:
    # The pause itself is the agent's: it records this step first, then waits for the user (Agent._hand_off).
    return "Handed the browser to the user."


done_tool = Tool(
    DONE,
    "Finish the task. Use success=false when the task could not be completed (say why, and what the user can do).",
    DoneInput,
    _done,
)
wait_tool = Tool("wait", "Wait for the page to load or change.", WaitInput, _wait)
ask_user_tool = Tool(
    "ask_user",
    "Ask the user a question when information only they have is missing (never for things on the page).",
    AskUserInput,
    _ask_user,
)
hand_off_tool = Tool(
    HAND_OFF,
    "For what only a person may do (a captcha, a sign-in without credentials, a two-factor code): the task pauses "
    "until the user hands the browser back.",
    HandOffInput,
    _hand_off,
)
