"""Waiting in tests for something that sends no event: poll the condition on the running loop, with a deadline.

Prefer an event (a signal, a future, a request reaching the fake server) where there is one. Under qasync,
qtbot.wait/waitUntil would spin a nested loop and hang, so panel tests wait with this too.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def until(condition: Callable[[], T | Awaitable[T]], timeout: float = 10.0, message: str = "") -> T:
    """The first truthy value of ``condition()`` (a plain or an async function); AssertionError after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {message or condition}")
        await asyncio.sleep(0.01)
