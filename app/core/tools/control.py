"""Tools that do not touch the page: finishing, waiting, asking the user, handing the browser to the user."""

from __future__ import annotations

import dataclasses
import functools

from pydantic import BaseModel, ConfigDict, Field, create_model

from app.core.errors import ToolError
from app.core.tools.base import Tool, ToolContext, ToolWords

DONE = "done"
HAND_OFF = "hand_off_to_user"


class DoneInput(BaseModel):
    text: str
    success: bool = True  # true only when all of it is done and checked: the system prompt says so


class WaitInput(BaseModel):
    seconds: float = Field(default=3, ge=0, le=60)


class AskUserInput(BaseModel):
    question: str


class HandOffInput(BaseModel):
    reason: str = Field(min_length=1)  # what the user must do: the system prompt says so


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


# Descriptions only where neither the name nor the system prompt says it: they are sent with every step.
done_tool = Tool(
    DONE,
    "",
    DoneInput,
    _done,
    ToolWords("Finish: {success:task done|could not complete}", "Wrapping up…"),
    may_send=False,
    replayed=False,
)
wait_tool = Tool(
    "wait",
    "",
    WaitInput,
    _wait,
    ToolWords("Wait {seconds:g} s", "Waiting for the page…"),
    may_send=False,
    replayed=False,
)
ask_user_tool = Tool(
    "ask_user",
    "",
    AskUserInput,
    _ask_user,
    ToolWords("Ask you a question", "Waiting for your answer…"),
    may_send=False,
    replayed=False,
)


@functools.cache
def done_with_data(fields: tuple[str, ...]) -> Tool[DoneInput]:
    """done whose input also carries ``data``: an object with exactly these keys, each a string the agent read (a
    routine's output columns)."""
    data = create_model(  # type: ignore[call-overload]
        "DoneData",
        __config__=ConfigDict(extra="forbid"),
        **{name: (str, ...) for name in fields},
    )
    model = create_model(
        "DoneWithData",
        __base__=DoneInput,
        data=(data, Field(description="what you found, under exactly these keys")),
    )
    return dataclasses.replace(done_tool, input_model=model)


hand_off_tool = Tool(
    HAND_OFF,
    "Pause; the user acts in the browser.",
    HandOffInput,
    _hand_off,
    ToolWords("Hand the browser to you: {reason:said}", "Handing the browser to you…"),
    may_send=False,
    replayed=False,
)
