"""The routine's exit code: the worst row wins (2 an error or an interrupted row, 3 stopped, 4 a person is needed,
1 failed, 0 all done), and a routine the person stopped exits 3 even where its Stop left a row interrupted."""

from __future__ import annotations

import pytest

from app.cli.routine import exit_code


@pytest.mark.parametrize(
    ("counts", "stopped", "code"),
    [
        ({"done": 3}, False, 0),
        ({"done": 2, "failed": 1}, False, 1),
        ({"failed": 1, "needs_person": 1}, False, 4),
        ({"needs_person": 1, "stopped": 1, "skipped": 2}, False, 3),
        ({"stopped": 1, "interrupted": 1}, False, 2),  # a row that died with its process: one to look at
        ({"error": 1, "stopped": 1}, False, 2),
        ({"done": 1, "interrupted": 1, "stopped": 1, "skipped": 1}, True, 3),  # the Stop caught a row past Save
        ({"done": 1, "interrupted": 1, "skipped": 2}, True, 3),
        ({"error": 1, "interrupted": 1, "skipped": 1}, True, 2),  # an error stays the worst
        ({"done": 4}, True, 0),  # stopped after the last row ended: nothing was cut short
    ],
)
def test_the_worst_row_wins_and_a_stop_exits_3(counts: dict[str, int], stopped: bool, code: int) -> None:
    assert exit_code(counts, stopped) == code
