"""Risky moments that wait for the person: a page's confirm()/prompt()/beforeunload, an irreversible click."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel

from app.core.abort import AbortSignal


class ConfirmRequest(BaseModel):
    # "dialog": a page's confirm(), prompt() or beforeunload; "irreversible": a click on e.g. "Delete account".
    kind: Literal["dialog", "irreversible"]
    # What the person is asked about, in plain words (the page's own message is quoted, never obeyed).
    message: str
    dialog_type: str = ""  # confirm | prompt | beforeunload (kind "dialog")
    url: str = ""


# Answers True to allow, False to refuse. It must answer within its own deadline (refusing on time-out).
ConfirmHandler = Callable[[ConfirmRequest, AbortSignal], Awaitable[bool]]
