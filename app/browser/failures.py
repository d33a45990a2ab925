"""Playwright's failures as the agent's: a ToolError with a reason the model can act on, or BrowserClosedError when
the browser itself is gone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Error as PlaywrightError

from app.browser.actions import failure_text
from app.browser.session import BrowserSession
from app.core.errors import BrowserClosedError, ToolError


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
