"""Chromium's window on the screen, over CDP: its state (normal, maximized...) and its bounds, read or set."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from app.browser.screen_rect import ScreenRect

_CDP_TIMEOUT = 5.0


async def window_state(context: BrowserContext, page: Page) -> str:
    """The state of the window holding ``page``: normal, maximized, minimized or fullscreen."""
    return str((await _window_command(context, page, None))["bounds"].get("windowState", "normal"))


async def window_bounds(context: BrowserContext, page: Page) -> ScreenRect:
    """The window holding ``page`` as x, y, width, height."""
    bounds = (await _window_command(context, page, None))["bounds"]
    return bounds["left"], bounds["top"], bounds["width"], bounds["height"]


async def set_window_bounds(context: BrowserContext, page: Page, rect: ScreenRect) -> None:
    """Move and size the window holding ``page``, un-maximising it first (a maximised window ignores bounds)."""
    await _window_command(context, page, rect)


async def _window_command(context: BrowserContext, page: Page, rect: ScreenRect | None) -> dict[str, Any]:
    cdp = await context.new_cdp_session(page)
    try:
        window = await asyncio.wait_for(cdp.send("Browser.getWindowForTarget"), _CDP_TIMEOUT)
        if rect is not None:
            window_id = window["windowId"]
            if window["bounds"].get("windowState", "normal") != "normal":
                await asyncio.wait_for(
                    cdp.send("Browser.setWindowBounds", {"windowId": window_id, "bounds": {"windowState": "normal"}}),
                    _CDP_TIMEOUT,
                )
            x, y, width, height = rect
            await asyncio.wait_for(
                cdp.send(
                    "Browser.setWindowBounds",
                    {"windowId": window_id, "bounds": {"left": x, "top": y, "width": width, "height": height}},
                ),
                _CDP_TIMEOUT,
            )
        return window
    finally:
        with contextlib.suppress(PlaywrightError):
            await cdp.detach()
