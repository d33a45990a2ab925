"""The learning gate, on fake windows: while a row no path fits learns one, the other rows wait for it (they replay
its path after), unless it waits for the person meanwhile."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.routine.types import PersonRequest, RowStarted, RowStatus
from tests.routine.fake_rows import Hold, ScriptedModel, fake_runner, statuses, typed


async def test_one_row_learns_the_path_while_the_others_wait_then_they_replay_it(tmp_path: Path) -> None:
    held = Hold()
    ana = typed("Ana")
    model = ScriptedModel({"Ana": [*ana[:3], held, ana[3]]})  # Ana is sent, and waits before she says done
    async with fake_runner(tmp_path, model, count=3, lanes=2) as (runner, store):
        started: list[RowStarted] = []
        runner.on("row_started", started.append)
        running = asyncio.ensure_future(runner.run())
        await asyncio.wait_for(held.reached.wait(), 30)
        assert [row.number for row in started] == [1]  # the other window has no row while Ana learns
        held.go()
        summary = await asyncio.wait_for(running, 60)
        ended = statuses(store)
    assert summary.counts == {"done": 3}
    assert ended == {1: RowStatus.DONE, 2: RowStatus.DONE, 3: RowStatus.DONE}
    assert [(row.number, row.replay) for row in started] == [(1, False), (2, True), (3, True)]
    assert model.calls.count("Ana") == 4  # Bob and Cy replay it: the model only confirms their end
    assert model.calls.count("Bob") == model.calls.count("Cy") == 1


async def test_a_row_that_learns_and_waits_for_the_person_lets_another_learn_meanwhile(tmp_path: Path) -> None:
    model = ScriptedModel({"Ana": [{"hand_off_to_user": {"reason": "Solve the check"}}, *typed("Ana")]})
    async with fake_runner(tmp_path, model, count=2, lanes=2) as (runner, store):
        asked: asyncio.Queue[PersonRequest] = asyncio.Queue()
        bob_done = asyncio.Event()
        runner.on("person_needed", asked.put_nowait)
        runner.on("row_finished", lambda event: event.number == 2 and bob_done.set())
        running = asyncio.ensure_future(runner.run())
        request = await asyncio.wait_for(asked.get(), 30)
        assert request.number == 1
        await asyncio.wait_for(bob_done.wait(), 30)  # Bob learned while Ana waited for the person
        runner.continue_row(request.id)
        summary = await asyncio.wait_for(running, 60)
        ended = statuses(store)
    assert summary.counts == {"done": 2} and ended == {1: RowStatus.DONE, 2: RowStatus.DONE}
