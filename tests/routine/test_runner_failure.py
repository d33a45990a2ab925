"""A fault of the program in one of the routine's workers ends the whole run with that error: the rows in flight in
the other windows are cancelled (never left running behind a run that has ended) and end ``interrupted``, never
``done``; the rows not begun are not run."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.routine.types import MaybeSent, RowFinished, RowStatus
from tests.routine.fake_rows import Hold, ScriptedModel, fake_runner, statuses, typed


async def test_one_workers_error_cancels_the_rows_in_flight_beside_it_and_ends_the_run_with_it(
    tmp_path: Path,
) -> None:
    held = Hold()
    # Bob is typed in, then waits before Save; Ana ends once he waits.
    model = ScriptedModel({"Ana": [Hold(until=held.reached)], "Bob": [*typed("Bob")[:2], held]})
    broken = RuntimeError("the lane broke")
    async with fake_runner(tmp_path, model, count=3, lanes=2, replay=False, broken=broken) as (runner, store):
        finished: list[RowFinished] = []
        runner.on("row_finished", finished.append)
        with pytest.raises(RuntimeError, match="the lane broke"):
            await runner.run()  # Ana ends, her lane breaks: while Bob waits in the other window
        assert held.cancelled  # Bob's row is not left running behind the run
        assert model.calls.count("Cy") == 0  # nor is any row begun after the error
        ended = statuses(store)
    assert ended[1] == RowStatus.DONE
    assert ended[2] == RowStatus.INTERRUPTED  # cancelled in flight: its data may have gone, it is not run blindly
    assert ended.get(3) != RowStatus.DONE
    said = {event.number: event.outcome for event in finished}
    assert said[2].maybe_sent == MaybeSent.ERROR and "ended on an error while this row was running" in said[2].result
    assert said[3].status == RowStatus.ERROR and "ended on an error before this row started" in said[3].result
