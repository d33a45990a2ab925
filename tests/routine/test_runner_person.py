"""The person queue, on fake windows: the rows that hand over wait there in the order they came while the other
rows go on; a row the person carries on finishes, one they give up ends ``needs_person`` (tried again next run)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.routine.types import PersonRequest, RowFinished, RowStatus
from tests.routine.fake_rows import ScriptedModel, fake_runner, statuses, typed

CHECK = {"hand_off_to_user": {"reason": "Solve the check"}}


async def test_hand_offs_wait_in_order_while_the_other_rows_go_on_and_continue_finishes_them(tmp_path: Path) -> None:
    model = ScriptedModel({"Ana": [CHECK, *typed("Ana")], "Bob": [CHECK, *typed("Bob")]})
    async with fake_runner(tmp_path, model, count=4, lanes=3, replay=False) as (runner, store):
        asked: list[PersonRequest] = []
        two_asked, others_done = asyncio.Event(), asyncio.Event()
        finished: list[RowFinished] = []

        def needed(request: PersonRequest) -> None:
            asked.append(request)
            if len(asked) == 2:
                two_asked.set()

        def ended(event: RowFinished) -> None:
            finished.append(event)
            if {row.number for row in finished} == {3, 4}:
                others_done.set()

        runner.on("person_needed", needed)
        runner.on("row_finished", ended)
        running = asyncio.ensure_future(runner.run())
        await asyncio.wait_for(asyncio.gather(two_asked.wait(), others_done.wait()), 30)
        assert runner.person_queue.requests == asked  # oldest first, still waiting while Cy and Dee ended
        assert {request.number for request in asked} == {1, 2}
        assert all(request.kind == "hand_off" for request in asked)
        for request in asked:
            runner.continue_row(request.id, "done it")
        summary = await asyncio.wait_for(running, 60)
        states = statuses(store)
    assert summary.counts == {"done": 4} and set(states.values()) == {RowStatus.DONE}
    assert runner.person_queue.requests == []


async def test_a_row_given_up_ends_needs_person_and_the_others_finish(tmp_path: Path) -> None:
    model = ScriptedModel({"Bob": [CHECK, *typed("Bob")]})
    async with fake_runner(tmp_path, model, count=3, lanes=2, replay=False) as (runner, store):
        asked: asyncio.Queue[PersonRequest] = asyncio.Queue()
        runner.on("person_needed", asked.put_nowait)
        finished: list[RowFinished] = []
        runner.on("row_finished", finished.append)
        running = asyncio.ensure_future(runner.run())
        request = await asyncio.wait_for(asked.get(), 30)
        runner.give_up(request.id)
        summary = await asyncio.wait_for(running, 60)
        states = statuses(store)
    assert states == {1: RowStatus.DONE, 2: RowStatus.NEEDS_PERSON, 3: RowStatus.DONE}
    assert summary.counts == {"done": 2, "needs_person": 1}
    bob = next(event.outcome for event in finished if event.number == 2)
    assert bob.result.startswith("You gave this row up") and "Solve the check" in bob.result
    assert model.calls.count("Bob") == 1  # given up at the hand-off: the model is not asked again
