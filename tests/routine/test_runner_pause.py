"""Pause, resume and stop, on fake windows: a paused row holds after its step and no row starts until resume; a stop
ends the rows in flight (``interrupted`` once one may have sent its data) and skips the rest."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.routine.types import RowStatus
from tests.routine.fake_rows import Hold, ScriptedModel, fake_runner, pause_at, statuses, typed


async def test_a_paused_row_holds_after_its_step_and_no_row_starts_until_resume(tmp_path: Path) -> None:
    model = ScriptedModel({"Ana": typed("Ana")})
    async with fake_runner(tmp_path, model, count=3, replay=False) as (runner, store):
        watch = pause_at(runner, 1)
        seen = watch.seen
        running = asyncio.ensure_future(runner.run())
        await asyncio.wait_for(watch.held.wait(), 30)
        assert runner.paused and runner.progress().paused
        assert model.calls == ["Ana"]  # its first step done, it holds before the next call
        seen.append(("resumed", 0))
        runner.resume()
        summary = await asyncio.wait_for(running, 60)
        ended = statuses(store)
    assert summary.counts == {"done": 3} and set(ended.values()) == {RowStatus.DONE}
    assert seen.index(("held", 1)) < seen.index(("resumed", 0)) < seen.index(("started", 2))
    assert model.calls.count("Ana") == 4


async def test_stop_ends_the_rows_in_flight_and_skips_the_rest(tmp_path: Path) -> None:
    ana, bob = Hold(), Hold()
    save = {"click_element_by_index": {"index": 3}}  # Bob's Save has begun: his data may have gone
    model = ScriptedModel({"Ana": [ana], "Bob": [save, bob]})
    async with fake_runner(tmp_path, model, count=4, lanes=2, replay=False) as (runner, store):
        running = asyncio.ensure_future(runner.run())
        await asyncio.wait_for(asyncio.gather(ana.reached.wait(), bob.reached.wait()), 30)
        await asyncio.wait_for(runner.stop(), 30)
        summary = await asyncio.wait_for(running, 30)
        ended = statuses(store)
    assert summary.stopped and ana.cancelled and bob.cancelled
    assert ended == {1: RowStatus.STOPPED, 2: RowStatus.INTERRUPTED}
    assert summary.counts == {"stopped": 1, "interrupted": 1, "skipped": 2}  # Cy and Dee never began
    assert sorted(model.calls) == ["Ana", "Bob", "Bob"]
