"""Waiting in tests: for something that sends no event, by polling the condition with a deadline; for something that
must end without waiting for something else, with a deadline far below what it must not wait for (``finishes``).

Prefer an event (a signal, a future, a request reaching the fake server, a process's exit, a line it prints) where
there is one. ``until`` polls on the running loop: under qasync, qtbot.wait/waitUntil would spin a nested loop and
hang, so panel tests wait with this too. ``sync_until`` is for a test without a loop (another process, an X server
asked through xdotool), and stops at once, with what the process said, when the process it waits on has ended.
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

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


async def finishes(awaitable: Awaitable[T], within: float, what: str) -> T:
    """``awaitable``'s result, which must come within ``within`` seconds; AssertionError naming ``what`` otherwise.

    For "this ends without waiting for that": the test makes ``that`` take far longer than ``within`` (a model reply
    held for a minute, a wait of a minute), so a loaded machine that is merely slow still passes, and code that waits
    for ``that`` fails. How fast ``this`` is, is a benchmark's figure (tests/bench), not a test's."""
    try:
        return await asyncio.wait_for(awaitable, within)
    except TimeoutError:
        raise AssertionError(f"{what} did not happen within {within} s") from None


def sync_until(
    condition: Callable[[], T],
    timeout: float = 30.0,
    message: str = "",
    *,
    alive: subprocess.Popen[Any] | None = None,
    every: float = 0.05,
) -> T:
    """The first truthy value of ``condition()``, asked every ``every`` seconds; AssertionError after ``timeout``, or
    as soon as ``alive`` (the process that should make it true) has exited."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        what = message or str(condition)
        if alive is not None and alive.poll() is not None:
            raise AssertionError(f"the process ended (exit code {alive.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)
    return value


def ended(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """``process`` asked to end (SIGTERM) and waited for, killed if it is still there after ``grace`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
