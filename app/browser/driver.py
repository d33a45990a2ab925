"""Playwright's driver, started before it is needed.

The driver is a Node.js process that takes about half a second to start. The command line starts it first thing,
and imports the rest of the run while it boots; the browser session then takes it instead of starting its own.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Playwright, async_playwright


class DriverStart:
    def __init__(self) -> None:
        self._starting: asyncio.Task[Playwright] = asyncio.ensure_future(async_playwright().start())
        self._taken = False

    async def take(self) -> Playwright | None:
        """The started driver, now owned by the caller; None after the first call (a relaunch starts its own)."""
        if self._taken:
            return None
        # Shielded: a stop while the driver starts leaves it to close(), which stops it once it is up.
        playwright = await asyncio.shield(self._starting)
        self._taken = True
        return playwright

    async def close(self) -> None:
        """Stop the driver if nobody took it (a run refused before Chromium starts): no Node.js process is left."""
        if self._taken:
            return
        self._taken = True
        if not self._starting.done():
            # A start cannot be abandoned half-way without leaving the process behind: let it finish, then stop it.
            await asyncio.wait({self._starting})
        if not self._starting.cancelled() and self._starting.exception() is None:
            await self._starting.result().stop()
