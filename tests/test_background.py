"""Work nobody awaits is held until it ends, and what it raises is logged, not lost."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from app.background import Background


async def test_a_failure_is_logged_with_its_owner_and_traceback(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> None:
        raise ValueError("the disk is full")

    background = Background("downloads")
    with caplog.at_level(logging.ERROR, logger="app.background"):
        task = background.spawn(broken())
        await asyncio.wait([task])
        await asyncio.sleep(0)  # done callbacks run on the next turn of the loop
    assert len(background) == 0
    [record] = caplog.records
    assert record.getMessage() == "downloads: background work failed"
    assert record.exc_info and isinstance(record.exc_info[1], ValueError)


async def test_a_task_nobody_else_holds_runs_to_its_end() -> None:
    finished = asyncio.Event()

    async def slow() -> None:
        await asyncio.sleep(0.01)
        finished.set()

    background = Background("panel")
    background.spawn(slow())
    gc.collect()
    await asyncio.wait_for(finished.wait(), 2)


async def test_cancel_all_spares_the_task_that_asks_and_logs_no_failure(caplog: pytest.LogCaptureFixture) -> None:
    background = Background("history")
    waiting = background.spawn(asyncio.Event().wait())

    async def closing() -> str:
        background.cancel_all()
        await asyncio.sleep(0)
        return "closed"

    asker = background.spawn(closing())
    assert await asker == "closed"
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.sleep(0)
    assert len(background) == 0 and not caplog.records
