"""The pill's coalescing that keeps fast-changing text readable (its words are tested in tests/text).

The pill reads an injected clock: the tests step it instead of waiting out the hold, and wait only for the pill's own
timer to show a held text (its textChanged signal).
"""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app.ui.status_pill import MIN_HOLD_MS, PillState, StatusPill
from tests.waiting import until


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += ms / 1000


async def test_fast_activity_is_coalesced(qapp: QApplication) -> None:
    clock = Clock()
    pill = StatusPill(clock=clock)
    shown: list[str] = []
    pill.textChanged.connect(shown.append)
    pill.set_state(PillState.RUNNING, "Thinking…")
    for text in ("Clicking [1]…", "Clicked [1] Save", "Thinking…", "Typing into [3]…"):
        clock.advance(MIN_HOLD_MS / 10)
        pill.set_activity(text)
    assert shown == ["Thinking…"]  # held: each text stays readable
    await until(lambda: len(shown) > 1, message="the held text shown")
    assert shown == ["Thinking…", "Typing into [3]…"]  # only the latest of a burst is shown
    clock.advance(MIN_HOLD_MS - 1)
    pill.set_activity("Clicking [4]…")
    assert shown[-1] == "Typing into [3]…"  # still inside its hold
    clock.advance(MIN_HOLD_MS)
    pill.set_state(PillState.RUNNING, "Thinking…")
    clock.advance(MIN_HOLD_MS + 1)
    pill.set_activity("Scrolling…")
    assert shown[-1] == "Scrolling…"  # after a quiet spell a new text shows at once


async def test_state_changes_are_never_held_back(qapp: QApplication) -> None:
    clock = Clock()
    pill = StatusPill(clock=clock)
    states: list[PillState] = []
    pill.stateChanged.connect(states.append)
    pill.set_state(PillState.RUNNING)
    pill.set_detail("Step 6 of 40")
    pill.set_activity("Clicking [2]…")
    pill.set_state(PillState.STOPPING)
    assert pill.text() == "Stopping…" and pill.detail() == "Step 6 of 40"
    clock.advance(MIN_HOLD_MS * 2)
    pill.set_activity("Thinking…")  # late activity during a stop is ignored, even once the hold is over
    assert pill.text() == "Stopping…"
    pill.set_state(PillState.STOPPED)
    assert pill.text() == "Stopped" and pill.detail() == ""
    assert states == [PillState.RUNNING, PillState.STOPPING, PillState.STOPPED]
    assert "Stopped" in pill.accessibleDescription()
