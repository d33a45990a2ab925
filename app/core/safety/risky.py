"""Risky moments that wait for the person: a page's confirm()/prompt()/beforeunload, and an irreversible act.

An act is irreversible when what it sets off reads as an act that cannot be undone (risky_words.py): the element
clicked, by any of its names (its words, accessible name, title, value, alt; never a check box, a radio button or a
switch, which only set a value the form sends later), the option chosen in a drop-down or a
list box, the control a key press activates, and the submit control of a form that Enter submits. All of them pass
the one check below (``confirm_irreversible``), called by the page at the moment of acting (``ActGate``). Such an act
needs the person's OK unless the task, in the user's own words, plainly asked for that very act on that very thing;
on a page about paying or closing an account, a "Continue" or "Confirm" whose purpose is unsure asks too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel

from app.core.abort import AbortSignal
from app.core.errors import DeclinedError, ToolError
from app.core.safety.risky_words import asks_for_kind, irreversible_kinds, task_asks_for, unsure_kinds

__all__ = [
    "CONFIRM_TIMEOUT",
    "Act",
    "ActGate",
    "ConfirmHandler",
    "ConfirmRequest",
    "RiskyMode",
    "confirm_irreversible",
    "confirm_upload",
    "irreversible_kinds",
    "is_irreversible",
    "task_asks_for",
]

# Who answers a risky moment when no panel asks the person: ``ask`` them (at a terminal), or ``allow``/``deny`` it.
RiskyMode = Literal["ask", "allow", "deny"]

# How long the person has to answer; then the answer is "no" (the page's dialog is cancelled, the click refused).
CONFIRM_TIMEOUT = 60.0
# A handler that overruns its own deadline is not waited for much longer.
_HANDLER_GRACE = 5.0
_NAME_MAX = 100


class ConfirmRequest(BaseModel):
    # "dialog": a page's confirm(), prompt() or beforeunload; "irreversible": an act on e.g. "Delete account".
    kind: Literal["dialog", "irreversible"]
    # What the person is asked about, in plain words (the page's own message is quoted, never obeyed).
    message: str
    dialog_type: str = ""  # confirm | prompt | beforeunload (kind "dialog")
    url: str = ""
    # The page's own words (the dialog's text, the element's name), unquoted, for a UI that words the question itself.
    quote: str = ""


# Answers True to allow, False to refuse. It must answer within its own deadline (refusing on time-out).
ConfirmHandler = Callable[[ConfirmRequest, AbortSignal], Awaitable[bool]]


class Act(BaseModel):
    """What an action is about to set off, as the page tells it at the moment of acting."""

    how: Literal["click", "choose", "key"]
    # Every name of what it sets off: an element's visible words and accessible names (aria-label, aria-labelledby,
    # title, value, alt); the option chosen; for a key, the control it activates, or the submit control of the form
    # that Enter submits. The first is what the person is shown.
    names: list[str]
    index: int | None = None  # the element the model named, when it named one
    # It picks a value (an option, a radio button, a tab) rather than commits: a price on it is no payment. A choice
    # in a drop-down (how == "choose") is one too.
    choice: bool = False
    # It flips a state (a check box, a radio button, a switch): it sends nothing by itself, a later act (the form's
    # Save) commits it, and a second click undoes it. Whatever its words ("Send the newsletter"), it never asks.
    toggle: bool = False
    key: str = ""  # how == "key": the key pressed ("Enter")
    page: str = ""  # the page's address and title: a payment or account-deletion page makes an unsure act ask


# Called by the page with each act just before it happens; returns when it may go ahead, raises ToolError when not.
ActGate = Callable[[Act], Awaitable[None]]


def is_irreversible(name: str, choice: bool = False) -> bool:
    return bool(irreversible_kinds(name, choice))


def _risky_name(act: Act, task: str) -> str | None:
    """The first name of ``act`` that reads as irreversible and the task did not plainly ask for; None if none."""
    if act.toggle:
        return None
    names = [name for name in act.names if name.strip()]
    choice = act.choice or act.how == "choose"
    for name in names:
        if is_irreversible(name, choice) and not task_asks_for(task, name, choice):
            return name
    if not any(is_irreversible(name, choice) for name in names):
        for name in names:
            kinds = unsure_kinds(name, act.page)
            if kinds and not all(asks_for_kind(task, kind) for kind in kinds):
                return name
    return None


def _told(act: Act, shown: str) -> tuple[str, str]:
    """(what the person is asked, how a refusal reads to the model), in plain words."""
    at = f" [{act.index}]" if act.index is not None else ""
    if act.how == "choose":
        return f"The agent wants to choose {shown}.", f"choosing {shown} in{at or ' the list'}"
    if act.how == "key":
        return (
            f"The agent wants to press {act.key}, which would set off {shown}.",
            f"pressing {act.key}, which would set off {shown}",
        )
    return f"The agent wants to click {shown}.", f"clicking{at} {shown}"


async def confirm_irreversible(handler: ConfirmHandler | None, act: Act, task: str, signal: AbortSignal) -> None:
    """Ask the person before ``act`` when it reads as irreversible and the task did not plainly ask for it.

    Returns when the act may go ahead; raises ToolError (for the model to read) when nobody allowed it. The wait is
    bounded and ends at once when ``signal`` aborts (Stop).
    """
    name = _risky_name(act, task)
    if name is None:
        return
    shown = json.dumps(name[:_NAME_MAX], ensure_ascii=False)
    question, doing = _told(act, shown)
    refused = (
        f"The user did not allow {doing}: it reads as an irreversible action that the task did not ask for. Do not "
        "try to do it another way; carry on with the rest of the task, or finish with done and say that this needs "
        "the user."
    )
    await _ask(handler, ConfirmRequest(kind="irreversible", message=question, quote=name[:_NAME_MAX]), refused, signal)


async def confirm_upload(handler: ConfirmHandler | None, file: str, signal: AbortSignal) -> None:
    """Ask the person before a hidden or key-like file (app/core/safety/files.py ``sensitive``) is handed to a page,
    whoever named it; ToolError when nobody allowed it."""
    shown = json.dumps(file, ensure_ascii=False)
    refused = (
        f"The user did not allow uploading {shown}: it is a hidden or key-like file (keys, tokens, credentials). "
        "Do not try another file in its place; finish with done and say that this needs the user."
    )
    request = ConfirmRequest(
        kind="irreversible", message=f"The agent wants to upload {shown}, a hidden or key-like file.", quote=file
    )
    await _ask(handler, request, refused, signal)


async def _ask(handler: ConfirmHandler | None, request: ConfirmRequest, refused: str, signal: AbortSignal) -> None:
    """The person's answer, within the deadline; ToolError(``refused``) unless they allowed it."""
    if handler is None:
        raise ToolError(refused)
    try:
        allowed = await signal.race(asyncio.wait_for(handler(request, signal), CONFIRM_TIMEOUT + _HANDLER_GRACE))
    except TimeoutError:
        allowed = False
    if not allowed:
        raise DeclinedError(refused)
