"""Playwright's failures as the agent's: a ToolError with a reason the model can act on, or BrowserClosedError when
the browser itself is gone."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TypeVar

from playwright.async_api import Error as PlaywrightError

from app.browser.actions import failure_text
from app.browser.session import BrowserSession
from app.core.abort import AbortSignal
from app.core.errors import BrowserClosedError, ToolError

T = TypeVar("T")


@asynccontextmanager
async def as_tool_errors(session: BrowserSession, what: str) -> AsyncIterator[None]:
    """Playwright failures inside become ToolErrors with a readable reason (or BrowserClosedError)."""
    try:
        yield
    except PlaywrightError as exc:
        raise_if_closed(session, exc)
        raise ToolError(f"{what}: {failure_text(exc)}") from exc


def raise_if_closed(session: BrowserSession, exc: PlaywrightError) -> None:
    if not session.is_connected:
        raise BrowserClosedError("The browser was closed.") from exc


async def race(session: BrowserSession, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
    """``work`` until it ends or ``signal`` aborts; its Playwright failure as a ToolError saying ``what`` failed."""
    async with as_tool_errors(session, what):
        return await signal.race(work)


async def press(session: BrowserSession, signal: AbortSignal, what: str, work: Awaitable[T]) -> T:
    """``race`` for a press on the page (a click, a tab brought forward): Chromium would take the keyboard for it."""
    async with session.window_focus.kept():
        return await race(session, signal, what, work)
